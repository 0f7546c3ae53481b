"""PettingZoo: COMMA's solver and expert as an AEC env that passes api_test, and the
world's partners play it to success through the AEC loop."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test  # noqa: E402

import escapade  # noqa: E402
import escapade.pettingzoo_env  # noqa: E402
from escapade import EscapadeError  # noqa: E402
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


def test_steps_to_go_false_leaves_the_distance_unmeasured():
    aec = CommaAEC(scenario=0, steps_to_go=False)
    aec.reset(seed=1)
    assert aec.infos["solver"]["steps_to_go"] is None
    assert aec.infos["expert"]["steps_to_go"] is None
    pair = escapade.Agent(aec._env, "oracle-talk")
    pair.reset(aec._env, 0)
    for agent in aec.agent_iter(max_iter=100):
        _, _, terminated, truncated, info = aec.last()
        assert info["steps_to_go"] is None
        aec.step(None if terminated or truncated else pair.act(aec._env))
    assert info["outcome"]["success"], "the episode is played as with the distance"
    with pytest.raises(EscapadeError, match="needs steps_to_go=True"):
        CommaAEC(scenario=0, steps_to_go=False, reward="distance")
    parallel = escapade.pettingzoo_env.parallel_env(scenario=0, steps_to_go=False)
    _, infos = parallel.reset(seed=1)
    assert all(info["steps_to_go"] is None for info in infos.values())


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


def test_parallel_api_test_passes():
    from pettingzoo.test import parallel_api_test

    from escapade.pettingzoo_env import parallel_env

    parallel_api_test(parallel_env(), num_cycles=50)


def test_aec_to_parallel_is_refused_with_the_reason():
    # its parallel step is a cycle of turns: the expert would answer a message it has
    # not seen; parallel_env plays one turn per step instead
    from pettingzoo.utils.conversions import aec_to_parallel

    assert env().metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError):
        aec_to_parallel(env())


def test_the_parallel_env_plays_one_turn_per_step_and_escapes():
    from escapade.pettingzoo_env import parallel_env

    par = parallel_env(scenario=0)
    observations, infos = par.reset(seed=1)
    pair = escapade.Agent(par.aec._env, "oracle-talk")
    pair.reset(par.aec._env, 0)
    turns = []
    while par.agents:
        turn = infos["solver"]["turn"]
        turns.append(turn)
        actions = {agent: "not my turn" for agent in par.agents}
        actions[turn] = pair.act(par.aec._env)
        observations, rewards, terminations, truncations, infos = par.step(actions)
    assert turns[:2] == ["solver", "expert"]
    assert infos["solver"]["outcome"]["success"]
    state = par.state()
    assert set(state) == {"solver", "expert"} and par.state_space.contains(state)


def test_render_test_passes_and_rgb_array_draws_on_the_experts_turn():
    from pettingzoo.test import render_test

    render_test(env)
    aec = CommaAEC(scenario=0, render_mode="rgb_array")
    aec.reset(seed=1)
    aec.step("What do you see in the manual?")
    assert aec.agent_selection == "expert"
    picture = aec.render()
    assert picture is not None and picture.ndim == 3 and picture.shape[2] == 3


@pytest.mark.parametrize(
    "call",
    [
        lambda e: e.step("hello"),
        lambda e: e.reset(options={"scenario": 99999}),
        lambda e: e.reset(options={"scenario": "nope"}),
        lambda e: e.reset(options="x"),
        lambda e: e.state(),
    ],
    ids=["step-before-reset", "scenario-99999", "scenario-nope", "options-not-a-dict", "state-before-reset"],
)
def test_misuse_raises_escapade_error(call):
    with pytest.raises(escapade.EscapadeError):
        call(CommaAEC())
