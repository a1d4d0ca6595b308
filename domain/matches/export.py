"""A match that is over, as one file (`GET /v1/matches/{id}/export`; the format: domain/matches/verify.py).

Public once the match is over, as the replay is: its seed is revealed and its whole log is public.
`parlour verify FILE` checks such a file offline.
"""

from __future__ import annotations

from domain.matches import commands
from domain.matches.commands import IdentityJson
from domain.matches.verify import FORMAT, FORMAT_VERSION, ExportSeatJson
from model.match import FINISHED, LogEntry, MatchRecord, ResultJson, SeatRecord, result_json
from model.refusals import Conflict
from store.matches import MatchStore


class ExportJson(IdentityJson):
    """A match that is over, as one file (the format: domain/matches/verify.py)."""

    format: str
    format_version: int
    rules_version: int
    seats: list[ExportSeatJson]
    seed: str
    seed_commitment: str
    created_at: str
    finished_at: str
    abort_reason: str | None
    result: ResultJson | None
    log: list[LogEntry]  # every entry as stored


def filename(record: MatchRecord) -> str:
    """The file name an export is saved under: `parlour-<game>-<id>.json`."""
    return f"parlour-{record.game}-{record.id}.json"


def export_json(store: MatchStore, record: MatchRecord) -> ExportJson:
    """The export of a match that is over; Conflict `match-not-over` while it runs (its seed is secret)."""
    if not record.ended:
        raise Conflict("match-not-over", "a match is exported once it is over (its seed is still secret)")
    log = store.log_page(record.id, 0, max(record.version, 1), record.version).entries
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "id": record.id,
        "game": record.game,
        "rules_version": record.rules_version,
        "players": record.players,
        "options": record.options,
        "seats": [seat_json(seat) for seat in record.seats],
        "seed": record.seed,
        "seed_commitment": record.seed_commitment,
        "created_at": record.created_at,
        "finished_at": finished_at(record, log),
        "version": record.version,
        "status": record.status,
        "abort_reason": record.abort_reason,
        "result": final_result_json(record),
        "log": log,
    }


def finished_at(record: MatchRecord, log: list[LogEntry]) -> str:
    """When the match ended: its last entry's time when that ended it (a rematch offer changes the record
    later), else (an abort) the record's last change."""
    return log[-1]["at"] if record.status == FINISHED and log else record.updated_at


def seat_json(seat: SeatRecord) -> ExportSeatJson:
    """Who held a seat (its kind, name, AI level, bot id), never a token or its hash."""
    return {"seat": seat.seat, "type": seat.kind, "name": seat.name, "level": seat.ai_level, "bot": seat.bot}


def final_result_json(record: MatchRecord) -> ResultJson | None:
    """The result of a finished match as its match answer gives it (a resignation's too); None for an aborted one."""
    if record.status != FINISHED:
        return None
    result = commands.result_of(record, commands.engine_state(record))
    return result_json(result) if result else None
