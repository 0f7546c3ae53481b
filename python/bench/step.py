"""The Python side of the binding's step benchmark (``benches/step.rs`` is the Rust
side): the same oracle episodes, replayed through ``escapade.Env`` (the native class)
and through the Gymnasium env, timed per step (episode time / steps, reset included).

    .venv/bin/python python/bench/step.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import time

import escapade

CASES = [("comma", 0), ("agentescape", 0), ("visescape", 0)]


def oracle_actions(env: escapade.Env) -> list:
    env.reset(0)
    agent = escapade.Agent(env, "oracle", 0)
    agent.reset(env, 0)
    actions = []
    while True:
        action = agent.act(env)
        actions.append(action)
        step = env.step(action)
        if step["terminated"] or step["truncated"]:
            return actions


def per_step(replay, steps: int, seconds: float) -> float:
    replay()  # warm
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        replay()
        n += 1
    return (time.perf_counter() - start) / n / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    print(f"{'episode (per step)':<34} {'steps':>5} {'escapade.Env':>14} {'gymnasium env':>14}")
    for suite, index in CASES:
        resolved = escapade.resolve(suite)
        env = escapade.Env(resolved["world"], resolved["scenarios"][index])
        actions = oracle_actions(env)

        def native() -> None:
            env.reset(0)
            for a in actions:
                env.step(a)

        # the Gymnasium env: its own oracle episode (in comma the partner's turns run
        # inside the solver's steps), pictures decoded to arrays at every step
        gym_env = escapade.make(suite, scenario=index, reask=False)
        gym_env.reset(seed=0)
        kind = "oracle-talk" if gym_env.role else "oracle"
        agent = escapade.Agent(gym_env.env, kind, 0)
        agent.reset(gym_env.env, 0)
        gym_actions = []
        while True:
            gym_actions.append(agent.act(gym_env.env))
            _, _, terminated, truncated, _ = gym_env.step(gym_actions[-1])
            if terminated or truncated:
                break

        def gym() -> None:
            gym_env.reset(seed=0)
            for a in gym_actions:
                gym_env.step(a)

        native_us = per_step(native, len(actions), args.seconds) * 1e6
        gym_us = per_step(gym, len(gym_actions), args.seconds) * 1e6
        print(
            f"{suite}[{index}] oracle episode{'':<10} {len(actions):>5} {native_us:>11.1f} µs"
            f" {gym_us:>11.1f} µs ({len(gym_actions)} steps)"
        )


if __name__ == "__main__":
    main()
