"""The native module of the ``escapade`` package (Rust, pyo3).

Thin by design: it opens the Rust worlds' environments and converts values. Every Rust
error is raised as :class:`EscapadeError` carrying the Rust message; a wrong Python type
(an action that is neither text, bytes nor a call) raises ``TypeError``. ``Env.reset``,
``Env.step``, ``Agent.act``, :func:`resolve`, :func:`decode_png` and :func:`encode_png`
release the GIL while Rust works, so environments on several threads step in parallel.

Values cross as plain dicts and lists; their shapes are the ``TypedDict`` s below (the
keys are the Rust core types' field names).
"""

import os
from typing import Literal, Mapping, Sequence, TypedDict, Union

__version__: str

class EscapadeError(Exception):
    """An error of escapade's Rust core: an unknown world, suite, agent kind or world
    option, a scenario that does not load, stepping before ``reset`` or after the episode
    ended. ``str(e)`` is the Rust error's message."""

class WorldInfo(TypedDict):
    name: str
    """``tools``, ``vis``, ``comma`` or ``craft``."""
    description: str
    env_options: dict[str, str]
    """The world options (``-W key=value``) it takes: key → what it sets."""
    agent_kinds: list[str]
    """The baseline agents :class:`Agent` makes (``oracle``, ``random``, ...)."""

class SuiteSettings(TypedDict):
    epochs: int | None
    """Epochs (trials) per scenario the paper ran; None: one."""
    agent: dict[str, str]
    """Agent options of the paper's runs (``temperature``, ``history``)."""
    source: str
    """Where the paper states them."""

class SuiteInfo(TypedDict):
    name: str
    """Name with version, ``agentescape@2``."""
    world: str
    description: str
    tiers: list[tuple[int, int]]
    """``(difficulty, count)`` pairs, in order."""
    settings: SuiteSettings

class Resolved(TypedDict):
    world: str
    label: str
    """The run label: the suite name, ``file:<stem>`` or ``dir:<name>``."""
    settings: SuiteSettings
    ids: list[str]
    scenarios: list[str]
    """The scenarios as JSON texts, in suite order."""

class Picture(TypedDict):
    sha256: str
    png: bytes | None
    """The PNG file; None when the picture came as ``pixels``."""
    alt: str | None
    pixels: tuple[int, int, bytes] | None
    """``(height, width, rgb)`` from an ``Env(..., pixels=True)`` whose world draws the
    picture itself (craft), without a PNG (:func:`encode_png` makes it); else None."""

class Observation(TypedDict):
    text: str
    images: list[Picture]
    """Pictures in the order the text refers to them (PNG; see :func:`decode_png`)."""
    actions: list[str] | None
    """The available actions when the world has a closed action set."""
    role: str | None
    """In a two-role world (comma), whose turn it is and whom this is for."""

class ActionResult(TypedDict):
    action: str
    valid: bool
    feedback: str
    error: str | None

class Step(TypedDict):
    observation: Observation
    feedback: str
    """The world's answer to this action alone."""
    progress: float
    """Task progress in [0, 1]."""
    terminated: bool
    """The task ended (escaped, gave up, out of mistakes)."""
    truncated: bool
    """A limit outside the task (the step budget) ended the episode."""
    error: str | None
    """The world's error kind when the action failed (tools: the App. B.1 taxonomy)."""
    valid: bool
    steps_to_go: int | None
    """The oracle's distance from the new state (0 once won); None where the world cannot say."""
    results: list[ActionResult]
    """One entry per call when the action carried several (tools: App. C)."""

class Outcome(TypedDict):
    success: bool
    steps: int
    metrics: dict[str, float]
    """The world's per-episode metrics (those undefined for the episode are absent)."""

class ToolSchema(TypedDict):
    name: str
    description: str
    parameters: dict[str, object]
    """A JSON Schema of the arguments."""

class Call(TypedDict):
    name: str
    arguments: Union[str, dict[str, object]]
    """JSON text, or a dict encoded to JSON."""

Action = Union[str, bytes, Call, list[Call]]
"""Free text, raw bytes, one function call, or several calls of one reply."""

def worlds() -> list[WorldInfo]:
    """The worlds this build plays, in ``escapade list`` order."""

