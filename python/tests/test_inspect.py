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
