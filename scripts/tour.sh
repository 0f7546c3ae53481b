#!/usr/bin/env bash
# Runs every command of the README's "A short tour" as written, in a scratch directory,
# with the release binary (build it first: `cargo build --release -p escapade`).
#
# A tour command either runs (exit 0), or needs something a reader brings and we cannot:
# - a model API key (`openai/…`, `anthropic/…`): run with no key, it must stop at once
#   with an error naming the key's variable and leave no run directory behind;
# - a model server (`--base-url http://localhost:8000/v1`): nothing listens there, so it
#   must fail with a connection error, not hang;
# - a copy of a dataset or benchmark (VisEscape-demo/, PAD-UFES-20/, puzzles.json,
#   level.json): absent, it must fail with an error naming the path.
# `estimate` prices a model's tokens without a key; `resume runs/` may find nothing interrupted.
# A benchmark runs to the end and prints its table; it exits 1 when this machine missed a
# target, which says something about the machine, not the tour, so that counts as run.
# Placeholders are filled in: `runs/<dir>` is the newest run directory, `runs/a runs/b`
# two earlier ones of one suite, `my-room.toml` a room of crates/escapade-vis/rooms/. Interactive
# `play` reads an empty stdin and must end cleanly. A server (`view`, `play --web`,
# `serve`, `mcp --http`) must print its address within a minute and answer there with 200
# (a page; MCP: a client's `initialize`); it is then stopped with Ctrl-C (SIGINT) and
# must exit cleanly.
#
# Usage: scripts/tour.sh [path/to/escapade]   (default: $CARGO_TARGET_DIR or target, /release/escapade)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${1:-${CARGO_TARGET_DIR:-$root/target}/release/escapade}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
[ -x "$bin" ] || { echo "tour: no binary at $bin (cargo build --release -p escapade)" >&2; exit 2; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"
cp "$(ls "$root"/crates/escapade-vis/rooms/*.toml | head -n1)" my-room.toml
unset OPENAI_API_KEY ANTHROPIC_API_KEY OPENAI_BASE_URL

# the tour's commands: the lines of the first ```sh block after "## A short tour"
mapfile -t lines < <(awk '/^## A short tour/{t=1} t&&/^```sh/{b=1;next} b&&/^```/{exit} b' "$root/README.md")
[ ${#lines[@]} -gt 10 ] || { echo "tour: found no tour in README.md" >&2; exit 2; }

# starts a server (browser, OpenEnv, MCP over HTTP), fetches the address it prints, stops it with SIGINT; prints
# what went wrong, or nothing
serve_once() {
  local log url code
  log=$(mktemp)
  bash -c "exec $1" </dev/null >"$log" 2>&1 &
  local pid=$!
  for _ in $(seq 120); do
    url=$(grep -o 'http://[^ ]*' "$log" | head -n1 || true)
    [ -n "$url" ] && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.5
  done
  if [ -z "$url" ]; then
    kill -INT $pid 2>/dev/null; wait $pid 2>/dev/null
    echo "printed no address: $(tail -n 3 "$log" | tr '\n' ' ')"; rm -f "$log"; return
  fi
  if [[ $1 == *" mcp "* ]]; then
    # an MCP server answers a client's first message, not a plain GET
    code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
      -H 'Accept: application/json, text/event-stream' \
      -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"tour","version":"1"}}}' \
      "$url" || true)
  else
    code=$(curl -s -o /dev/null -w '%{http_code}' "$url" || true)
  fi
  kill -INT $pid 2>/dev/null
  local status=0
  wait $pid 2>/dev/null || status=$?
  if [ "$code" != 200 ]; then echo "$url answered $code"
  elif [ $status -ne 0 ] && [ $status -ne 130 ]; then echo "exit $status after Ctrl-C"
  fi
  rm -f "$log"
}

