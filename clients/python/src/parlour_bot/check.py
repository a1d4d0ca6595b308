"""`parlour-bot check`: the configured engine plays real matches on a running server through adversity (a 429
storm, a dropped stream, a server restart, a slow answer near the turn timer), injected inside this process
by a transport around the real one; then a report of what the bot did wrong.

It registers a throwaway bot (its state in a temporary folder), creates matches for it (against itself in
every seat, or against the server's AI seats with `--against ai:<level>`), plays them to the end, and
exits 1 when the bot had an action refused as illegal, an engine failure, a move over its budget, a turn
played for it by the timer, a move sent twice, a crash, or a match left unfinished.
"""

from __future__ import annotations

import logging
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from parlour_client import Client, ProblemError

from parlour_bot.config import BotConfig
from parlour_bot.engines import Engine
from parlour_bot.faults import FaultTransport
from parlour_bot.runner import Runner

log = logging.getLogger("parlour_bot")

SHORT_OPTIONS: dict[str, dict[str, Any]] = {"icecream": {"turn_limit": 40}}
"""Options that keep a check's matches short."""
POLL = 0.2


@dataclass
class Adversity:
    """How hard the check is: the 429 storm's length, the restart's seconds, the slow answer's delay."""

    storm: int = 8
    outage: float = 3.0
    slow: float = 4.0
    turn_timer: int = 10
    moves_between: int = 2
    """Moves the bot plays between two faults."""


@dataclass
class Report:
    """What the check saw."""

    matches: list[str] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)
    moves: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    engine_errors: int = 0
    over_budget: int = 0
    timed_out: int = 0
    duplicates: int = 0
    crashes: list[str] = field(default_factory=list)
    faults: dict[str, int] = field(default_factory=dict)

    def problems(self) -> list[str]:
        """One line per thing the bot did wrong."""
        found = []
        if self.refused.get("illegal-action"):
            found.append(f"{self.refused['illegal-action']} actions refused as illegal")
        other = {code: n for code, n in self.refused.items() if code != "illegal-action"}
        if other:
            found.append("other refusals: " + ", ".join(f"{code} x{n}" for code, n in sorted(other.items())))
        if self.engine_errors:
            found.append(f"{self.engine_errors} engine failures (exceptions or answers that are no action)")
        if self.over_budget:
            found.append(f"{self.over_budget} moves over the time budget (a random legal action was played)")
        if self.timed_out:
            found.append(f"{self.timed_out} turns missed: played by the turn timer")
        if self.duplicates:
            found.append(f"{self.duplicates} moves sent twice for the same seat and version")
        found += [f"crash: {crash}" for crash in self.crashes]
        if self.unfinished:
            found.append(f"{len(self.unfinished)} matches not finished: {', '.join(self.unfinished)}")
        return found

    def text(self) -> str:
        """The printed report."""
        lines = [
            f"parlour-bot check: {len(self.matches)} matches, {self.moves} moves",
            "faults injected: " + (", ".join(f"{name} x{n}" for name, n in sorted(self.faults.items())) or "none"),
        ]
        problems = self.problems()
        lines += [f"  FAIL {problem}" for problem in problems] or ["  OK: nothing went wrong"]
        return "\n".join(lines)


