"""``reset(options={"from": ...})``: a Gymnasium env starts where a recorded episode
stood before step K (issue 29), its observation the recording's, and another agent
plays on from there."""

from __future__ import annotations

import json
import pathlib

import pytest

import escapade


def record(tmp_path: pathlib.Path, suite: str, max_steps: int) -> tuple[pathlib.Path, str, list[dict]]:
    """A random run of the suite's first scenario: its directory, scenario and rows."""
    summary = escapade._escapade.run_local(
        suite, "random", out=str(tmp_path / "runs"), limit=1, epochs=1, seed=5, max_steps=max_steps
    )
    run = pathlib.Path(summary["dir"])
    row = json.loads((run / "episodes.jsonl").read_text().splitlines()[0])
    [folder] = list((run / "trajectories").iterdir())
    steps = [json.loads(line) for line in (folder / "0.jsonl").read_text().splitlines()]
    return run, row["scenario"], steps


@pytest.mark.parametrize("suite", ["agentescape", "visescape", "comma"])
def test_reset_from_a_recording_shows_its_observation_at_k_and_the_oracle_finishes(tmp_path, suite):
    run, scenario, steps = record(tmp_path, suite, 8)
    k = min(4, len(steps))
    env = escapade.make(suite)
    obs, info = env.reset(options={"from": {"run": str(run), "episode": f"{scenario}:0", "step": k}})
    assert info["scenario"] == scenario
    at_k = steps[k - 1]
    native = env.native_observation
    if env.role is None or at_k["role"] == env.role:
        assert obs["text"] == at_k["observation"]["text"]
        assert [i["sha256"] for i in native["images"]] == at_k["observation"]["images"]
    oracle = escapade.Agent(env.env, "oracle-talk" if suite == "comma" else "oracle")
    oracle.reset(env.env, 0)
    for _ in range(200):
        obs, reward, terminated, truncated, info = env.step(oracle.act(env.env))
        if terminated or truncated:
            break
    assert info["outcome"]["success"], info["outcome"]


def test_reset_from_refuses_what_does_not_fit(tmp_path):
    run, scenario, steps = record(tmp_path, "visescape", 4)
    env = escapade.make("visescape")
    with pytest.raises(escapade.EscapadeError, match="--step must be between 1 and"):
        env.reset(options={"from": {"run": str(run), "episode": scenario, "step": 99}})
    with pytest.raises(escapade.EscapadeError, match="no scenario"):
        env.reset(options={"from": {"run": str(run), "episode": "vis-nope", "step": 1}})
    with pytest.raises(escapade.EscapadeError, match="missing step"):
        env.reset(options={"from": {"run": str(run), "episode": scenario}})
    with pytest.raises(escapade.EscapadeError, match="world options"):
        escapade.make("visescape", prompt="chat").reset(
            options={"from": {"run": str(run), "episode": scenario, "step": 2}}
        )
    # a recording changed since: its observation at a replayed step no longer matches
    [folder] = list((run / "trajectories").iterdir())
    changed = [dict(s) for s in steps]
    changed[1] = dict(changed[1], observation=dict(changed[1]["observation"], text="another room"))
    (folder / "0.jsonl").write_text("".join(json.dumps(s) + "\n" for s in changed))
    with pytest.raises(escapade.EscapadeError, match="does not replay as recorded"):
        env.reset(options={"from": {"run": str(run), "episode": scenario, "step": 3}})
