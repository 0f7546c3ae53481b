"""Episodes per second: the single-process runner against escapade.ray on this machine,
and where a distributed episode's time goes.

The same episodes (suite slice, agent, epochs, seed) are played by `escapade run`'s
runner (through the module: escapade_run::run, concurrency 1 and N) and by escapade.ray
on a local Ray with N CPUs; each into a fresh run directory. Ray's start-up is not
counted (the cluster is up before the clock starts), its per-call costs are.

The second table splits a distributed episode's cost, in milliseconds per episode or
per call, measured in this process and on the same cluster:
- `play_job`: one job played with a runtime and a scratch directory of its own (what a
  worker did per job before workers were actors);
- starting a run's worker actors (new processes, the package imported, agents made);
- `Worker.play`: the same jobs played by one Worker (runtime, scratch directory and
  agents made once), one call per job and one call for all;
- `commit`: the driver writing one record;
- Ray's own cost: a no-op task, and a no-op call to an actor, on this machine.

    python python/bench/ray_bench.py [--source comma@4] [--agent oracle] [--limit 100]
                                     [--epochs 1] [--cpus 2] [--repeat 3] [--batch 10]
                                     [--model M] [-A KEY=VALUE]...
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import ray

import escapade
import escapade.ray as eray
from escapade import _escapade


def timed(play) -> tuple[float, int]:
    start = time.perf_counter()
    summary = play()
    seconds = time.perf_counter() - start
    assert summary["unplayed"] == 0, summary
    return seconds, summary["played"]


def per_episode_costs(a: argparse.Namespace, flags: dict, tmp: str) -> list[tuple[str, float]]:
    """Milliseconds per job of each piece of a distributed run, in this process."""
    out: list[tuple[str, float]] = []
    if not hasattr(_escapade, "Worker"):  # an older build: jobs were tasks
        driver = _escapade.RunDriver(
            a.source, a.agent, out=tmp, limit=a.limit, epochs=a.epochs, seed=1
        )
        jobs = driver.pending()
        start = time.perf_counter()
        records = [_escapade.play_job(a.agent, job) for job in jobs]
        out.append(("play_job (runtime and scratch per job)",
                    (time.perf_counter() - start) * 1e3 / len(jobs)))
        start = time.perf_counter()
        for record in records:
            driver.commit(record)
        out.append(("RunDriver.commit, per record",
                    (time.perf_counter() - start) * 1e3 / len(jobs)))
        driver.finish()
    else:
        driver = _escapade.RunDriver(
            a.source, a.agent, out=tmp, limit=a.limit, epochs=a.epochs, seed=1, **flags
        )
        jobs = driver.pending()
        n = len(jobs)
        if not flags:
            start = time.perf_counter()
            for job in jobs:
                _escapade.play_job(a.agent, job)
            out.append(("play_job (runtime and scratch per job)",
                        (time.perf_counter() - start) * 1e3 / n))
        worker = _escapade.Worker(driver.cast)
        worker.play(jobs[:1])
        start = time.perf_counter()
        records = [worker.play([job])[0] for job in jobs]
        out.append(("Worker.play, one call per job", (time.perf_counter() - start) * 1e3 / n))
        start = time.perf_counter()
        worker.play(jobs)
        out.append(("Worker.play, one call for all", (time.perf_counter() - start) * 1e3 / n))
        start = time.perf_counter()
        driver.commit_all(records)
        out.append(("RunDriver.commit_all, per record", (time.perf_counter() - start) * 1e3 / n))
        driver.finish()

    @ray.remote(num_cpus=1)
    def noop(x):
        return x

    @ray.remote(num_cpus=1)
    class Noop:
        def f(self, x):
            return x

    ray.get([noop.remote(i) for i in range(20)])
    start = time.perf_counter()
    ray.get([noop.remote(i) for i in range(300)])
    out.append(("Ray: a no-op task (300 submitted at once)",
                (time.perf_counter() - start) * 1e3 / 300))
    actors = [Noop.remote() for _ in range(a.cpus)]
    ray.get([x.f.remote(0) for x in actors])
    start = time.perf_counter()
    ray.get([actors[i % a.cpus].f.remote(i) for i in range(1000)])
    out.append(("Ray: a no-op actor call (1000 at once)",
                (time.perf_counter() - start) * 1e3 / 1000))
    for x in actors:
        ray.kill(x)
    if hasattr(eray, "_Worker"):
        driver = _escapade.RunDriver(a.source, a.agent, out=tmp, limit=1, seed=2, **flags)
        starts = []
        for _ in range(3):
            start = time.perf_counter()
            workers = [ray.remote(eray._Worker).options(num_cpus=1).remote(driver.cast)
                       for _ in range(a.cpus)]
            ray.get([w.play.remote([]) for w in workers])
            starts.append(time.perf_counter() - start)
            for w in workers:
                ray.kill(w)
        driver.finish()
        out.append((f"starting {a.cpus} worker actors, per run (median of 3)",
                    statistics.median(starts) * 1e3))
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--source", default="comma@4")
    p.add_argument("--agent", default="oracle")
    p.add_argument("--model", help="a model agent's model (scripted/<file> needs no network)")
    p.add_argument("-A", dest="agent_options", action="append", default=[])
    p.add_argument("--limit", type=int, default=100)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--cpus", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--batch", type=int, default=10, help="episodes per call, last row")
    p.add_argument("--no-costs", action="store_true", help="skip the second table")
    a = p.parse_args()
    ray.init(num_cpus=a.cpus, include_dashboard=False, log_to_driver=False)
    flags = {}
    if a.model:
        flags["model"] = a.model
    if a.agent_options:
        flags["agent_options"] = a.agent_options
    common = dict(limit=a.limit, epochs=a.epochs, seed=1, **flags)
    ways = {
        "runner, concurrency 1": lambda out: _escapade.run_local(
            a.source, a.agent, out=out, concurrency=1, **common
        ),
        f"runner, concurrency {a.cpus}": lambda out: _escapade.run_local(
            a.source, a.agent, out=out, concurrency=a.cpus, **common
        ),
        f"escapade.ray, {a.cpus} CPUs, 1 episode per call": lambda out: eray.run(
            a.source, a.agent, out=out, episodes_per_task=1, **common
        ),
        f"escapade.ray, {a.cpus} CPUs, {a.batch} episodes per call": lambda out: eray.run(
            a.source, a.agent, out=out, episodes_per_task=a.batch, **common
        ),
    }
    if hasattr(_escapade, "Worker"):
        ways[f"escapade.ray, {a.cpus} CPUs, default batches"] = lambda out: eray.run(
            a.source, a.agent, out=out, **common
        )
        # the actors of the run before are played on: no process started, no agents made
        ways[f"escapade.ray, {a.cpus} CPUs, default batches, workers kept"] = (
            lambda out: eray.run(a.source, a.agent, out=out, keep_workers=True, **common)
        )
    # Every run directory is kept until the end: removing thousands of files between
    # two timed runs makes the next one's file creation slow on ext4 (it searches the
    # recently deleted inodes), which would be measured as the next way's cost.
    with tempfile.TemporaryDirectory() as root:
        dirs = iter(range(1_000_000))

        def fresh() -> str:
            path = f"{root}/{next(dirs)}"
            os.mkdir(path)
            return path

        # one untimed round: worker processes started, pictures' bases drawn, files cached
        for play in ways.values():
            play(fresh())
        print(f"{a.source} --agent {a.agent} --limit {a.limit} --epochs {a.epochs}, "
              f"best and median of {a.repeat} (episodes/s)")
        for name, play in ways.items():
            rates = []
            for _ in range(a.repeat):
                out = fresh()
                seconds, n = timed(lambda: play(out))
                rates.append(n / seconds)
            print(f"| {name} | {max(rates):.1f} | {statistics.median(rates):.1f} |")
        if hasattr(eray, "release_workers"):
            eray.release_workers()
        if not a.no_costs:
            print("\nper episode or call (ms)")
            for name, ms in per_episode_costs(a, flags, fresh()):
                print(f"| {name} | {ms:.2f} |")
    ray.shutdown()


if __name__ == "__main__":
    main()