def suites() -> list[SuiteInfo]:
    """Every suite of every world."""

def resolve(source: str) -> Resolved:
    """The scenarios of a suite name (``agentescape@2``; without ``@`` the latest
    version), a scenario file or a directory — as ``escapade run <source>`` reads it.
    A retired suite name raises with the name of the suite that replaced it."""

def decode_png(png: bytes) -> tuple[int, int, bytes]:
    """``(height, width, rgb)``: the picture as ``height * width * 3`` bytes, row by
    row, for ``numpy.frombuffer(rgb, numpy.uint8).reshape(height, width, 3)``."""

def encode_png(height: int, width: int, rgb: bytes) -> bytes:
    """The PNG file of ``height * width * 3`` RGB bytes, as a world encodes it (the same
    bytes ``escapade run`` stores for the same pixels)."""

class Env:
    """World ``world``'s environment on one scenario (JSON text), with world options
    (``escapade run -W key=value``; empty: the paper's protocol). ``pixels=True`` asks
    for pictures as pixels where the world draws them itself (craft): no PNG is encoded
    and each picture's ``pixels`` is ``(height, width, rgb)``. ``steps_to_go=False``
    tells the world the oracle's distance is not wanted: craft then skips its replan
    each step (its ``steps_to_go`` is None); other worlds may still answer."""

    def __init__(
        self,
        world: str,
        scenario: str,
        options: dict[str, str] | None = None,
        *,
        pixels: bool = False,
        steps_to_go: bool = True,
    ) -> None: ...
    @property
    def world(self) -> str: ...
    @property
    def id(self) -> str:
        """The scenario's id."""
    @property
    def scenario(self) -> str: ...
    @property
    def options(self) -> dict[str, str]: ...
    def reset(self, seed: int) -> Observation:
        """Starts an episode; same seed and same actions give the same observations."""
    def step(self, action: Action) -> Step:
        """Applies one action. A bad action is feedback (``valid`` false), not an error;
        stepping before ``reset`` or after the end raises :class:`EscapadeError`."""
    def restore(self, run: str | os.PathLike[str], scenario: str, epoch: int, step: int) -> tuple[Observation, float]:
        """Starts an episode where recorded episode ``scenario`` epoch ``epoch`` of run
        directory ``run`` stood before ``step``, replaying its actions with resume's
        checks; returns the observation at ``step`` and the progress before it."""
    def steps_to_go(self) -> int | None:
        """The oracle's distance from the current state; None where the world cannot say."""
    def system_prompt(self) -> str: ...
    def roles(self) -> list[str]:
        """The roles that take turns (comma: ``solver``, ``expert``); empty: one role."""
    def role_prompt(self, role: str) -> str: ...
    def tool_schemas(self) -> list[ToolSchema]:
        """Function schemas for native tool calling, for the current state."""
    def outcome(self) -> Outcome:
        """The episode's outcome and metrics so far."""
    def check_action(self, action: Action) -> str | None:
        """None when the world reads ``action``; else a message a model can act on."""
    def reask_limit(self) -> int: ...

#: the rewards a trainer may ask for, by name: ``progress``, ``sparse``, ``distance``
REWARDS: list[str]

class Reward:
    """The reward named ``kind`` (``progress``, ``sparse`` or ``distance``, any case;
    another name raises :class:`EscapadeError`), as ``escapade_core::reward`` defines
    it: the one definition the OpenEnv server and the Python environments use."""

    def __init__(self, kind: str) -> None: ...
    @property
    def name(self) -> str: ...
    def of(
        self, before: tuple[float, int | None, bool], after: tuple[float, int | None, bool]
    ) -> float:
        """The reward of a step from ``before`` to ``after``, each ``(progress,
        steps_to_go, success)``."""

class Agent:
    """A baseline agent (``oracle``, ``random``, ...) of ``env``'s world for ``env``'s
    scenario and options. It acts on the observation ``env`` last returned; what it
    returns is only the action it plays."""

    def __init__(self, env: Env, kind: str, seed: int = 0) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    def reset(self, env: Env, seed: int) -> None:
        """Tells the agent that ``env`` started an episode (call after ``env.reset``)."""
    def act(self, env: Env) -> Action:
        """The next action on ``env``'s last observation."""

