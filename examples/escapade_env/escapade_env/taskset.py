"""One task per (scenario, seed) of an escapade suite; the world plays the user.

Each task's prompt is the world's first observation after a seeded reset, its system
prompt the world's own. `EscapadeEnv.run` replays that reset in the Rust environment
(`escapade.make`, deterministic to the byte), steps every reply of the model as the
next action and answers with the next observation, until the episode ends or
`max_turns` replies were played. The rollout's reward is the sum of the rewards
escapade gave — `progress` (the final task progress), `sparse` (1 if it escaped) or
`distance` (how far the oracle's `steps_to_go` came down); see docs/training.md.
Success, steps and the last `steps_to_go` are recorded in the trace's info.

Pictures (vis, craft, comma's solver) are not sent: the text of each observation is,
so a text-only model can play every world; a vision model would need them as image
parts, which this module does not add yet.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

import escapade
import verifiers.v1 as vf

#: the suites of the four worlds, by the short names escapade's docs use
SUITES = {"tools": "agentescape", "vis": "visescape", "comma": "comma", "craft": "mm-escape"}


def observation_text(obs: dict, info: dict) -> str:
    """What the model reads each turn: the observation, then the available actions
    where the world lists them, and the world's message about an unreadable reply."""
    text = obs["text"]
    if info.get("actions"):
        text += "\n\nAvailable actions: " + "; ".join(map(str, info["actions"][:40]))
    return text


def make(suite: str, scenario: int, reward: str):
    return escapade.make(SUITES.get(suite, suite), scenario=scenario, reward=reward)


class EscapadeTasksetConfig(vf.TasksetConfig):
    suite: Literal["tools", "vis", "comma", "craft"] = "tools"
    """Which world: tools (AgentEscapeBench), vis (VisEscape), comma (COMMA), craft (MM-Escape)."""
    reward: Literal["progress", "sparse", "distance"] = "progress"
    """The reward escapade gives each step (docs/training.md, "Recipes")."""
    num_tasks: int = 4
    """How many scenarios (task i plays scenario i mod the suite's size)."""
    seed: int = 0
    """The seed of task i's reset is seed + i."""
    max_turns: int = 20
    """Replies played before the episode is cut (the world's own limit applies too)."""


class EscapadeData(vf.TaskData):
    info: dict
    """suite, scenario, seed, reward and max_turns: what the env replays the episode from."""


class EscapadeTask(vf.Task[EscapadeData, vf.State, vf.TaskConfig]):
    pass


class EscapadeEnvConfig(vf.EnvConfig):
    player: vf.AgentConfig = vf.AgentConfig()


class EscapadeEnv(vf.Env[EscapadeEnvConfig]):
    async def run(self, task, agents):
        info = task.data.info
        env = make(info["suite"], info["scenario"], info["reward"])
        env.reset(seed=info["seed"])
        total, steps, last = 0.0, 0, {"steps_to_go": None}
        async with agents.player.interaction(task) as interaction:
            segment = await interaction.turn()
            while not segment.terminated:
                obs, reward, terminated, truncated, last = env.step(segment.last_reply or "")
                total += float(reward)
                steps += 1
                if terminated or truncated or steps >= info["max_turns"]:
                    break
                segment = await interaction.turn(observation_text(obs, last))
        trace = interaction.trace
        trace.record_reward(f"escapade_{info['reward']}", total, 1.0)
        outcome = last.get("outcome") or {}
        trace.info["escapade"] = {
            "scenario": env.env.id,
            "steps": steps,
            "success": bool(outcome.get("success", False)),
            "steps_to_go": last.get("steps_to_go"),
            "reward": total,
        }


class EscapadeTaskset(vf.Taskset[EscapadeTask, EscapadeTasksetConfig]):
    def load(self) -> Iterator[EscapadeTask]:
        c = self.config
        probe = make(c.suite, 0, c.reward)
        for i in range(c.num_tasks):
            scenario = i % len(probe.ids)
            env = make(c.suite, scenario, c.reward)
            obs, info = env.reset(seed=c.seed + i)
            yield EscapadeTask(
                EscapadeData(
                    name=f"{c.suite}#{env.ids[scenario]}@{c.seed + i}",
                    prompt=observation_text(obs, info),
                    system_prompt=info["system_prompt"],
                    info={"suite": c.suite, "scenario": scenario, "seed": c.seed + i,
                          "reward": c.reward, "max_turns": c.max_turns},
                ),
                c.task,
            )


def load_environment(suite: str = "tools", reward: str = "progress", num_tasks: int = 4,
                     seed: int = 0, max_turns: int = 20, **env_config) -> EscapadeEnv:
    """The environment for `suite` (tools, vis, comma or craft), as `vf-eval escapade-env
    --env.taskset.suite ...` builds it."""
    config = EscapadeEnvConfig(
        taskset=EscapadeTasksetConfig(id="escapade-env", suite=suite, reward=reward,
                                      num_tasks=num_tasks, seed=seed, max_turns=max_turns),
        **env_config,
    )
    return vf.load_environment(config)
