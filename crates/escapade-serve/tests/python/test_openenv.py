"""openenv-core's own client against `escapade serve` (started by tests/serve/python.rs).

ESCAPADE_URL is the server's base URL; ESCAPADE_PLAN a JSON file with a scenario of
tools, vis and craft, and the oracle's moves through the tools one (worked out in Rust).
"""

import base64
import json
import os

import pytest
from openenv.core.generic_client import GenericEnvClient

URL = os.environ["ESCAPADE_URL"]
PLAN = json.load(open(os.environ["ESCAPADE_PLAN"]))


def client():
    return GenericEnvClient(base_url=URL).sync()


def some_action(obs):
    """An action the world reads: the first available one (vis), a wrong answer
    (tools: a step all the same), or some text (craft)."""
    if obs.get("actions"):
        return {"text": obs["actions"][0]}
    if any(t["name"] == "submit_answer" for t in obs.get("tools", [])):
        return {"name": "submit_answer", "arguments": {"answer": "0"}}
    return {"text": json.dumps({"rotate_right": 30, "rationale": "look around"})}


def play_out(env, result, limit):
    steps = replies = 0
    while not result.done:
        assert replies < 10 * limit, result.observation["unreadable"] or result.observation["text"][-300:]
        result = env.step(some_action(result.observation))
        assert isinstance(result.reward, float)
        replies += 1
        # a reply the world cannot read is answered without a step
        steps += result.observation["unreadable"] is None
    return result, steps


def check_images(obs):
    for image in obs["images"]:
        png = base64.b64decode(image["png_base64"])
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        assert len(image["sha256"]) == 64


@pytest.mark.parametrize("world", ["tools", "vis", "craft"])
def test_a_full_episode_of_each_world(world):
    with client() as env:
        result = env.reset(scenario=PLAN["scenarios"][world], seed=3, max_steps=8)
        obs = result.observation
        assert result.reward is None and not result.done
        # vis: no system prompt, the text is the whole prompt (VisEscape App. A.5)
        assert obs["text"] and (obs["rules"] or world == "vis")
        if world in ("vis", "craft"):
            assert obs["images"], "a picture of the room"
        check_images(obs)
        result, steps = play_out(env, result, 8)
        end = result.observation
        assert end["truncated"] or end["terminated"]
        assert isinstance(end["metrics"], dict) and end["success"] is not None
        state = env.state()
        assert state["world"] == world and state["done"] is True
        assert state["step_count"] == steps


def test_seeded_resets_are_reproducible():
    texts = []
    for _ in range(2):
        with client() as env:
            r = env.reset(scenario=PLAN["scenarios"]["vis"], seed=5)
            r2 = env.step(some_action(r.observation))
            texts.append((r.observation["text"], r.observation["images"][0]["sha256"],
                          r2.observation["text"]))
    assert texts[0] == texts[1]


def test_comma_with_both_roles_in_turn():
    with client() as env:
        result = env.reset(suite="comma@4", index=0, seed=1)
        roles = []
        for _ in range(6):
            obs = result.observation
            roles.append(obs["role"])
            if obs["role"] == "solver":
                check_images(obs)
                assert obs["images"], "the solver sees the puzzle"
                action = {"text": "what do you see?"}
            else:
                assert obs["images"] == [], "the expert sees the manual only"
                action = {"text": "describe the wires"}
            result = env.step(action)
            if result.done:
                break
        assert roles[:2] == ["solver", "expert"]
        assert env.state()["roles"] == ["solver", "expert"]


def test_comma_with_an_oracle_partner():
    with client() as env:
        result = env.reset(suite="comma@4", index=0, seed=1, role="solver", partner="oracle")
        for _ in range(12):
            if result.done:
                break
            assert result.observation["role"] == "solver", "the partner plays the expert"
            result = env.step({"text": "what should I do?"})


def test_the_oracle_escapes_through_the_client():
    oracle = PLAN["oracle"]
    with client() as env:
        result = env.reset(scenario=PLAN["scenarios"][oracle["world"]], seed=oracle["seed"])
        # the oracle's distance is in the observation's metadata: its own plan from the
        # start, one less after each of its moves, 0 once out
        distance = result.observation["metadata"]["steps_to_go"]
        assert distance == len(oracle["moves"]), distance
        total = 0.0
        for move in oracle["moves"]:
            assert not result.done
            result = env.step(move)
            total += result.reward
            distance -= 1
            assert result.observation["metadata"]["steps_to_go"] == distance
        assert result.done
        assert distance == 0
        assert result.observation["success"] is True
        assert result.observation["terminated"] is True
        assert abs(total - result.observation["progress"]) < 1e-9


@pytest.mark.parametrize("reward", ["sparse", "distance"])
def test_the_reward_a_trainer_asks_for(reward):
    oracle = PLAN["oracle"]
    with client() as env:
        result = env.reset(scenario=PLAN["scenarios"][oracle["world"]], seed=oracle["seed"],
                           options={"reward": reward})
        assert env.state()["reward"] == reward
        rewards = []
        for move in oracle["moves"]:
            result = env.step(move)
            rewards.append(result.reward)
        assert result.done and result.observation["success"] is True
        if reward == "sparse":
            # nothing until the escape, then 1
            assert rewards == [0.0] * (len(rewards) - 1) + [1.0]
        else:
            # the oracle's every move is one step closer
            assert rewards == [1.0] * len(rewards)
    with client() as env:
        with pytest.raises(RuntimeError, match="progress, sparse, distance"):
            env.reset(scenario=PLAN["scenarios"][oracle["world"]], options={"reward": "dense"})


def test_reset_from_a_recorded_episode():
    """`from`: the client starts where an episode this server recorded stood before step
    K (issue 29), sees the recording's observation there and plays on to the escape."""
    oracle = PLAN["oracle"]
    scenario = PLAN["scenarios"][oracle["world"]]
    with client() as env:
        result = env.reset(scenario=scenario, seed=oracle["seed"])
        seen = [result.observation]
        for move in oracle["moves"]:
            result = env.step(move)
            seen.append(result.observation)
        assert result.done and result.observation["success"] is True
        run = env.state()["run_dir"]
    assert run
    k = 3
    origin = {"run": run, "episode": f"{scenario['id']}:0", "step": k}
    with client() as env:
        result = env.reset(scenario=scenario, **{"from": origin})
        assert not result.done
        assert result.observation["text"] == seen[k - 1]["text"]
        assert result.observation["metadata"]["steps_to_go"] == len(oracle["moves"]) - (k - 1)
        for move in oracle["moves"][k - 1:]:
            result = env.step(move)
        assert result.done and result.observation["success"] is True
    with client() as env:
        for bad, message in [
            (dict(origin, run="../" + run), "not a path"),
            (dict(origin, run="no-such-run"), "recorded no run"),
            (dict(origin, step=999), "--step must be between"),
            (dict(origin, episode="tools-nope"), "no scenario"),
        ]:
            with pytest.raises(RuntimeError, match=message):
                env.reset(scenario=scenario, **{"from": bad})
        # the replay's seed is the recording's, whatever the client sends
        result = env.reset(scenario=scenario, seed=12345, **{"from": origin})
        assert result.observation["text"] == seen[k - 1]["text"]


def test_errors_reach_the_client():
    with client() as env:
        with pytest.raises(RuntimeError, match="no suite"):
            env.reset(suite="nope@1")
        with pytest.raises(RuntimeError, match="send reset first"):
            env.step({"text": "look"})
        result = env.reset(scenario=PLAN["scenarios"]["vis"])
        assert not result.done