# --- escapade.ray: a run's episodes played by Ray workers (python/src/ray.rs) ---

class RunSummary(TypedDict):
    """What a run did (``RunDriver.finish``, ``run_local``)."""

    dir: str
    config_hash: str
    total: int
    skipped: int
    played: int
    errors: int
    resumed: bool
    unplayed: int
    warnings: list[str]
    summary: str
    """The report as JSON text, as ``summary.json`` holds it."""

class RunDriver:
    """The one process that writes a distributed run's directory: plans the run as
    ``escapade run`` does (any agent, with its agent flags), hands out its episodes as
    jobs and its cast to workers, commits each record once, writes the summary. Holds the
    run directory's lock until ``finish``."""

    def __init__(
        self,
        source: str,
        agent: str = "random",
        *,
        model: str | None = None,
        agent_options: Sequence[str] | None = None,
        base_url: str | None = None,
        expert: str | None = None,
        expert_model: str | None = None,
        expert_options: Sequence[str] | None = None,
        out: str | os.PathLike[str] = "runs",
        epochs: int | None = None,
        limit: int | None = None,
        seed: int = 0,
        max_steps: int | None = None,
        world_options: Mapping[str, str] | None = None,
    ) -> None:
        """``agent_options`` and ``expert_options`` are ``-A`` / ``-E`` pairs
        (``"temperature=0.7"``), read as ``escapade run`` reads them."""
    @staticmethod
    def resume(dir: str | os.PathLike[str]) -> RunDriver:
        """Reopens a run directory with the config it was made with."""
    @property
    def path(self) -> str: ...
    @property
    def config_hash(self) -> str: ...
    @property
    def world(self) -> str: ...
    @property
    def agent(self) -> str: ...
    @property
    def cast(self) -> str:
        """Who plays the run, as JSON: what a :class:`Worker` is made from."""
    def cast_for(self, workers: int) -> tuple[str, list[str]]:
        """The cast each of ``workers`` workers is made from: the agents' rate limits
        (``rpm``, ``tpm``) split among them, as the provider counts every worker's
        requests; and the warnings of a limit lower than ``workers``."""
    @property
    def warnings(self) -> list[str]: ...
    def pending(self) -> list[str]:
        """The episodes not finished yet, as job texts (JSON) for :meth:`Worker.play`."""
    def commit(self, record: bytes) -> bool:
        """Writes a record; ``False`` when its episode was already written. A record of
        another run raises :class:`EscapadeError` and writes nothing."""
    def commit_all(self, records: Sequence[bytes]) -> int:
        """Writes records (as :meth:`commit`); how many were written."""
    def finish(self) -> RunSummary:
        """Writes ``summary.json`` and ``report.md`` and releases the directory."""
    def discard(self) -> bool:
        """Ends the run without a summary; removes the run directory when this driver
        made it and nothing was committed (the run could not start). Returns whether it
        was removed."""

class Worker:
    """A worker process's agents, made once from ``RunDriver.cast`` (a model agent's
    backend opened once, its API key read from this process's environment), with a
    runtime and a scratch directory reused by every job."""

    def __init__(self, cast: str) -> None: ...
    @property
    def agent(self) -> str:
        """The agent's name in episode rows."""
    @property
    def scratch(self) -> str:
        """The scratch directory episodes are recorded in; removed with the worker."""
    def play(self, jobs: Sequence[str]) -> list[bytes]:
        """Plays jobs one after the other; their records, in order."""

def play_job(agent: str, job: str) -> bytes:
    """Plays one job with the world's baseline ``agent``; its record for ``commit``."""

def run_local(
    source: str,
    agent: str = "random",
    *,
    model: str | None = None,
    agent_options: Sequence[str] | None = None,
    base_url: str | None = None,
    expert: str | None = None,
    expert_model: str | None = None,
    expert_options: Sequence[str] | None = None,
    out: str | os.PathLike[str] = "runs",
    epochs: int | None = None,
    limit: int | None = None,
    seed: int = 0,
    max_steps: int | None = None,
    world_options: Mapping[str, str] | None = None,
    concurrency: int = 1,
) -> RunSummary:
    """The single-process runner ``escapade run`` calls, on the same plan."""
