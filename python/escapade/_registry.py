"""Inspect AI's entry point into escapade (``[project.entry-points.inspect_ai]``): the
tasks Inspect lists as ``escapade/<name>``."""

from .inspect_tasks import agentescape, comma, escapade, mmescape, visescape

__all__ = ["agentescape", "comma", "escapade", "mmescape", "visescape"]
