"""The spectator pace: a match's AI moves stored no sooner than a set time after its previous change.

A match created with `ai_pace` (`{"milliseconds": 100..10000, "when": "watched" | "always"}`) has a
pace; it applies `always`, or while someone watches (`watched`: an open event stream or long-poll on
the match, `store/watchers.py`; and, for its first CREATOR_WATCHES_FOR seconds, its creator, whose page has
not opened its stream yet). While it applies, each AI move is stored no sooner than
`milliseconds` after the match's previous change (`updated_at`, the time its log entry shows), so
people can follow an all-AI match move by move. An AI turn job that finds its move early does not
sleep on it: it hands the move to a job on the timer queue that stores it when due, with the same
compare-and-set at the same version (`workers/pace.py`). A match without a pace, or whose pace does
not apply, plays as fast as its AI finds its moves.
"""

from __future__ import annotations

import logging
from typing import Protocol

import redis

from domain.turn_timers import parse_iso
from model.match import AiPaceJson, MatchRecord, PaceWhen
from store.watchers import Watchers

log = logging.getLogger(__name__)
STAMP_MARGIN = 0.001
"""Seconds added to the pace so that the log's stamps, cut to the millisecond, show at least the whole of it."""
CREATOR_WATCHES_FOR = 10.0
"""Seconds a match paced while watched counts as watched from its creation, by its creator: a client that creates a
match to watch it opens its stream only after the answer, and the moves played meanwhile would pass unpaced, unseen
(on a busy machine, the web client's page saw its first from the ninth move on)."""
CREATOR_WATCHER = "creator"
"""The creator's member among a match's watchers (`store/watchers.py`); a stream's members are random ids."""


class MatchWatchers(Protocol):
    """Who watches a match: `store.watchers.Watchers`, or a reader that remembers its answer a while."""

    def watched(self, match_id: str) -> bool:
        """True while a stream or long-poll watches the match."""
        ...


def counts_watchers(record: MatchRecord) -> bool:
    """True when whether someone watches matters to the match: its pace applies while watched. Only then do its
    streams and long-polls register as watchers (a write each), so other matches' readers cost nothing more."""
    return paced_while_watched(record.ai_pace)


def paced_while_watched(pace: AiPaceJson | None) -> bool:
    """True for a pace that applies while someone watches (`watched`)."""
    return pace is not None and pace["when"] == PaceWhen.WATCHED


def watch_best_effort(watchers: Watchers, match_id: str, watcher: str, seconds: float) -> None:
    """Count a stream, a long-poll or a creator among the match's watchers; a store that refuses the write (full,
    or away) only leaves the match unwatched for its pace: the reader is served all the same."""
    try:
        watchers.watch(match_id, watcher, seconds)
    except redis.RedisError as error:
        log.info("match %s: a reader not counted as a watcher: %s", match_id, error)


def watched_by_its_creator(watchers: Watchers, match_id: str, pace: AiPaceJson | None) -> None:
    """Count the creator of a match paced while watched as its watcher for CREATOR_WATCHES_FOR s; called before the
    match is stored, so that no AI turn can be found before the pace applies."""
    if paced_while_watched(pace):
        watch_best_effort(watchers, match_id, CREATOR_WATCHER, CREATOR_WATCHES_FOR)


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
