"""Gymnasium used as its users call it (issue 30): vector envs stepped with text, reset
options checked, a wrapper's truncation still ending with the episode's outcome, spaces
sampled quickly."""

from __future__ import annotations

import re

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
def test_spaces_sample_short_texts(env_id):
    # a sample's text is a few hundred characters at most, not up to 16M (a 15M-character
    # string took seconds to draw)
    env = gym.make(env_id, width=64, height=32) if "MM" in env_id else gym.make(env_id)
    for _ in range(5):
        sample = env.observation_space.sample()
        assert len(sample["text"]) <= escapade.gym_env.SAMPLE_LENGTH
        assert env.observation_space["text"].contains(sample["text"])
        action = env.action_space.sample()
        assert env.action_space.contains(action)
        texts = [action] if isinstance(action, str) else list(action.values())
        assert all(len(t) <= escapade.gym_env.SAMPLE_LENGTH for t in texts)


def test_reset_and_step_say_what_they_return():
    import typing

    from escapade.gym_env import Action, EscapadeEnv, Observation

    reset = typing.get_type_hints(EscapadeEnv.reset)
    step = typing.get_type_hints(EscapadeEnv.step)
    assert reset["return"] == tuple[Observation, dict[str, typing.Any]]
    assert step["return"] == tuple[Observation, float, bool, bool, dict[str, typing.Any]]
    assert step["action"] == Action
    assert Observation.__annotations__.keys() == {"text", "images"}
    assert "PNG" in EscapadeEnv.native_observation.__doc__


def test_make_takes_the_registered_ids_too():
    env = escapade.make("escapade/VisEscape-v1", scenario=0)
    assert env.label.startswith("visescape")
    obs, _ = env.reset(seed=0)
    assert obs["text"]
