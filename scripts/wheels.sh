#!/usr/bin/env bash
# Builds what a release publishes into target/wheels/dist/: the abi3 wheel for CPython
# >= 3.10 on x86-64 Linux with glibc >= 2.28 (manylinux_2_28, linked by zig against
# glibc 2.28's symbols, so no Docker image is needed) and the sdist. Checks the wheel's
# tag and the newest GLIBC symbol version its module needs. A full release build in its
# own target directory (target/x86_64-unknown-linux-gnu): about 13 CPU-minutes, 36 minutes
# wall on the 2 shared cores it was measured on; CI does not run it (scripts/install.sh
# keeps its host build, which shares the binary's compiled crates).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${ESCAPADE_VENV:-.venv}"
bash scripts/venv.sh
out="${CARGO_TARGET_DIR:-target}/wheels/dist"
rm -rf "$out"
# maturin finds zig through the venv's `python -m ziglang`
export PATH="$PWD/$VENV/bin:$PATH"
maturin build --release --compatibility manylinux_2_28 --zig -m python/Cargo.toml \
  -i "$VENV/bin/python" --out "$out"
maturin sdist -m python/Cargo.toml --out "$out"
auditwheel show "$out"/escapade-*.whl
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
"$VENV/bin/python" -m zipfile -e "$out"/escapade-*manylinux_2_28*.whl "$tmp"
newest="$(objdump -T "$tmp"/escapade/_escapade*.so | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)"
echo "escapade: newest glibc symbol the module needs: $newest" >&2
case "$newest" in
  GLIBC_2.2[0-8]|GLIBC_2.1*|GLIBC_2.[0-9]|GLIBC_2.[0-9].*) ;;
  *) echo "escapade: $newest is newer than manylinux_2_28 allows" >&2; exit 1 ;;
esac
ls -l "$out"
