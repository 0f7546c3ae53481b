#!/usr/bin/env bash
# Installs what escapade needs beyond the Rust toolchain pinned in rust-toolchain.toml:
# a system Python 3 for the tools world's sandboxed `python_exec` (the sandbox drops to
# an unprivileged user when run as root, so the interpreter must live outside /root).
set -euo pipefail
if [ ! -x /usr/bin/python3 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq python3 >/dev/null
  else
    echo "escapade needs python3 at /usr/bin/python3 (or on PATH)" >&2
  fi
fi
command -v cargo >/dev/null || { echo "escapade needs cargo (rustup, toolchain in rust-toolchain.toml)" >&2; exit 1; }
cargo build --release -p escapade --quiet
