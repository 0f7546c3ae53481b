"""escapade.ray on a local Ray cluster with two worker processes.

The central check: a worker is killed (SIGKILL) while it plays an episode, and still every
episode of the run is recorded exactly once and the run equals a single-process run of
the same flags and seeds (`escapade run`'s runner; the binary too when ESCAPADE_BIN names
it) — for a baseline, and for a model agent (a scripted model that replays the oracle's
moves, so no network is needed).
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import threading
import time

import pytest
import ray

import escapade
import escapade.ray as eray
from oracle import oracle_moves

# a slice of a suite whose episodes last long enough for a kill to land inside one
SOURCE = "visescape@4"
AGENT = "random"
LIMIT = 3
EPOCHS = 2
SEED = 11


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def untimed(value):
    """`value` with its timing fields (a model call's latency, a step's clock) zeroed."""
    if isinstance(value, dict):
        return {k: 0 if k in ("latency_ms", "t_ms", "duration_ms") else untimed(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def episode_rows(run_dir: pathlib.Path) -> dict[tuple[str, int], dict]:
    rows = {}
    for line in (run_dir / "episodes.jsonl").read_text().splitlines():
        row = json.loads(line)
        key = (row["scenario"], row["epoch"])
        assert key not in rows, f"episode {key} recorded twice"
        rows[key] = untimed(row)
    return rows


def trajectories(run_dir: pathlib.Path) -> dict[str, list[dict]]:
    out = {}
    root = run_dir / "trajectories"
    for path in sorted(root.glob("*/*.jsonl")):
        steps = [json.loads(line) for line in path.read_text().splitlines()]
        out[str(path.relative_to(root))] = untimed(steps)
    return out


def media(run_dir: pathlib.Path) -> list[str]:
    return sorted(p.name for p in (run_dir / "media").iterdir())


def playing_workers() -> list[int]:
    """Processes of Ray workers playing an episode now (Ray titles them after the task)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if cmdline.startswith(b"ray::_Worker.play"):
            pids.append(int(entry))
    return pids


