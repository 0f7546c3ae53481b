"""escapade's worlds as Gymnasium environments.

:func:`make` (also ``escapade.make``) opens a suite, scenario file or directory as a
:class:`gymnasium.Env`; ``import escapade`` registers ``escapade/AgentEscape-v1``,
``escapade/VisEscape-v1``, ``escapade/MMEscape-v1`` and ``escapade/Comma-v1`` for
:func:`gymnasium.make`. The Rust environment behind it is the one ``escapade run`` plays.

- **Observation**: ``{"text": str}`` and, in worlds that draw, ``"images"``: a tuple of
  ``H×W×3`` ``uint8`` arrays (the pictures the text refers to; vis and craft one a step,
  comma's solver one, tools none). Their space is a ``Box`` when every scenario of the
  env is drawn at one size, else :class:`Picture` (comma's puzzles differ in size).
- **Action**: the world's text protocol (``str``); in the tools world a function call
  ``{"name": str, "arguments": str}`` (arguments as JSON text). Both kinds are accepted
  in every world, as are a list of calls (several of one reply) and ``bytes``.
- **Reward**: by default the increase of the world's task progress (in ``[0, 1]``), so an
  episode's return is its final progress; success is ``info["outcome"]["success"]``.
  ``reward="sparse"`` gives 1 on the step that escapes and 0 otherwise;
  ``reward="distance"`` the decrease of ``steps_to_go`` over the step (1 per step along a
  shortest way out, negative away from it, 0 where the world cannot say). The choice is
  not a world option: the world and the papers' metrics never see it. Rust computes it
  (``escapade_core::reward``, :class:`escapade._escapade.Reward`).
- **info**: ``actions`` (the available actions, or None where the action set is open),
  ``tool_schemas``, ``feedback``, ``valid``, ``error``, ``progress``, ``scenario``,
  ``steps_to_go`` (the oracle's distance from the current state: the fewest steps still
  needed to escape, 0 once won; None where the world cannot say, or with
  ``steps_to_go=False``, which spares craft the oracle's replan each step); after
  ``reset`` also ``system_prompt``; at the end ``outcome`` and ``metrics`` (the
  episode's metrics, as ``escapade run`` records them).
- ``terminated``/``truncated`` are the world's own (truncated: the step budget).
- A reply the world cannot read is re-asked without spending a step, up to the world's
  re-ask limit (MM-Escape App. K: 5; VisEscape: 3; others none), as ``escapade run``'s
  agent loop does: the observation is the previous one with the world's message before
  its text, ``info["reask"]`` holds the message. ``reask=False`` steps every reply.
- Pictures: craft hands its renderer's pixels over (no PNG is encoded, none decoded);
  the other worlds' PNG pictures are decoded once and kept by address (up to
  :data:`DECODED_BYTES`). Each observation's arrays are new, as Gymnasium asks;
  ``share_pictures=True`` gives read-only arrays that identical pictures share instead
  (no copy: a VisEscape step is several times faster, but ``check_env``'s reuse check
  fails). :attr:`EscapadeEnv.native_observation` has the pictures as PNG bytes.

Two-role worlds (comma) are played as one agent: ``role`` (default ``solver``) is yours,
and ``partner`` plays the other role — the name of a baseline agent of the world (default
``oracle-talk``, a partner that plays its role perfectly) or a callable
``partner(observation: dict) -> action`` (e.g. a model). For both roles, see
:mod:`escapade.pettingzoo_env`.
"""

from __future__ import annotations

import collections
import collections.abc
import functools
import hashlib
import json
import os
import pickle
import string
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Callable, TypedDict, Union

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import WrapperSpec
from gymnasium.vector.utils import (
    batch_space,
    concatenate,
    create_empty_array,
    create_shared_memory,
    read_from_shared_memory,
    write_to_shared_memory,
)

from ._escapade import REWARDS, Agent, Env, EscapadeError, Reward, decode_png, encode_png, resolve

if TYPE_CHECKING:
    from ._escapade import Observation as NativeObservation

__all__ = [
    "Action",
    "AnyText",
    "EpisodeEnd",
    "EscapadeEnv",
    "Observation",
    "Observations",
    "Picture",
    "Reply",
    "as_png",
    "make",
    "picture",
    "pictures",
    "register_envs",
]

