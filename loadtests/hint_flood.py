"""A stranger's AI opponent while another client floods hints: its latency per turn, quiet and flooded.

    .venv/bin/python -m loadtests.hint_flood [--runs 5] [--turns 10] [--rate 75] [--seats 1] [--level easy]

Starts the whole service (`python -m ops.supervisor`: embedded Redis, API, two AI workers) on a free
port and a temporary data folder. A stranger plays Sundae Split against an AI seat at `--level`;
another client holds both seats of `--seats` Sundae Split matches of its own. Each run measures
`--turns` AI moves of the stranger's opponent with nobody else about (quiet), then `--turns` more
while the other client sends hint requests (`POST .../ai-move` at `--hint-level`, `hard` by
default) for the seat to act in each of its matches in turn, `--rate` a second in all (flooded),
then waits for the flooder's last hint jobs to end. A turn's latency
is the AI's log entry time minus the stranger's action before it, both stamped by the server, so
polling adds nothing. Prints each run's median, mean and worst turn, then the medians over the runs
of the median and the mean, and their ratios flooded / quiet. Every loop is bounded:
`--phase-timeout` seconds a phase, `--max-hints` requests a flood. Not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import statistics
import threading
import time
import urllib.error
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from loadtests.ai_latency import Service, running_service, stamp

GAME = "sundae_split"
STRANGER, OPPONENT = 0, 1
LONG_POLL = 20
"""Seconds the stranger's long-poll waits for the AI (under the client's 30 s timeout)."""
DRAIN_TIMEOUT = 120.0
"""Seconds to wait for the flooder's last hint job to end before the next run."""


def any_action(legal: dict[str, Any]) -> dict[str, Any]:
    """A legal action from a legal-actions answer: the first listed, or the server's example of a constructed one."""
    return dict(legal["actions"][0] if legal["kind"] == "enumerated" else legal["example"])


def new_stranger_match(service: Service, level: str) -> tuple[str, str]:
    """A Sundae Split match of the stranger (seat 0) against an AI seat: its id and the stranger's token."""
    seats = [{"type": "human", "name": "stranger"}, {"type": "ai", "level": level}]
    created = service.call("/v1/matches", {"game": GAME, "players": 2, "seats": seats})
    return created["id"], created["tokens"][0]["token"]


def opponent_latencies(service: Service, match_id: str) -> list[float]:
    """Seconds from each of the stranger's actions to the AI move that answered it, from the server's log."""
    entries = service.call(f"/v1/matches/{match_id}/log")["entries"]
    return [
        stamp(after["at"]) - stamp(before["at"])
        for before, after in itertools.pairwise(entries)
        if before["seat"] == STRANGER and after["seat"] == OPPONENT
    ]


def play_stranger(
    service: Service, new_match: Callable[[], tuple[str, str]], turns: int, timeout: float
) -> list[float]:
    """Play the stranger's side (`new_match()` when one ends) until `turns` AI answers are logged; their latencies.

    The log is read once per match (a log page counts against the address's page limit, 20 a second by
    default, which a read after every move would spend); meanwhile the AI's answers are counted from the
    versions the stranger sees: the match moved on since its own action.
    """
    latencies: list[float] = []
    deadline = time.monotonic() + timeout
    while len(latencies) < turns and time.monotonic() < deadline:
        match_id, token = new_match()
        earlier, answered, acted_at = latencies, 0, None
        match = service.call(f"/v1/matches/{match_id}", token=token)
        while match["status"] == "active" and time.monotonic() < deadline and len(earlier) + answered < turns:
            legal = service.call(f"/v1/matches/{match_id}/legal-actions", token=token)
            if legal["may_act"]:
                if acted_at is not None and legal["version"] > acted_at + 1:
                    answered += 1  # at least one AI move since the stranger's last action
                acted_at = legal["version"]
                body = {"action": any_action(legal), "expected_version": legal["version"]}
                match = service.call(f"/v1/matches/{match_id}/actions", body, token=token)
            else:
                wait = max(1, min(LONG_POLL, int(deadline - time.monotonic())))
                match = service.call(f"/v1/matches/{match_id}?wait={wait}&after={match['version']}", token=token)
        latencies = earlier + opponent_latencies(service, match_id)
    if len(latencies) < turns:
        raise RuntimeError(f"fewer than {turns} AI answers within {timeout:.0f} s")
    return latencies[:turns]


