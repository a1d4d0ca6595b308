"""The spectator pace: a match's AI moves stored no sooner than a set time after its previous change.

A match created with `ai_pace` (`{"milliseconds": 100..10000, "when": "watched" | "always"}`) has a
pace; it applies `always`, or while someone watches (`watched`: an open event stream or long-poll on
the match, `store/watchers.py`). While it applies, each AI move is stored no sooner than
`milliseconds` after the match's previous change (`updated_at`, the time its log entry shows), so
people can follow an all-AI match move by move. An AI turn job that finds its move early does not
sleep on it: it hands the move to a job on the timer queue that stores it when due, with the same
compare-and-set at the same version (`workers/pace.py`). A match without a pace, or whose pace does
not apply, plays as fast as its AI finds its moves.
"""

from __future__ import annotations

from typing import Protocol

from domain.turn_timers import parse_iso
from model.match import MatchRecord, PaceWhen

STAMP_MARGIN = 0.001
"""Seconds added to the pace so that the log's stamps, cut to the millisecond, show at least the whole of it."""


class MatchWatchers(Protocol):
    """Who watches a match: `store.watchers.Watchers`, or a reader that remembers its answer a while."""

    def watched(self, match_id: str) -> bool:
        """True while a stream or long-poll watches the match."""
        ...


def counts_watchers(record: MatchRecord) -> bool:
    """True when whether someone watches matters to the match: its pace applies while watched. Only then do its
    streams and long-polls register as watchers (a write each), so other matches' readers cost nothing more."""
    pace = record.ai_pace
    return pace is not None and pace["when"] == PaceWhen.WATCHED


def pace_applies(record: MatchRecord, watchers: MatchWatchers) -> bool:
    """True when the match has a pace and it applies now: `always`, or `watched` while someone watches."""
    pace = record.ai_pace
    if pace is None:
        return False
    return pace["when"] == PaceWhen.ALWAYS or watchers.watched(record.id)


def paced_until(record: MatchRecord, watchers: MatchWatchers) -> float | None:
    """The epoch time (s) before which the match's next AI move may not be stored, when its pace applies; else
    None. Measured from the match's previous change as stored (to the millisecond its log shows)."""
    if not pace_applies(record, watchers):
        return None
    assert record.ai_pace is not None
    return parse_iso(record.updated_at).timestamp() + record.ai_pace["milliseconds"] / 1000 + STAMP_MARGIN