#: the longest observation text the observation space admits
MAX_TEXT = 1 << 24
#: the longest action text the action space admits (a longer reply is still stepped)
MAX_ACTION = 4096
#: the longest text :meth:`AnyText.sample` draws
SAMPLE_LENGTH = 256
#: native environments an :class:`EscapadeEnv` keeps open, one per scenario recently
#: played (a craft one at 2048×1024 holds about 7 MB; the others well under 1 MB)
OPEN_ENVS = 16

#: worlds whose paper's agents act by function calls (AgentEscapeBench App. B): their
#: action space is a call; the others' is text
CALL_WORLDS = frozenset({"tools"})

Partner = Union[str, Callable[[dict], Any]]

#: an action in any form every world takes: text, raw bytes, one function call
#: ``{"name": str, "arguments": str | dict}`` or a list of calls (several of one reply)
Action = Union[str, bytes, dict[str, Any], list[dict[str, Any]]]


class Observation(TypedDict, total=False):
    """What ``reset`` and ``step`` return: the text, and in worlds that draw the pictures
    as ``H×W×3`` ``uint8`` arrays (:attr:`EscapadeEnv.native_observation` has them as
    PNG bytes)."""

    text: str
    images: tuple[np.ndarray, ...]


class AnyText(spaces.Text):
    """Any ``str`` of ``min_length`` to ``max_length`` characters.

    Gymnasium's :class:`~gymnasium.spaces.Text` admits one charset; what a world writes
    and what a model replies is any Unicode. ``sample`` draws printable ASCII.
    """

    def __init__(self, max_length: int, *, min_length: int = 0, seed=None):
        super().__init__(max_length, min_length=min_length, charset=string.printable, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def sample(self, mask=None, probability=None) -> str:
        """A string of up to :data:`SAMPLE_LENGTH` characters (of up to ``max_length``
        when that is shorter): the admissible lengths reach millions of characters,
        and a sample of that size takes seconds to draw for no use."""
        if mask is None and probability is None:
            high = min(self.max_length, max(self.min_length, SAMPLE_LENGTH))
            mask = (int(self.np_random.integers(self.min_length, high + 1)), None)
        return super().sample(mask=mask, probability=probability)

    def __repr__(self) -> str:
        return f"AnyText({self.min_length}, {self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, AnyText)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
        )


class Reply(spaces.Dict):
    """A reply in a function-calling world (tools): one call ``{"name": str, "arguments":
    str}`` as the space's fields say, or the world's text protocol (``str``), which it
    reads as well (the module docs: every world takes text).

    Batched by a vector env as a tuple of replies, one per env (Gymnasium would batch a
    :class:`~gymnasium.spaces.Dict` field by field, and a tuple of texts could not be
    stepped): ``envs.step(("investigate N1",) * n)`` and
    ``envs.step((call_1, ..., call_n))`` both work.
    """

    def __init__(self, seed=None):
        super().__init__(
            {"name": AnyText(64, min_length=1), "arguments": AnyText(MAX_ACTION)}, seed=seed
        )

    def contains(self, x: Any) -> bool:
        if isinstance(x, str):
            return len(x) <= MAX_ACTION
        return isinstance(x, dict) and super().contains(x)

    def __repr__(self) -> str:
        return "Reply(call {name, arguments} or text)"


@batch_space.register(Reply)
def _batch_replies(space: Reply, n: int = 1) -> spaces.Tuple:
    batched = spaces.Tuple(tuple(Reply() for _ in range(n)))
    batched.seed(list(map(int, space.np_random.integers(0, 2**31, n))))
    return batched


#: decoded pictures by SHA-256, least recently used first: worlds show the same picture
#: again and again (a room's wall, a module), and one read-only array serves them all
_DECODED: "collections.OrderedDict[str, np.ndarray]" = collections.OrderedDict()
#: the bytes of pixels :data:`_DECODED` may hold (a 2048×1024 frame is 6 MB)
DECODED_BYTES = 64 << 20
_decoded_bytes = 0


