"""COMMA as a PettingZoo AEC environment: the solver and the expert take turns.

``escapade.pettingzoo_env.env()`` (or :class:`CommaAEC`) opens the comma suite (or a
comma scenario file or directory): agents ``solver`` and ``expert``, whose turn follows
the world (COMMA §3: the solver sees the module and acts or talks, the expert reads the
manual and talks). Each agent observes what the world shows it — the solver
``{"text", "images"}``, the expert ``{"text"}`` — and acts in text. Both share one reward,
the increase of task progress (the task is cooperative; ``reward="sparse"`` or
``"distance"`` as :func:`escapade.make` takes them); at the end each agent's info
holds the episode's ``outcome`` and ``metrics``. Every agent's info holds
``steps_to_go``, the oracle's distance from the shared state (None where unknown, and
always None with ``steps_to_go=False``, which does not measure it, as :func:`escapade.make`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from ._escapade import Env, EscapadeError
from .gym_env import (
    MAX_ACTION,
    MAX_TEXT,
    AnyText,
    _options,
    _reset_options,
    _reward,
    picture_space,
    pictures,
    scenarios,
)

__all__ = ["CommaAEC", "CommaParallel", "env", "parallel_env", "raw_env"]


class CommaAEC(AECEnv):
    """A two-role escapade world as an AEC environment (see the module docs).

    ``scenario`` picks one scenario (index or id); None draws one at each ``reset``.
    ``steps_to_go=False`` leaves the oracle's distance unmeasured (every agent's
    ``info["steps_to_go"]`` is None; ``reward="distance"`` needs it). World options are
    keywords (``expert_words=...``, as ``-W``)."""

    metadata = {
        # human: the text of the turn printed to standard output (there is no window)
        "render_modes": ["ansi", "rgb_array", "human"],
        "name": "escapade_comma_v1",
        # not through aec_to_parallel: its parallel step is a cycle of turns (solver, then
        # expert), so the expert's action would be chosen before it saw the solver's
        # message of that cycle, and an episode ending on the solver's turn ends
        # mid-cycle, which the wrapper refuses. parallel_env (CommaParallel) plays one
        # turn per step instead.
        "is_parallelizable": False,
    }

    def __init__(
        self,
        source: str = "comma",
        scenario: int | str | None = None,
        render_mode: str | None = None,
        steps_to_go: bool = True,
        **world_options: Any,
    ):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: expected one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        resolved = scenarios(str(source))
        self.world: str = resolved["world"]
        self.label: str = resolved["label"]
        self.ids: list[str] = resolved["ids"]
        self._scenarios: list[str] = list(resolved["scenarios"])
        self.steps_to_go = bool(steps_to_go)
        self._reward = _reward(world_options.pop("reward", "progress"), self.steps_to_go)
        #: the reward's name (``progress``, ``sparse`` or ``distance``)
        self.reward_kind: str = self._reward.name
        self.options = _options(world_options)
        self._fixed: int | None = None if scenario is None else self._index(scenario)
        probe = Env(self.world, self._scenarios[self._fixed or 0], self.options)
        roles = probe.roles()
        if len(roles) < 2:
            raise EscapadeError(f"world {self.world} has one role; use escapade.make for a Gymnasium env")
        self.possible_agents = list(roles)
        picture = picture_space(self.world, self._scenarios, self._fixed, self.options)
        # who is shown pictures: the role that opens the episode with one (COMMA §3: the
        # solver sees the module; the expert only reads the manual and the conversation)
        first = probe.reset(0)
        drawn = {first["role"]} if first["images"] else set()
        self.observation_spaces = {}
        for role in roles:
            fields: dict[str, spaces.Space] = {"text": AnyText(MAX_TEXT)}
            if picture is not None and role in drawn:
                fields["images"] = spaces.Sequence(picture, stack=False)
            self.observation_spaces[role] = spaces.Dict(fields)
        self.action_spaces = {role: AnyText(MAX_ACTION) for role in roles}
        self._env: Env | None = None
        self._np_random: np.random.Generator | None = None

        self.state_space = spaces.Dict(dict(self.observation_spaces))

    def _index(self, scenario: Any) -> int:
        """A scenario's index from its index or id; EscapadeError when there is none."""
        if isinstance(scenario, (int, np.integer)) and not isinstance(scenario, bool):
            if 0 <= int(scenario) < len(self._scenarios):
                return int(scenario)
            raise EscapadeError(
                f"scenario {scenario}: {self.label} has {len(self._scenarios)} (0 to {len(self._scenarios) - 1})"
            )
        if isinstance(scenario, str) and scenario in self.ids:
            return self.ids.index(scenario)
        shown = ", ".join(self.ids[:5]) + (", …" if len(self.ids) > 5 else "")
        raise EscapadeError(f"no scenario {scenario!r} in {self.label} (ids: {shown})")

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        options = _reset_options(options, strict=False)
        if "from" in options:
            raise EscapadeError("reset options: `from` is for the Gymnasium env (escapade.make)")
        if seed is not None or self._np_random is None:
            self._np_random = np.random.default_rng(seed)
        if "scenario" in options:
            index = self._index(options["scenario"])
        elif self._fixed is not None:
            index = self._fixed
        else:
            index = int(self._np_random.integers(len(self._scenarios)))
        episode_seed = int(self._np_random.integers(2**63))
        self._env = Env(self.world, self._scenarios[index], self.options, steps_to_go=self.steps_to_go)
        first = self._env.reset(episode_seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {
            a: {"system_prompt": self._env.role_prompt(a), "scenario": self._env.id}
            for a in self.agents
        }
        self._seen = {a: {"text": "", "images": []} for a in self.agents}
        self._progress = 0.0
        self._distance()
        self._show(first)

    def _distance(self) -> None:
        """Every agent's ``info["steps_to_go"]``: the oracle's distance from the shared
        state (the task is cooperative), None where the world cannot say or
        ``steps_to_go=False``."""
        assert self._env is not None
        distance = self._env.steps_to_go() if self.steps_to_go else None
        for a in self.agents:
            self.infos[a]["steps_to_go"] = distance

    def _show(self, observation: dict) -> None:
        role = observation["role"] or self.agents[0]
        self._seen[role] = observation
        self.agent_selection = role
        self.infos[role]["actions"] = observation["actions"]

    def observe(self, agent: str) -> dict:
        seen = self._seen[agent]
        out: dict[str, Any] = {"text": seen["text"]}
        if "images" in self.observation_spaces[agent].spaces:
            out["images"] = pictures(seen)
        return out

    def state(self) -> dict:
        """Every agent's current observation: a global view for centralised training.
        It holds both roles' views (the expert's manual, the solver's module): never
        give it to an agent."""
        if self._env is None:
            raise EscapadeError("reset the environment first")
        return {agent: self.observe(agent) for agent in self.possible_agents}

    def step(self, action: Any) -> None:
        if self._env is None:
            raise EscapadeError("reset the environment first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if isinstance(action, np.str_):
            action = str(action)
        self._cumulative_rewards[agent] = 0.0
        step = self._env.step(action)
        progress = float(step["progress"])
        before = (self._progress, self.infos[agent].get("steps_to_go"), False)
        self._progress = progress
        self.infos[agent].update(feedback=step["feedback"], valid=step["valid"], error=step["error"])
        self._distance()
        outcome = self._env.outcome() if step["terminated"] or step["truncated"] else None
        won = outcome is not None and bool(outcome["success"])
        after = (progress, self.infos[agent]["steps_to_go"], won)
        reward = self._reward.of(before, after)
        self.rewards = {a: reward for a in self.agents}
        if outcome is not None:
            for a in self.agents:
                self.terminations[a] = bool(step["terminated"])
                self.truncations[a] = bool(step["truncated"])
                self.infos[a].update(outcome=outcome, metrics=outcome["metrics"])
            self._seen[agent] = step["observation"]
        else:
            self._show(step["observation"])
        self._accumulate_rewards()

    def render(self):
        """``ansi``: the text the agent whose turn it is sees; ``human``: that text
        printed (returns None); ``rgb_array``: the latest picture of the module, whoever's
        turn it is (a picture for someone watching, not what the expert sees)."""
        if self.render_mode is None or self._env is None:
            return None
        seen = self._seen[self.agent_selection]
        if self.render_mode == "ansi":
            return seen["text"]
        if self.render_mode == "human":
            print(f"[{self.agent_selection}]\n{seen['text']}")
            return None
        for role in [self.agent_selection, *self.possible_agents]:
            shots = pictures(self._seen[role]) if self._seen[role].get("images") else ()
            if shots:
                return shots[0]
        return None

    def close(self) -> None:
        self._env = None


class CommaParallel(ParallelEnv):
    """A two-role escapade world as a PettingZoo parallel environment: one turn per
    step. ``step(actions)`` plays the action of the agent whose turn it is
    (``infos[agent]["turn"]`` names it, and its observation is the one to act on); the
    other agent's action is not played (it waits for its turn, as in the AEC env). The
    same keywords as :class:`CommaAEC`."""

    metadata = {"render_modes": CommaAEC.metadata["render_modes"], "name": "escapade_comma_parallel_v1"}

    def __init__(self, **kwargs: Any):
        self.aec = CommaAEC(**kwargs)
        self.possible_agents = list(self.aec.possible_agents)
        self.agents: list[str] = []
        self.render_mode = self.aec.render_mode
        self.observation_spaces = self.aec.observation_spaces
        self.action_spaces = self.aec.action_spaces
        self.state_space = self.aec.state_space

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.aec.agents)
        return self._observations(), self._infos()

    def step(self, actions: dict[str, Any]):
        if not self.agents:
            raise EscapadeError("the episode is over; call reset to start another")
        turn = self.aec.agent_selection
        if turn not in actions:
            raise EscapadeError(f"it is {turn}'s turn: actions has no action for it")
        self.aec.step(actions[turn])
        rewards = {a: float(self.aec.rewards[a]) for a in self.agents}
        terminations = {a: bool(self.aec.terminations[a]) for a in self.agents}
        truncations = {a: bool(self.aec.truncations[a]) for a in self.agents}
        observations, infos = self._observations(), self._infos()
        if any(terminations.values()) or any(truncations.values()):
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observations(self) -> dict[str, dict]:
        return {a: self.aec.observe(a) for a in self.agents}

    def _infos(self) -> dict[str, dict]:
        return {a: dict(self.aec.infos[a], turn=self.aec.agent_selection) for a in self.agents}

    def state(self) -> dict:
        """Both agents' observations (see :meth:`CommaAEC.state`)."""
        return self.aec.state()

    def render(self):
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()


def raw_env(**kwargs: Any) -> CommaAEC:
    """The AEC environment without wrappers (PettingZoo's name for it)."""
    return CommaAEC(**kwargs)


def env(**kwargs: Any) -> CommaAEC:
    """The comma suite as an AEC environment (keywords as :class:`CommaAEC`)."""
    return CommaAEC(**kwargs)


def parallel_env(**kwargs: Any) -> CommaParallel:
    """The comma suite as a parallel environment, one turn per step (keywords as
    :class:`CommaAEC`)."""
    return CommaParallel(**kwargs)
