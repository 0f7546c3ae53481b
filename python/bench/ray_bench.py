"""Episodes per second: the single-process runner against escapade.ray on this machine.

The same episodes (suite slice, agent, epochs, seed) are played by `escapade run`'s
runner (through the module: escapade_run::run, concurrency 1 and N) and by escapade.ray
on a local Ray with N CPUs; each into a fresh run directory. Ray's start-up is not
counted (the cluster is up before the clock starts), its per-task costs are.

    python python/bench/ray_bench.py [--source comma@3] [--agent oracle] [--limit 100]
                                     [--epochs 1] [--cpus 2] [--repeat 3] [--batch 10]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import ray

import escapade
import escapade.ray as eray


def timed(play) -> tuple[float, int]:
    start = time.perf_counter()
    summary = play()
    seconds = time.perf_counter() - start
    assert summary["unplayed"] == 0, summary
    return seconds, summary["played"]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--source", default="comma@3")
    p.add_argument("--agent", default="oracle")
    p.add_argument("--limit", type=int, default=100)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--cpus", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--batch", type=int, default=10, help="episodes per task, last row")
    a = p.parse_args()
    ray.init(num_cpus=a.cpus, include_dashboard=False, log_to_driver=False)
    common = dict(limit=a.limit, epochs=a.epochs, seed=1)
    ways = {
        "runner, concurrency 1": lambda out: escapade._escapade.run_local(
            a.source, a.agent, out=out, concurrency=1, **common
        ),
        f"runner, concurrency {a.cpus}": lambda out: escapade._escapade.run_local(
            a.source, a.agent, out=out, concurrency=a.cpus, **common
        ),
        f"escapade.ray, {a.cpus} CPUs": lambda out: eray.run(
            a.source, a.agent, out=out, **common
        ),
        f"escapade.ray, {a.cpus} CPUs, {a.batch} episodes per task": lambda out: eray.run(
            a.source, a.agent, out=out, episodes_per_task=a.batch, **common
        ),
    }
    # one untimed round: worker processes started, pictures' bases drawn, files cached
    with tempfile.TemporaryDirectory() as out:
        for play in ways.values():
            play(out)
    print(f"{a.source} --agent {a.agent} --limit {a.limit} --epochs {a.epochs}, "
          f"best and median of {a.repeat}")
    for name, play in ways.items():
        rates = []
        for _ in range(a.repeat):
            with tempfile.TemporaryDirectory() as out:
                seconds, n = timed(lambda: play(out))
            rates.append(n / seconds)
        print(f"| {name} | {max(rates):.1f} | {statistics.median(rates):.1f} | episodes/s")
    ray.shutdown()


if __name__ == "__main__":
    main()
