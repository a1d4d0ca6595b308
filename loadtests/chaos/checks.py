"""The soak's final checks, once the clients have stopped and every process is back: read every match, log and
tournament the clients touched, and hold them to what was acknowledged.

Each check is a `Check` (its name, whether it held, what it found); `__main__` prints them and the
figures, and exits 1 when one failed.
"""

from __future__ import annotations

import json
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from loadtests.chaos.balancer import Ack, Balancer, Record

STUCK_SLACK = 90.0
"""Seconds past a match's turn timer (or, untimed, in all) that a seat the server must play for may go without a
move before the match counts as stuck: an AI worker killed mid-search leaves its turn for RQ's heartbeat slack."""
CLOCK_TOLERANCE = 0.05
"""Seconds a timeout may be stamped before its deadline by rounding (the log stamps milliseconds)."""
SHOWN = 5
"""Examples a failed check shows."""


@dataclass(frozen=True)
class Check:
    """One check's outcome."""

    name: str
    ok: bool
    detail: str = ""


def canonical(value: Any) -> str:
    """One text for equal JSON values."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def stamp(text: str) -> float:
    """Seconds since the epoch of a server timestamp."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


@dataclass
class Reader:
    """Reads matches, logs and tournaments through the balancer (retried), for the checks."""

    balancer: Balancer

    def get(self, path: str, token: str | None = None) -> Any:
        """GET a path that must answer 200 (sent again while no process answers); its body."""
        answer = self.balancer.call("GET", path, token=token)
        if answer.status != 200:
            raise RuntimeError(f"GET {path} answered {answer.status}: {answer.body}")
        return answer.body

    def log(self, match_id: str, token: str | None = None, seat: int | None = None) -> list[dict[str, Any]]:
        """A match's whole log as the token's seat (or anyone) sees it, page after page."""
        return self.log_and_version(match_id, token, seat)[0]

    def log_and_version(
        self, match_id: str, token: str | None = None, seat: int | None = None
    ) -> tuple[list[dict[str, Any]], int]:
        """The whole log and the match's version as the last page read it (read with it, in one round trip)."""
        entries: list[dict[str, Any]] = []
        after: int | None = 0
        version = 0
        query = f"&seat={seat}" if seat is not None else ""
        while after is not None:
            page = self.get(f"/v1/matches/{match_id}/log?after={after}&limit=500{query}", token)
            entries.extend(page["entries"])
            after, version = page["next_after"], page["version"]
        return entries, version


def check_acknowledged(reader: Reader, record: Record) -> tuple[Check, Check]:
    """Every acknowledged action is in its match's log at its version, the same seat and action; one action a
    version (two keys acknowledged at one version would mean one was lost)."""
    by_version: dict[tuple[str, int], set[str]] = defaultdict(set)
    by_key: dict[str, set[int]] = defaultdict(set)
    unique: dict[str, Ack] = {}
    for ack in record.acks:
        by_version[(ack.match, ack.version)].add(ack.key)
        by_key[ack.key].add(ack.version)
        unique[ack.key] = ack
    doubled = [f"{m} v{v}: {len(keys)} acknowledged actions" for (m, v), keys in by_version.items() if len(keys) > 1]
    doubled += [f"key {key}: acknowledged at versions {sorted(v)}" for key, v in by_key.items() if len(v) > 1]
    views: dict[tuple[str, str], dict[int, dict[str, Any]]] = {}
    wrong: list[str] = []
    for ack in unique.values():
        view_key = (ack.match, ack.token)
        if view_key not in views:
            seat = ack.seat if ack.token.startswith("bot.") else None
            views[view_key] = {e["version"]: e for e in reader.log(ack.match, ack.token, seat)}
        entry = views[view_key].get(ack.version)
        if entry is None:
            wrong.append(f"{ack.match} v{ack.version} seat {ack.seat}: acknowledged, not in the log")
        elif entry["seat"] != ack.seat or canonical(entry.get("action")) != canonical(ack.action):
            wrong.append(f"{ack.match} v{ack.version}: acknowledged seat {ack.seat} {ack.action}, logged {entry}")
    return (
        Check(
            f"every acknowledged action is in its match's log at its version ({len(unique)} actions)",
            not wrong,
            "; ".join(wrong[:SHOWN]),
        ),
        Check(
            "no version was acknowledged for two different actions, nor an action at two versions",
            not doubled,
            "; ".join(doubled[:SHOWN]),
        ),
    )


@dataclass
class MatchReport:
    """What the log checks found in one match."""

    match: dict[str, Any]
    entries: list[dict[str, Any]]
    version: int
    """The match's version when its log's last page was read (the view in `match` may be older)."""


