"""A soak of `escapade serve --record` as an operator runs it: the default limit on open
files (1,024), a thousand sessions through it with slow clients mixed in, then SIGTERM.

Started by scripts/soak.sh (which finds the binary and a Python with `websockets`).

- `--sessions` WebSocket sessions (default 1,000) play rooms of visescape@4, at most
  `--concurrency` at once: reset, a few random steps, close. The last `--in-flight` of
  them are left open mid-episode for the stop to end.
- Beside them, all the time: idle connections, half-sent request heads and slow bodies
  (`--slow` of each kind), opened again whenever the server cuts them off.
- Then SIGTERM. Every session that got its first observation must have its run directory
  with exactly one row: the finished ones ended by their client, the ones in flight by
  the server's stop.

Prints the figures (sessions, rows, the server's peak and final RSS and open files,
the latency of resets and steps as the clients saw it, how long the stop took) and exits non-zero when a row is missing.
"""

import argparse
import asyncio
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from websockets.asyncio.client import connect


def proc(pid):
    """The server's resident memory (MiB) and open files now."""
    rss = 0
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except (FileNotFoundError, ProcessLookupError):
        return None
    return rss, fds


async def sample(pid, peaks, stop):
    while not stop.is_set():
        now = proc(pid)
        if now:
            peaks["rss"] = max(peaks["rss"], now[0])
            peaks["fds"] = max(peaks["fds"], now[1])
        await asyncio.sleep(0.2)


def percentiles(seconds):
    """p50, p95, p99 and max of `seconds`, in milliseconds."""
    if not seconds:
        return None
    xs = sorted(seconds)
    at = lambda q: xs[min(len(xs) - 1, int(q * len(xs)))]
    return {k: round(v * 1000, 1) for k, v in
            (("p50", at(0.5)), ("p95", at(0.95)), ("p99", at(0.99)), ("max", xs[-1]))}


async def session(url, i, steps, hold, counts, held, latency):
    """One client: reset, steps, close (or hold the episode open until the stop)."""
    try:
        ws = await connect(url, open_timeout=60, max_size=None)
    except Exception as e:
        counts["connect_failed"] += 1
        counts.setdefault("why", []).append(str(e)[:200])
        return
    try:
        sent = time.monotonic()
        await ws.send(json.dumps({"type": "reset", "data": {"suite": "visescape@4", "index": i % 20, "seed": i}}))
        answer = json.loads(await ws.recv())
        latency["reset"].append(time.monotonic() - sent)
        if answer["type"] != "observation":
            counts["refused"] += 1
            counts.setdefault("why", []).append(answer["data"]["message"][:200])
            await ws.close()
            return
        counts["started"] += 1
        obs = answer["data"]
        for _ in range(steps):
            if obs["done"]:
                break
            actions = obs["observation"].get("actions") or ["look around"]
            sent = time.monotonic()
            await ws.send(json.dumps({"type": "step", "data": {"text": random.choice(actions)}}))
            answer = json.loads(await ws.recv())
            latency["step"].append(time.monotonic() - sent)
            if answer["type"] != "observation":
                break
            obs = answer["data"]
        if hold:
            held.append(ws)
            return
        await ws.close()
        counts["closed"] += 1
    except Exception as e:
        counts["broken"] += 1
        counts.setdefault("why", []).append(str(e)[:200])