class Killer(threading.Thread):
    """Kills the first worker seen playing an episode, once."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.killed: int | None = None
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set() and self.killed is None:
            for pid in playing_workers():
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    continue
                self.killed = pid
                return
            time.sleep(0.002)


def single_process_run(out: pathlib.Path, source: str = SOURCE, agent: str = AGENT,
                       limit: int = LIMIT, epochs: int = EPOCHS, seed: int = SEED,
                       model: str | None = None) -> pathlib.Path:
    """The same run by the single-process runner: the `escapade` binary when ESCAPADE_BIN
    names it, else the runner it calls (escapade_run::run) through the module."""
    binary = os.environ.get("ESCAPADE_BIN")
    if binary:
        flags = ["--model", model] if model else []
        done = subprocess.run(
            [binary, "run", source, "--agent", agent, *flags, "--limit", str(limit),
             "--epochs", str(epochs), "--seed", str(seed), "-c", "1", "--out", str(out),
             "--quiet"],
            check=True, capture_output=True, text=True,
        )
        last = done.stdout.strip().splitlines()[-1]
        assert last.startswith("run directory: "), done.stdout
        return pathlib.Path(last.removeprefix("run directory: "))
    summary = escapade._escapade.run_local(
        source, agent, model=model, out=str(out), limit=limit, epochs=epochs, seed=seed
    )
    return pathlib.Path(summary["dir"])


def assert_same_run(ray_dir: pathlib.Path, single: pathlib.Path, total: int) -> None:
    rows = episode_rows(ray_dir)
    assert len(rows) == total
    assert rows == episode_rows(single)
    assert trajectories(ray_dir) == trajectories(single)
    assert media(ray_dir) and media(ray_dir) == media(single)
    assert (ray_dir / "summary.json").is_file() and (ray_dir / "report.md").is_file()
    assert (ray_dir / "run.toml").read_text().split("[config]")[1] == (
        single / "run.toml"
    ).read_text().split("[config]")[1]


def test_a_worker_killed_mid_run_loses_no_episode_and_duplicates_none(cluster, tmp_path):
    killer = Killer()
    killer.start()
    summary = eray.run(
        SOURCE, AGENT, out=str(tmp_path / "ray"), limit=LIMIT, epochs=EPOCHS, seed=SEED,
        max_retries=3,
    )
    killer.stop.set()
    killer.join()
    assert killer.killed is not None, "no worker was seen playing an episode"
    total = LIMIT * EPOCHS
    assert summary["total"] == total
    assert (summary["played"], summary["unplayed"], summary["failures"]) == (total, 0, [])

    ray_dir = pathlib.Path(summary["dir"])
    single = single_process_run(tmp_path / "single")
    assert_same_run(ray_dir, single, total)
    assert (ray_dir / "run.toml").read_text().count(summary["config_hash"]) == 1
    assert summary["config_hash"] in (single / "run.toml").read_text()


def test_a_model_agent_plays_over_ray_and_a_killed_worker_loses_nothing(cluster, tmp_path):
    # a scripted model replaying the oracle's moves: every episode of the one scenario
    # asks for exactly as many replies as the script has lines, so whichever worker plays
    # an episode (a restarted one starts the script afresh) it gets the same replies
    moves = oracle_moves(SOURCE, 0, SEED)
    script = tmp_path / "oracle.jsonl"
    script.write_text("".join(json.dumps({"text": m, "delay_ms": 3}) + "\n" for m in moves))
    model = f"scripted/{script}"
    epochs = 4
    killer = Killer()
    killer.start()
    summary = eray.run(
        SOURCE, "llm", model=model, out=str(tmp_path / "ray"), limit=1, epochs=epochs,
        seed=SEED, max_retries=3,
    )
    killer.stop.set()
    killer.join()
    assert killer.killed is not None, "no worker was seen playing an episode"
    assert (summary["played"], summary["unplayed"], summary["failures"]) == (epochs, 0, [])
    ray_dir = pathlib.Path(summary["dir"])
    rows = episode_rows(ray_dir)
    assert all(r["success"] and r["steps"] == len(moves) for r in rows.values()), rows
    assert {r["agent"] for r in rows.values()} == {f"llm:{model}"}
    single = single_process_run(tmp_path / "single", agent="llm", limit=1, epochs=epochs,
                                model=model)
    assert_same_run(ray_dir, single, epochs)
    # the run is escapade run's: the same config hash, and its resume has nothing to do
    assert summary["config_hash"] in (single / "run.toml").read_text()
    again = eray.resume(str(ray_dir))
    assert (again["skipped"], again["played"]) == (epochs, 0)


def test_a_comma_team_with_a_model_expert_plays_over_ray_as_escapade_run(cluster, tmp_path):
    # the oracle solves, a scripted model is the expert: one client per worker, made once
    script = tmp_path / "expert.jsonl"
    script.write_text(json.dumps({"text": "Describe what you see."}) + "\n")
    model = f"scripted/{script}"
    flags = dict(expert="llm", expert_model=model, expert_options={"temperature": "0"})
    summary = eray.run("comma@4", "oracle", out=str(tmp_path / "ray"), limit=3, seed=2,
                       **flags)
    assert (summary["played"], summary["unplayed"], summary["failures"]) == (3, 0, [])
    ray_dir = pathlib.Path(summary["dir"])
    single = escapade._escapade.run_local(
        "comma@4", "oracle", out=str(tmp_path / "single"), limit=3, seed=2,
        expert="llm", expert_model=model, expert_options=["temperature=0"],
    )
    assert summary["config_hash"] == single["config_hash"]
    assert_same_run(ray_dir, pathlib.Path(single["dir"]), 3)
    toml = (ray_dir / "run.toml").read_text()
    assert 'expert = "llm"' in toml and 'temperature = "0"' in toml, toml


def test_a_stopped_run_is_resumed_over_ray_and_reads_as_one_run(cluster, tmp_path):
    driver = escapade._escapade.RunDriver(
        "comma@4", "oracle", out=str(tmp_path), limit=4, seed=3
    )
    jobs = driver.pending()
    assert len(jobs) == 4
    # two episodes played before the driver stopped; one of them sent twice
    first = escapade._escapade.play_job("oracle", jobs[0])
    assert driver.commit(first) is True
    assert driver.commit(escapade._escapade.play_job("oracle", jobs[1])) is True
    assert driver.commit(first) is False
    stopped = driver.finish()
    assert (stopped["played"], stopped["unplayed"]) == (2, 2)

    resumed = eray.resume(stopped["dir"])
    assert resumed["resumed"] and (resumed["skipped"], resumed["played"]) == (2, 2)
    rows = episode_rows(pathlib.Path(stopped["dir"]))
    assert len(rows) == 4 and all(r["success"] for r in rows.values())
    report = json.loads(resumed["summary"])
    assert report["overall"]["comma"]["n"] == 4

    # nothing is left: a second resume plays nothing
    again = eray.resume(stopped["dir"])
    assert (again["skipped"], again["played"]) == (4, 0)


def test_each_worker_gets_its_share_of_the_rate_limits(cluster, tmp_path):
    moves = oracle_moves(SOURCE, 0, SEED)
    script = tmp_path / "oracle.jsonl"
    script.write_text("".join(json.dumps({"text": m}) + "\n" for m in moves))
    summary = eray.run(
        SOURCE, "llm", model=f"scripted/{script}", agent_options={"rpm": "6000"},
        out=str(tmp_path), limit=1, epochs=2, seed=SEED, workers=2, keep_workers=True,
    )
    kept = list(eray._kept["actors"])
    try:
        assert summary["played"] == 2 and len(kept) == 2
        casts = ray.get([a.__ray_call__.remote(lambda self: self.cast) for a in kept])
        # the provider counts both workers' requests: each client may send half
        assert [json.loads(c)["players"]["options"]["rpm"] for c in casts] == ["3000"] * 2
        # the run records the limit as given, and nothing was said
        assert 'rpm = "6000"' in (pathlib.Path(summary["dir"]) / "run.toml").read_text()
        assert summary["warnings"] == []
    finally:
        eray.release_workers()
    # a limit lower than the worker count: one each, and the summary says so
    driver = escapade._escapade.RunDriver(
        SOURCE, "llm", model=f"scripted/{script}", agent_options=["rpm=1"],
        out=str(tmp_path / "small"), limit=1,
    )
    cast, warnings = driver.cast_for(2)
    assert json.loads(cast)["players"]["options"]["rpm"] == "1"
    assert len(warnings) == 1 and "rpm=1" in warnings[0], warnings
    driver.finish()


def test_bad_requests_are_clear_errors(cluster, tmp_path):
    # the agent flags are checked as `escapade run` checks them, before any worker starts
    with pytest.raises(escapade.EscapadeError, match="unknown option `nope`"):
        eray.run("comma@4", "llm", agent_options={"nope": "1"}, out=str(tmp_path), limit=1)
    with pytest.raises(escapade.EscapadeError, match="applies only to `--agent llm`"):
        eray.run("comma@4", "random", model="openai/gpt-4o", out=str(tmp_path), limit=1)
    with pytest.raises(escapade.EscapadeError, match="two roles"):
        eray.run("visescape@4", "oracle", expert="llm", out=str(tmp_path), limit=1)
    # a backend the workers cannot open stops the run at once, saying why, and leaves
    # no run directory (as `escapade run` without an API key)
    with pytest.raises(escapade.EscapadeError, match="cannot open the model backend"):
        eray.run("comma@4", "llm", model=f"scripted/{tmp_path / 'missing.jsonl'}",
                 out=str(tmp_path), limit=1)
    assert not [p for p in tmp_path.iterdir() if "comma@4" in p.name], list(tmp_path.iterdir())
    with pytest.raises(escapade.EscapadeError, match="unknown"):
        eray.run("no-such-suite@1", "random", out=str(tmp_path))
    driver = escapade._escapade.RunDriver("comma@4", "random", out=str(tmp_path), limit=1)
    with pytest.raises(escapade.EscapadeError, match="bad episode record"):
        driver.commit(b"not a record")
    driver.finish()
    with pytest.raises(escapade.EscapadeError, match="finished"):
        driver.pending()


def test_the_command_line_runs_and_resumes(cluster, tmp_path):
    # in-process (the cluster is up); `python -m escapade.ray` calls the same main
    code = eray.main(["run", "comma@4", "--agent", "oracle", "--limit", "5", "--seed", "5",
                      "--episodes-per-task", "2", "--out", str(tmp_path), "-q"])
    assert code == 0
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert len(episode_rows(run_dir)) == 5
    assert eray.main(["resume", str(run_dir), "-q"]) == 0
    assert eray.main(["run", "nope@1", "-q"]) == 1


def test_kept_workers_play_the_next_run_of_the_same_agents_and_are_released(cluster, tmp_path):
    first = eray.run("comma@4", "oracle", out=str(tmp_path), limit=4, seed=8,
                     keep_workers=True)
    kept = list(eray._kept["actors"])
    assert first["played"] == 4 and len(kept) == 2
    pids = sorted(ray.get([a.__ray_call__.remote(lambda self: os.getpid()) for a in kept]))
    second = eray.run("comma@4", "oracle", out=str(tmp_path), limit=4, seed=9,
                      keep_workers=True)
    assert second["played"] == 4 and eray._kept["actors"] == kept
    assert sorted(ray.get([a.__ray_call__.remote(lambda self: os.getpid())
                           for a in kept])) == pids
    assert episode_rows(pathlib.Path(second["dir"])) != episode_rows(pathlib.Path(first["dir"]))
    scratch = ray.get([a.scratch.remote() for a in kept])
    assert all(pathlib.Path(d).is_dir() for d in scratch), scratch
    eray.release_workers()
    assert eray._kept["actors"] == []
    # ended workers leave no scratch directory behind
    assert not [d for d in scratch if pathlib.Path(d).exists()], scratch

    # their CPUs are back: a task that needs both runs
    @ray.remote(num_cpus=2)
    def both() -> int:
        return 2

    assert ray.get(both.remote(), timeout=60) == 2
