#!/usr/bin/env bash
# The soak of `escapade serve --record` (issue 27): a thousand WebSocket sessions under
# the default limit on open files (1,024 soft), slow clients mixed in, then SIGTERM;
# every finished and every in-flight episode must have its row. Prints the figures (RSS,
# open files, rows) as JSON. See scripts/soak.py for what it does and its options, e.g.
#   scripts/soak.sh --ulimit "-n 1024"     # hard limit 1,024 too: nothing to raise
#
# Usage: scripts/soak.sh [soak.py options]   (the release binary: cargo build --release -p escapade)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${ESCAPADE_BIN:-${CARGO_TARGET_DIR:-$PWD/target}/release/escapade}
[ -x "$bin" ] || { echo "soak: no binary at $bin (cargo build --release -p escapade)" >&2; exit 2; }
venv=${ESCAPADE_VENV:-$PWD/.venv}
python=$venv/bin/python
[ -x "$python" ] || python=python3
"$python" -c 'import websockets' 2>/dev/null || {
  echo "soak: $python has no websockets (scripts/venv.sh makes a venv with it)" >&2; exit 2; }
exec "$python" scripts/soak.py --binary "$bin" "$@"
