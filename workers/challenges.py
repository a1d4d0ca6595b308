"""The challenges' expiry jobs, run by the timer worker when a match or a tournament is due to have started.

Each is scheduled with RQ's scheduler at the expiry (`domain/bots/challenges.py`) and does something only
while what it names still waits for that expiry: a match that started, or whose expiry changed, is
left alone; a tournament's advance aborts it only if a bot still has not accepted.
"""

from __future__ import annotations

import time

from domain.turn_timers import seconds_until
from model.jobs import ExpireMatchResult, ExpireTournamentResult
from workers.context import context

EARLY_WAIT = 5.0
"""RQ's scheduler works in whole seconds, so a job may start up to a second early: it waits that out."""
MAX_WAITS = 20


def expire_match(match_id: str, start_by: str) -> ExpireMatchResult:
    """Abort the match if it is still waiting at `start_by` (a bot did not accept, or a seat was not taken)."""
    ctx = context()
    for _ in range(MAX_WAITS):
        outcome = ctx.challenges.expire_match(match_id, start_by, ctx.after_change)
        if outcome != "early":
            return {"outcome": outcome, "match": match_id}
        time.sleep(min(max(seconds_until(start_by), 0.01), EARLY_WAIT))
    raise RuntimeError(f"match {match_id}: its expiry at {start_by} never came")


def expire_tournament(tournament_id: str, expires_at: str) -> ExpireTournamentResult:
    """Advance the tournament at its challenges' expiry: aborted if a bot has not accepted by then."""
    ctx = context()
    early = seconds_until(expires_at)
    if early > 0:
        time.sleep(min(early, EARLY_WAIT))
    ctx.tournaments.advance(tournament_id, ctx.after_change)
    record = ctx.tournaments.store.load(tournament_id)
    return {"outcome": record.status if record else "gone", "tournament": tournament_id}