def read_matches(reader: Reader, record: Record, tournament_matches: list[str]) -> dict[str, MatchReport]:
    """Every match the clients made or a tournament started, with its public log."""
    found: dict[str, MatchReport] = {}
    for match_id in [*record.matches, *tournament_matches]:
        if match_id not in found:
            match = reader.get(f"/v1/matches/{match_id}")
            found[match_id] = MatchReport(match, *reader.log_and_version(match_id))
    return found


def check_versions(matches: dict[str, MatchReport]) -> tuple[Check, int]:
    """Every version has one log entry: versions rise one by one to the match's own, except the versions a timed
    match was given for downtime (no entry; counted)."""
    wrong: list[str] = []
    make_ups = 0
    for match_id, report in matches.items():
        versions = [entry["version"] for entry in report.entries]
        if len(set(versions)) != len(versions) or versions != sorted(versions):
            wrong.append(f"{match_id}: log versions {versions[:20]}")
            continue
        missing = set(range(1, report.version + 1)) - set(versions)
        if versions and versions[-1] > report.version:
            wrong.append(f"{match_id}: an entry at v{versions[-1]} above the match's v{report.version}")
        elif missing and report.match["turn_timer"] is None:
            wrong.append(f"{match_id} (untimed): versions without a log entry {sorted(missing)[:10]}")
        else:
            make_ups += len(missing)
    return Check(
        f"every version of {len(matches)} matches has exactly one log entry", not wrong, "; ".join(wrong[:SHOWN])
    ), make_ups


def check_timers(matches: dict[str, MatchReport]) -> tuple[Check, int]:
    """Every timeout fired once: only in timed matches, each at least its timer after the seat's clock started
    (the match's creation or the seat's previous action), so no deadline was played twice or early."""
    wrong: list[str] = []
    fired = 0
    for match_id, report in matches.items():
        timer = report.match["turn_timer"]
        last_of_seat: dict[int, float] = {}
        created = stamp(report.match["created_at"])
        for entry in report.entries:
            at = stamp(entry["at"])
            if entry.get("timeout"):
                fired += 1
                if timer is None:
                    wrong.append(f"{match_id} v{entry['version']}: a timeout in an untimed match")
                else:
                    clock = max(created, last_of_seat.get(entry["seat"], created))
                    if at + CLOCK_TOLERANCE < clock + timer["seconds"]:
                        wrong.append(
                            f"{match_id} v{entry['version']}: seat {entry['seat']} timed out "
                            f"{clock + timer['seconds'] - at:.2f} s before its deadline"
                        )
            last_of_seat[entry["seat"]] = at
    return Check(
        f"every turn timer fired once, never early ({fired} timeouts)", not wrong, "; ".join(wrong[:SHOWN])
    ), fired


def check_waits(matches: dict[str, MatchReport]) -> tuple[Check, dict[str, list[float]]]:
    """No seat the server plays for waited long: each timeout came within STUCK_SLACK s past its timer, each AI
    move within STUCK_SLACK s, counted from the change before it (when the wait began at the latest; a deadline
    made up for downtime is later by at most that downtime)."""
    waits: dict[str, list[float]] = {"timeout": [], "ai": []}
    wrong: list[str] = []
    for match_id, report in matches.items():
        seats = report.match.get("seats") or []
        timer = report.match["turn_timer"]
        previous = stamp(report.match["created_at"])
        for entry in report.entries:
            at = stamp(entry["at"])
            if entry.get("timeout") and timer is not None:
                kind, waited = "timeout", at - previous - timer["seconds"]
            elif entry["seat"] < len(seats) and seats[entry["seat"]].get("type") == "ai" and "action" in entry:
                kind, waited = "ai", at - previous
            else:
                previous = at
                continue
            waits[kind].append(waited)
            if waited > STUCK_SLACK:
                wrong.append(f"{match_id} v{entry['version']}: a {kind} move {waited:.0f} s after the change before it")
            previous = at
    counted = ", ".join(f"{len(v)} {k} moves, longest {max(v, default=0):.1f} s" for k, v in waits.items())
    name = f"no seat the server plays for waited over {STUCK_SLACK:.0f} s past its timer ({counted})"
    return Check(name, not wrong, "; ".join(wrong[:SHOWN])), waits


def owed_moves(match: dict[str, Any]) -> bool:
    """True when the server itself owes this active match a move: an AI seat to act, or a turn timer running."""
    if match["status"] != "active":
        return False
    ai_to_act = any(match["seats"][seat]["type"] == "ai" for seat in match["waiting_for"])
    return bool(ai_to_act or (match["turn_timer"] is not None and match["waiting_for"]))