@dataclass
class Flood:
    """Another client asking for hints for its own seat, at a steady rate, in a thread of its own."""

    service: Service
    level: str
    rate: float
    max_hints: int
    timeout: float
    seats: int
    answers: Counter[str] = field(default_factory=Counter)
    last_jobs: dict[str, tuple[str, str]] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.asking = [self.acting_seat() for _ in range(self.seats)]
        self.thread = threading.Thread(target=self.run, daemon=True)

    def acting_seat(self) -> tuple[str, str]:
        """A new match of the flooder's, both seats its own: the match id and the token of the seat to act."""
        seats = [{"type": "human", "name": f"flooder-{n}"} for n in range(2)]
        created = self.service.call("/v1/matches", {"game": GAME, "players": 2, "seats": seats})
        acting = self.service.call(f"/v1/matches/{created['id']}")["waiting_for"][0]
        return created["id"], next(t["token"] for t in created["tokens"] if t["seat"] == acting)

    def __enter__(self) -> Flood:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join(timeout=30)

    def run(self) -> None:
        """Hint requests 1/rate s apart, seat after seat, until stopped, `max_hints` are sent or `timeout` passes."""
        started = time.monotonic()
        for sent in range(self.max_hints):
            if self.stop.wait(max(0.0, started + sent / self.rate - time.monotonic())):
                return
            if time.monotonic() - started > self.timeout:
                return
            match_id, token = self.asking[sent % self.seats]
            try:
                job = self.service.call(f"/v1/matches/{match_id}/ai-move", {"level": self.level}, token=token)
            except urllib.error.HTTPError as error:
                self.answers[f"http {error.code}"] += 1
                continue
            self.answers["pending" if job.get("pending") else "new job"] += 1
            self.last_jobs[match_id] = (job["url"], token)

    def drain(self) -> None:
        """Wait until the last hint job of each seat has ended (bounded)."""
        deadline = time.monotonic() + DRAIN_TIMEOUT
        for url, token in self.last_jobs.values():
            while self.service.call(url, token=token)["status"] not in ("finished", "failed"):
                if time.monotonic() > deadline:
                    print(f"  (the flooder's hints were still running after {DRAIN_TIMEOUT:.0f} s)", flush=True)
                    return
                time.sleep(0.2)


def figures(latencies: list[float]) -> str:
    """p50, mean and max of one phase, in milliseconds."""
    values = (statistics.median(latencies), statistics.fmean(latencies), max(latencies))
    return " / ".join(f"{1000 * value:.0f}" for value in values)


def main(argv: list[str] | None = None) -> int:
    """Measure and print quiet and flooded latencies, and their ratio."""
    parser = argparse.ArgumentParser(prog="python -m loadtests.hint_flood", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--turns", type=int, default=10, help="AI answers measured per phase")
    parser.add_argument("--level", default="easy", help="the stranger's AI opponent")
    parser.add_argument("--hint-level", default="hard", help="the level of the flooded hints")
    parser.add_argument("--rate", type=float, default=75.0, help="hint requests a second (the issue: 150 in 2 s)")
    parser.add_argument("--seats", type=int, default=1, help="seats the flood asks for, in turn (one match each)")
    parser.add_argument("--max-hints", type=int, default=5000, help="at most this many hint requests a flood")
    parser.add_argument("--phase-timeout", type=float, default=300.0, help="seconds a phase may take")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    quiet_runs: list[list[float]] = []
    flooded_runs: list[list[float]] = []
    with running_service(args.workers, warm_up=False, prefix="parlour-hint-flood-") as service:
        print(f"{'run':>3} {'quiet p50 / mean / max ms':>26} {'flooded p50 / mean / max ms':>28}  flood answers")
        for run in range(1, args.runs + 1):
            new_match = functools.partial(new_stranger_match, service, args.level)
            quiet_runs.append(play_stranger(service, new_match, args.turns, args.phase_timeout))
            flood = Flood(service, args.hint_level, args.rate, args.max_hints, args.phase_timeout, args.seats)
            with flood:
                flooded_runs.append(play_stranger(service, new_match, args.turns, args.phase_timeout))
            flood.drain()
            answers = ", ".join(f"{count} {kind}" for kind, count in sorted(flood.answers.items()))
            print(f"{run:3} {figures(quiet_runs[-1]):>26} {figures(flooded_runs[-1]):>28}  {answers}", flush=True)
    for name, measure in (("p50", statistics.median), ("mean", statistics.fmean)):
        quiet = statistics.median(measure(run) for run in quiet_runs)
        flooded = statistics.median(measure(run) for run in flooded_runs)
        print(
            f"{name} per turn, median of {args.runs} runs: quiet {1000 * quiet:.0f} ms, "
            f"flooded {1000 * flooded:.0f} ms, flooded / quiet {flooded / quiet:.2f} (target: at most 1.5)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
