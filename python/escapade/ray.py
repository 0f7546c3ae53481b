"""Runs spread over a Ray cluster: the episodes of a run played by Ray actors, one run
directory.

A run that outgrows one machine is split into its episodes (scenario x epoch). The
driver — this process — plans the run exactly as ``escapade run`` plans it (the source
resolved, the agent flags read, the suite's paper settings applied, the same ``run.toml``
and config hash) and opens its run directory. It starts worker actors, each of which
makes the run's agents once — a model agent opens its backend once, and that client
(its connections, its rate limits) serves every episode the actor plays — and sends them
the episodes still to play, a few at a time. An actor plays them with the very episode
loop ``escapade run`` uses and sends back records (the episode row, its steps, its
pictures). The driver alone writes the run directory and commits each episode exactly
once, so the result is an ordinary run directory: ``escapade report`` reads it,
``escapade resume`` or :func:`resume` finishes it, and its rows equal those of
``escapade run`` with the same flags and seeds (timings aside).

A worker that dies mid-episode (a killed process, a lost node) costs only the episodes it
held: Ray restarts the actor and sends it those episodes again, up to ``max_retries``
times. An episode whose retries are used up is left unplayed; the run still finishes,
says how many episodes are missing, and :func:`resume` plays them.

Any agent ``escapade run`` plays is played here: the worlds' baselines, model agents
(``llm``; VisEscape's ``base`` and ``visescaper``), COMMA teams and ``--expert`` pairs.
A model's API key is read by each worker from its own environment (see
``docs/ray.md``); it is never part of the run's config.

Example::

    import escapade.ray
    summary = escapade.ray.run("comma@4", agent="oracle", limit=20, out="runs")
    print(summary["dir"], summary["played"], summary["unplayed"])
    escapade.ray.run("visescape@4", agent="llm", model="openai/gpt-4o",
                     agent_options={"temperature": "0"})

Command line: ``python -m escapade.ray run comma@4 --agent oracle --limit 20`` (see
``python -m escapade.ray --help``). ``docs/ray.md`` covers multi-node clusters.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import deque
from typing import Any, Callable, Mapping, Sequence

from . import _escapade

__all__ = ["run", "resume", "release_workers", "main", "play_job", "RunDriver", "Worker"]

RunDriver = _escapade.RunDriver
Worker = _escapade.Worker
play_job = _escapade.play_job

#: Calls queued on each worker actor: one it plays and one waiting, so that it never
#: waits for the driver to commit what it sent back.
CALLS_PER_WORKER = 2

#: Most episodes in one call when the batch size is chosen for a baseline run.
MAX_EPISODES_PER_CALL = 32


#: The worker actors a run with ``keep_workers=True`` left running, and what they were
#: made for (the Ray job, the cast and the resources): the next run of the same cast in
#: this process plays on them instead of starting its own.
_kept: dict[str, Any] = {"key": None, "actors": []}


def release_workers() -> None:
    """Ends the worker actors a run with ``keep_workers=True`` left running, and gives
    their CPUs back to the cluster."""
    actors, _kept["key"], _kept["actors"] = _kept["actors"], None, []
    if actors:
        ray = _ray()
        if ray.is_initialized():
            _end(ray, actors)


class _Worker:
    """A Ray actor: the run's agents, made once from the driver's cast, and the episodes
    it is sent played one after the other (their records sent back together)."""

    def __init__(self, cast: str) -> None:
        # a worker that cannot make the agents (no API key in its environment, an
        # unknown provider) says why when asked, rather than dying in a traceback that
        # Ray would retry: the driver then stops the run at once
        self._worker: Any = None
        self._error: str | None = None
        self.cast = cast
        try:
            self._worker = _escapade.Worker(cast)
        except _escapade.EscapadeError as e:
            self._error = str(e)

    def ready(self) -> str | None:
        """Why this worker cannot play (``None``: it can)."""
        return self._error

    def play(self, jobs: list[str]) -> list[bytes]:
        if self._worker is None:
            raise _escapade.EscapadeError(self._error)
        return self._worker.play(jobs)

    def scratch(self) -> str | None:
        """The worker's scratch directory (``None`` when it could not start)."""
        return None if self._worker is None else self._worker.scratch

    def close(self) -> None:
        """Drops the agents and the scratch directory (``ray.kill`` alone would leave
        the directory behind)."""
        self._worker = None