def picture(image: dict, share: bool = False) -> np.ndarray:
    """One picture of an observation as an ``H×W×3`` ``uint8`` array: the pixels the
    world handed over (``Env(..., pixels=True)``), or its PNG decoded once and kept by
    address. ``share``: a read-only array that identical pictures share (no copy);
    otherwise a new array the caller may keep or change (Gymnasium's contract)."""
    global _decoded_bytes
    if image.get("pixels") is not None:
        height, width, rgb = image["pixels"]
        pixels = np.frombuffer(rgb, dtype=np.uint8).reshape(height, width, 3)
        return pixels if share else pixels.copy()
    pixels = _DECODED.get(image["sha256"])
    if pixels is not None:
        _DECODED.move_to_end(image["sha256"])
        return pixels if share else pixels.copy()
    height, width, rgb = decode_png(image["png"])
    pixels = np.frombuffer(rgb, dtype=np.uint8).reshape(height, width, 3)
    if pixels.nbytes <= DECODED_BYTES:
        _DECODED[image["sha256"]] = pixels
        _decoded_bytes += pixels.nbytes
        while _decoded_bytes > DECODED_BYTES:
            _decoded_bytes -= _DECODED.popitem(last=False)[1].nbytes
    return pixels if share else pixels.copy()


def pictures(observation: dict, share: bool = False) -> tuple[np.ndarray, ...]:
    """The observation's pictures as ``H×W×3`` ``uint8`` arrays (see :func:`picture`)."""
    return tuple(picture(image, share) for image in observation["images"])


def as_png(observation: dict) -> dict:
    """``observation`` with every picture as PNG bytes (``png`` and its ``sha256``): a
    picture handed over as pixels is encoded as the world would have encoded it."""
    if all(image.get("pixels") is None for image in observation["images"]):
        return observation
    images = []
    for image in observation["images"]:
        if image.get("pixels") is not None:
            png = encode_png(*image["pixels"])
            image = dict(image, png=png, sha256=hashlib.sha256(png).hexdigest(), pixels=None)
        images.append(image)
    return dict(observation, images=images)


def _reward(value: Any, steps_to_go: bool = True) -> Reward:
    """The reward a trainer asked for (``reward=``; :data:`REWARDS` names them, as the
    OpenEnv server's ``options.reward``): ``escapade_core::reward``, the one definition
    (``Reward.of(before, after)``, each ``(progress, steps_to_go, success)``).
    ``distance`` needs the oracle's distance, so not with ``steps_to_go=False``."""
    reward = Reward(str(value))
    if reward.name == "distance" and not steps_to_go:
        raise EscapadeError(
            "reward='distance' is the decrease of steps_to_go: it needs steps_to_go=True"
        )
    return reward


def _options(world_options: dict[str, Any]) -> dict[str, str]:
    """World options as the Rust side takes them (``-W key=value``): values as text,
    booleans as ``on``/``off``."""
    out = {}
    for key, value in world_options.items():
        if isinstance(value, bool):
            value = "on" if value else "off"
        out[str(key)] = str(value)
    return out


@functools.lru_cache(maxsize=16)
def _resolve_suite(source: str) -> dict:
    return resolve(source)


def scenarios(source: str) -> dict:
    """:func:`escapade.resolve`, kept for the process when ``source`` is a suite name
    (vector envs open many copies of one suite; files are read anew each time)."""
    if os.path.exists(source):
        return resolve(source)
    return _resolve_suite(source)


def picture_space(
    world: str, texts: list[str], fixed: int | None, options: dict[str, str]
) -> spaces.Space | None:
    """What the pictures of scenarios ``texts`` (or only ``texts[fixed]``) look like: the
    first picture of one scenario of each difficulty tier (a world draws every scenario
    of a tier, and comma every scenario of a puzzle, at one size). One size: a ``Box``;
    several: :class:`Picture` up to the largest; no picture: None."""
    if fixed is not None:
        probes = [fixed]
    else:
        tiers: dict[Any, int] = {}
        for i, text in enumerate(texts):
            tiers.setdefault(json.loads(text).get("difficulty"), i)
        probes = list(tiers.values())
    shapes = set()
    for i in probes:
        probe = Env(world, texts[i], options, pixels=True, steps_to_go=False)
        shapes.update(p.shape for p in pictures(probe.reset(0)))
    if not shapes:
        return None
    if len(shapes) == 1:
        return spaces.Box(0, 255, shapes.pop(), np.uint8)
    return Picture(max(h for h, _, _ in shapes), max(w for _, w, _ in shapes))


