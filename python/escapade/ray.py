"""Runs spread over a Ray cluster: every episode of a run a Ray task, one run directory.

A run that outgrows one machine is split into its episodes (scenario x epoch). The
driver — this process — plans the run exactly as ``escapade run`` plans it (the source
resolved, the suite's paper settings applied, the same ``run.toml`` and config hash) and
opens its run directory; each episode still to play becomes a Ray task that plays it on
whichever worker Ray chooses, with the very episode loop ``escapade run`` uses, and sends
back a record (the episode row, its steps, its pictures). The driver alone writes the
run directory and commits each episode exactly once, so the result is an ordinary run
directory: ``escapade report`` reads it, ``escapade resume`` or :func:`resume` finishes
it, and its rows equal those of ``escapade run`` with the same seeds (timings aside).

A worker that dies mid-episode (a killed process, a lost node) costs only that episode:
Ray runs the task again, up to ``max_retries`` times. An episode whose retries are used
up is left unplayed; the run still finishes, says how many episodes are missing, and
:func:`resume` plays them.

Only the worlds' baseline agents (``oracle``, ``random``; COMMA's pair) are spread over
workers for now; model agents run with ``escapade run --concurrency N``.

Example::

    import escapade.ray
    summary = escapade.ray.run("comma@3", agent="oracle", limit=20, out="runs")
    print(summary["dir"], summary["played"], summary["unplayed"])

Command line: ``python -m escapade.ray run comma@3 --agent oracle --limit 20`` (see
``python -m escapade.ray --help``). ``docs/ray.md`` covers multi-node clusters.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, Callable, Mapping

from . import _escapade

__all__ = ["run", "resume", "main", "play_job", "RunDriver"]

RunDriver = _escapade.RunDriver
play_job = _escapade.play_job

#: Tasks in flight per CPU of the cluster: enough that no worker waits for the driver,
#: few enough that a run of a million episodes does not put a million tasks in Ray.
IN_FLIGHT_PER_CPU = 4


def _play(agent: str, jobs: list[str]) -> list[bytes]:
    """What a Ray task runs: its episodes one after the other, their records as bytes."""
    return [_escapade.play_job(agent, job) for job in jobs]


def _ray():
    try:
        import ray  # the top-level package, not this module
    except ImportError as e:  # pragma: no cover - ray is an optional dependency
        raise ImportError(
            "escapade.ray needs Ray: pip install 'ray>=2.40' (or escapade[ray])"
        ) from e
    return ray


def _connect(address: str | None, num_cpus: int | None) -> None:
    ray = _ray()
    if ray.is_initialized():
        return
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
    if address is not None:
        kwargs["address"] = address
    if num_cpus is not None:
        kwargs["num_cpus"] = num_cpus
    ray.init(**kwargs)


def _drive(
    driver: _escapade.RunDriver,
    *,
    max_retries: int,
    episodes_per_task: int,
    on_commit: Callable[[int, int], None] | None,
) -> dict[str, Any]:
    """Submits the driver's pending episodes as Ray tasks, commits each record once."""
    if episodes_per_task < 1:
        raise ValueError("episodes_per_task must be at least 1")
    ray = _ray()
    remote = ray.remote(_play).options(
        max_retries=max_retries, retry_exceptions=False, num_cpus=1
    )
    jobs = driver.pending()
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    window = max(2, IN_FLIGHT_PER_CPU * cpus)
    agent = driver.agent
    batches = [
        jobs[i : i + episodes_per_task] for i in range(0, len(jobs), episodes_per_task)
    ]
    queue = iter(batches)
    in_flight: dict[Any, list[str]] = {}
    failures: list[str] = []
    committed = duplicates = 0

    def submit() -> None:
        while len(in_flight) < window:
            batch = next(queue, None)
            if batch is None:
                return
            in_flight[remote.remote(agent, batch)] = batch

    submit()
    while in_flight:
        ready, _ = ray.wait(list(in_flight), num_returns=1)
        for ref in ready:
            batch = in_flight.pop(ref)
            try:
                records = ray.get(ref)
            except Exception as e:  # a worker that died more than max_retries times
                for job in batch:
                    episode = json.loads(job)
                    failures.append(
                        f"episode {episode['scenario']} epoch {episode['epoch']}: {e}"
                    )
                continue
            for record in records:
                if driver.commit(record):
                    committed += 1
                else:
                    duplicates += 1
                if on_commit is not None:
                    on_commit(committed, len(jobs))
        submit()
    summary = driver.finish()
    summary["failures"] = failures
    summary["duplicates"] = duplicates
    return summary


