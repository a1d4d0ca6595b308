"""Fixtures for the AI workers: real `python -m workers` processes on the test Redis."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from rq import Worker

from tests.api.conftest import app, client, match, settings  # noqa: F401  (the API fixtures, on the same Redis)

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 30.0


def worker_names(redis_url: str) -> set[str]:
    """The names of the RQ workers registered on the server."""
    return {worker.name for worker in Worker.all(connection=redis.Redis.from_url(redis_url))}


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop a worker (its jobs run in its own process), whatever its state."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def print_logs(log_dir: Path) -> None:
    """Print the workers' logs (pytest shows them with a failed test only)."""
    for log in sorted(log_dir.glob("*.log")):
        print(f"--- {log.name}\n{log.read_text(errors='replace')[-6000:]}")


StartWorker = Callable[[str], subprocess.Popen[bytes]]


def launch_worker(name: str, flags: list[str], redis_url: str, log_dir: Path) -> subprocess.Popen[bytes]:
    """Start `python -m workers FLAGS --name NAME` in a process group of its own; return once it is registered."""
    env = {**os.environ, "REDIS_URL": redis_url, "PARLOUR_WORKER_MAINTENANCE": "2"}
    log = log_dir / f"{name}.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "workers", *flags, "--name", name],
        cwd=ROOT,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        process_group=0,
    )
    deadline = time.monotonic() + START_TIMEOUT
    while name not in worker_names(redis_url):
        if process.poll() is not None or time.monotonic() > deadline:
            stop(process)
            raise AssertionError(f"worker {name} did not register:\n{log.read_text()}")
        time.sleep(0.1)
    return process


@pytest.fixture
def start_worker(redis_url: str, tmp_path: Path) -> Iterator[StartWorker]:
    """Start a named AI worker and wait until it is registered; all stopped after."""
    started: list[subprocess.Popen[bytes]] = []

    def start(name: str) -> subprocess.Popen[bytes]:
        started.append(launch_worker(name, [], redis_url, tmp_path))
        return started[-1]

    yield start
    for process in started:
        stop(process)
    print_logs(tmp_path)


StartTimerWorker = Callable[[str], subprocess.Popen[bytes]]


def terminate(process: subprocess.Popen[bytes]) -> None:
    """Stop a worker as the service does (SIGTERM: it releases RQ's scheduler lock), killing it if it hangs."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=15)
    stop(process)


@pytest.fixture
def start_timer_worker(redis_url: str, tmp_path: Path) -> Iterator[StartTimerWorker]:
    """Start a named timer worker and wait until it is registered; all stopped after, as the service stops them."""
    started: list[subprocess.Popen[bytes]] = []

    def start(name: str) -> subprocess.Popen[bytes]:
        started.append(launch_worker(name, ["--timers"], redis_url, tmp_path))
        return started[-1]

    yield start
    for process in started:
        terminate(process)
    print_logs(tmp_path)
