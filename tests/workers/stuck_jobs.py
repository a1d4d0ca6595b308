"""Jobs for the time-limit tests, in a module that imports next to nothing.

A worker imports a job's module on the job's own thread, inside its time limit: a module that
pulls in Flask and the API spent ~0.4 s of CPU there, which a starved hint thread could not have
before its 1 s limit struck.
"""

from __future__ import annotations

import time
from pathlib import Path

from rq import get_current_job  # already loaded by the worker that runs these jobs

STUCK_FOR = 600.0
"""Seconds a stuck job sleeps: far past any time limit of the tests."""


def attempt(retries: int) -> int:
    """Which attempt of the current job this is (1 for the first), read from RQ's own count of retries left."""
    job = get_current_job()
    assert job is not None and job.retries_left is not None
    return retries - job.retries_left + 1


def stuck_on_first_attempt(retries: int) -> int:
    """Sleep past any time limit on the first attempt, return at once on a retry; the attempt.

    The attempt is RQ's count, not one this job keeps: a first attempt ended before it ran a line
    still counts, so a retry never takes itself for the first."""
    number = attempt(retries)
    if number == 1:
        time.sleep(STUCK_FOR)
    return number


def runqueue_wait() -> float:
    """Seconds the calling thread has waited for a core since it started (Linux's schedstat)."""
    return int(Path("/proc/thread-self/schedstat").read_text().split()[1]) / 1e9


def starved_for(seconds: float) -> float:
    """Compute (a busy loop, always runnable) until this thread has waited `seconds` for a core; the CPU s it used."""
    start = time.thread_time()
    while runqueue_wait() < seconds:
        sum(range(1000))
    return time.thread_time() - start
