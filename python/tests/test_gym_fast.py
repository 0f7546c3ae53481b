"""What the Gymnasium env skips to be fast keeps its behaviour (issue 30): the oracle's
distance only when asked (``steps_to_go=False``), one native env per scenario kept for
the next episode on it, the partner agent made once per native env, and the reward as
Rust computes it (one definition, ``escapade_core::reward``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import escapade
from escapade import _escapade
from escapade.gym_env import REWARDS

SMALL = {"width": 64, "height": 32}


def _play(env, seed, steps=12):
    """``steps`` steps of the world's random baseline from ``reset(seed=seed)``: each
    step's text, pictures, reward, progress, end and steps_to_go."""
    obs, info = env.reset(seed=seed)
    agent = escapade.Agent(env.env, "random", seed)
    agent.reset(env.env, seed)
    out = [(obs["text"], [p.tobytes() for p in obs.get("images", ())], info["steps_to_go"])]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(agent.act(env.env))
        out.append((obs["text"], [p.tobytes() for p in obs.get("images", ())], reward,
                    info["progress"], terminated, truncated, info["steps_to_go"]))
        if terminated or truncated:
            break
    return out


def test_steps_to_go_off_plays_the_same_episode_without_the_distance():
    on = escapade.make("mm-escape", scenario=0, reask=False, **SMALL)
    off = escapade.make("mm-escape", scenario=0, reask=False, steps_to_go=False, **SMALL)
    a, b = _play(on, 3), _play(off, 3)
    assert a[0][2] is not None and all(row[-1] is not None for row in a[1:])
    assert all(row[-1] is None for row in b)
    # everything else is the same episode, step for step
    assert [row[:-1] for row in a] == [row[:-1] for row in b]
    # a world whose distance is cheap (vis) answers None too when it is not wanted
    vis = escapade.make("visescape", scenario=0, steps_to_go=False)
    _, info = vis.reset(seed=0)
    assert info["steps_to_go"] is None
    assert vis.step(info["actions"][0])[4]["steps_to_go"] is None


def test_the_distance_reward_needs_steps_to_go():
    with pytest.raises(escapade.EscapadeError, match="steps_to_go"):
        escapade.make("mm-escape", scenario=0, reward="distance", steps_to_go=False, **SMALL)


def test_a_scenario_drawn_again_plays_on_the_native_env_it_had():
    # scenario=None (what a vector env makes): the native env of a scenario is kept for
    # its next episode instead of being opened again (craft's measures the oracle's
    # distance when it opens)
    env = escapade.make("visescape")
    env.reset(seed=0, options={"scenario": 0})
    first = env.env
    env.reset(options={"scenario": 1})
    env.reset(options={"scenario": 0})
    assert env.env is first
    # and the episode on it is the one a fresh env plays
    fresh = escapade.make("visescape")
    fresh.reset(seed=7, options={"scenario": 0})
    again = _play_from(env, 7)
    assert again == _play_from(fresh, 7)


def _play_from(env, seed):
    obs, info = env.reset(seed=seed, options={"scenario": 0})
    texts = [obs["text"]]
    for _ in range(5):
        obs, *_ = env.step(info["actions"][0])
        texts.append(obs["text"])
    return texts


def test_the_partner_plays_each_episode_as_a_new_one_would():
    # the partner agent is made once per native env and reset for each episode: the
    # episodes are those of an env made anew for each
    kept = escapade.make("comma", scenario=0, reask=False, partner="random")
    for seed in range(4):
        fresh = escapade.make("comma", scenario=0, reask=False, partner="random")
        assert _play(kept, seed) == _play(fresh, seed)


def _old_reward(kind, before, after):
    """The reward as the Python layer computed it before Rust handed it over."""
    if kind == "sparse":
        return float(after[2] and not before[2])
    if kind == "distance":
        return 0.0 if before[1] is None or after[1] is None else float(before[1] - after[1])
    return float(after[0] - before[0])


def test_the_reward_is_rusts_and_reads_every_step_as_before():
    standings = list(itertools.product([0.0, 0.25, 1.0], [None, 0, 3, 7], [False, True]))
    assert list(REWARDS) == ["progress", "sparse", "distance"]
    for kind in REWARDS:
        reward = _escapade.Reward(kind.upper())
        assert reward.name == kind
        for before, after in itertools.product(standings, standings):
            assert reward.of(before, after) == _old_reward(kind, before, after)
    with pytest.raises(escapade.EscapadeError, match="progress, sparse, distance"):
        _escapade.Reward("dense")


@pytest.mark.parametrize("kind", ["progress", "sparse", "distance"])
def test_an_episodes_rewards_are_the_old_definitions(kind):
    env = escapade.make("comma", scenario=1, reask=False, reward=kind)
    env.reset(seed=2)
    agent = escapade.Agent(env.env, "oracle-talk", 2)
    agent.reset(env.env, 2)
    before = (0.0, env._steps_to_go, False)
    while True:
        _, reward, terminated, truncated, info = env.step(agent.act(env.env))
        won = bool(info.get("outcome", {}).get("success"))
        after = (info["progress"], info["steps_to_go"], won)
        assert reward == _old_reward(kind, before, after)
        before = after
        if terminated or truncated:
            break
    assert won