class Picture(spaces.Space[np.ndarray]):
    """An RGB picture (``H×W×3`` ``uint8``) of up to ``max_height × max_width`` pixels:
    the pictures of a suite whose scenarios are drawn at several sizes (comma's puzzles).
    ``sample`` draws noise of the largest size."""

    def __init__(self, max_height: int, max_width: int, seed=None):
        self.max_height, self.max_width = int(max_height), int(max_width)
        super().__init__(shape=None, dtype=np.uint8, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def sample(self, mask=None, probability=None) -> np.ndarray:
        return self.np_random.integers(
            0, 256, (self.max_height, self.max_width, 3), dtype=np.uint8
        )

    def contains(self, x: Any) -> bool:
        return (
            isinstance(x, np.ndarray)
            and x.dtype == np.uint8
            and x.ndim == 3
            and x.shape[2] == 3
            and 0 < x.shape[0] <= self.max_height
            and 0 < x.shape[1] <= self.max_width
        )

    def to_jsonable(self, sample_n):
        return [x.tolist() for x in sample_n]

    def from_jsonable(self, sample_n):
        return [np.asarray(x, dtype=np.uint8) for x in sample_n]

    def __repr__(self) -> str:
        return f"Picture(up to {self.max_height}x{self.max_width})"

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, Picture)
            and (self.max_height, self.max_width) == (other.max_height, other.max_width)
        )


class Observations(spaces.Dict):
    """The observation space, a :class:`~gymnasium.spaces.Dict` of text and pictures
    that :class:`~gymnasium.vector.AsyncVectorEnv` can also carry in shared memory (its
    default): Gymnasium's own shared memory holds only fixed-size values, and reads a
    ``Text`` once when it starts. Each worker writes its observation, pickled, into its
    own shared buffer; the batch reads them when it is copied (``copy=True``, the
    default) or looked into (``copy=False``: a live view, as Gymnasium's shared arrays
    are). An observation larger than the buffer raises :class:`EscapadeError`."""

    def shared_bytes(self) -> int:
        """The room one observation has in shared memory: four of the largest pictures
        and 4 MB of text."""
        picture = self.spaces.get("images")
        largest = 0
        if picture is not None:
            inner = picture.feature_space
            if isinstance(inner, Picture):
                largest = inner.max_height * inner.max_width * 3
            else:
                largest = int(np.prod(inner.shape))
        return 4 * largest + (4 << 20)


class _SharedObservations:
    """One shared buffer per worker: 8 bytes of length, then the pickled observation."""

    def __init__(self, n: int, size: int, ctx: Any):
        self.size = size
        self.buffers = [ctx.RawArray("B", size + 8) for _ in range(n)]

    def write(self, index: int, value: Any) -> None:
        data = pickle.dumps(value, protocol=5)
        if len(data) > self.size:
            raise EscapadeError(
                f"an observation of {len(data):,} bytes does not fit the {self.size:,} bytes of "
                "AsyncVectorEnv's shared memory; pass vector_kwargs={'shared_memory': False}"
            )
        view = memoryview(self.buffers[index]).cast("B")
        view[:8] = len(data).to_bytes(8, "little")
        view[8 : 8 + len(data)] = data

    def read(self, index: int) -> Any:
        view = memoryview(self.buffers[index]).cast("B")
        length = int.from_bytes(view[:8], "little")
        return pickle.loads(view[8 : 8 + length]) if length else None


class _SharedBatch(Mapping):
    """The batch of observations in shared memory, read when looked into; a copy of it
    is a plain dict (what ``AsyncVectorEnv(copy=True)`` returns)."""

    def __init__(self, space: Observations, shared: _SharedObservations, n: int):
        self._space, self._shared, self._n = space, shared, n

    def _batch(self) -> dict:
        values = [self._shared.read(i) for i in range(self._n)]
        if any(v is None for v in values):
            return create_empty_array(self._space, self._n)
        return concatenate(self._space, values, create_empty_array(self._space, self._n))

    def __getitem__(self, key: str) -> Any:
        return self._batch()[key]

    def __iter__(self):
        return iter(self._space.spaces)

    def __len__(self) -> int:
        return len(self._space.spaces)

    def __deepcopy__(self, memo: dict) -> dict:
        return self._batch()


