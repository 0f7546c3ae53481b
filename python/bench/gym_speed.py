"""The Gymnasium layer's cost, measured in one process: per world, the steps per second
of the native ``escapade.Env`` and of the Gymnasium env replaying the same random
episodes (the world's ``random`` baseline's actions; comma's expert is the
``oracle-talk`` partner in both; the Gymnasium env with new arrays each step, as
Gymnasium asks, and with ``share_pictures=True``), then MM-Escape at 2048×1024 through the Gymnasium env
and the process's memory after a long craft run (issue 30).

    .venv/bin/python python/bench/gym_speed.py [--seconds 3] [--steps 10000]

Targets: the Gymnasium env within 4× of the native env for VisEscape and COMMA; craft at
2048×1024 ≥ 30 steps/s (the frame is the floor: measured with and without the oracle's
replan for ``steps_to_go``); RSS ≤ 300 MB after 10,000 craft steps at 2048×1024. Figures go
in the commit message and docs/python.md; nothing here asserts them (tests check the
pictures' equality instead: python/tests/test_gym_speed.py).
"""

from __future__ import annotations

import argparse
import resource
import time

import escapade

#: (suite, world options, what the row is called)
WORLDS = [
    ("visescape", {}, "VisEscape"),
    ("comma", {}, "COMMA (oracle-talk partner)"),
    ("agentescape", {}, "AgentEscape"),
    ("mm-escape", {"width": 320, "height": 160}, "MM-Escape 320×160"),
]
BIG = {"width": 2048, "height": 1024}


def rss_mb() -> float:
    """The resident set size now, MB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def record(gym_env, episodes: int = 3) -> list[list]:
    """The solver's actions in ``episodes`` episodes of the world's random baseline,
    played through the Gymnasium env (seeds 0, 1, ...)."""
    out = []
    for seed in range(episodes):
        gym_env.reset(seed=seed)
        agent = escapade.Agent(gym_env.env, "random", seed)
        agent.reset(gym_env.env, seed)
        actions = []
        while True:
            actions.append(agent.act(gym_env.env))
            _, _, terminated, truncated, _ = gym_env.step(actions[-1])
            if terminated or truncated or len(actions) >= 200:
                break
        out.append(actions)
    return out


#: the clock :func:`rate` reads: the wall clock, or with ``--clock process`` this
#: process's processor time (what a machine busy with other work inflates far less)
CLOCK = time.perf_counter


def rate(replay, seconds: float) -> float:
    """Steps per second of ``replay`` (which returns the steps it took), warmed once."""
    replay()
    steps, start = 0, CLOCK()
    while CLOCK() - start < seconds:
        steps += replay()
    return steps / (CLOCK() - start)


def compare(suite: str, options: dict, seconds: float) -> tuple[float, float, float]:
    """Native, Gymnasium and Gymnasium with ``share_pictures=True`` steps/s on
    ``suite``'s first scenario."""
    gym_env = escapade.make(suite, scenario=0, reask=False, **options)
    try:
        shared_env = escapade.make(suite, scenario=0, reask=False, share_pictures=True, **options)
    except escapade.EscapadeError:  # an escapade from before share_pictures
        shared_env = None
    episodes = record(gym_env)
    native = escapade.Env(gym_env.world, gym_env.env.scenario, gym_env.options)
    partner = escapade.Agent(native, "oracle-talk", 0) if gym_env.role else None

    def raw() -> int:
        n = 0
        for seed, actions in enumerate(episodes):
            observation = native.reset(seed)
            if partner is not None:
                partner.reset(native, seed)
            for action in actions:
                # the partner's turns, as the Gymnasium env plays them inside a step
                while partner is not None and observation["role"] != gym_env.role:
                    step = native.step(partner.act(native))
                    observation = step["observation"]
                    if step["terminated"] or step["truncated"]:
                        break
                else:
                    step = native.step(action)
                    observation = step["observation"]
                    n += 1
                    if not (step["terminated"] or step["truncated"]):
                        continue
                break
        return n

    def gym(env) -> int:
        n = 0
        for seed, actions in enumerate(episodes):
            env.reset(seed=seed)
            for action in actions:
                _, _, terminated, truncated, _ = env.step(action)
                n += 1
                if terminated or truncated:
                    break
        return n

    return (
        rate(raw, seconds),
        rate(lambda: gym(gym_env), seconds),
        rate(lambda: gym(shared_env), seconds) if shared_env else float("nan"),
    )


