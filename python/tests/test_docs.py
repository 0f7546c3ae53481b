"""Every Python snippet of docs/python.md runs as written (issue 30): each fenced
``python`` block is executed in a fresh namespace, in a directory holding a real run
(`runs/`, played by the runner `escapade run` uses) for the snippets that read runs."""

from __future__ import annotations

import pathlib
import re

import pytest

import escapade

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", DOC.read_text(), flags=re.S | re.M)


def test_the_doc_has_snippets():
    assert len(BLOCKS) >= 4, "docs/python.md lost its Python snippets"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    where = tmp_path_factory.mktemp("docs")
    escapade._escapade.run_local(
        "comma@4", "random", out=str(where / "runs"), limit=2, epochs=1, seed=0
    )
    return where


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i + 1}" for i in range(len(BLOCKS))])
def test_the_snippet_runs(code, workdir, monkeypatch):
    monkeypatch.chdir(workdir)
    exec(compile(code, f"{DOC}:snippet", "exec"), {"__name__": "__snippet__"})
