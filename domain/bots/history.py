"""A bot's public history: the matches it played or plays, each with its seats, status and result.

Anyone may read it (`GET /v1/bots/{id}/matches?status=running|finished|all`): it holds what the
lobby shows of a match and its result, never a view, a token or the seed. A listener adds each match
the bot sits in once it starts (an aborted one is taken out: it never counts; an unlisted one is
shown only once it is over) and, when the match finishes, keeps its summary, so the history
outlives the match record (which expires `finished_ttl` after its end). Its keys are
`store/bot_history.py`'s.
"""

from __future__ import annotations

import json
import logging
from typing import TypedDict

import redis

from domain.matches.commands import engine_state, result_of
from engine import GameState, Result
from model.match import ABORTED, ACTIVE, FINISHED, WAITING, MatchRecord, ResultJson, SeatJson, result_json
from model.refusals import RulesChanged
from store.bot_history import BotHistoryStore
from store.matches import Cursor, MatchStore

log = logging.getLogger(__name__)
PAGE_SCANS = 10
"""Batches of history one page reads at most while it filters by status (a page may then be short)."""
RUNNING = "running"
PUBLIC_STATUSES = {RUNNING: (ACTIVE,), FINISHED: (FINISHED,), "all": (ACTIVE, FINISHED)}
"""What each public `status` of the listing shows (the record's statuses)."""


class MatchSummary(TypedDict):
    """A match as a bot's history lists it, and as its summary is kept once it finished (JSON)."""

    match: str
    game: str
    players: int
    status: str
    tournament: str | None
    seats: list[SeatJson]
    result: ResultJson | None  # a finished match's; None while it runs
    created_at: str
    updated_at: str


def summary_json(record: MatchRecord, result: Result | None) -> MatchSummary:
    """What anyone may see of a match in a bot's history: no view, no token, no seed."""
    return {
        "match": record.id,
        "game": record.game,
        "players": record.players,
        "status": record.status,
        "tournament": record.tournament,
        "seats": [seat.public_json() for seat in record.seats],
        "result": result_json(result) if result is not None and record.status == FINISHED else None,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
    }


def seated_bots(record: MatchRecord) -> set[str]:
    """The bots that accepted a seat in the match."""
    return {seat.bot for seat in record.seats if seat.bot is not None and not seat.pending}


class BotHistory:
    """Writes and reads the bots' public histories."""

    def __init__(self, store: MatchStore) -> None:
        self.store = store
        self.histories = BotHistoryStore(store.client)

    def after_change(self, record: MatchRecord, state: GameState) -> None:
        """Listener: list a match in its bots' histories as it starts, keep its summary once over, drop it if aborted.

        A failure is logged, not raised: the finished-match sweep writes a lost summary again.
        """
        if record.status == WAITING or not seated_bots(record):
            return
        if record.status == ACTIVE and record.started_version not in (None, record.version):
            return  # listed when it started; written again once it ends
        try:
            self.record(record, result_of(record, state) if record.status == FINISHED else None)
        except redis.RedisError as error:
            log.warning("match %s: the bots' histories were not updated: %s", record.id, error)

    def record(self, record: MatchRecord, result: Result | None) -> None:
        """Write the match into its bots' histories (and its summary, once it finished)."""
        summary = json.dumps(summary_json(record, result)) if record.status == FINISHED else None
        listed = record.status != ABORTED
        self.histories.write(record.id, record.created_us, sorted(seated_bots(record)), listed, summary)

    def page(self, bot_id: str, status: str, limit: int, after: Cursor | None) -> tuple[list[MatchSummary], str | None]:
        """A page of the bot's matches of a public status, newest first; the cursor of the next page, if any."""
        wanted = PUBLIC_STATUSES[status]
        items: list[MatchSummary] = []
        for _ in range(PAGE_SCANS):
            rows = self.histories.rows(bot_id, limit, after)
            for row, item in zip(rows, self.items(bot_id, rows), strict=True):
                after = row
                if item is not None and item["status"] in wanted:
                    items.append(item)
                    if len(items) == limit:
                        return items, row.text()
            if len(rows) < limit:
                return items, None
        return items, after.text() if after is not None else None

    def items(self, bot_id: str, rows: list[Cursor]) -> list[MatchSummary | None]:
        """Each listed match's summary: kept, or read from the match; None (and dropped) once both are gone."""
        ids = [row.match_id for row in rows]
        kept = self.histories.summaries(ids)
        missing = [match_id for match_id, raw in zip(ids, kept, strict=True) if raw is None]
        records = dict(zip(missing, self.store.load_many(missing), strict=True))
        items: list[MatchSummary | None] = []
        for match_id, raw in zip(ids, kept, strict=True):
            if raw is not None:
                items.append(json.loads(raw))
                continue
            record = records[match_id]
            if record is None or record.status == ABORTED:
                self.histories.drop(bot_id, match_id)
                items.append(None)
            elif record.status == FINISHED:
                result = final_result(record)
                self.record(record, result)  # its end was not recorded (a lost listener): now it is
                items.append(summary_json(record, result))
            elif record.unlisted:
                items.append(None)  # an unlisted match is shown once it is over, never while it runs
            else:
                items.append(summary_json(record, None))
        return items

    def forget(self, bot_id: str) -> None:
        """Delete a deleted bot's history (the summaries stay for the other seats' histories)."""
        self.histories.forget(bot_id)


def final_result(record: MatchRecord) -> Result | None:
    """A finished match's result, or None if it was stored under earlier rules."""
    try:
        return result_of(record, engine_state(record))
    except RulesChanged:
        return None