newest_run() { ls -1dt runs/*/ 2>/dev/null | head -n1 || true; }
failures=0
n=0
for line in "${lines[@]}"; do
  cmd=${line%%#*}                      # drop the comment
  cmd=$(echo "$cmd" | sed -e 's/[[:space:]]*$//')
  [ -n "$cmd" ] || continue
  n=$((n + 1))
  runs=$(ls -1dt runs/*/ 2>/dev/null | tr '\n' ' ' || true)
  read -r -a recent <<<"$runs"
  if [[ $cmd == *'runs/<dir>'* ]]; then
    cmd=${cmd//runs\/<dir>/$(newest_run)}
  fi
  if [[ $cmd == *'runs/a runs/b'* ]]; then
    [ ${#recent[@]} -ge 2 ] || { echo "tour: fewer than two runs before: $line" >&2; failures=$((failures + 1)); continue; }
    # two runs of one suite (the newest, and the newest before it of the same suite), so
    # that they share scenarios to pair; else the two newest
    pair="${recent[1]} ${recent[0]}"
    for r in "${recent[@]:1}"; do
      if [ "$(grep -m1 '^suite' "$r/run.toml")" = "$(grep -m1 '^suite' "${recent[0]}/run.toml")" ]; then
        pair="$r ${recent[0]}"; break
      fi
    done
    cmd=${cmd//runs\/a runs\/b/$pair}
  fi
  cmd=${cmd/#escapade /$bin }
  expect=ok
  case "$cmd" in
    *openai-compatible/*--base-url*) expect=no-server ;;
    "$bin estimate"*) expect=ok ;;   # prices tokens from the table: no key, no request
    *' openai/'* | *' anthropic/'* | *'-model openai/'* | *'-model anthropic/'*) expect=no-key ;;
    *VisEscape-demo/* | *PAD-UFES-20/* | *puzzles.json* | *level.json*) expect=no-data ;;
    "$bin bench"*) expect=bench ;;
    "$bin resume runs/") expect=resume-folder ;;
    "$bin view"* | "$bin play --web"* | "$bin serve"* | "$bin mcp --http"*) expect=server ;;
  esac
  if [ $expect = server ]; then
    verdict=$(serve_once "$cmd")
    if [ -n "$verdict" ]; then
      failures=$((failures + 1)); echo "FAIL (server: $verdict): $line" >&2
    else
      echo "ok (server): ${line%%#*}"
    fi
    continue
  fi
  before=$(ls -1d runs/*/ 2>/dev/null | wc -l || true)
  set +e
  out=$(timeout 600 bash -c "$cmd" </dev/null 2>&1)
  code=$?
  set -e
  after=$(ls -1d runs/*/ 2>/dev/null | wc -l || true)
  verdict=""
  case $expect in
    ok) [ $code -eq 0 ] || verdict="exit $code" ;;
    bench)
      if [ $code -ne 0 ] && ! grep -q 'missed its target' <<<"$out"; then verdict="exit $code"; fi ;;
    no-key)
      if [ $code -eq 0 ]; then verdict="ran without a key"
      elif ! grep -q '_API_KEY' <<<"$out"; then verdict="error does not name the key's variable"
      elif [ "$after" -ne "$before" ]; then verdict="left a run directory"
      fi ;;
    no-server)
      if [ $code -eq 0 ] || [ $code -eq 124 ]; then verdict="exit $code with no server"
      elif ! grep -qi 'connect\|refused' <<<"$out"; then verdict="error does not say it cannot connect"
      fi
      # the run it left waits for a server the reader brings: later placeholders
      # (runs/<dir>, runs/a runs/b) and `resume runs/` are about the tour's own runs
      for d in runs/*/; do
        [[ " $runs " == *" $d "* ]] || rm -rf "$d"
      done ;;
    resume-folder)
      # nothing interrupted is an answer too: the tour's runs all finished
      if [ $code -ne 0 ] && ! grep -q 'no interrupted run under' <<<"$out"; then verdict="exit $code"; fi ;;
    no-data)
      path=$(grep -o 'VisEscape-demo/\|PAD-UFES-20/\|puzzles.json\|level.json' <<<"$cmd" | head -n1)
      if [ $code -eq 0 ]; then verdict="ran without its data"
      elif ! grep -qF "${path%/}" <<<"$out"; then verdict="error does not name ${path%/}"
      fi ;;
  esac
  if [ -n "$verdict" ]; then
    failures=$((failures + 1))
    echo "FAIL ($expect: $verdict): $line" >&2
    echo "$out" | tail -n 15 | sed 's/^/    /' >&2
  else
    echo "ok ($expect): ${line%%#*}"
  fi
done
echo "tour: $n commands, $failures failed"
[ $failures -eq 0 ]
