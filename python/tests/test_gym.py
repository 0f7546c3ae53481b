"""Gymnasium: every registered id passes check_env, the vector envs step, observations
are what the world shows (pictures as uint8 arrays), errors carry the Rust message."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import escapade
from escapade.gym_env import IDS

SMALL = {"escapade/MMEscape-v1": {"width": 64, "height": 32}}


@pytest.mark.parametrize("env_id", sorted(IDS))
def test_check_env_passes(env_id):
    env = gym.make(env_id, **SMALL.get(env_id, {}))
    check_env(env.unwrapped)


def test_pictures_are_uint8_arrays_and_info_lists_actions():
    env = escapade.make("visescape", scenario=0, seed=3)
    obs, info = env.reset()
    [picture] = obs["images"]
    assert picture.dtype == np.uint8 and picture.shape == (480, 640, 3)
    assert picture.std() > 0, "a blank picture"
    assert info["actions"], "vis lists its actions"
    # the paper's protocol sends no system message (VisEscape §4); the chat prompt has one
    assert info["system_prompt"] == ""
    assert "You" in obs["text"], "the whole instruction is in the step prompt"
    chat = escapade.make("visescape", scenario=0, seed=3, prompt="chat")
    assert chat.reset()[1]["system_prompt"]
    obs2, reward, terminated, truncated, info = env.step(info["actions"][0])
    assert isinstance(reward, float) and not truncated
    assert "feedback" in info and "valid" in info


def test_the_oracle_escapes_and_the_metrics_arrive_at_the_end():
    env = escapade.make("agentescape", scenario=0)
    obs, info = env.reset(seed=0)
    agent = escapade.Agent(env.env, "oracle")
    agent.reset(env.env, 0)
    total = 0.0
    while True:
        obs, reward, terminated, truncated, info = env.step(agent.act(env.env))
        total += reward
        if terminated or truncated:
            break
        assert "outcome" not in info
    assert info["outcome"]["success"] and terminated
    assert info["metrics"] == info["outcome"]["metrics"]
    assert total == pytest.approx(1.0)
    with pytest.raises(escapade.EscapadeError, match="episode is over"):
        env.step("investigate N1")


def test_a_tool_call_is_a_dict():
    env = escapade.make("agentescape", scenario=0)
    _, info = env.reset(seed=0)
    names = [s["name"] for s in info["tool_schemas"]]
    assert names
    _, _, _, _, info = env.step({"name": names[0], "arguments": "{oops"})
    assert info["valid"] is False and info["feedback"]


def test_same_seed_same_episode():
    a, b = escapade.make("comma"), escapade.make("comma")
    oa, ia = a.reset(seed=11)
    ob, ib = b.reset(seed=11)
    assert ia["scenario"] == ib["scenario"] and oa["text"] == ob["text"]
    assert all(np.array_equal(x, y) for x, y in zip(oa["images"], ob["images"]))


def test_errors_carry_the_rust_message():
    with pytest.raises(escapade.EscapadeError, match="unknown suite"):
        escapade.make("no-such-suite")
    with pytest.raises(escapade.EscapadeError, match="world option"):
        escapade.make("visescape", colour="plaid")
    with pytest.raises(escapade.EscapadeError, match="no scenario"):
        escapade.make("visescape", scenario="vis-r999")
    with pytest.raises(escapade.EscapadeError, match="reset"):
        escapade.make("visescape", scenario=0).env


def test_the_env_reports_a_bad_action_type():
    env = escapade.make("visescape", scenario=0)
    env.reset(seed=0)
    with pytest.raises(TypeError, match="an action is"):
        env.step(3.5)


def _make(i):
    return lambda: escapade.make("visescape", scenario=i)


@pytest.mark.parametrize("vector", ["sync", "async"])
def test_vector_envs_step(vector):
    fns = [_make(0), _make(1)]
    if vector == "sync":
        envs = gym.vector.SyncVectorEnv(fns)
    else:
        envs = gym.vector.AsyncVectorEnv(fns, shared_memory=False)
    try:
        obs, infos = envs.reset(seed=5)
        assert len(obs["text"]) == 2 and obs["text"][0] != obs["text"][1]
        first = [infos["actions"][i][0] for i in range(2)]
        obs, rewards, terminated, truncated, infos = envs.step(first)
        assert rewards.shape == (2,) and len(obs["images"]) == 2
        assert obs["images"][0][0].shape == (480, 640, 3)
    finally:
        envs.close()


def test_native_env_releases_the_gil_and_steps_from_threads():
    from concurrent.futures import ThreadPoolExecutor

    r = escapade.resolve("visescape")

    def play(i):
        env = escapade.Env(r["world"], r["scenarios"][i])
        env.reset(0)
        agent = escapade.Agent(env, "oracle")
        agent.reset(env, 0)
        while True:
            s = env.step(agent.act(env))
            if s["terminated"] or s["truncated"]:
                return env.outcome()["success"]

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(play, range(4)))


@pytest.mark.parametrize("suite", ["agentescape", "visescape"])
def test_info_carries_the_oracles_distance_down_to_zero(suite):
    env = escapade.make(suite, scenario=0)
    _, info = env.reset(seed=0)
    start = info["steps_to_go"]
    assert isinstance(start, int) and start > 0
    agent = escapade.Agent(env.env, "oracle")
    agent.reset(env.env, 0)
    distances = [start]
    while True:
        _, _, terminated, truncated, info = env.step(agent.act(env.env))
        distances.append(info["steps_to_go"])
        if terminated or truncated:
            break
    assert info["outcome"]["success"] and distances[-1] == 0
    # the oracle's own plan lowers it at every step (tools: by one per call it makes)
    assert all(b < a for a, b in zip(distances, distances[1:])), distances


def test_a_wasted_step_leaves_the_distance_and_craft_knows_its_own():
    env = escapade.make("visescape", scenario=0, seed=3)
    _, info = env.reset()
    before = info["steps_to_go"]
    _, _, _, _, info = env.step("this is not an action")
    assert info["steps_to_go"] == before
    # craft replans its oracle from the state: a turn by nothing wastes a step
    craft = escapade.make("mm-escape", scenario=0, width=64, height=32)
    _, info = craft.reset(seed=0)
    start = info["steps_to_go"]
    assert isinstance(start, int) and start > 0
    _, _, _, _, info = craft.step('{"rotate_right": 0}')
    assert info["steps_to_go"] == start


@pytest.mark.parametrize("reward", ["progress", "sparse", "distance"])
def test_the_reward_a_trainer_asks_for(reward):
    env = escapade.make("visescape", scenario=0, reward=reward)
    _, info = env.reset(seed=0)
    start = info["steps_to_go"]
    agent = escapade.Agent(env.env, "oracle")
    agent.reset(env.env, 0)
    rewards = []
    while True:
        _, r, terminated, truncated, info = env.step(agent.act(env.env))
        rewards.append(r)
        if terminated or truncated:
            break
    assert info["outcome"]["success"]
    if reward == "progress":
        assert sum(rewards) == pytest.approx(info["progress"])
    elif reward == "sparse":
        assert rewards == [0.0] * (len(rewards) - 1) + [1.0]
    else:
        # along the oracle's shortest way each step is one closer: the return is the start
        assert rewards == [1.0] * len(rewards) and sum(rewards) == start
    # a wasted step earns no distance, and the world never sees the option
    env.reset(seed=0)
    _, r, *_ = env.step("this is not an action")
    assert r == 0.0
    with pytest.raises(escapade.EscapadeError, match="progress, sparse, distance"):
        escapade.make("visescape", scenario=0, reward="dense")


@pytest.mark.parametrize("env_id", ["escapade/VisEscape-v1", "escapade/Comma-v1"])
def test_make_vec_async_works_as_called(env_id):
    # Gymnasium's default shared memory: it failed on the text and picture sequences
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode="async")
    sync = gym.make_vec(env_id, num_envs=2, vectorization_mode="sync")
    try:
        obs, infos = envs.reset(seed=5)
        expected, _ = sync.reset(seed=5)
        assert obs["text"] == expected["text"]
        for got, want in zip(obs["images"], expected["images"]):
            assert all(np.array_equal(a, b) for a, b in zip(got, want))
        action = [infos["actions"][i][0] if infos["actions"][i] else "hello" for i in range(2)]
        obs, rewards, _, _, _ = envs.step(action)
        expected, want_rewards, _, _, _ = sync.step(action)
        assert obs["text"] == expected["text"] and list(rewards) == list(want_rewards)
    finally:
        envs.close()
        sync.close()