@create_shared_memory.register(Observations)
def _create_shared(space: Observations, n: int = 1, ctx: Any = None) -> _SharedObservations:
    import multiprocessing

    return _SharedObservations(n, space.shared_bytes(), ctx or multiprocessing)


@read_from_shared_memory.register(Observations)
def _read_shared(space: Observations, shared: _SharedObservations, n: int = 1) -> _SharedBatch:
    return _SharedBatch(space, shared, n)


@write_to_shared_memory.register(Observations)
def _write_shared(space: Observations, index: int, value: Any, shared: _SharedObservations) -> None:
    shared.write(index, value)


class EscapadeEnv(gym.Env[Observation, Action]):
    """One world's scenarios as a Gymnasium environment (see the module docs).

    ``scenario`` picks one scenario (its index or id); None draws one at each
    ``reset`` from the environment's seeded generator (``reset(options={"scenario":
    ...})`` picks one for that episode). ``seed`` is the seed of a ``reset`` that gives
    none.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        source: str,
        scenario: int | str | None = None,
        seed: int | None = None,
        render_mode: str | None = None,
        role: str | None = None,
        partner: Partner = "oracle-talk",
        reask: bool = True,
        share_pictures: bool = False,
        steps_to_go: bool = True,
        **world_options: Any,
    ):
        self.steps_to_go = bool(steps_to_go)
        self._reward = _reward(world_options.pop("reward", "progress"), self.steps_to_go)
        #: the reward's name (``progress``, ``sparse`` or ``distance``)
        self.reward_kind: str = self._reward.name
        resolved = scenarios(str(source))
        self.world: str = resolved["world"]
        self.label: str = resolved["label"]
        self.ids: list[str] = resolved["ids"]
        self._scenarios: list[str] = list(resolved["scenarios"])
        self.options: dict[str, str] = _options(world_options)
        self._fixed = None if scenario is None else self._index(scenario)
        self._default_seed = seed
        self._envs: dict[int, Env] = {}
        probe = self._env(self._fixed if self._fixed is not None else 0)
        roles = probe.roles()
        if roles:
            self.role = role or roles[0]
            if self.role not in roles:
                raise EscapadeError(f"unknown role `{self.role}`; known: {', '.join(roles)}")
        elif role not in (None, "agent"):
            raise EscapadeError(f"world {self.world} has one role, `agent`, not `{role}`")
        else:
            self.role = None
        self.partner = partner
        self._partner_agent: Agent | None = None
        #: the native env the partner agent was made for (kept while it is the same)
        self._partner_env: Env | None = None
        fields: dict[str, spaces.Space] = {"text": AnyText(MAX_TEXT)}
        picture = picture_space(self.world, self._scenarios, self._fixed, self.options)
        if picture is not None:
            fields["images"] = spaces.Sequence(picture, stack=False)
        self.picture_space = picture
        self.observation_space = Observations(fields)
        if picture is None:
            self.metadata = {**self.metadata, "render_modes": ["ansi"]}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode {render_mode!r}: expected one of {self.metadata['render_modes']}"
            )
        self.render_mode = render_mode
        self.reask = bool(reask)
        self.share_pictures = bool(share_pictures)
        self._reasks = 0
        if self.world in CALL_WORLDS and probe.tool_schemas():
            self.action_space = Reply()
        else:
            self.action_space = AnyText(MAX_ACTION)
        self._env_now: Env | None = None
        self._observation: dict | None = None
        self._native: dict | None = None
        self._progress = 0.0
        self._steps_to_go: int | None = None
        self._over = False

    # -- scenarios ---------------------------------------------------------------------

    def _index(self, scenario: int | str) -> int:
        if isinstance(scenario, (int, np.integer)) and not isinstance(scenario, bool):
            if not 0 <= int(scenario) < len(self._scenarios):
                raise EscapadeError(
                    f"scenario {scenario}: {self.label} has {len(self._scenarios)} (0 to {len(self._scenarios) - 1})"
                )
            return int(scenario)
        if isinstance(scenario, str) and scenario in self.ids:
            return self.ids.index(scenario)
        shown = ", ".join(self.ids[:5]) + (", …" if len(self.ids) > 5 else "")
        raise EscapadeError(f"no scenario {scenario!r} in {self.label} (ids: {shown})")

    def _env(self, index: int) -> Env:
        """The native env of scenario ``index``: kept for its next episode (an env drawing
        its scenario at each reset, as a vector env's are, would otherwise open one per
        episode: a VisEscape scenario costs about a reset to open, craft's measures the
        oracle's distance), up to :data:`OPEN_ENVS`, least recently played dropped."""
        env = self._envs.pop(index, None)
        if env is None:
            env = Env(
                self.world, self._scenarios[index], self.options, pixels=True,
                steps_to_go=self.steps_to_go,
            )
            while len(self._envs) >= OPEN_ENVS:
                del self._envs[next(iter(self._envs))]
        self._envs[index] = env  # last: the most recently played
        return env

    @property
    def env(self) -> Env:
        """The native environment of the current episode (after ``reset``)."""
        if self._env_now is None:
            raise EscapadeError("reset the environment first")
        return self._env_now

    @property
    def native_observation(self) -> NativeObservation | None:
        """The last observation as the native layer gives it, for this env's role; None
        before ``reset``. Its pictures are PNG bytes, what a vision-language model's API
        takes (``base64`` them into an ``image_url``), with their SHA-256 (the name of the
        picture in a run's ``media/``) and alt text: ``{"text": str, "images": [{"sha256":
        str, "png": bytes, "alt": str | None, "pixels": None}], "actions": list[str] |
        None, "role": str | None}`` (craft's, handed over as pixels, are encoded here, see
        :func:`as_png`). The Gymnasium observation has the same pictures as arrays."""
        if self._observation is None:
            return None
        if self._native is None:
            self._native = as_png(self._observation)
        return self._native

    # -- Gymnasium ---------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        if seed is None and self._default_seed is not None and self._env_now is None:
            seed = self._default_seed
        options = _reset_options(options)
        super().reset(seed=seed)
        origin = _origin(options["from"]) if "from" in options else None
        if origin is not None:
            index = self._index(origin[1])
            if "scenario" in options and self._index(options["scenario"]) != index:
                raise EscapadeError(
                    f"reset options: `scenario` {options['scenario']!r} is not the recording's `{origin[1]}`"
                )
        elif "scenario" in options:
            index = self._index(options["scenario"])
        elif self._fixed is not None:
            index = self._fixed
        else:
            index = int(self.np_random.integers(len(self._scenarios)))
        episode_seed = int(self.np_random.integers(2**63))
        env = self._env(index)
        self._env_now = env
        progress = 0.0
        if origin is not None:
            observation, progress = env.restore(*origin)
        else:
            observation = env.reset(episode_seed)
        if self.role is not None:
            if isinstance(self.partner, str):
                # an agent's reset starts it afresh from the seed: it is made once per
                # native env (making one reads the scenario)
                if self._partner_agent is None or self._partner_env is not env:
                    self._partner_agent = Agent(env, self.partner, episode_seed)
                    self._partner_env = env
                self._partner_agent.reset(env, episode_seed)
            observation, _ = self._partner_turns(observation)
        self._progress = float(progress)
        self._over = False
        self._reasks = 0
        self._observation, self._native = observation, None
        info = self._info(observation, env.steps_to_go())
        self._steps_to_go = info["steps_to_go"]
        info["system_prompt"] = env.role_prompt(self.role) if self.role else env.system_prompt()
        info["scenario"] = env.id
        return self._obs(observation), info

    def step(self, action: Action) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        if self._over:
            raise EscapadeError("the episode is over; call reset to start another")
        env = self.env
        if isinstance(action, np.str_):
            action = str(action)
        if self.reask and self._reasks < env.reask_limit():
            message = env.check_action(action)
            if message is not None:
                return self._reask(message)
        self._reasks = 0
        step = env.step(action)
        observation = step["observation"]
        done = step["terminated"] or step["truncated"]
        if self.role is not None and not done:
            observation, last = self._partner_turns(observation)
            if last is not None:
                # the state after the partner's turns; what answered this role's action
                mine = ("feedback", "valid", "error", "results")
                step = dict(last, **{key: step[key] for key in mine})
        progress = float(step["progress"])
        before = (self._progress, self._steps_to_go, False)
        self._progress = progress
        self._observation, self._native = observation, None
        terminated, truncated = bool(step["terminated"]), bool(step["truncated"])
        info = self._info(observation, step["steps_to_go"])
        self._steps_to_go = info["steps_to_go"]
        outcome = env.outcome() if terminated or truncated else None
        won = outcome is not None and bool(outcome["success"])
        reward = self._reward.of(before, (progress, self._steps_to_go, won))
        info.update(
            feedback=step["feedback"],
            results=step["results"],
            valid=step["valid"],
            error=step["error"],
            progress=progress,
            scenario=env.id,
        )
        if outcome is not None:
            self._over = True
            info["outcome"] = outcome
            info["metrics"] = outcome["metrics"]
        return self._obs(observation), float(reward), terminated, truncated, info

    def end_episode(self) -> dict:
        """Ends the episode where it stands (a wrapper such as Gymnasium's ``TimeLimit``
        cut it short) and returns what the episode's last ``info`` carries at its end:
        ``outcome`` and ``metrics``, as the world scores the episode so far. Stepping
        again needs a ``reset``."""
        outcome = self.env.outcome()
        self._over = True
        return {"outcome": outcome, "metrics": outcome["metrics"]}

    def _reask(self, message: str):
        """A reply the world cannot read, answered without spending a step (the
        world's re-ask limit, e.g. MM-Escape App. K: 5, as escapade's agent loop does)."""
        self._reasks += 1
        assert self._observation is not None
        observation = dict(self._observation, text=f"{message}\n\n{self._observation['text']}")
        info = self._info(observation, self._steps_to_go)
        info.update(reask=message, feedback=message, valid=False, error="reask",
                    progress=self._progress, scenario=self.env.id)
        return self._obs(observation), 0.0, False, False, info

    def render(self):
        if self._observation is None or self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return self._observation["text"]
        shots = pictures(self._observation)
        return shots[0] if shots else None

    def close(self):
        self._envs = {}
        self._env_now = None

    # -- helpers -----------------------------------------------------------------------

    def _partner_turns(self, observation: dict) -> tuple[dict, dict | None]:
        """Lets the partner play until it is this env's role's turn or the episode ends;
        returns the observation for this role and the partner's last step."""
        env, last = self.env, None
        while observation["role"] not in (None, self.role):
            if callable(self.partner):
                action = self.partner(observation)
            else:
                assert self._partner_agent is not None
                action = self._partner_agent.act(env)
            last = env.step(action)
            observation = last["observation"]
            if last["terminated"] or last["truncated"]:
                break
        return observation, last

    def _obs(self, observation: dict) -> Observation:
        out: Observation = {"text": observation["text"]}
        if self.picture_space is not None:
            shots = pictures(observation, self.share_pictures)
            for shot in shots:
                # the shape, not Box.contains: a uint8 array is within 0..255 by type, and
                # checking every pixel would cost more than the step
                space = self.picture_space
                fits = shot.shape == space.shape if isinstance(space, spaces.Box) else shot in space
                if not fits:
                    raise EscapadeError(
                        f"{self.world} drew a {shot.shape} picture outside this env's observation space {self.picture_space}"
                    )
            out["images"] = shots
        return out

    def _info(self, observation: dict, steps_to_go: int | None) -> dict:
        return {
            "actions": observation["actions"],
            "tool_schemas": self.env.tool_schemas(),
            "role": observation["role"],
            "steps_to_go": steps_to_go if self.steps_to_go else None,
        }


#: the keys ``reset(options=...)`` takes
RESET_OPTIONS = ("scenario", "from")


def _origin(value: Any) -> tuple[str, str, int, int]:
    """``reset(options={"from": {"run": DIR, "episode": "SCENARIO[:EPOCH]", "step":
    K}})``: a recorded episode to start from, before its step K (as ``escapade run
    --from DIR --episode ... --step K`` forks it). Returns ``(run, scenario, epoch,
    step)``."""
    if not isinstance(value, collections.abc.Mapping):
        raise EscapadeError(
            'reset options: `from` is a dict {"run": DIR, "episode": "SCENARIO[:EPOCH]", "step": K}'
        )
    unknown = sorted(str(k) for k in value if k not in ("run", "episode", "step"))
    missing = [k for k in ("run", "episode", "step") if k not in value]
    if unknown or missing:
        raise EscapadeError(
            f"reset options: `from` takes run, episode and step"
            + (f"; unknown {', '.join(unknown)}" if unknown else "")
            + (f"; missing {', '.join(missing)}" if missing else "")
        )
    episode, step = value["episode"], value["step"]
    if not isinstance(episode, str) or not episode:
        raise EscapadeError("reset options: `from.episode` is a scenario id, with `:EPOCH` or not")
    scenario, _, epoch = episode.rpartition(":") if ":" in episode else (episode, "", "0")
    if not epoch.isdigit():
        scenario, epoch = episode, "0"
    if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or step < 1:
        raise EscapadeError(f"reset options: `from.step` is a step number from 1, not {step!r}")
    return os.fspath(value["run"]), scenario, int(epoch), int(step)


def _reset_options(options: Any, strict: bool = True) -> dict:
    """``reset``'s options, checked: None or a dict of :data:`RESET_OPTIONS` keys
    (other keys are refused, a typo would play the defaults silently; with ``strict``
    off they are ignored, as PettingZoo's own API test expects: it resets with
    ``options={"options": 1}``)."""
    if options is None:
        return {}
    if not isinstance(options, collections.abc.Mapping):
        raise EscapadeError(
            f"reset options: expected a dict such as {{'scenario': 0}}, not {type(options).__name__} {options!r}"
        )
    unknown = sorted(str(key) for key in options if key not in RESET_OPTIONS)
    if unknown and strict:
        raise EscapadeError(
            f"reset options: unknown {', '.join(unknown)}; known: {', '.join(RESET_OPTIONS)}"
        )
    return dict(options)


class EpisodeEnd(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Gives the step that a wrapper below it truncated (``gym.make(...,
    max_episode_steps=N)``'s ``TimeLimit``) the ``outcome`` and ``metrics`` the world's
    own end of an episode carries, and ends the episode there. The registered ids wrap
    their envs in it, outside the time limit; wrap by hand after your own limits."""

    def __init__(self, env: gym.Env):
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)

    def step(self, action: Any):
        observation, reward, terminated, truncated, info = self.env.step(action)
        if (terminated or truncated) and "outcome" not in info:
            info = {**info, **self.env.unwrapped.end_episode()}
        return observation, reward, terminated, truncated, info


def make(
    suite_or_file: str,
    scenario: int | str | None = None,
    seed: int | None = None,
    **kwargs: Any,
) -> EscapadeEnv:
    """A Gymnasium environment on a suite (``agentescape``, ``visescape@4``), a scenario
    file or a directory. ``scenario``: index or id of one scenario (None: one drawn at
    each reset); ``seed``: the seed of the first reset; ``render_mode``, ``role`` and
    ``partner`` as :class:`EscapadeEnv`; every other keyword is a world option
    (``-W key=value``, e.g. ``width=320`` for craft). A registered Gymnasium id
    (``escapade/VisEscape-v1``) opens the suite it plays, without Gymnasium's wrappers
    (``gymnasium.make`` adds them)."""
    source = IDS.get(str(suite_or_file), suite_or_file)
    return EscapadeEnv(source, scenario=scenario, seed=seed, **kwargs)


#: the registered ids and the suite each plays
IDS = {
    "escapade/AgentEscape-v1": "agentescape",
    "escapade/VisEscape-v1": "visescape",
    "escapade/MMEscape-v1": "mm-escape",
    "escapade/Comma-v1": "comma",
}


def register_envs() -> None:
    """Registers :data:`IDS` with Gymnasium (done by ``import escapade``)."""
    for env_id, suite in IDS.items():
        if env_id not in gym.registry:
            gym.register(
                id=env_id,
                entry_point="escapade.gym_env:EscapadeEnv",
                kwargs={"source": suite},
                additional_wrappers=(
                    WrapperSpec("EpisodeEnd", "escapade.gym_env:EpisodeEnd", {}),
                ),
            )
