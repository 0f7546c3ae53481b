"""Inspect AI: each suite's task played by Inspect's mockllm model replaying the oracle's
moves reaches success and scores escapade's metrics; a model that does nothing useful
does not."""

from __future__ import annotations

import json

import pytest

inspect_ai = pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from escapade.inspect_tasks import agentescape, comma, escapade as any_suite, mmescape, visescape  # noqa: E402
from oracle import oracle_moves  # noqa: E402

LOGS = __import__("pathlib").Path(__import__("tempfile").mkdtemp(prefix="escapade-inspect-"))

CASES = [
    ("agentescape", agentescape, {}),
    ("visescape", visescape, {}),
    ("mm-escape", mmescape, {"width": 64, "height": 32}),
    ("comma", comma, {}),
]


def outputs(moves: list) -> list[ModelOutput]:
    out = []
    for move in moves:
        if isinstance(move, dict):
            out.append(ModelOutput.for_tool_call("mockllm/model", move["name"], json.loads(move["arguments"])))
        else:
            out.append(ModelOutput.from_content("mockllm/model", move))
    # with usage set, mockllm does not count tokens (tiktoken would download its tables)
    for o in out:
        o.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return out


def run(task, moves):
    model = get_model("mockllm/model", custom_outputs=outputs(moves))
    [log] = inspect_eval(task, model=model, display="none", log_dir=str(LOGS))
    assert log.status == "success", log.error
    return log


@pytest.mark.parametrize("source,make_task,options", CASES, ids=[c[0] for c in CASES])
def test_the_oracle_moves_escape_and_score_the_metrics(source, make_task, options):
    role = {"role": "solver", "partner": "oracle-talk", "kind": "oracle-talk"} if source == "comma" else {}
    moves = oracle_moves(source, 0, 0, **role, **options)
    log = run(make_task(limit=1, **options), moves)
    [sample] = log.samples
    [score] = sample.scores.values()
    assert score.value["success"] == 1.0
    assert score.value["steps"] >= 1
    outcome = json.loads(score.explanation)
    assert outcome["success"] and outcome["finished"]
    assert set(outcome["metrics"]) <= set(score.value)
    reported = {
        (s.name, m.name): m.value for s in log.results.scores for m in s.metrics.values()
    }
    assert any(name == "success" and value == 1.0 for (name, _), value in reported.items()), reported


def test_a_model_that_says_nothing_useful_does_not_escape():
    moves = ["I do not know."] * 3
    log = run(any_suite(source="visescape", limit=1, max_turns=3), moves)
    [sample] = log.samples
    [score] = sample.scores.values()
    assert score.value["success"] == 0.0
    assert json.loads(score.explanation)["finished"] is False


def test_no_tool_returns_ground_truth():
    from escapade.inspect_tasks import _tool_defs

    env = __import__("escapade").EscapadeEnv("agentescape", scenario=0)
    _, info = env.reset(seed=0)
    names = {t.name for t in _tool_defs(info["tool_schemas"])}
    assert names == {s["name"] for s in info["tool_schemas"]}
    assert not any("oracle" in n or "answer" == n for n in names)


def test_inspect_finds_the_tasks_through_the_entry_point():
    from importlib.metadata import entry_points

    [point] = [p for p in entry_points(group="inspect_ai") if p.name == "escapade"]
    assert point.value == "escapade._registry"
    moves = oracle_moves("agentescape", 0, 0)
    model = get_model("mockllm/model", custom_outputs=outputs(moves))
    [log] = inspect_eval("escapade/agentescape", model=model, task_args={"limit": 1}, display="none", log_dir=str(LOGS))
    assert log.status == "success", log.error
    [score] = log.samples[0].scores.values()
    assert score.value["success"] == 1.0


def as_calls(world: str, moves: list) -> list[dict]:
    """The oracle's text moves as the function calls a tool-calling model makes."""
    calls = []
    for move in moves:
        if world != "tools":
            calls.append({"name": "act", "arguments": json.dumps({"action": move})})
            continue
        verb, _, rest = move.partition(" ")
        if verb == "investigate":
            args = {"node_id": rest}
        elif verb == "call":
            node, _, parameters = rest.partition(" ")
            args = {"node_id": node, "parameters": json.loads(parameters)}
            verb = "call_tool"
        else:
            args = {"answer": rest}
        calls.append({"name": verb, "arguments": json.dumps(args)})
    return calls


@pytest.mark.parametrize(
    "source,world,make_task,options",
    [
        ("agentescape", "tools", agentescape, {}),
        ("visescape", "vis", visescape, {}),
        ("comma", "comma", comma, {}),
    ],
    ids=["agentescape", "visescape", "comma"],
)
def test_the_oracle_escapes_through_tool_calls(source, world, make_task, options):
    role = {"role": "solver", "partner": "oracle-talk", "kind": "oracle-talk"} if world == "comma" else {}
    moves = as_calls(world, oracle_moves(source, 0, 0, **role, **options))
    log = run(make_task(limit=1, **options), moves)
    [sample] = log.samples
    [score] = sample.scores.values()
    assert score.value["success"] == 1.0, score.explanation
    tool_messages = [m for m in sample.messages if m.role == "tool"]
    assert len(tool_messages) == len(moves), "every call is answered by a tool message"


def _inspect_cli(*args: str, cwd, timeout=240):
    """Inspect's own command line, as a user runs it, with tiktoken's table cache empty
    (no network here: the registries only)."""
    import os
    import subprocess
    import sys
    import tempfile

    cache = tempfile.mkdtemp(prefix="escapade-tiktoken-")  # empty: as on a new machine
    env = dict(os.environ, TIKTOKEN_CACHE_DIR=cache, NO_COLOR="1")
    inspect = os.path.join(os.path.dirname(sys.executable), "inspect")
    command = [inspect, *args] if os.path.exists(inspect) else [sys.executable, "-m", "inspect_ai", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def test_inspect_eval_with_mockllm_runs_offline(tmp_path):
    # mockllm invents its token usage by counting with tiktoken's o200k_base table,
    # which tiktoken downloads on first use: offline the sample used to fail there
    done = _inspect_cli(
        "eval", "escapade/agentescape", "--model", "mockllm/model", "-T", "limit=1",
        "-T", "max_turns=2", "--log-dir", str(tmp_path / "logs"), "--display", "plain", cwd=tmp_path,
    )
    text = done.stdout + done.stderr
    assert done.returncode == 0, text
    assert "o200k_base" not in text and "ConnectionError" not in text, text
    from inspect_ai.log import list_eval_logs, read_eval_log

    [info] = list_eval_logs(str(tmp_path / "logs"))
    log = read_eval_log(info)
    assert log.status == "success", log.error
    assert len(log.samples) == 1 and log.samples[0].scores


def test_inspect_lists_the_installed_tasks():
    # Inspect lists the tasks of files under a directory (relative paths only); the
    # docs give the line that lists the installed package's (docs/python.md, Inspect)
    import pathlib

    import escapade.inspect_tasks as tasks

    done = _inspect_cli("list", "tasks", cwd=pathlib.Path(tasks.__file__).parent)
    text = done.stdout + done.stderr
    assert done.returncode == 0, text
    for name in ("agentescape", "visescape", "mmescape", "comma", "escapade"):
        assert f"@{name}" in text, text
