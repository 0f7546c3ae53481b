#!/usr/bin/env bash
# Makes the project's Python virtual environment, `.venv` (or $ESCAPADE_VENV), with the
# real client libraries the tests play escapade against (openenv-core, mcp, gymnasium,
# pettingzoo, inspect-ai, ray) and maturin, pinned in python/requirements-dev.txt.
# Idempotent: an environment whose pins are already installed is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${ESCAPADE_VENV:-.venv}"
PY="${ESCAPADE_PYTHON:-python3}"
REQ=python/requirements-dev.txt
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV" || {
    echo "escapade: cannot make a virtual environment with $PY (apt-get install python3-venv)" >&2
    exit 1
  }
fi
stamp="$VENV/.escapade-requirements"
if ! cmp -s "$REQ" "$stamp" 2>/dev/null; then
  echo "escapade: installing the Python test clients into $VENV (about a minute)" >&2
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$REQ"
  cp "$REQ" "$stamp"
fi