def run_check(
    config: BotConfig,
    engine: Engine,
    *,
    games: list[tuple[str, int]],
    against: str = "self",
    adversity: Adversity | None = None,
    timeout: float = 120.0,
) -> Report:
    """Play `games` (game, players) with `engine` through adversity on the server at `config.url`."""
    adversity = adversity or Adversity()
    setup = Client(config.url)
    bot = setup.register_bot(f"check-{uuid.uuid4().hex[:8]}")
    transport = FaultTransport()
    client = Client(config.url, bot["token"], transport=transport)
    folder = Path(tempfile.mkdtemp(prefix="parlour-bot-check-"))
    checked = replace(
        config, token=bot["token"], bot_id=bot["id"], state_dir=folder, pools=(), policy=None, max_matches=None
    )
    # Over HTTP: the faults are the HTTP transport's (a socket would carry the moves past them).
    checked = replace(checked, concurrency=max(config.concurrency, len(games)), transport="http")
    runner = Runner(checked, engine, client, matches=len(games))
    report = Report()
    thread = threading.Thread(target=_run, args=(runner, report), name="check-runner", daemon=True)
    thread.start()
    try:
        for game, players in games:
            seats = [{"type": "bot", "bot": bot["id"]}]
            other = (
                {"type": "bot", "bot": bot["id"]}
                if against == "self"
                else {"type": "ai", "level": against.partition(":")[2] or "random"}
            )
            body: dict[str, Any] = {"seats": seats + [other] * (players - 1), "options": SHORT_OPTIONS.get(game, {})}
            if adversity.slow:
                body["turn_timer"] = {"seconds": adversity.turn_timer}
            report.matches.append(setup.create_match(game, players, **body)["id"])
        limit = time.monotonic() + timeout
        apply_faults(runner, transport, adversity, thread, limit)
        while thread.is_alive() and time.monotonic() < limit:
            thread.join(POLL)
    finally:
        runner.stop()
        thread.join(10)
    read_server(setup, report, runner)
    report.faults = dict(transport.faults.injected)
    client.close()
    setup.close()
    return report


def _run(runner: Runner, report: Report) -> None:
    """The runner's thread: a crash is the report's."""
    try:
        runner.run()
    except Exception as error:  # the check reports it instead of dying with it
        log.exception("the runner crashed")
        report.crashes.append(repr(error))


def apply_faults(
    runner: Runner, transport: FaultTransport, adversity: Adversity, thread: threading.Thread, limit: float
) -> None:
    """Inject each fault in turn while the runner still plays, each once every live match has had `moves_between`
    moves since the last: so no two faults land on one turn (together they could outlast its timer)."""

    def after_moves() -> bool:
        goal = runner.tally.moves + adversity.moves_between
        before = moves_per_match(runner)
        while thread.is_alive() and time.monotonic() < limit:
            now = moves_per_match(runner)
            with runner.lock:
                live = list(runner.players)
            if runner.tally.moves >= goal and all(now[m] - before[m] >= adversity.moves_between for m in live):
                return True
            time.sleep(POLL / 4)
        return False

    faults = transport.faults
    if adversity.storm and after_moves():
        log.info("check: a 429 storm (%d requests)", adversity.storm)
        with faults.lock:
            faults.storm = adversity.storm
    if after_moves():
        log.info("check: the event stream drops")
        transport.drop_streams()
    if adversity.outage and after_moves():
        log.info("check: the server restarts (%.1f s)", adversity.outage)
        transport.outage(adversity.outage)
    if adversity.slow and after_moves():
        log.info("check: a slow answer (%.1f s, the turn timer %d s)", adversity.slow, adversity.turn_timer)
        with faults.lock:
            faults.slow, faults.delay = 1, adversity.slow


def moves_per_match(runner: Runner) -> Counter[str]:
    """The moves the runner journalled, by match."""
    return Counter(str(move["match"]) for move in runner.state.lines("moves.jsonl"))


def read_server(client: Client, report: Report, runner: Runner) -> None:
    """Fill the report from the runner's tally and journal and from the matches' logs on the server."""
    tally = runner.tally
    report.moves = tally.moves
    report.refused = Counter(tally.refused)
    report.engine_errors = tally.engine_errors
    report.over_budget = tally.over_budget
    report.crashes += [f"{n} match players stopped on an error" for n in [tally.crashes] if n]
    sent = Counter((move["match"], move["seat"], move["version"]) for move in runner.state.lines("moves.jsonl"))
    report.duplicates = sum(n - 1 for n in sent.values() if n > 1)
    for match_id in report.matches:
        try:
            match = client.match(match_id)
        except ProblemError as error:
            report.unfinished.append(f"{match_id} ({error.code})")
            continue
        if match["status"] != "finished":
            report.unfinished.append(f"{match_id} ({match['status']})")
        report.timed_out += sum(1 for entry in client.log(match_id) if isinstance(entry, dict) and entry.get("timeout"))
