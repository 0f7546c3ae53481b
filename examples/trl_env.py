"""Multi-turn GRPO with TRL's `environment_factory`: an escapade room as the environment.

Where `trl_grpo.py` scores one action per prompt, this recipe lets the model play whole
episodes: TRL gives it the environment's public methods as tools (here one, `act`),
runs each call it makes against an escapade environment (`escapade.make`), feeds the
room's answer back as the tool's result, and after the rollout asks the environment for
its reward (`get_reward`: the sum of escapade's step rewards, `--reward`
progress|sparse|distance; docs/training.md). One environment per rollout, reset with the
example's scenario and seed, so every generation of a group plays the same room.

TRL parses tool calls by the chat template it recognises. SmolLM2 (the model escapade
ships) uses the ChatML tokens of Qwen2.5 but has no tool-calling template, so the recipe
gives its tokenizer TRL's own Qwen2.5 template (`--template qwen2_5`, from
`trl/chat_templates`): the same special tokens, plus the `<tool_call>` format TRL reads.
A 135M model rarely writes a valid call at first; the rollouts then end after one turn
with reward 0 — the loop is what this run checks (that escapade's rewards reach TRL
through the environment); a tool-calling model learns from it.

    python examples/trl_env.py --suite vis --reward distance --max-steps 2
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

import escapade

sys.path.insert(0, str(Path(__file__).resolve().parent))
from trl_grpo import (  # noqa: E402
    SUITES,
    add_common_arguments,
    clock_callback,
    finish,
    grpo_config,
    load_model,
)


def describe(obs: dict, info: dict) -> str:
    """What the room shows, as text (the actions it lists, when it lists them)."""
    text = obs["text"]
    if info.get("feedback"):
        text = f"{info['feedback']}\n\n{text}"
    if info.get("actions"):
        text += "\n\nAvailable actions: " + "; ".join(map(str, info["actions"][:40]))
    return text


def environment(suite: str, reward: str):
    """The environment class TRL instantiates once per rollout."""

    class EscapeRoom:
        def __init__(self):
            self.env = None
            self.total = 0.0
            self.over = False
            self.steps = 0

        def reset(self, scenario: int, seed: int, **_) -> str:
            self.env = escapade.make(SUITES.get(suite, suite), scenario=int(scenario), reward=reward)
            obs, info = self.env.reset(seed=int(seed))
            self.total, self.over, self.steps = 0.0, False, 0
            return "\n\n" + describe(obs, info)

        def act(self, action: str) -> str:
            """Take one action in the escape room.

            Args:
                action: The action, written as the room's rules say (one of the available actions when the room lists them).

            Returns:
                What the room shows after the action.
            """
            if self.over:
                return "The episode is over."
            obs, r, terminated, truncated, info = self.env.step(action)
            self.total += float(r)
            self.steps += 1
            self.over = bool(terminated or truncated)
            answer = describe(obs, info)
            if self.over:
                answer += f"\n\nThe episode ended ({info.get('outcome')})."
            return answer

        def get_reward(self) -> float:
            return self.total

    return EscapeRoom


def build_dataset(suite: str, scenarios: int, seed: int):
    from datasets import Dataset

    rows = []
    for scenario in range(scenarios):
        env = escapade.make(SUITES.get(suite, suite), scenario=scenario)
        _, info = env.reset(seed=seed + scenario)
        rules = (info.get("system_prompt") or "").strip()
        system = "\n\n".join(filter(None, [rules, "Take each action by calling the `act` tool."]))
        rows.append({
            "prompt": [{"role": "system", "content": system},
                       {"role": "user", "content": "You are in the room."}],
            "scenario": scenario,
            "seed": seed + scenario,
        })
    return Dataset.from_list(rows)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_arguments(
        p, suite="vis", generations=4, completion=256, output_dir="runs/trl-env",
        completion_help="tokens of a rollout: the model's turns and the room's answers",
    )
    p.add_argument("--max-turns", type=int, default=4, help="tool calls per rollout at most")
    p.add_argument("--template", default="qwen2_5",
                   help="a chat template of trl/chat_templates for the tokenizer ('' keeps its own)")
    args = p.parse_args(argv)

    import torch
    from trl import GRPOTrainer

    torch.manual_seed(args.seed)
    model, tokenizer = load_model(args)
    if args.template:
        tokenizer.chat_template = (resources.files("trl") / "chat_templates" /
                                   f"{args.template}.jinja").read_text()
    dataset = build_dataset(args.suite, args.scenarios, args.seed)
    room = environment(args.suite, args.reward)
    played: list[dict] = []

    class Counted(room):
        """Records each rollout's reward and steps as TRL collects it."""

        def get_reward(self) -> float:
            played.append({"reward": self.total, "steps": self.steps})
            return super().get_reward()

    clock = clock_callback()
    config = grpo_config(args, max_tool_calling_iterations=args.max_turns)
    trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=config,
                          train_dataset=dataset, environment_factory=Counted, callbacks=[clock])
    trainer.train()

    return finish(args, clock, bool(played), "rewards from escapade's environment", {
        "rollouts": len(played),
        "rollout_rewards": [r["reward"] for r in played],
        "rollout_steps": [r["steps"] for r in played],
        "tool_calls_logged": [log.get("tools/call_frequency") for log in clock.logs
                              if "tools/call_frequency" in log],
    })


if __name__ == "__main__":
    sys.exit(main())
