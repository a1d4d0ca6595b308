"""Fair play: whether a match's seats may ask the AI for hints and analysis while it runs.

A match carries `assistance`, `allowed` or `forbidden`, chosen at creation (`POST /v1/matches`) or
by the rule (`model.match.default_assistance`): forbidden when two or more seats are not the
server's AI, or when the match would be rated. While a match that forbids assistance runs (waiting
or active), a seat asking for a hint or an analysis is refused (`AssistanceForbidden`, 403); once it
has ended, its analysis is anyone's. A match that allows assistance is never rated
(`domain/ladder/ratings.py`).
"""

from __future__ import annotations

from model.match import Assistance, MatchRecord, default_assistance
from model.refusals import AssistanceForbidden

__all__ = ["assistance_allowed", "check_assistance", "default_assistance"]


def assistance_allowed(record: MatchRecord) -> bool:
    """True when the match lets its seats ask the AI for help while it runs."""
    return record.assistance == Assistance.ALLOWED


def check_assistance(record: MatchRecord, seat: int | None) -> None:
    """Refuse (403 `assistance-forbidden`) a seat's ask for the AI's help while a match that forbids it runs.

    `seat` is the asking seat (None: the public, whose analysis of a live match is refused elsewhere)."""
    if record.ended or assistance_allowed(record):
        return
    who = f"seat {seat}" if seat is not None else "anyone"
    raise AssistanceForbidden(
        f"this match forbids hints and analysis while it runs (assistance: forbidden), so {who} may not ask the AI"
        " for help until it is over"
    )