async def slow_client(host, port, token, kind, stop, counts):
    """Keeps one slow connection of `kind` open, again each time the server cuts it (a
    slow body carries the token: it is slow, not a guesser)."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(host, port)
        except OSError:
            await asyncio.sleep(0.5)
            continue
        if kind == "half":
            writer.write(f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\n".encode())
        elif kind == "body":
            writer.write(
                f"POST /reset HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                f"Authorization: Bearer {token}\r\nContent-Length: 100000\r\n\r\n{{".encode()
            )
        try:
            await writer.drain()
            read = asyncio.ensure_future(reader.read(65536))
            done, _ = await asyncio.wait({read, asyncio.ensure_future(stop.wait())}, return_when=asyncio.FIRST_COMPLETED)
            if read in done:
                counts[f"slow_{kind}_cut"] += 1
            else:
                read.cancel()
        except OSError:
            counts[f"slow_{kind}_cut"] += 1
        writer.close()


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--binary", required=True)
    p.add_argument("--sessions", type=int, default=1000)
    p.add_argument("--concurrency", type=int, default=200)
    p.add_argument("--in-flight", type=int, default=100)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--slow", type=int, default=50, help="slow connections of each kind")
    p.add_argument("--ulimit", default="-Sn 1024", help="the shell's ulimit before the server starts")
    a = p.parse_args()

    record = Path(tempfile.mkdtemp(prefix="escapade-soak-"))
    server = subprocess.Popen(
        ["bash", "-c", f'ulimit {a.ulimit} && exec "$0" "$@"', a.binary, "-q", "serve",
         "--port", "0", "--record", str(record), "--rate", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    base = None
    for line in server.stdout:
        m = re.search(r"base_url: (\S+)", line)
        if m:
            base = m.group(1)
            break
    if not base:
        sys.exit("soak: the server printed no base_url")
    m = re.match(r"http://(?:[^:@/]*:([^@/]*)@)?([^:/]+):(\d+)", base)
    token, host, port = m.group(1) or "", m.group(2), int(m.group(3))
    url = base.replace("http://", "ws://") + "/ws"
    limits = open(f"/proc/{server.pid}/limits").read()
    fd_limit = re.search(r"Max open files\s+(\d+)\s+(\S+)", limits).groups()

    counts = {k: 0 for k in ["started", "closed", "refused", "broken", "connect_failed",
                             "slow_idle_cut", "slow_half_cut", "slow_body_cut"]}
    peaks = {"rss": 0.0, "fds": 0}
    stop = asyncio.Event()
    sampler = asyncio.ensure_future(sample(server.pid, peaks, stop))
    slow = [asyncio.ensure_future(slow_client(host, port, token, kind, stop, counts))
            for kind in ("idle", "half", "body") for _ in range(a.slow)]

    started = time.monotonic()
    held = []
    latency = {"reset": [], "step": []}
    gate = asyncio.Semaphore(a.concurrency)
    first_held = a.sessions - a.in_flight

    async def one(i):
        async with gate:
            await session(url, i, a.steps, i >= first_held, counts, held, latency)

    await asyncio.gather(*(one(i) for i in range(a.sessions)))
    played = time.monotonic() - started
    await asyncio.sleep(1)
    before = proc(server.pid)

    stopping = time.monotonic()
    server.send_signal(signal.SIGTERM)
    code = await asyncio.get_running_loop().run_in_executor(None, server.wait)
    took = time.monotonic() - stopping
    stop.set()
    for t in slow:
        t.cancel()
    sampler.cancel()
    for ws in held:
        try:
            await ws.close()
        except Exception:
            pass

    dirs = [d for d in record.iterdir() if d.is_dir()]
    rows, without, errors = 0, [], {}
    for d in dirs:
        lines = [l for l in (d / "episodes.jsonl").read_text().splitlines() if l.strip()] \
            if (d / "episodes.jsonl").exists() else []
        rows += len(lines)
        if len(lines) != 1:
            without.append(d.name)
        for l in lines:
            e = json.loads(l).get("error") or "none"
            key = "server stopped" if "server stopped" in e else ("client went away" if "went away" in e else e[:60])
            errors[key] = errors.get(key, 0) + 1

    report = {
        "sessions": a.sessions,
        "started": counts["started"],
        "closed_by_client": counts["closed"],
        "in_flight_at_sigterm": len(held),
        "refused": counts["refused"],
        "broken": counts["broken"],
        "connect_failed": counts["connect_failed"],
        "slow_cut": {k: counts[f"slow_{k}_cut"] for k in ("idle", "half", "body")},
        "run_dirs": len(dirs),
        "rows": rows,
        "row_errors": errors,
        "dirs_without_exactly_one_row": len(without),
        "ulimit_before_start": a.ulimit,
        "server_fd_limit_soft_hard": fd_limit,
        "peak_rss_mib": round(peaks["rss"], 1),
        "peak_fds": peaks["fds"],
        "rss_mib_before_sigterm": round(before[0], 1) if before else None,
        "fds_before_sigterm": before[1] if before else None,
        "latency_ms": {k: percentiles(v) for k, v in latency.items()},
        "play_seconds": round(played, 1),
        "sigterm_to_exit_seconds": round(took, 2),
        "exit_code": code,
        "record": str(record),
    }
    if counts.get("why"):
        report["first_failures"] = counts["why"][:5]
    print(json.dumps(report, indent=2))
    ok = (code == 0 and counts["started"] == len(dirs) == rows and not without
          and counts["refused"] == 0 and counts["broken"] == 0 and counts["connect_failed"] == 0)
    if not ok:
        sys.exit("soak: FAILED (see above)")
    print("soak: every finished and every in-flight episode has its row")


asyncio.run(main())
