"""escapade's suites as Inspect AI tasks: ``inspect eval escapade/agentescape``.

One task per suite family — ``agentescape`` (tools), ``visescape`` (vis), ``mmescape``
(craft), ``comma`` (comma, the model as the solver with a partner expert) — and
``escapade`` for any suite, scenario file or directory. Each sample is one scenario; the
solver :func:`escapade_agent` plays it through tools: the world's own function schemas
(tools: the App. B functions; vis and craft: ``act``), or, where the world has none,
``act(action)`` taking the world's text protocol. A reply without a tool call is stepped
as text. Tool results are the world's feedback and next observation (pictures as images).
The score is the episode's ``success`` and every metric the world records (the
``episodes.jsonl`` row of ``escapade run``), each with its mean and standard error.

Nothing a model can call returns ground truth: the tools step the world, which answers
exactly what ``escapade run`` shows an agent.
"""

from __future__ import annotations

import base64
import functools
import json
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    ContentImage,
    ContentText,
    get_model,
)
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.tool import ToolDef, ToolParams

from .gym_env import EscapadeEnv, scenarios

__all__ = ["agentescape", "comma", "escapade", "escapade_agent", "escapade_scorer", "mmescape", "visescape"]

#: the store key of an episode's outcome (written by the solver, read by the scorer)
OUTCOME = "escapade_outcome"


def _content(observation: dict, text: str | None = None) -> list:
    parts: list = [ContentText(text=observation["text"] if text is None else text)]
    for image in observation["images"]:
        uri = "data:image/png;base64," + base64.b64encode(image["png"]).decode()
        parts.append(ContentImage(image=uri))
    return parts


def _tool_defs(schemas: list[dict]) -> list[ToolDef]:
    async def never(**kwargs: Any) -> str:  # escapade_agent steps calls itself
        raise RuntimeError("escapade tools are answered by the world")

    if not schemas:
        schemas = [
            {
                "name": "act",
                "description": "Take one action in the world's own words (as the system prompt describes).",
                "parameters": {
                    "type": "object",
                    "properties": {"action": {"type": "string", "description": "the action"}},
                    "required": ["action"],
                },
            }
        ]
    defs = []
    for s in schemas:
        parameters = json.loads(json.dumps(s["parameters"]))
        # Inspect wants every parameter described; some worlds' schemas leave the
        # obvious ones bare
        for name, spec in parameters.get("properties", {}).items():
            if isinstance(spec, dict) and not spec.get("description"):
                spec["description"] = name.replace("_", " ")
        defs.append(
            ToolDef(
                never,
                name=s["name"],
                description=s["description"],
                parameters=ToolParams.model_validate(parameters),
            )
        )
    return defs


def _dataset(source: str, limit: int | None) -> MemoryDataset:
    resolved = scenarios(source)
    samples = [
        Sample(
            id=scenario_id,
            input=f"Escape from scenario {scenario_id}.",
            metadata={"source": source, "index": i, "world": resolved["world"]},
        )
        for i, scenario_id in enumerate(resolved["ids"][:limit])
    ]
    return MemoryDataset(samples, name=resolved["label"])


@functools.cache
def _tiktoken_table() -> bool:
    """Whether tiktoken's ``o200k_base`` table loads (from its cache, or downloaded)."""
    try:
        import tiktoken

        tiktoken.get_encoding("o200k_base")
        return True
    except Exception:  # no network, no cache, no tiktoken: all the same here
        return False


