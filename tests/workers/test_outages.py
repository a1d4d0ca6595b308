"""A worker waits out a Redis that is away or refuses its writes, as in a failover, instead of quitting.

The test's Redis is made to refuse every write (`min-replicas-to-write 1` and no replica: NOREPLICAS, what
a primary promoted without a replica answers). An AI worker and the timer worker started then cannot even
register; they stay up, and once Redis takes writes again they register by themselves, in the same process.
Likewise a worker started before its Redis is up.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from rq import Queue
from rq.serializers import JSONSerializer

from tests.multihost_support import start_redis_server, stop_group
from tests.test_service import free_port
from tests.workers.conftest import ROOT, launch_worker, print_logs, stop, worker_names
from tests.workers.test_ai_seats import wait_for
from workers.context import stop_requested
from workers.worker import PromptWorker, stopping

STOPPED = 120.0
"""Seconds a worker asked to stop may take to end (a liveness bound, never a speed: it ends in about one)."""


@pytest.fixture
def refusing(redis_url: str) -> Iterator[redis.Redis]:
    """The test Redis refusing writes until the test lets it take them again."""
    client = redis.Redis.from_url(redis_url)
    client.config_set("min-replicas-to-write", 1)
    try:
        yield client
    finally:
        client.config_set("min-replicas-to-write", 0)


@pytest.mark.parametrize("flags", [[], ["--timers"]], ids=["ai-worker", "timer-worker"])
def test_a_worker_started_while_redis_refuses_writes_works_once_it_takes_them(
    redis_url: str, refusing: redis.Redis, tmp_path: Path, flags: list[str]
) -> None:
    name = f"outage-{'timers' if flags else 'ai'}"
    log = tmp_path / f"{name}.log"
    process = start(name, flags, redis_url, log)
    try:
        wait_for(lambda: "working again" in log.read_text(), "the worker to quit its loop and wait")
        assert process.poll() is None, log.read_text()
        refusing.config_set("min-replicas-to-write", 0)
        wait_for(lambda: name in worker_names(redis_url), "the worker to register once Redis takes writes")
        assert process.poll() is None, log.read_text()
    finally:
        stop(process)
        print_logs(tmp_path)


def test_a_worker_started_before_its_redis_works_once_redis_is_up(tmp_path: Path) -> None:
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    log = tmp_path / "early.log"
    process = start("early", [], url, log)
    server = None
    try:
        wait_for(lambda: "working again" in log.read_text(), "the worker to find no Redis and wait")
        assert process.poll() is None, log.read_text()
        server = start_redis_server(tmp_path / "redis", port)
        wait_for(lambda: "early" in worker_names(url), "the worker to register once Redis is up")
    finally:
        stop(process)
        if server is not None:
            stop_group(server)
        print_logs(tmp_path)


def start(name: str, flags: list[str], redis_url: str, log: Path) -> subprocess.Popen[bytes]:
    """`python -m workers FLAGS --name NAME` on `redis_url`, not waiting for anything."""
    return subprocess.Popen(
        [sys.executable, "-m", "workers", *flags, "--name", name],
        cwd=ROOT,
        env={**os.environ, "REDIS_URL": redis_url},
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        process_group=0,
    )


@pytest.mark.parametrize("flags", [[], ["--timers"]], ids=["ai-worker", "timer-worker"])
def test_a_worker_asked_to_stop_stops_and_does_not_work_again(redis_url: str, tmp_path: Path, flags: list[str]) -> None:
    # A warm shutdown raised into an idle RQ worker leaves RQ's own stop flag unset: the worker must still
    # know it was asked to stop, and not take the end of its loop for an outage to wait out.
    name = f"stopped-{'timers' if flags else 'ai'}"
    process = launch_worker(name, flags, redis_url, tmp_path)
    try:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=STOPPED) == 0
        assert "working again" not in (tmp_path / f"{name}.log").read_text()
    finally:
        stop(process)
        print_logs(tmp_path)


def test_a_worker_asked_to_stop_as_it_registers_takes_the_signal_for_a_warm_shutdown(redis_url: str) -> None:
    """RQ installs its signal handlers only after registering the worker (and starting its scheduler): a SIGTERM
    between the two ended the process at once (exit -15: the stop test above, on a busy machine). Here the signal
    comes just as the worker registers; before any handler of the worker's, the test's own would take it."""
    missed: list[int] = []

    class SignalledAsItRegisters(PromptWorker):
        def register_birth(self) -> None:
            super().register_birth()  # type: ignore[no-untyped-call]
            os.kill(os.getpid(), signal.SIGTERM)  # handled on this thread before the call returns

    connection = redis.Redis.from_url(redis_url)
    queue = Queue("signalled", connection=connection, serializer=JSONSerializer)
    worker = SignalledAsItRegisters([queue], connection=connection, serializer=JSONSerializer)
    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGTERM, lambda signum, frame: missed.append(signum))
    try:
        worker.work(burst=True)
        assert not missed, "the SIGTERM reached no handler of the worker's: a real one would have ended the process"
        assert stopping(worker), "the worker's handler did not ask it to stop"
    finally:
        stop_requested.clear()
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
