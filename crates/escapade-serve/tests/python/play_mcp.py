"""Plays escapade episodes through `escapade mcp` with the official MCP Python SDK.

usage: play_mcp.py (--stdio "BINARY ARG..." | --url URL [--token TOKEN]) --moves MOVES.json
                   [--mode legacy]

With --token, every HTTP request carries `Authorization: Bearer TOKEN`, as an MCP client
configured with the server's token sends it.

MOVES.json holds the episodes to play and, for each, the moves that win it (computed
by the Rust test from the world's oracle; the server never shows them):
    {"episodes": [{"suite": "...", "index": 0, "seed": 0,
                   "moves": [["tool_name", {"arg": "value"}], ...]}]}

The script lists the tools, starts each episode, plays its moves (passing the episode
id the server gave), checks every answer (no tool error, pictures that are PNG files)
and that the episode ends escaped, tries a few bad calls (each must be a tool error),
and prints one JSON line the Rust test reads:
    {"protocol": "...", "tools": [...], "episodes": [{"world", "scenario", "success",
     "steps", "images", "metrics", "steps_to_go"}], "errors": ["message", ...]}
Any failure exits non-zero with a message on standard error.
"""

import argparse
import asyncio
import base64
import json
import shlex
import sys

from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

PNG = b"\x89PNG\r\n\x1a\n"


def fail(message):
    print(f"play_mcp: {message}", file=sys.stderr)
    sys.exit(1)


def texts(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def pictures(result):
    out = []
    for c in result.content:
        if getattr(c, "type", "") == "image":
            if c.mime_type != "image/png":
                fail(f"an image of type {c.mime_type}")
            data = base64.b64decode(c.data)
            if not data.startswith(PNG):
                fail("an image that is not a PNG file")
            out.append(data)
    return out


async def call(client, name, args):
    result = await client.call_tool(name, args)
    if result.is_error:
        fail(f"{name} {json.dumps(args)[:200]} failed: {texts(result)}")
    return result


async def play(client, episode):
    start = {"suite": episode["suite"], "index": episode["index"], "seed": episode["seed"]}
    result = await call(client, "start_episode", start)
    state = result.structured_content
    eid = state["episode"]
    images = len(pictures(result))
    distances = [state.get("steps_to_go")]
    for tool in {m[0] for m in episode["moves"]}:
        if tool not in state["tools"]:
            fail(f"start_episode names the tools {state['tools']}, not {tool}")
    for tool, args in episode["moves"]:
        if state["over"]:
            fail(f"the episode ended before the moves did: {texts(result)}")
        result = await call(client, tool, {"episode": eid, **args})
        state = result.structured_content
        images += len(pictures(result))
        distances.append(state.get("steps_to_go"))
    if not state["over"]:
        fail(f"the moves ran out before the episode ended: {texts(result)}")
    # acting after the end is a tool error, and end_episode still answers with the outcome
    after = await client.call_tool(episode["moves"][-1][0], {"episode": eid, **episode["moves"][-1][1]})
    if not after.is_error:
        fail("a move after the end was accepted")
    ended = await call(client, "end_episode", {"episode": eid})
    outcome = ended.structured_content["outcome"]
    # the oracle's distance: the winning moves never raise it, and the escape leaves 0
    known = [d for d in distances if d is not None]
    if any(b > a for a, b in zip(known, known[1:])) or (known and outcome["success"] and known[-1] != 0):
        fail(f"steps_to_go along the winning moves: {distances}")
    return {
        "world": state["world"],
        "scenario": state["scenario"],
        "success": outcome["success"],
        "steps": outcome["steps"],
        "images": images,
        "metrics": outcome["metrics"],
        "steps_to_go": distances,
        "last": texts(result)[-300:],
    }


async def bad_calls(client, world_tool):
    """Each must come back as a tool error with a message, never break the session."""
    out = []
    for name, args in [
        (world_tool, {"episode": "0" * 32}),
        ("start_episode", {"suite": "no-such-suite@1"}),
        ("start_episode", {}),
        ("no_such_tool", {}),
    ]:
        result = await client.call_tool(name, args)
        if not result.is_error:
            fail(f"{name} {args} was not an error")
        out.append(texts(result))
    return out


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--stdio", metavar="COMMAND", help="the server's command line, split like a shell")
    p.add_argument("--url")
    p.add_argument("--token", help="sent as `Authorization: Bearer TOKEN` with --url")
    p.add_argument("--moves", required=True)
    p.add_argument("--mode", default="auto", help="auto (2026-07-28, discovered) or legacy (the initialize handshake)")
    a = p.parse_args()
    with open(a.moves) as f:
        plan = json.load(f)
    if a.stdio:
        command = shlex.split(a.stdio)
        server = StdioServerParameters(command=command[0], args=command[1:])
    elif a.url:
        server = a.url
    else:
        fail("give --stdio or --url")
    if a.url and a.token:
        headers = {"Authorization": f"Bearer {a.token}"}
        async with create_mcp_http_client(headers=headers) as http:
            await session(streamable_http_client(a.url, http_client=http), plan, a.mode)
    else:
        await session(server, plan, a.mode)


async def session(server, plan, mode):
    async with Client(server, read_timeout_seconds=600, mode=mode) as client:
        tools = [t.name for t in (await client.list_tools()).tools]
        played = [await play(client, e) for e in plan["episodes"]]
        errors = await bad_calls(client, plan["episodes"][0]["moves"][0][0])
        print(json.dumps({
            "protocol": client.protocol_version,
            "tools": tools,
            "episodes": played,
            "errors": errors,
        }))


asyncio.run(main())
