"""escapade.load_runs: run directories as a DataFrame, seeds exact, metrics flat."""

import json

import pandas as pd
import pytest

import escapade

BIG_SEED = 13136380821104050214  # above 2**63: a float64 would round it


def row(scenario, seed, success, metrics, epoch=0, error=None, retryable=False):
    r = {
        "format_version": 1, "suite": "comma@4", "scenario": scenario,
        "scenario_hash": "h", "world": "comma", "difficulty": 1, "epoch": epoch,
        "seed": seed, "agent": "random", "config_hash": "c", "success": success,
        "steps": 3, "metrics": metrics,
        "usage": {"input": 10, "output": 2, "cached": 0, "cost_usd": 0.5, "latency_ms": 7},
        "duration_ms": 12, "error": error,
    }
    if retryable:
        r["retryable"] = True
    return json.dumps(r)


def write_run(folder, name, lines, torn=""):
    run = folder / name
    run.mkdir(parents=True)
    (run / "episodes.jsonl").write_text("".join(l + "\n" for l in lines) + torn)
    return run


def test_seeds_stay_exact_and_metrics_are_columns(tmp_path):
    run = write_run(
        tmp_path,
        "20261128T000000Z-comma@4-random-aaaaaa",
        [
            row("comma-wire-000", BIG_SEED, True, {"psr": 1.0, "mistakes": 0.0}),
            row("comma-wire-001", 5, False, {"psr": 0.5, "mistakes": 3.0},
                error="agent failed: timeout", retryable=True),
            # resume played it again: the later row stands
            row("comma-wire-001", 5, True, {"psr": 1.0, "mistakes": 1.0}),
            row("comma-wire-002", 2**64 - 1, False, {"psr": 0.0, "mistakes": 3.0, "steps": 9.0}),
        ],
        torn='{"format_version": 1, "suite"',
    )
    df = escapade.load_runs([run])
    assert len(df) == 3
    assert str(df["seed"].dtype) == "UInt64"
    assert int(df["seed"].iloc[0]) == BIG_SEED
    assert int(df["seed"].iloc[2]) == 2**64 - 1
    assert list(df["psr"]) == [1.0, 1.0, 0.0]
    assert list(df["mistakes"]) == [0.0, 1.0, 3.0]
    # a metric named like a column keeps its origin
    assert df["metrics.steps"].iloc[2] == 9.0 and df["steps"].iloc[2] == 3
    assert list(df["success"]) == [True, True, False]
    assert df["input_tokens"].iloc[0] == 10 and df["cost_usd"].iloc[0] == 0.5
    assert "metrics" not in df.columns and "usage" not in df.columns
    assert set(df["run"]) == {run.name}
    # a folder of runs, a file, a run directory: the same rows
    other = write_run(tmp_path, "other", [row("comma-wire-000", 1, False, {"psr": 0.25})])
    both = escapade.load_runs(tmp_path)
    assert len(both) == 4 and set(both["run"]) == {run.name, other.name}
    assert pd.isna(both.loc[both["run"] == "other", "mistakes"]).all()
    assert len(escapade.load_runs(run / "episodes.jsonl")) == 3
    # without pandas, the same records
    records = escapade.episode_records(run)
    assert records[0]["seed"] == BIG_SEED and records[0]["psr"] == 1.0


def test_bad_paths_and_rows_are_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no run directory"):
        escapade.load_runs(tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match="no episodes.jsonl under"):
        escapade.load_runs(tmp_path)
    run = write_run(tmp_path, "bad", ["not json", row("a", 1, True, {})])
    with pytest.raises(ValueError, match="episodes.jsonl:1"):
        escapade.load_runs(run)
