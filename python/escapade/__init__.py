"""escapade: escape-room benchmarks for agents, from escapade's Rust worlds.

The four worlds of the ``escapade`` command line — ``tools`` (AgentEscapeBench), ``vis``
(VisEscape), ``comma`` (COMMA) and ``craft`` (MM-Escape) — played through the very Rust
environments ``escapade run`` plays (no second implementation):

- :func:`make` and the registered ids (``escapade/AgentEscape-v1``, ...) give Gymnasium
  environments; :mod:`escapade.pettingzoo_env` gives COMMA as a PettingZoo AEC env;
  :mod:`escapade._registry` holds Inspect AI tasks (``inspect eval escapade/agentescape``).
- The native layer (:mod:`escapade._escapade`, documented in its ``.pyi``) opens any
  world's :class:`Env` on a scenario, lists :func:`worlds` and :func:`suites`, and
  :func:`resolve` s a suite name, scenario file or directory into scenarios.

:func:`load_runs` reads run directories into a pandas DataFrame (exact seeds, flat
metric columns).

Every Rust error is raised as :class:`EscapadeError` with the Rust message.
"""

from __future__ import annotations

from ._escapade import (
    Agent,
    Env,
    EscapadeError,
    __version__,
    decode_png,
    encode_png,
    resolve,
    suites,
    worlds,
)
from .gym_env import EscapadeEnv, make, register_envs
from .results import episode_records, load_runs

register_envs()

__all__ = [
    "Agent",
    "Env",
    "EscapadeEnv",
    "EscapadeError",
    "__version__",
    "decode_png",
    "encode_png",
    "episode_records",
    "load_runs",
    "make",
    "register_envs",
    "resolve",
    "suites",
    "worlds",
]
