"""The timeout job: play a seat's default action when its turn timer ran out, and the worker that runs it.

The job is named by (match, seat, deadline). It acts only while that deadline is still the seat's
in the stored match: a seat that acted in time has a new deadline or none, and the job does
nothing. The default action goes through `apply_action`, the same checked compare-and-set as any
action, pinned to the version read; when another seat's action lands first (a stale version) the
job reads the match again and checks the deadline again, so a timeout is never lost or doubled.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import redis
from rq import SimpleWorker

from api.matches.service import apply_action, engine_state
from api.record import ACTIVE
from api.refusals import Refusal, StaleVersion
from api.timers import seconds_until
from engine import ActionRejected
from workers.context import context

log = logging.getLogger(__name__)
MAX_ATTEMPTS = 20
"""Stale versions one job reads the match again for before it fails (and RQ retries it)."""
EARLY_WAIT = 5.0
"""RQ's scheduler works in whole seconds, so a job may start up to a second early: it waits that out."""


def time_out_seat(match_id: str, seat: int, deadline: str) -> dict[str, Any]:
    """Play the seat's default action if `deadline` is still its deadline and has passed."""
    ctx = context()
    for _ in range(MAX_ATTEMPTS):
        record = ctx.store.load(match_id)
        if record is None or record.status != ACTIVE:
            return {"outcome": "match-over-or-gone", "match": match_id, "seat": seat}
        if record.deadlines.get(str(seat)) != deadline:
            return {"outcome": "acted-in-time", "match": match_id, "seat": seat, "version": record.version}
        early = seconds_until(deadline)
        if early > 0:
            time.sleep(min(early, EARLY_WAIT))
            continue
        action = engine_state(record).default_action(seat)
        try:
            apply_action(
                ctx.store, record, seat, action, record.version, None, on_commit=ctx.after_change, timeout=True
            )
        except StaleVersion:
            continue  # another seat acted first: read again, the seat may still be late
        except (Refusal, ActionRejected) as rejected:  # the match ended between reading and writing it
            return {"outcome": "refused", "match": match_id, "seat": seat, "code": rejected.code}
        late = -seconds_until(deadline)
        log.info("match %s: seat %d timed out at version %d (%.2f s late)", match_id, seat, record.version, late)
        return {"outcome": "timed-out", "match": match_id, "seat": seat, "version": record.version, "late": late}
    raise RuntimeError(f"match {match_id} kept changing while seat {seat} was being timed out")


class TimerWorker(SimpleWorker):  # type: ignore[misc]
    """Runs timeout jobs in its own process (they are short); its maintenance sweeps for deadlines without a job."""

    def run_maintenance_tasks(self) -> None:
        """RQ's maintenance (restarting the scheduler if needed), then the turn-timer and challenge sweeps."""
        super().run_maintenance_tasks()
        try:
            context().timers.sweep()
        except redis.RedisError as error:
            log.warning("turn-timer sweep skipped: %s", error)
        try:
            ctx = context()
            ctx.challenges.sweep(ctx.tournaments, ctx.after_change)
        except redis.RedisError as error:
            log.warning("challenge sweep skipped: %s", error)