def run(
    source: str,
    agent: str = "random",
    *,
    out: str = "runs",
    epochs: int | None = None,
    limit: int | None = None,
    seed: int = 0,
    max_steps: int | None = None,
    world_options: Mapping[str, str] | None = None,
    max_retries: int = 3,
    episodes_per_task: int = 1,
    address: str | None = None,
    num_cpus: int | None = None,
    on_commit: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Plays a run of ``source`` (suite name, scenario file or directory) by the baseline
    ``agent`` over a Ray cluster and writes one run directory under ``out`` (or resumes
    ``out`` when it is a run directory of the same config).

    The arguments are ``escapade run``'s flags (``--epochs``, ``--limit``, ``--seed``,
    ``--max-steps``, ``-W key=value``); the suite's paper settings apply as there.
    ``max_retries`` is how often Ray runs a task again whose worker died.
    ``episodes_per_task`` episodes go into one task (one after the other): more amortize
    Ray's cost per task when episodes take milliseconds; a retried task replays them all
    (what was committed already is not written twice). Connects
    to ``address`` (``"auto"``: the cluster ``ray start`` made on this machine), or
    starts a local Ray with ``num_cpus`` CPUs, unless Ray is initialized already.
    ``on_commit(committed, total)`` is called after each episode written.

    Returns a dict: ``dir``, ``config_hash``, ``total``, ``skipped`` (finished before),
    ``played`` (committed now), ``errors``, ``resumed``, ``unplayed`` (no record: their
    workers kept dying; :func:`resume` plays them), ``failures`` (why), ``duplicates``
    (records of episodes already written, ignored), ``warnings`` and ``summary`` (the
    report as JSON text, as in ``summary.json``).
    """
    options = {str(k): str(v) for k, v in (world_options or {}).items()}
    # a bad source, agent or option fails before a cluster is started or joined
    driver = _escapade.RunDriver(
        source,
        agent,
        out=out,
        epochs=epochs,
        limit=limit,
        seed=seed,
        max_steps=max_steps,
        world_options=options,
    )
    _connect(address, num_cpus)
    return _drive(
        driver,
        max_retries=max_retries,
        episodes_per_task=episodes_per_task,
        on_commit=on_commit,
    )


def resume(
    run_dir: str,
    *,
    max_retries: int = 3,
    episodes_per_task: int = 1,
    address: str | None = None,
    num_cpus: int | None = None,
    on_commit: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Plays the episodes of ``run_dir`` not finished yet over Ray, with the config it
    was made with (as ``escapade resume`` does). Returns what :func:`run` returns."""
    driver = _escapade.RunDriver.resume(run_dir)
    _connect(address, num_cpus)
    return _drive(
        driver,
        max_retries=max_retries,
        episodes_per_task=episodes_per_task,
        on_commit=on_commit,
    )


def _key_values(pairs: list[str]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SystemExit(f"error: bad world option `{pair}` (-W): expected KEY=VALUE")
        options[key.strip()] = value.strip()
    return options


def main(argv: list[str] | None = None) -> int:
    """``python -m escapade.ray run|resume …``: the command line of :func:`run` and
    :func:`resume`. Prints the run directory last, as ``escapade run`` does."""
    parser = argparse.ArgumentParser(
        prog="python -m escapade.ray",
        description="Play an escapade run's episodes as Ray tasks into one run directory.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    cluster = argparse.ArgumentParser(add_help=False)
    cluster.add_argument(
        "--address",
        help="the Ray cluster to join (`auto`: the one `ray start` made here); "
        "default: start a local Ray",
    )
    cluster.add_argument("--num-cpus", type=int, help="CPUs of a local Ray")
    cluster.add_argument(
        "--max-retries",
        type=int,
        default=3,
        help="runs of a task again after its worker died (default 3)",
    )
    cluster.add_argument(
        "--episodes-per-task",
        type=int,
        default=1,
        help="episodes one Ray task plays (more: less overhead for short episodes)",
    )
    cluster.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    r = sub.add_parser("run", parents=[cluster], help="start (or resume) a run")
    r.add_argument("source", help="suite name, scenario file or directory")
    r.add_argument("--agent", default="random", help="a baseline agent (oracle, random)")
    r.add_argument("--epochs", type=int)
    r.add_argument("--limit", type=int)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--max-steps", type=int)
    r.add_argument("-W", dest="world_options", action="append", default=[],
                   metavar="KEY=VALUE", help="a world option")
    r.add_argument("--out", default="runs", help="where the run directory goes")
    s = sub.add_parser("resume", parents=[cluster], help="finish a run directory")
    s.add_argument("dir", help="the run directory")
    args = parser.parse_args(argv)

    def progress(done: int, total: int) -> None:
        print(f"\r{done}/{total} episodes", end="", file=sys.stderr, flush=True)

    on_commit = None if args.quiet else progress
    start = time.monotonic()
    try:
        if args.command == "run":
            summary = run(
                args.source,
                args.agent,
                out=args.out,
                epochs=args.epochs,
                limit=args.limit,
                seed=args.seed,
                max_steps=args.max_steps,
                world_options=_key_values(args.world_options),
                max_retries=args.max_retries,
                episodes_per_task=args.episodes_per_task,
                address=args.address,
                num_cpus=args.num_cpus,
                on_commit=on_commit,
            )
        else:
            summary = resume(
                args.dir,
                max_retries=args.max_retries,
                episodes_per_task=args.episodes_per_task,
                address=args.address,
                num_cpus=args.num_cpus,
                on_commit=on_commit,
            )
    except _escapade.EscapadeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if on_commit is not None:
        print(file=sys.stderr)
    seconds = time.monotonic() - start
    for w in summary["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    for f in summary["failures"]:
        print(f"not played: {f}", file=sys.stderr)
    print(
        f"{summary['played']} episodes played, {summary['skipped']} finished before, "
        f"{summary['unplayed']} not played, {summary['errors']} with an error "
        f"({seconds:.1f} s)"
    )
    print(f"run directory: {summary['dir']}")
    if summary["unplayed"]:
        print(
            f"{summary['unplayed']} episode(s) not played; "
            f"`python -m escapade.ray resume {summary['dir']}` plays them",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
