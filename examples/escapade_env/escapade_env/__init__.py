"""escapade's worlds as a verifiers (v1) environment: `vf-eval escapade-env`.

verifiers finds the package's `Taskset` and `Env` subclasses through `__all__`;
`load_environment(...)` builds the same environment from Python."""

from escapade_env.taskset import (
    SUITES,
    EscapadeEnv,
    EscapadeEnvConfig,
    EscapadeTaskset,
    EscapadeTasksetConfig,
    load_environment,
)

__all__ = ["EscapadeEnv", "EscapadeTaskset"]

# not in __all__ (verifiers reads __all__ for its plugin classes), importable all the same
_ = (SUITES, EscapadeEnvConfig, EscapadeTasksetConfig, load_environment)
