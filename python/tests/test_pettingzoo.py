"""PettingZoo: COMMA's solver and expert as an AEC env that passes api_test, and the
world's partners play it to success through the AEC loop."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test  # noqa: E402

import escapade  # noqa: E402
from escapade.pettingzoo_env import CommaAEC, env  # noqa: E402


def test_api_test_passes():
    api_test(env(), num_cycles=50)


def test_both_roles_take_turns_and_the_pair_escapes():
    aec = CommaAEC(scenario=0)
    aec.reset(seed=1)
    assert aec.agents == ["solver", "expert"] and aec.agent_selection == "solver"
    pair = escapade.Agent(aec._env, "oracle-talk")
    pair.reset(aec._env, 0)
    seen = set()
    for agent in aec.agent_iter(max_iter=100):
        observation, reward, terminated, truncated, info = aec.last()
        assert aec.observation_space(agent).contains(observation)
        seen.add(agent)
        aec.step(None if terminated or truncated else pair.act(aec._env))
    assert seen == {"solver", "expert"}
    assert info["outcome"]["success"]
    assert "images" not in aec.observe("expert"), "the expert never sees the module"


def test_every_agents_info_holds_the_shared_distance():
    aec = CommaAEC(scenario=0)
    aec.reset(seed=1)
    start = aec.infos["solver"]["steps_to_go"]
    assert isinstance(start, int) and start > 0
    assert aec.infos["expert"]["steps_to_go"] == start
    pair = escapade.Agent(aec._env, "oracle-talk")
    pair.reset(aec._env, 0)
    for agent in aec.agent_iter(max_iter=100):
        _, _, terminated, truncated, info = aec.last()
        assert info["steps_to_go"] == aec._env.steps_to_go()
        aec.step(None if terminated or truncated else pair.act(aec._env))
    assert info["outcome"]["success"] and info["steps_to_go"] == 0


def test_the_pair_shares_the_reward_it_asked_for():
    aec = CommaAEC(scenario=0, reward="sparse")
    aec.reset(seed=1)
    pair = escapade.Agent(aec._env, "oracle-talk")
    pair.reset(aec._env, 0)
    total = {a: 0.0 for a in aec.possible_agents}
    for agent in aec.agent_iter(max_iter=100):
        _, reward, terminated, truncated, info = aec.last()
        total[agent] += reward
        aec.step(None if terminated or truncated else pair.act(aec._env))
    assert info["outcome"]["success"]
    # the escape pays 1, once, to both agents
    assert total == {a: 1.0 for a in aec.possible_agents}