def _end(ray: Any, actors: list[Any]) -> None:
    """Ends worker actors: each drops its agents and scratch directory first (a dead or
    stuck one is not waited for beyond a few seconds), then is killed."""
    try:
        ray.get([a.close.remote() for a in actors], timeout=10)
    except Exception:  # noqa: BLE001 - a dead actor has nothing left to close
        pass
    for a in actors:
        ray.kill(a)


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


def _is_model_run(cast: str) -> bool:
    """Whether a model agent plays (its options always name the model)."""
    players = json.loads(cast)["players"]
    expert = players.get("expert")
    return "model" in players["options"] or bool(expert and "model" in expert[1])


def _why(error: Exception) -> str:
    """The line of a Ray error that says why (the escapade error, when there is one)."""
    text = str(error)
    marker = "EscapadeError: "
    if marker in text:
        return text[text.rindex(marker) + len(marker) :].splitlines()[0]
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


def _check_ready(ray: Any, actors: list[Any], driver: _escapade.RunDriver) -> None:
    """Stops the run before its first episode when a worker cannot make the run's agents,
    as ``escapade run`` stops when it cannot: the actors are ended, the run directory is
    removed unless it holds episodes, and the worker's reason is raised."""
    try:
        reasons = ray.get([a.ready.remote() for a in actors])
    except ray.exceptions.RayActorError:
        return  # a worker process died while starting: retried like any other death
    reason = next((r for r in reasons if r), None)
    if reason is None:
        return
    _end(ray, actors)
    driver.discard()
    raise _escapade.EscapadeError(f"the workers cannot make the run's agents: {reason}")


