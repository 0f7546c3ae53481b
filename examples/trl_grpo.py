"""GRPO on escapade's worlds with TRL: the rewards come from the world, step by step.

Each training prompt is a state of an escapade episode: the world's system prompt and
its observation after `--depth` oracle steps from a seeded reset (0: the start). The
model writes its next action; the reward function replays that state in a fresh
`escapade.make(...)` environment (same scenario, same seed, same oracle prefix: the
worlds are deterministic to the byte), steps the model's action and returns the reward
escapade gives for it — `progress`, `sparse` or `distance` (`--reward`, see
docs/training.md "Recipes"). With `distance` every action is scored by whether it
brought the oracle's `steps_to_go` down, which is a dense signal even for a model that
never escapes; a reply the world cannot read scores `--invalid` (default -1).

Why one action per prompt and not TRL's multi-turn `environment_factory`: that path
needs a model whose chat template emits tool calls TRL can parse, and SmolLM2-135M (the
model escapade ships, which this recipe trains on CPU) has none. States drawn along the
oracle's way out cover the whole episode instead; a bigger tool-calling model can use
the same reward function inside an environment class.

Run (CPU, the local SmolLM2 weights that `escapade setup` installed):

    python examples/trl_grpo.py --suite tools --reward distance --max-steps 2

The model is read from the GGUF file (`transformers` dequantises it; needs `gguf`), so
no network is used. `--model` takes any `from_pretrained` name or directory instead.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import sys
import time
from pathlib import Path

import escapade
from escapade import Agent

#: the suites of the four worlds, by the short names escapade's docs use
SUITES = {"tools": "agentescape", "vis": "visescape", "comma": "comma", "craft": "mm-escape"}

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def cache_dir() -> Path:
    """escapade's cache, as `escapade setup` chose it (crates/escapade-llm/src/local.rs)."""
    if os.environ.get("ESCAPADE_CACHE"):
        return Path(os.environ["ESCAPADE_CACHE"])
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "escapade"
    return Path.home() / ".cache" / "escapade"


def make_env(suite: str, scenario: int, reward: str):
    return escapade.make(SUITES.get(suite, suite), scenario=scenario, reward=reward)


def advance(env, seed: int, depth: int):
    """Resets `env` with `seed` and plays `depth` oracle steps; returns the observation
    and info reached (fewer steps if the oracle escapes first)."""
    obs, info = env.reset(seed=seed)
    oracle = Agent(env.env, "oracle", seed)
    oracle.reset(env.env, seed)
    for _ in range(depth):
        action = oracle.act(env.env)
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    return obs, info


def prompt_of(system: str, obs: dict, info: dict) -> list[dict]:
    """The chat a text model sees: the world's rules, then the current observation."""
    text = obs["text"]
    if info.get("actions"):
        # a small model copies a list it was just shown far more often than it follows
        # rules stated pages earlier: the actions last, one per line, and what to do
        listed = "\n".join(map(str, info["actions"][:40]))
        text += f"\n\nAvailable actions:\n{listed}\n\nReply with one of these actions, exactly as written."
    messages = [{"role": "user", "content": text}]
    return ([{"role": "system", "content": system}] if system else []) + messages


def build_dataset(suite: str, reward: str, scenarios: int, depths: list[int], seed: int):
    from datasets import Dataset

    rows = []
    for scenario in range(scenarios):
        env = make_env(suite, scenario, reward)
        for depth in depths:
            _, first = env.reset(seed=seed + scenario)
            obs, info = advance(env, seed + scenario, depth)
            if info.get("outcome") is not None:
                continue  # the oracle escaped before this depth: no action to learn
            rows.append(
                {
                    "prompt": prompt_of(first["system_prompt"], obs, info),
                    "scenario": scenario,
                    "seed": seed + scenario,
                    "depth": depth,
                    "steps_to_go": info["steps_to_go"],
                }
            )
    return Dataset.from_list(rows)


class EscapadeReward:
    """TRL reward function: the reward escapade gives for the completion as the next
    action from the prompt's state. Records every reward it hands out (`self.seen`)."""

    def __init__(self, suite: str, reward: str, invalid: float):
        self.suite, self.reward, self.invalid = suite, reward, invalid
        self.__name__ = f"escapade_{reward}"
        self.seen: list[dict] = []

    def __call__(self, prompts, completions, scenario, seed, depth, **_):
        out = []
        for completion, sc, sd, dp in zip(completions, scenario, seed, depth):
            text = completion[-1]["content"] if isinstance(completion, list) else completion
            env = make_env(self.suite, int(sc), self.reward)
            advance(env, int(sd), int(dp))
            before = env.env.steps_to_go()
            _, reward, _, _, info = env.step(text)
            if info.get("reask") is not None or info.get("valid") is False:
                reward = self.invalid
            out.append(float(reward))
            self.seen.append(
                {"reward": float(reward), "steps_to_go": [before, info["steps_to_go"]],
                 "valid": bool(info.get("valid")), "action": text[:120]}
            )
        return out


