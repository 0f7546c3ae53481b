"""Run directories as a table: :func:`load_runs`.

``escapade run`` writes one JSON object per finished episode to ``episodes.jsonl`` in
its run directory (the schema ``escapade schema`` prints). Read naively into pandas,
two things go wrong: an episode's ``seed`` is an unsigned 64-bit integer, which pandas
turns into a float once it exceeds the signed range (13136380821104050214 becomes
1.3136380821104050e19, another seed), and ``metrics`` and ``usage`` are nested objects.
:func:`load_runs` reads the files with Python's exact integers, flattens the nested
objects into columns and keeps the seeds exact (pandas' unsigned ``UInt64``). The files are only read.

This module needs no native code; pandas is optional (``pip install escapade[pandas]``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Union

__all__ = ["load_runs", "episode_records", "EPISODES"]

#: The name of the episodes file in a run directory.
EPISODES = "episodes.jsonl"

#: The columns every episode has, in order, before its world's metrics.
BASE_COLUMNS = (
    "run",
    "suite",
    "world",
    "scenario",
    "difficulty",
    "epoch",
    "seed",
    "agent",
    "success",
    "steps",
    "error",
    "retryable",
    "duration_ms",
    "input_tokens",
    "output_tokens",
    "cached_tokens",
    "cost_usd",
    "latency_ms",
    "scenario_hash",
    "config_hash",
    "format_version",
    "path",
)

PathLike = Union[str, "os.PathLike[str]"]


def _episode_files(paths: Union[PathLike, Iterable[PathLike]]) -> list[Path]:
    """Every ``episodes.jsonl`` that ``paths`` name: the file itself, a run directory's,
    or those of every run directory under a folder (sorted)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files: list[Path] = []
    for given in paths:
        p = Path(given)
        if p.is_file():
            files.append(p)
        elif (p / EPISODES).is_file():
            files.append(p / EPISODES)
        elif p.is_dir():
            found = sorted(p.rglob(EPISODES))
            if not found:
                raise FileNotFoundError(f"no {EPISODES} under {p}")
            files.extend(found)
        else:
            raise FileNotFoundError(f"no run directory or {EPISODES} at {p}")
    return files


def _flat(row: dict[str, Any], run: str, path: Path) -> dict[str, Any]:
    """One episode row as a flat record: usage and metrics become columns."""
    usage = row.get("usage") or {}
    out: dict[str, Any] = {
        "run": run,
        "suite": row.get("suite"),
        "world": row.get("world"),
        "scenario": row.get("scenario"),
        "difficulty": row.get("difficulty"),
        "epoch": row.get("epoch"),
        "seed": row.get("seed"),
        "agent": row.get("agent"),
        "success": row.get("success"),
        "steps": row.get("steps"),
        "error": row.get("error"),
        "retryable": bool(row.get("retryable", False)),
        "duration_ms": row.get("duration_ms"),
        "input_tokens": usage.get("input"),
        "output_tokens": usage.get("output"),
        "cached_tokens": usage.get("cached"),
        "cost_usd": usage.get("cost_usd"),
        "latency_ms": usage.get("latency_ms"),
        "scenario_hash": row.get("scenario_hash"),
        "config_hash": row.get("config_hash"),
        "format_version": row.get("format_version"),
        "path": str(path),
    }
    for name, value in (row.get("metrics") or {}).items():
        # a metric named like a column keeps its origin in its name
        key = f"metrics.{name}" if name in out else name
        out[key] = value
    return out


def episode_records(paths: Union[PathLike, Iterable[PathLike]]) -> list[dict[str, Any]]:
    """The episodes of the runs at ``paths`` as flat dictionaries, one per episode, in
    file order: what :func:`load_runs` puts in a DataFrame, without pandas.

    A path is a run directory, an ``episodes.jsonl``, or a folder of run directories. An
    episode played again by ``escapade resume`` (its first try ended with a retryable
    error) appears once, as its later row. A torn last line (a run still writing) is
    skipped; any other line that is not JSON raises :class:`ValueError` naming it.
    """
    records: list[dict[str, Any]] = []
    for file in _episode_files(paths):
        run = file.parent.name
        by_episode: dict[tuple[Any, Any], int] = {}
        lines = file.read_text(encoding="utf-8").split("\n")
        for n, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                if n == len(lines):
                    continue  # the last line without its newline: still being written
                raise ValueError(f"{file}:{n}: not a JSON episode row: {e}") from None
            record = _flat(row, run, file.parent)
            key = (record["scenario"], record["epoch"])
            if key in by_episode:
                records[by_episode[key]] = record
            else:
                by_episode[key] = len(records)
                records.append(record)
    return records


def load_runs(paths: Union[PathLike, Iterable[PathLike]]):
    """The episodes of the runs at ``paths`` as a pandas DataFrame, one row per episode.

    Columns: ``run`` (the run directory's name), ``suite``, ``world``, ``scenario``,
    ``difficulty``, ``epoch``, ``seed`` (exact, dtype ``UInt64``), ``agent``,
    ``success``, ``steps``, ``error``, ``retryable``, ``duration_ms``, the usage
    (``input_tokens``, ``output_tokens``, ``cached_tokens``, ``cost_usd``,
    ``latency_ms``), ``scenario_hash``, ``config_hash``, ``format_version``, ``path``
    (the run directory), then one column per metric of the episodes' worlds (``psr``,
    ``mistakes``, …; ``NaN`` where an episode's world does not define it). A metric
    named like one of those columns is ``metrics.<name>``.

    A path is a run directory, an ``episodes.jsonl``, or a folder of run directories::

        import escapade
        df = escapade.load_runs(["runs/"])
        df.groupby(["run", "difficulty"])["success"].mean()

    Needs pandas; :func:`episode_records` gives the same rows as dictionaries without it.
    """
    try:
        import pandas as pd
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "escapade.load_runs needs pandas (pip install pandas); "
            "escapade.episode_records gives the same rows as dictionaries"
        ) from e
    records = episode_records(paths)
    metrics: list[str] = []
    seen = set(BASE_COLUMNS)
    for r in records:
        for k in r:
            if k not in seen:
                seen.add(k)
                metrics.append(k)
    columns = list(BASE_COLUMNS) + metrics
    frame = pd.DataFrame.from_records(records, columns=columns)
    # Python's ints are exact; an unsigned 64-bit column keeps them so (an object column
    # would too, but would not sort or compare as numbers)
    frame["seed"] = pd.array([r["seed"] for r in records], dtype="UInt64")
    for name in metrics:
        frame[name] = frame[name].astype("float64")
    return frame