def _drive(
    driver: _escapade.RunDriver,
    *,
    max_retries: int,
    episodes_per_task: int | None,
    workers: int | None,
    cpus_per_worker: float,
    keep_workers: bool,
    on_commit: Callable[[int, int], None] | None,
) -> dict[str, Any]:
    """Plays the driver's pending episodes on worker actors, commits each record once."""
    if episodes_per_task is not None and episodes_per_task < 1:
        raise ValueError("episodes_per_task must be at least 1")
    if workers is not None and workers < 1:
        raise ValueError("workers must be at least 1")
    if not cpus_per_worker > 0:
        raise ValueError("cpus_per_worker must be more than 0")
    ray = _ray()
    jobs = driver.pending()
    failures: list[str] = []
    committed = duplicates = 0
    if not jobs:
        summary = driver.finish()
        summary["failures"], summary["duplicates"] = failures, duplicates
        return summary
    cpus = float(ray.cluster_resources().get("CPU", 1))
    n = workers or max(1, int(cpus // cpus_per_worker))
    n = min(n, len(jobs))
    # every worker has its own client; the provider counts them all: split rpm and tpm
    cast, cast_warnings = driver.cast_for(n)
    if episodes_per_task is None:
        # a model's episodes take seconds: one per call, each committed when it ends;
        # a baseline's take milliseconds: enough per call that Ray's cost per call
        # fades, few enough that every worker gets several calls
        episodes_per_task = (
            1
            if _is_model_run(cast)
            else max(1, min(MAX_EPISODES_PER_CALL, math.ceil(len(jobs) / (n * 8))))
        )
    key = (ray.get_runtime_context().get_job_id(), cast, n, cpus_per_worker, max_retries)
    if _kept["key"] == key:
        actors, _kept["key"], _kept["actors"] = _kept["actors"], None, []
    else:
        if _kept["key"] is not None and _kept["key"][0] != key[0]:
            _kept["key"], _kept["actors"] = None, []  # of a Ray session that has ended
        release_workers()
        actor = ray.remote(_Worker).options(
            num_cpus=cpus_per_worker,
            max_restarts=max_retries,
            max_task_retries=max_retries,
        )
        actors = [actor.remote(cast) for _ in range(n)]
        _check_ready(ray, actors, driver)
    queue = deque(
        jobs[i : i + episodes_per_task] for i in range(0, len(jobs), episodes_per_task)
    )
    in_flight: dict[Any, tuple[int, list[str]]] = {}
    load = [0] * n
    alive = set(range(n))

    def fail(batch: list[str], why: str) -> None:
        for job in batch:
            episode = json.loads(job)
            failures.append(f"episode {episode['scenario']} epoch {episode['epoch']}: {why}")

    def submit(i: int) -> None:
        while i in alive and load[i] < CALLS_PER_WORKER and queue:
            batch = queue.popleft()
            in_flight[actors[i].play.remote(batch)] = (i, batch)
            load[i] += 1

    try:
        for i in range(n):
            submit(i)
        while in_flight:
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in ready:
                i, batch = in_flight.pop(ref)
                load[i] -= 1
                try:
                    records = ray.get(ref)
                except ray.exceptions.RayActorError as e:
                    # the actor died more than max_retries times (or could not start)
                    alive.discard(i)
                    fail(batch, _why(e))
                    continue
                except ray.exceptions.RayError as e:
                    # the call failed (a job the worker refused, a lost result); the
                    # worker lives on
                    fail(batch, _why(e))
                    submit(i)
                    continue
                written = driver.commit_all(records)
                committed += written
                duplicates += len(records) - written
                if on_commit is not None:
                    on_commit(committed, len(jobs))
                submit(i)
            if not alive:
                while queue:
                    fail(queue.popleft(), "no worker left (every worker died)")
    finally:
        if keep_workers and len(alive) == n:
            _kept["key"], _kept["actors"] = key, actors
        else:
            _end(ray, actors)
    summary = driver.finish()
    summary["failures"] = failures
    summary["duplicates"] = duplicates
    summary["warnings"] = cast_warnings + summary["warnings"]
    return summary


def _pairs(options: Mapping[str, Any] | Sequence[str] | None) -> list[str] | None:
    """``-A``-style pairs from a mapping (``{"temperature": 0.7}``) or pairs as given."""
    if options is None:
        return None
    if isinstance(options, Mapping):
        return [f"{k}={v}" for k, v in options.items()]
    if isinstance(options, str):
        raise TypeError("agent options are a mapping or a list of KEY=VALUE strings")
    return [str(p) for p in options]


def run(
    source: str,
    agent: str = "random",
    *,
    model: str | None = None,
    agent_options: Mapping[str, Any] | Sequence[str] | None = None,
    base_url: str | None = None,
    expert: str | None = None,
    expert_model: str | None = None,
    expert_options: Mapping[str, Any] | Sequence[str] | None = None,
    out: str = "runs",
    epochs: int | None = None,
    limit: int | None = None,
    seed: int = 0,
    max_steps: int | None = None,
    world_options: Mapping[str, str] | None = None,
    max_retries: int = 3,
    episodes_per_task: int | None = None,
    workers: int | None = None,
    cpus_per_worker: float = 1.0,
    keep_workers: bool = False,
    address: str | None = None,
    num_cpus: int | None = None,
    on_commit: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Plays a run of ``source`` (suite name, scenario file or directory) by ``agent``
    over a Ray cluster and writes one run directory under ``out`` (or resumes ``out``
    when it is a run directory of the same config).

    The arguments are ``escapade run``'s flags: ``agent`` (``--agent``: a baseline or a
    model agent), ``model`` (``--model``), ``agent_options`` (``-A``: a mapping or
    ``KEY=VALUE`` strings), ``base_url`` (``--base-url``), ``expert``,
    ``expert_model`` and ``expert_options`` (``--expert``, ``--expert-model``, ``-E``),
    ``epochs``, ``limit``, ``seed``, ``max_steps``, ``world_options`` (``-W``); they are
    read, and the suite's paper settings applied, by the same code, so ``run.toml`` and
    the config hash are those of ``escapade run`` with the same flags.

    ``workers`` actors are started (default: the cluster's CPUs divided by
    ``cpus_per_worker``; a model run, which mostly waits on the network, may ask for
    ``cpus_per_worker=0.25`` to have four per CPU); each makes the agents once and plays
    one episode at a time. ``max_retries`` is how often Ray restarts an actor that died
    and sends it its episodes again. ``episodes_per_task`` episodes go into one call
    (default: one for a model run; for a baseline, enough to amortize Ray's cost per
    call); a retried call replays them all (what was committed already is not written
    twice). Starting the actors costs about a second (new processes, the package
    imported, the agents made); ``keep_workers=True`` leaves them running, holding their
    CPUs, so that the next run of the same agents in this process starts at once
    (:func:`release_workers` ends them; a run of other agents ends them first).
    Connects to ``address`` (``"auto"``: the cluster ``ray start`` made on this
    machine), or starts a local Ray with ``num_cpus`` CPUs, unless Ray is initialized
    already. ``on_commit(committed, total)`` is called after each batch written.

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
        model=model,
        agent_options=_pairs(agent_options),
        base_url=base_url,
        expert=expert,
        expert_model=expert_model,
        expert_options=_pairs(expert_options),
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
        workers=workers,
        cpus_per_worker=cpus_per_worker,
        keep_workers=keep_workers,
        on_commit=on_commit,
    )


def resume(
    run_dir: str,
    *,
    max_retries: int = 3,
    episodes_per_task: int | None = None,
    workers: int | None = None,
    cpus_per_worker: float = 1.0,
    keep_workers: bool = False,
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
        workers=workers,
        cpus_per_worker=cpus_per_worker,
        keep_workers=keep_workers,
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
        description="Play an escapade run's episodes on Ray actors into one run directory.",
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
        help="restarts of a worker that died, its episodes sent again (default 3)",
    )
    cluster.add_argument(
        "--episodes-per-task",
        type=int,
        help="episodes one call to a worker plays (default: 1 for a model agent, more "
        "for a baseline)",
    )
    cluster.add_argument(
        "--workers", type=int, help="worker actors (default: CPUs / --cpus-per-worker)"
    )
    cluster.add_argument(
        "--cpus-per-worker",
        type=float,
        default=1.0,
        help="CPUs Ray reserves per worker (default 1; less for model agents)",
    )
    cluster.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    r = sub.add_parser("run", parents=[cluster], help="start (or resume) a run")
    r.add_argument("source", help="suite name, scenario file or directory")
    r.add_argument(
        "-a", "--agent", default="random",
        help="a baseline (oracle, random) or a model agent (llm, base, visescaper)",
    )
    r.add_argument("-m", "--model", help="the model of a model agent (provider/model)")
    r.add_argument("-A", "--agent-option", dest="agent_options", action="append", default=[],
                   metavar="KEY=VALUE", help="an agent option")
    r.add_argument("--base-url", help="the model server's address")
    r.add_argument("--expert", help="the expert role's agent (two-role worlds)")
    r.add_argument("--expert-model", help="the expert's model")
    r.add_argument("-E", "--expert-option", dest="expert_options", action="append", default=[],
                   metavar="KEY=VALUE", help="an expert option")
    r.add_argument("-e", "--epochs", type=int)
    r.add_argument("-l", "--limit", type=int)
    r.add_argument("-s", "--seed", type=int, default=0)
    r.add_argument("--max-steps", type=int)
    r.add_argument("-W", "--world-option", dest="world_options", action="append", default=[],
                   metavar="KEY=VALUE", help="a world option")
    r.add_argument("-o", "--out", default="runs", help="where the run directory goes")
    s = sub.add_parser("resume", parents=[cluster], help="finish a run directory")
    s.add_argument("dir", help="the run directory")
    args = parser.parse_args(argv)

    def progress(done: int, total: int) -> None:
        print(f"\r{done}/{total} episodes", end="", file=sys.stderr, flush=True)

    on_commit = None if args.quiet else progress
    cluster_args = dict(
        max_retries=args.max_retries,
        episodes_per_task=args.episodes_per_task,
        workers=args.workers,
        cpus_per_worker=args.cpus_per_worker,
        address=args.address,
        num_cpus=args.num_cpus,
        on_commit=on_commit,
    )
    start = time.monotonic()
    try:
        if args.command == "run":
            summary = run(
                args.source,
                args.agent,
                model=args.model,
                agent_options=args.agent_options,
                base_url=args.base_url,
                expert=args.expert,
                expert_model=args.expert_model,
                expert_options=args.expert_options,
                out=args.out,
                epochs=args.epochs,
                limit=args.limit,
                seed=args.seed,
                max_steps=args.max_steps,
                world_options=_key_values(args.world_options),
                **cluster_args,
            )
        else:
            summary = resume(args.dir, **cluster_args)
    except _escapade.EscapadeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
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
