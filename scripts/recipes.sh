#!/usr/bin/env bash
# Runs the training recipes for real (docs/training.md, "Recipes"): the verifiers
# environment `examples/escapade_env` evaluated with `vf-eval` against the built-in local
# model's llama.cpp server, and `examples/trl_grpo.py` for 2 GRPO steps on CPU with
# SmolLM2-135M read from the local GGUF weights. Fails unless every rollout ends without
# error and the training logs finite losses with rewards from escapade.
#
# Heavy (about 5 GB of venv, minutes per step on 2 cores), so not part of .ci/run: run on
# a schedule, or `ESCAPADE_RECIPES=1 cargo test -p escapade --test recipes`.
# Needs scripts/install.sh first (the `escapade` wheel and `escapade setup`'s model).
# Env: ESCAPADE_TRAIN_VENV (default .venv-train), RECIPE_SUITES (vf-eval's, default "tools"),
# RECIPE_TRL_SUITE (GRPO's, default vis), RECIPE_REWARD (default distance), RECIPE_OUT
# (default a temporary directory).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${ESCAPADE_TRAIN_VENV:-.venv-train}"
case "$VENV" in /*) ;; *) VENV="$PWD/$VENV" ;; esac   # PATH below needs it absolute
SUITES="${RECIPE_SUITES:-tools}"
REWARD="${RECIPE_REWARD:-distance}"
# VisEscape's prompt lists the actions, so some of SmolLM2's short replies are actions and
# a group's rewards differ (GRPO's learning signal); in the tools world none were
TRL_SUITE="${RECIPE_TRL_SUITE:-vis}"
OUT="${RECIPE_OUT:-$(mktemp -d)}"
CACHE="${ESCAPADE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/escapade}"
LOCAL="$CACHE/local"
WEIGHTS="$LOCAL/models/SmolLM2-135M-Instruct.Q4_1.gguf"
[ -f "$WEIGHTS" ] || { echo "recipes: $WEIGHTS missing: run escapade setup (scripts/install.sh)" >&2; exit 1; }
wheel=$(ls "${CARGO_TARGET_DIR:-target}"/wheels/escapade/escapade-*.whl 2>/dev/null | head -1 || true)

start=$(date +%s)
if [ ! -x "$VENV/bin/python" ]; then python3 -m venv "$VENV"; fi
if ! cmp -s examples/requirements-train.txt "$VENV/.escapade-train"; then
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r examples/requirements-train.txt
  # torch's Triton compiler is for GPUs; CPU training never loads it (1 GB)
  "$VENV/bin/python" -m pip uninstall -q -y triton || true
  cp examples/requirements-train.txt "$VENV/.escapade-train"
fi
if [ -n "$wheel" ]; then
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps --force-reinstall "$wheel"
fi
"$VENV/bin/python" -c "import escapade" || { echo "recipes: no escapade package: run scripts/install.sh" >&2; exit 1; }
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps -e examples/escapade_env
echo "recipes: venv $(du -sh "$VENV" | cut -f1), ready in $(( $(date +%s) - start )) s" >&2

# the local model's server, as escapade-llm starts it: it lives while its stdin is open;
# the context is shared by the parallel slots, and a VisEscape prompt needs over 4096 tokens
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkfifo "$OUT/llama.in"
PYTHONPATH="$LOCAL/site" PYTHONNOUSERSITE=1 python3 -s "$LOCAL/escapade_server.py" \
  --model "$WEIGHTS" --port "$port" --threads 2 --ctx 16384 --parallel 2 --alias smollm2 \
  < "$OUT/llama.in" > "$OUT/llama.log" 2>&1 &
server=$!
exec 3> "$OUT/llama.in"   # holds the server's stdin open; closing it stops the server
trap 'exec 3>&-; kill $server 2>/dev/null || true' EXIT
for _ in $(seq 120); do
  curl -sf "http://127.0.0.1:$port/health" >/dev/null && break
  kill -0 $server 2>/dev/null || { cat "$OUT/llama.log" >&2; exit 1; }
  sleep 1
done

export PATH="$VENV/bin:$PATH" ESCAPADE_LOCAL_KEY=none
for suite in $SUITES; do
  t=$(date +%s)
  vf-eval escapade-env --env.taskset.suite "$suite" --env.taskset.reward "$REWARD" \
    --env.taskset.num-tasks 2 --env.taskset.max-turns 4 \
    --env.player.harness.id null --env.player.runtime.type subprocess \
    -m smollm2 --client.base-url "http://127.0.0.1:$port/v1" --client.api-key-var ESCAPADE_LOCAL_KEY \
    -n 2 -r 1 --no-push -o "$OUT/vf-$suite" > "$OUT/vf-$suite.log" 2>&1
  "$VENV/bin/python" - "$OUT/vf-$suite" <<'PY'
import json, pathlib, sys
rows = [json.loads(l) for p in pathlib.Path(sys.argv[1]).rglob("traces.jsonl") for l in open(p)]
# escapade's episode summary is in each trace's info (verifiers 0.4), or the row's
def infos(r):
    return [t.get("info") or {} for t in r.get("traces") or []] + [r.get("info") or {}]
played = [r for r in rows if any("escapade" in i for i in infos(r))]
errors = [r for r in rows if r.get("errors")]
print(f"recipes: vf-eval {sys.argv[1]}: {len(rows)} rollouts, {len(played)} played by escapade, {len(errors)} errors")
sys.exit(1 if errors or not played or len(played) != len(rows) else 0)
PY
  echo "recipes: vf-eval $suite took $(( $(date +%s) - t )) s" >&2
done

timer=(); [ -x /usr/bin/time ] && timer=(/usr/bin/time -v)
"${timer[@]}" "$VENV/bin/python" examples/trl_grpo.py --suite "$TRL_SUITE" --reward "$REWARD" \
  --max-steps 2 --output-dir "$OUT/trl" --summary "$OUT/trl-summary.json" > "$OUT/trl.log" 2>&1 \
  || { tail -30 "$OUT/trl.log" >&2; exit 1; }
grep -E "Maximum resident|Elapsed" "$OUT/trl.log" >&2 || true
cat "$OUT/trl-summary.json"
# whole episodes through TRL's environment_factory (the room's `act` as the model's tool)
"${timer[@]}" "$VENV/bin/python" examples/trl_env.py --suite "$TRL_SUITE" --reward "$REWARD" \
  --max-steps 2 --output-dir "$OUT/trl-env" --summary "$OUT/trl-env-summary.json" > "$OUT/trl-env.log" 2>&1 \
  || { tail -30 "$OUT/trl-env.log" >&2; exit 1; }
grep -E "Maximum resident|Elapsed" "$OUT/trl-env.log" >&2 || true
cat "$OUT/trl-env-summary.json"
echo "recipes: passed ($OUT)" >&2