def _mock_counts_offline(model: Any) -> None:
    """Lets Inspect's ``mockllm`` model play offline.

    The mock invents each reply's token usage by counting the conversation with
    tiktoken's ``o200k_base`` table, which tiktoken downloads on first use; without a
    network the download fails and takes the sample with it. The mock's counts are made
    up anyway, so where the table cannot be loaded this mock (this instance only) counts
    a token per four characters instead. Real models are left alone."""
    api = getattr(model, "api", None)
    if type(api).__name__ != "MockLLM" or _tiktoken_table():
        return

    async def count_text_tokens(text: str) -> int:
        return max(1, len(text) // 4)

    api.count_text_tokens = count_text_tokens


@solver
def escapade_agent(max_turns: int = 1000, **env_kwargs: Any):
    """Plays the sample's scenario: the world's system prompt and first observation,
    then model turns until the episode ends (or ``max_turns``). ``env_kwargs`` go to
    :class:`escapade.EscapadeEnv` (``role``, ``partner``, world options)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata
        env = EscapadeEnv(meta["source"], scenario=meta["index"], **env_kwargs)
        seed = int(meta.get("seed", 0)) + int(state.epoch)
        _, info = env.reset(seed=seed)
        native = env.env
        state.messages = [
            ChatMessageSystem(content=info["system_prompt"]),
            ChatMessageUser(content=_content(env.native_observation)),
        ]
        _mock_counts_offline(get_model())
        done = False
        for _ in range(max_turns):
            state.tools = _tool_defs(info["tool_schemas"])
            state = await generate(state, tool_calls="none")
            calls = state.output.message.tool_calls or []
            if not calls:
                action: Any = state.output.completion
            elif len(calls) == 1 and calls[0].function == "act" and not native.tool_schemas():
                action = str(calls[0].arguments.get("action", ""))
            else:
                action = [{"name": c.function, "arguments": c.arguments} for c in calls]
            _, _, terminated, truncated, info = env.step(action)
            observation = env.native_observation
            if calls:
                results = info.get("results") or []
                for k, call in enumerate(calls):
                    last = k == len(calls) - 1
                    text = observation["text"] if last else (results[k]["feedback"] if k < len(results) else "")
                    state.messages.append(
                        ChatMessageTool(
                            content=_content(observation, text) if last else text,
                            tool_call_id=call.id,
                            function=call.function,
                        )
                    )
            else:
                state.messages.append(ChatMessageUser(content=_content(observation)))
            if terminated or truncated:
                done = True
                break
        outcome = native.outcome()
        outcome["finished"] = done
        state.store.set(OUTCOME, outcome)
        state.completed = True
        return state

    return solve


@scorer(metrics={"*": [mean(), stderr()]})
def escapade_scorer():
    """The episode's ``success`` (1 or 0), ``steps`` and the world's metrics."""

    async def score(state: TaskState, target: Target) -> Score:
        outcome = state.store.get(OUTCOME)
        if outcome is None:
            return Score(value={"success": 0.0}, explanation="the episode did not run")
        value = {"success": 1.0 if outcome["success"] else 0.0, "steps": float(outcome["steps"])}
        value.update({k: float(v) for k, v in outcome["metrics"].items()})
        return Score(
            value=value,
            answer="escaped" if outcome["success"] else "not escaped",
            explanation=json.dumps(outcome, sort_keys=True),
        )

    return score


def _task(source: str, limit: int | None, max_turns: int, **env_kwargs: Any) -> Task:
    return Task(
        dataset=_dataset(source, limit),
        solver=escapade_agent(max_turns=max_turns, **env_kwargs),
        scorer=escapade_scorer(),
    )


@task
def escapade(source: str = "agentescape", limit: int | None = None, max_turns: int = 1000, **world_options: Any) -> Task:
    """Any suite, scenario file or directory (``-T source=visescape-hints``); other
    ``-T`` keys are world options (``-W``)."""
    return _task(source, limit, max_turns, **world_options)


@task
def agentescape(limit: int | None = None, suite: str = "agentescape", max_turns: int = 1000, **world_options: Any) -> Task:
    """AgentEscapeBench (the tools world): the model calls the scenario's functions."""
    return _task(suite, limit, max_turns, **world_options)


@task
def visescape(limit: int | None = None, suite: str = "visescape", max_turns: int = 1000, **world_options: Any) -> Task:
    """VisEscape (the vis world): rooms seen in pictures, actions through ``act``."""
    return _task(suite, limit, max_turns, **world_options)


@task
def mmescape(limit: int | None = None, suite: str = "mm-escape", max_turns: int = 1000, **world_options: Any) -> Task:
    """MM-Escape (the craft world): first-person frames, moves through ``act``."""
    return _task(suite, limit, max_turns, **world_options)


@task
def comma(
    limit: int | None = None,
    suite: str = "comma",
    role: str = "solver",
    partner: str = "oracle-talk",
    max_turns: int = 1000,
    **world_options: Any,
) -> Task:
    """COMMA: the model plays ``role`` (solver or expert); ``partner`` (a baseline agent
    of the world) plays the other."""
    return _task(suite, limit, max_turns, role=role, partner=partner, **world_options)
