"""The test MCP server (server.py) over stdio and over streamable HTTP on a free port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SERVER = Path(__file__).with_name("server.py")
#: how a stdio MCPTools starts the server
STDIO_COMMAND = f"{sys.executable} {SERVER}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the test MCP server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the test MCP server did not start listening")


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """The test server over streamable HTTP (uvicorn in a subprocess)."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "TEST_MCP_GREETING": "Hi"},
    )
    try:
        _wait_listening(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(params=["stdio", "http"])
def server_args(request: pytest.FixtureRequest) -> dict[str, str]:
    """MCPTools arguments reaching the test server over each transport."""
    if request.param == "stdio":
        return {"command": STDIO_COMMAND, "name": "testsrv"}
    url = request.getfixturevalue("http_url")
    return {"url": url, "name": "testsrv"}


USER_SERVER = Path(__file__).with_name("user_server.py")


@pytest.fixture(scope="module")
def user_server_url() -> Iterator[str]:
    """The per-user test server (bearer tokens checked) over streamable HTTP."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, str(USER_SERVER), str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_listening(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


OAUTH_SERVER = Path(__file__).with_name("oauth_server.py")


@pytest.fixture(scope="module")
def oauth_server_url() -> Iterator[str]:
    """An MCP server that is its own OAuth authorization server (approves at once)."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, str(OAUTH_SERVER), str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_listening(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
