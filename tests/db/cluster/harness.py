"""A real local Redis Cluster for tests: 3 primaries + 3 replicas, started and torn down here.

Each node is a ``redis-server --cluster-enabled yes`` on a free port (its cluster bus
port, ``port + 10000``, free too) in a temporary directory, without persistence. The
cluster is formed with ``redis-cli --cluster create --cluster-replicas 1`` and used once
every node reports ``cluster_state:ok``. Only the processes started here are ever
killed (by their own ``Popen``), so the machine's other Redis servers are never touched.
"""

from __future__ import annotations

import random
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

#: primaries + replicas: the smallest cluster in which a primary can fail over
NODES = 6


def _free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_ports(count: int) -> list[int]:
    """``count`` ports whose cluster bus ports (``+10000``) are free as well."""
    ports: list[int] = []
    tries = 0
    while len(ports) < count:
        tries += 1
        if tries > 2000:
            raise RuntimeError("no free port pairs for a local Redis Cluster")
        port = random.randint(20000, 29999)
        if port not in ports and _free(port) and _free(port + 10000):
            ports.append(port)
    return ports


def command(port: int, *args: str, timeout: float = 5.0) -> str:
    """Run one command on a node with redis-cli (raw output)."""
    done = subprocess.run(
        ["redis-cli", "-p", str(port), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return done.stdout


def cluster_info(port: int) -> dict[str, str]:
    """``CLUSTER INFO`` of one node as a dict ({} when the node does not answer)."""
    try:
        text = command(port, "cluster", "info", timeout=2.0)
    except subprocess.TimeoutExpired:
        return {}
    pairs = (line.split(":", 1) for line in text.splitlines() if ":" in line)
    return {k.strip(): v.strip() for k, v in pairs}


@dataclass
class Node:
    """One redis-server process of the cluster."""

    port: int
    workdir: Path
    proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the process and wait until it answers PING."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--cluster-enabled", "yes",
                "--cluster-config-file", str(self.workdir / "nodes.conf"),
                # a killed primary is failed over within about a second
                "--cluster-node-timeout", "1000",
                "--save", "",
                "--appendonly", "no",
                "--dir", str(self.workdir),
                "--logfile", str(self.workdir / "redis.log"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server on port {self.port} exited at start")
            if command(self.port, "ping", timeout=1.0).strip() == "PONG":
                return
            time.sleep(0.02)
        raise RuntimeError(f"redis-server on port {self.port} did not start within 10 s")

    def kill(self) -> None:
        """kill -9 this node's process (and only it)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    @property
    def alive(self) -> bool:
        """True while the process runs."""
        return self.proc is not None and self.proc.poll() is None


@dataclass
class LocalCluster:
    """Six nodes on free ports; :attr:`url` is the ``redis+cluster://`` URL of them all."""

    workdir: Path
    nodes: list[Node] = field(default_factory=list)

    @property
    def url(self) -> str:
        """The cluster URL naming every node (any one of them is enough to connect)."""
        hosts = ",".join(f"127.0.0.1:{n.port}" for n in self.nodes)
        return f"redis+cluster://{hosts}/"

    def start(self, timeout: float = 30.0) -> None:
        """Start the nodes, form the cluster, wait for ``cluster_state:ok`` everywhere."""
        ports = free_ports(NODES)
        self.nodes = [Node(p, self.workdir / str(p)) for p in ports]
        for node in self.nodes:
            node.start()
        created = subprocess.run(
            [
                "redis-cli", "--cluster", "create",
                *(f"127.0.0.1:{p}" for p in ports),
                "--cluster-replicas", "1", "--cluster-yes",
            ],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )  # fmt: skip
        if created.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed: {created.stdout[-2000:]}")
        self.wait_ok(timeout)
        self.wait_synced(timeout)

    def wait_synced(self, timeout: float = 30.0) -> None:
        """Until every replica's link to its primary is up (a replica that never synced
        refuses to fail over: its data would be too old)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            links = [
                command(n.port, "info", "replication")
                for n in self.nodes
                if n.alive and command(n.port, "role").split()[:1] == ["slave"]
            ]
            if len(links) == NODES // 2 and all("master_link_status:up" in i for i in links):
                return
            time.sleep(0.05)
        raise RuntimeError(f"the replicas of the local Redis Cluster did not sync in {timeout} s")

    def wait_ok(self, timeout: float = 30.0) -> None:
        """Until every live node says ``cluster_state:ok`` and sees 3 primaries with slots."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            infos = [cluster_info(n.port) for n in self.nodes if n.alive]
            if all(
                i.get("cluster_state") == "ok" and i.get("cluster_size") == str(NODES // 2)
                for i in infos
            ):
                return
            time.sleep(0.05)
        raise RuntimeError(f"the local Redis Cluster was not ok within {timeout} s")

    def primary_of(self, key: str) -> Node:
        """The node that serves ``key``'s slot now."""
        for node in self.nodes:
            if not node.alive:
                continue
            reply = command(node.port, "cluster", "keyslot", key).strip()
            slot = int(reply)
            for line in command(node.port, "cluster", "nodes").splitlines():
                parts = line.split()
                if "master" not in parts[2] or "fail" in parts[2]:
                    continue
                for span in parts[8:]:
                    lo, _, hi = span.partition("-")
                    if lo.isdigit() and int(lo) <= slot <= int(hi or lo):
                        port = int(parts[1].split("@")[0].rsplit(":", 1)[1])
                        return next(n for n in self.nodes if n.port == port)
        raise RuntimeError(f"no live primary serves {key!r}")

    def node_id(self, node: Node) -> str:
        """The cluster id of a node (from its own ``CLUSTER MYID``)."""
        return command(node.port, "cluster", "myid").strip()

    def replica_of(self, primary: Node) -> Node:
        """The node that replicates ``primary``."""
        primary_id = self.node_id(primary)
        for line in command(primary.port, "cluster", "nodes").splitlines():
            parts = line.split()
            if "slave" in parts[2] and parts[3] == primary_id:
                port = int(parts[1].split("@")[0].rsplit(":", 1)[1])
                return next(n for n in self.nodes if n.port == port)
        raise RuntimeError(f"port {primary.port} has no replica")

    def wait_promoted(self, replica: Node, timeout: float = 30.0) -> None:
        """Until ``replica`` is a primary and the cluster is ok again (a failover)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            role = command(replica.port, "role").split()
            if role and role[0] == "master":
                self.wait_ok(max(0.1, deadline - time.monotonic()))
                return
            time.sleep(0.05)
        raise RuntimeError(f"port {replica.port} was not promoted within {timeout} s")

    def stop(self) -> None:
        """kill -9 every node this harness started."""
        for node in self.nodes:
            node.kill()

    def used_cpu(self) -> float:
        """used_cpu_sys + used_cpu_user summed over the live nodes (seconds)."""
        total = 0.0
        for node in self.nodes:
            if node.alive:
                total += used_cpu(command(node.port, "info", "cpu"))
        return total


def used_cpu(info_cpu: str) -> float:
    """used_cpu_sys + used_cpu_user from the text of ``INFO cpu``."""
    values = dict(
        line.split(":", 1) for line in info_cpu.splitlines() if line.startswith("used_cpu_")
    )
    return float(values["used_cpu_sys"]) + float(values["used_cpu_user"])
