"""A private ``redis-server`` per test, on a free port, that the test may kill -9.

The machine's shared Redis on 6379 is never touched here.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


class RedisServer:
    """One throwaway redis-server without automatic persistence.

    A restart comes back empty, unless the test wrote an RDB file with :meth:`save_rdb`:
    then it comes back with the data of that moment (an "older RDB").
    """

    def __init__(self, workdir: Path, *extra: str) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.workdir = workdir
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.extra = list(extra)

    def start(self) -> None:
        """Start (or restart, empty) the server and wait until it accepts connections."""
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
                *self.extra,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(500):
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            time.sleep(0.01)
        raise RuntimeError(f"redis-server on port {self.port} did not start")

    def save_rdb(self) -> None:
        """Write an RDB file now (SAVE); the next restart loads it."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as conn:
            conn.sendall(b"SAVE\r\n")
            if not conn.recv(16).startswith(b"+OK"):
                raise RuntimeError("SAVE failed")

    def restart(self) -> None:
        """kill -9 and start again (from the last RDB written by save_rdb, if any)."""
        self.kill()
        self.start()

    def kill(self) -> None:
        """kill -9 this server (and only this one)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A started private redis-server, killed after the test."""
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not installed; the crash tests need it")
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()
