"""Redis servers of a benchmark's own: one plain server, or a local 6-node cluster.

A private server keeps other work on the machine's shared Redis out of the Redis CPU
a benchmark reads (``INFO cpu``). Both are started on free ports in a temporary
directory and killed afterwards (only the processes started here).
"""

from __future__ import annotations

import contextlib
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from tests.db.cluster.harness import LocalCluster, command, free_ports, used_cpu


@contextlib.contextmanager
def private_redis(kind: str) -> Iterator[tuple[str, Callable[[], float]]]:
    """(URL, CPU seconds so far) of a private ``"server"`` or ``"cluster"``.

    The CPU is used_cpu_sys + used_cpu_user of the server, summed over every node of
    a cluster (replicas included: they apply every write too).
    """
    with tempfile.TemporaryDirectory(prefix="statebot-bench-redis-") as tmp:
        if kind == "cluster":
            cluster = LocalCluster(Path(tmp))
            try:
                cluster.start()
                yield cluster.url, cluster.used_cpu
            finally:
                cluster.stop()
            return
        port = free_ports(1)[0]
        proc = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", tmp],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            for _ in range(500):
                if command(port, "ping", timeout=1.0).strip() == "PONG":
                    break
                time.sleep(0.02)
            yield f"redis://127.0.0.1:{port}/0", lambda: used_cpu(command(port, "info", "cpu"))
        finally:
            proc.kill()
            proc.wait(timeout=10)