def craft_run(steps: int, options: dict) -> tuple[float, float, float]:
    """Steps/s of ``steps`` random MM-Escape steps through the Gymnasium env at
    ``options``' size (and its other keywords, e.g. ``steps_to_go=False``), the processor
    time a step took (ms, all threads: what a loaded machine does not inflate as much as
    the wall clock) and the RSS after them (MB)."""
    try:
        env = escapade.make("mm-escape", scenario=0, reask=False, **options)
    except escapade.EscapadeError:  # an escapade from before steps_to_go=False
        return float("nan"), float("nan"), rss_mb()
    env.reset(seed=0)
    agent = escapade.Agent(env.env, "random", 0)
    agent.reset(env.env, 0)
    start, cpu, episode = time.perf_counter(), time.process_time(), 0
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(agent.act(env.env))
        if terminated or truncated:
            episode += 1
            env.reset(seed=episode)
            agent.reset(env.env, episode)
    cpu_ms = (time.process_time() - cpu) * 1000 / steps
    return steps / (time.perf_counter() - start), cpu_ms, rss_mb()


def vector_rates(env_id: str, num_envs: int, seconds: float) -> dict[str, float]:
    """Steps/s (env steps, all envs counted) of ``gym.make_vec`` in sync mode and in
    async mode with and without shared memory, each env playing its first action."""
    import gymnasium as gym

    out = {}
    for name, mode, kwargs in [
        ("sync", "sync", {}),
        ("async", "async", {}),
        ("async, no shared memory", "async", {"shared_memory": False}),
    ]:
        try:
            envs = gym.make_vec(
                env_id, num_envs=num_envs, vectorization_mode=mode, vector_kwargs=kwargs
            )
        except (TypeError, ValueError):  # an escapade from before async worked as called
            out[name] = float("nan")
            continue
        try:
            _, infos = envs.reset(seed=0)
            steps, start = 0, time.perf_counter()
            while time.perf_counter() - start < seconds:
                actions = [a[0] if a else "look" for a in infos["actions"]]
                _, _, _, _, infos = envs.step(actions)
                steps += num_envs
            out[name] = steps / (time.perf_counter() - start)
        finally:
            envs.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--steps", type=int, default=10_000, help="the long craft run's steps")
    parser.add_argument("--big-steps", type=int, default=100, help="steps timed at 2048×1024")
    parser.add_argument("--envs", type=int, default=4, help="envs in the vector comparison")
    parser.add_argument("--only-vector", action="store_true", help="only sync vs async")
    parser.add_argument("--only-ratios", action="store_true", help="only the raw/Gymnasium table")
    parser.add_argument(
        "--clock", choices=["wall", "process"], default="wall",
        help="time the raw/Gymnasium rates by the wall clock or by processor time",
    )
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "process" else time.perf_counter
    for env_id in () if args.only_ratios else ("escapade/VisEscape-v1", "escapade/Comma-v1"):
        rates = vector_rates(env_id, args.envs, args.seconds)
        shown = ", ".join(f"{k} {v:,.0f}" for k, v in rates.items())
        print(f"{env_id} ×{args.envs} (env steps/s): {shown}")
    if args.only_vector:
        return
    print(
        f"{'world (random policy)':<30} {'escapade.Env':>14} {'gymnasium':>12} {'ratio':>6}"
        f" {'shared pictures':>16} {'ratio':>6}"
    )
    for suite, options, name in WORLDS:
        raw, gym, shared = compare(suite, options, args.seconds)
        print(
            f"{name:<30} {raw:>10,.0f} /s {gym:>8,.0f} /s {raw / gym:>5.1f}×"
            f" {shared:>12,.0f} /s {raw / shared:>5.1f}×"
        )
    if args.only_ratios:
        return
    for name, options in [
        ("MM-Escape 2048×1024 (gym)", BIG),
        ("  steps_to_go=False", {**BIG, "steps_to_go": False}),
        ("  and threads=0 (all cores)", {**BIG, "steps_to_go": False, "threads": 0}),
    ]:
        big, cpu_ms, _ = craft_run(args.big_steps, options)
        print(f"{name:<30} {'':>14} {big:>8,.1f} /s  ({cpu_ms:,.1f} ms of processor a step)")
    long_rate, _, rss = craft_run(args.steps, BIG)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"MM-Escape 2048×1024, {args.steps:,} steps: {long_rate:,.1f} /s, "
        f"RSS {rss:,.0f} MB after (peak {peak:,.0f} MB)"
    )


if __name__ == "__main__":
    main()
