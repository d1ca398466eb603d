"""What an MCP tool call adds to a run, against the same tool as a local function.

    .venv/bin/python -m bench.mcp_calls [--runs 200]

Each run is one tool call between two model turns (a ScriptedModel, so the time is the
runtime's and the call's), on an agent without a store. The tool is ``add(a, b)``:

- local:  an async function tool in this process
- stdio:  the same tool on an MCP server started as a subprocess (this module with
  ``--serve stdio``, the official SDK's MCPServer)
- http:   the same server over streamable HTTP on 127.0.0.1 (``--serve PORT``)
- http per user: the same HTTP server as a per-user server (``per_user=True``): each run
  reads its user's sealed token from a SQLite store with a key ring and calls through
  that user's own connection (the bench server accepts any token)

The connection is opened before measuring (as a serving process does at start); the
"call only" column times the MCP round trip alone (``MCPTools``'s entrypoint: the
session's ``tools/call`` and turning the result into text), the rest of the run is the
agent's. Times in ms: median and p95 over the runs, after warm-up runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cryptography.fernet import Fernet

from core.agent import Agent
from core.db.cipher import StateCipher
from core.db.sqlite import SqliteDb
from core.governance.credentials import McpCredentials
from core.testing import ScriptedModel, tool_call
from core.tools.mcp import MCPTools

WARMUP = 5
USER = "bench:local:user"
#: starts this module as the MCP server
SERVE = [sys.executable, "-m", "bench.mcp_calls", "--serve"]


async def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)


def serve(where: str) -> None:
    """Serve ``add`` over stdio (``where`` = "stdio") or streamable HTTP on port ``where``."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench", log_level="WARNING")
    server.tool()(add)
    if where == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=int(where))


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def one_run(agent: Agent, i: int) -> float:
    """One run of one ``add`` call by the user ``USER``; its time in ms."""
    agent.model = ScriptedModel([tool_call("add", a=i, b=1), "done"])
    started = time.perf_counter()
    output = await agent.arun("add", session_id="bench", user_id=USER)
    elapsed = (time.perf_counter() - started) * 1000
    if output.tools[0].result != str(i + 1):
        raise RuntimeError(f"unexpected result {output.tools[0].result!r}")
    return elapsed


async def one_call(mcp: MCPTools, i: int) -> float:
    """The MCP round trip alone (the tool's entrypoint); its time in ms."""
    started = time.perf_counter()
    await mcp.get_async_functions()["add"].entrypoint(a=i, b=1)
    return (time.perf_counter() - started) * 1000


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_http_server() -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen(
        [*SERVE, str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("the bench MCP server did not start")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--serve", metavar="stdio|PORT", help="be the MCP server instead")
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve)
    else:
        asyncio.run(measure(args.runs))


async def measure(count: int) -> None:
    """Time ``count`` runs of each variant, taking turns; print the table."""
    process, url = start_http_server()
    stdio = MCPTools(" ".join([*SERVE, "stdio"]), name="bench")
    http = MCPTools(url=url, name="bench")
    scratch = tempfile.TemporaryDirectory()
    vault = SqliteDb(
        db_file=Path(scratch.name) / "tokens.db",
        cipher=StateCipher([Fernet.generate_key().decode()]),
    )
    credentials = McpCredentials(vault)
    await credentials.aconnect(USER, "bench", "bench-token", method="token")
    per_user = MCPTools(url=url, name="bench", per_user=True, credentials=credentials)
    agents = {
        "local": Agent(tools=[add]),
        "stdio": Agent(tools=[stdio]),
        "http": Agent(tools=[http]),
        "http per user": Agent(tools=[per_user]),
    }
    runs: dict[str, list[float]] = {label: [] for label in agents}
    calls: dict[str, list[float]] = {"stdio": [], "http": []}
    try:
        async with stdio, http:
            # the variants take turns, so a drifting load weighs on all alike
            for i in range(WARMUP + count):
                for label, agent in agents.items():
                    elapsed = await one_run(agent, i)
                    if i >= WARMUP:
                        runs[label].append(elapsed)
                for label, mcp in (("stdio", stdio), ("http", http)):
                    elapsed = await one_call(mcp, i)
                    if i >= WARMUP:
                        calls[label].append(elapsed)
    finally:
        await per_user.close()
        await vault.aclose()
        scratch.cleanup()
        process.terminate()
        process.wait(timeout=10)
    rows = [(label, runs[label], calls.get(label)) for label in agents]
    base = statistics.median(rows[0][1])
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {count} runs per row")
    print("| tool | run median ms | run p95 ms | added vs local ms | call only median ms |")
    print("|---|---:|---:|---:|---:|")
    for label, runs, calls in rows:
        median = statistics.median(runs)
        call = f"{statistics.median(calls):.2f}" if calls else "—"
        print(
            f"| {label} | {median:.2f} | {percentile(runs, 0.95):.2f} | "
            f"{median - base:+.2f} | {call} |"
        )


if __name__ == "__main__":
    main()