def check_not_stuck(reader: Reader, matches: dict[str, MatchReport]) -> Check:
    """No match is stuck: each one that waits for an AI seat or a timed seat gets a new log entry (or ends) within
    its timer plus STUCK_SLACK."""
    waiting: dict[str, tuple[int, float]] = {}
    for match_id in matches:
        match = reader.get(f"/v1/matches/{match_id}")
        if owed_moves(match):
            last = reader.log(match_id)
            timer = match["turn_timer"]["seconds"] if match["turn_timer"] else 0
            waiting[match_id] = (last[-1]["version"] if last else 0, time.monotonic() + timer + STUCK_SLACK)
    watched = len(waiting)
    while waiting:
        for match_id, (after, deadline) in list(waiting.items()):
            moved = reader.get(f"/v1/matches/{match_id}/log?after={after}")["entries"]
            match = reader.get(f"/v1/matches/{match_id}")
            if moved or match["status"] != "active":
                del waiting[match_id]
            elif time.monotonic() > deadline:
                break
        else:
            time.sleep(0.5)
            continue
        break
    stuck = [f"{m} (waiting for {reader.get(f'/v1/matches/{m}')['waiting_for']})" for m in waiting]
    return Check(
        f"no match is stuck ({watched} owed a move by the server at the end; each moved or ended)",
        not stuck,
        "; ".join(stuck[:SHOWN]),
    )


def check_tournaments(reader: Reader, record: Record) -> tuple[Check, list[str]]:
    """Every tournament finished or was cancelled, with standings that count its matches' results."""
    wrong: list[str] = []
    matches: list[str] = []
    statuses: Counter[str] = Counter()
    for tournament_id in record.tournaments:
        tournament = reader.get(f"/v1/tournaments/{tournament_id}")
        statuses[tournament["status"]] += 1
        matches.extend(m["match"] for m in tournament["matches"] if m["match"])
        if tournament["status"] not in ("finished", "cancelled"):
            wrong.append(f"{tournament_id}: {tournament['status']}")
            continue
        wrong.extend(f"{tournament_id}: {problem}" for problem in standing_problems(reader, tournament))
    detail = ", ".join(f"{n} {status}" for status, n in sorted(statuses.items()))
    name = f"every tournament finished or was cancelled, standings consistent with its matches ({detail or 'none'})"
    return Check(name, not wrong and bool(record.tournaments), "; ".join(wrong[:SHOWN])), matches


def standing_problems(reader: Reader, tournament: dict[str, Any]) -> list[str]:
    """Where a two-player tournament's standings differ from its matches' results (played, wins, draws, losses)."""
    problems: list[str] = []
    tally: dict[int, Counter[str]] = {n: Counter() for n in range(len(tournament["entrants"]))}
    for planned in tournament["matches"]:
        if tournament["status"] == "finished" and planned["status"] not in ("finished", "void"):
            problems.append(f"a finished tournament's match {planned['index']} is {planned['status']}")
        if planned["status"] != "finished":
            continue
        match = reader.get(f"/v1/matches/{planned['match']}")
        if match["status"] != "finished" or match["result"]["ranking"] != planned["ranking"]:
            problems.append(f"match {planned['match']}: {match['status']} {match['result']} vs {planned['ranking']}")
            continue
        first = planned["ranking"][0]
        for seat, entrant in enumerate(planned["seats"]):
            tally[entrant]["played"] += 1
            outcome = "losses" if seat not in first else "draws" if len(first) > 1 else "wins"
            tally[entrant][outcome] += 1
    for standing in tournament["standings"]:
        counted = tally[standing["entrant"]]
        shown = {key: standing.get(key, 0) for key in ("played", "wins", "draws", "losses")}
        if shown != {key: counted[key] for key in shown}:
            problems.append(f"entrant {standing['entrant']}: standings {shown}, matches {dict(counted)}")
    return problems


def check_streams(record: Record, matches: dict[str, MatchReport]) -> Check:
    """Every log entry an event stream carried is the log's entry at that version (same seat)."""
    wrong = []
    for (match_id, version), seat in record.seen_entries.items():
        report = matches.get(match_id)
        logged = {e["version"]: e["seat"] for e in report.entries} if report else {}
        if logged.get(version) != seat:
            wrong.append(f"{match_id} v{version}: streamed seat {seat}, logged {logged.get(version)}")
    return Check(
        f"every log entry the event streams carried is in the log ({len(record.seen_entries)} entries)",
        not wrong,
        "; ".join(wrong[:SHOWN]),
    )