def clock_callback():
    """A trainer callback that times each optimisation step (`.steps`) and keeps what the
    trainer logs (`.logs`: losses, rewards, their spread)."""
    from transformers import TrainerCallback

    class Clock(TrainerCallback):
        def __init__(self):
            self.started, self.steps, self.logs = None, [], []

        def on_step_begin(self, *_, **__):
            self.started = time.perf_counter()

        def on_step_end(self, *_, **__):
            self.steps.append(time.perf_counter() - self.started)

        def on_log(self, _args, _state, _control, logs=None, **__):
            if logs:
                self.logs.append(dict(logs))

    return Clock()


def grpo_config(args, **extra):
    """The GRPO settings both recipes train with on CPU (`extra`: the recipe's own)."""
    from trl import GRPOConfig

    return GRPOConfig(
        output_dir=args.output_dir,
        max_steps=args.max_steps,
        per_device_train_batch_size=args.generations,
        num_generations=args.generations,
        max_completion_length=args.max_completion_length,
        learning_rate=1e-5,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        bf16=False,
        seed=args.seed,
        **extra,
    )


def finish(args, clock, rewarded: bool, rewards: str, fields: dict) -> int:
    """Prints (and with `--summary` writes) the run's figures, `fields` among them; 0 when
    every optimisation step ran with a finite loss and `rewards` reached the trainer."""
    losses = [log["loss"] for log in clock.logs if "loss" in log]
    summary = {
        "suite": args.suite,
        "reward": args.reward,
        "optimisation_steps": len(clock.steps),
        "seconds_per_step": clock.steps,
        "losses": losses,
        **fields,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    print(json.dumps(summary, indent=1))
    if args.summary:
        Path(args.summary).write_text(json.dumps(summary, indent=1) + "\n")
    ok = (len(clock.steps) == args.max_steps and losses
          and all(math.isfinite(x) for x in losses) and rewarded)
    if not ok:
        print(f"escapade: the run did not produce finite losses and {rewards}", file=sys.stderr)
        return 1
    return 0


def load_model(args):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if args.model:
        return (AutoModelForCausalLM.from_pretrained(args.model),
                AutoTokenizer.from_pretrained(args.model))
    weights = Path(args.gguf or cache_dir() / "local" / "models" / GGUF)
    if not weights.exists():
        sys.exit(f"{weights}: not found; run `escapade setup` (or pass --gguf / --model)")
    tokenizer = AutoTokenizer.from_pretrained(weights.parent, gguf_file=weights.name)
    model = AutoModelForCausalLM.from_pretrained(weights.parent, gguf_file=weights.name)
    # transformers dequantises GGUF into float32 tensors, yet leaves the model marked
    # quantized, which the Trainer refuses to fine-tune; the weights are plain floats
    assert all(p.dtype == torch.float32 for p in model.parameters())
    model.is_quantized, model.hf_quantizer = False, None
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


def add_common_arguments(p, suite: str, generations: int, completion: int, output_dir: str,
                         completion_help: str | None = None):
    """The options both recipes take: what `grpo_config`, `load_model` and `finish` read,
    with the recipe's own defaults."""
    p.add_argument("--suite", default=suite, help="tools, vis, comma, craft or any suite name")
    p.add_argument("--reward", default="distance", choices=["progress", "sparse", "distance"])
    p.add_argument("--scenarios", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-steps", type=int, default=2)
    p.add_argument("--generations", type=int, default=generations)
    p.add_argument("--max-completion-length", type=int, default=completion, help=completion_help)
    p.add_argument("--model", help="a from_pretrained name or directory instead of the GGUF")
    p.add_argument("--gguf", help="path to a .gguf file (default: escapade's SmolLM2)")
    p.add_argument("--output-dir", default=output_dir)
    p.add_argument("--summary", help="write the figures as JSON here")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_arguments(p, suite="tools", generations=8, completion=32, output_dir="runs/trl-grpo")
    p.add_argument("--depths", default="0,1", help="oracle steps before each prompt's state")
    p.add_argument("--invalid", type=float, default=-1.0, help="reward of an unreadable reply")
    args = p.parse_args(argv)

    import torch
    from trl import GRPOTrainer

    torch.manual_seed(args.seed)
    dataset = build_dataset(args.suite, args.reward, args.scenarios,
                            [int(d) for d in args.depths.split(",")], args.seed)
    model, tokenizer = load_model(args)
    reward = EscapadeReward(args.suite, args.reward, args.invalid)

    clock = clock_callback()
    trainer = GRPOTrainer(model=model, processing_class=tokenizer, reward_funcs=[reward],
                          args=grpo_config(args), train_dataset=dataset, callbacks=[clock])
    trainer.train()

    return finish(args, clock, bool(reward.seen), "escapade rewards", {
        "prompts": len(dataset),
        "rewards_from_escapade": len(reward.seen),
        "reward_values": sorted({r["reward"] for r in reward.seen}),
        # GRPO learns only from groups whose rewards differ: TRL's per-step spread of the
        # rewards within a prompt's generations, and the share of groups with none
        "reward_std": [log["reward_std"] for log in clock.logs if "reward_std" in log],
        "frac_reward_zero_std": [log["frac_reward_zero_std"] for log in clock.logs
                                 if "frac_reward_zero_std" in log],
    })


if __name__ == "__main__":
    sys.exit(main())
