"""The RQ jobs: compute an AI move for (match, seat, version) and play it through the checked path.

A move is committed with compare-and-set on the version it was computed for, exactly like a
human's. When the match moved on meanwhile (a stale version) the job reads it again and
computes again, so a move is never lost, doubled, or applied to a position it was not meant for.

A requested move (a hint) gives way to the AI seats of live matches: its search ends with its best
answer so far as soon as one of their jobs waits on the live queue, so a worker is never held by a
hint while an opponent's turn waits for one, and it pauses while one of their jobs runs (never past
the level's time cap), so the cores are theirs. Tournament turns wait for a running hint to end.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from typing import Any

import redis
from rq import get_current_job

from ai.levels import choose, level_named
from api.jobs.queue import JobQueue
from api.matches.service import apply_action, engine_state, seat_may_act
from api.record import ACTIVE, MatchRecord
from api.refusals import Refusal, StaleVersion
from engine import ActionRejected
from workers.context import context

log = logging.getLogger(__name__)
MAX_RECOMPUTES = 20
"""Stale versions one job computes again for before it fails (and RQ retries it)."""
YIELD_POLL = 0.01
"""Seconds between a requested move's looks at the live queue (a look is one LLEN and one ZCARD)."""


def ai_seed(record: MatchRecord, seat: int, level: str) -> str:
    """The search seed of a seat's move: fixed per match, seat, version and level, unguessable without the seed."""
    return hashlib.sha256(f"parlour-ai:{record.seed}:{seat}:{record.version}:{level}".encode()).hexdigest()


def play_ai_turn(match_id: str, seat: int, version: int) -> dict[str, Any]:
    """Play an AI seat's turn; when the match moved on, play the newer turn unless another job has it."""
    ctx = context()
    job = get_current_job()
    job_id = job.id if job is not None else f"inline-{match_id}-{seat}-{version}"
    record = ctx.store.load(match_id)
    for _ in range(MAX_RECOMPUTES):
        if record is None or record.status != ACTIVE:
            return {"outcome": "match-over-or-gone", "match": match_id, "seat": seat}
        if record.version != version:
            version = record.version
            if not ctx.store.claim_ai_turn(match_id, seat, version, job_id):
                return {"outcome": "superseded", "match": match_id, "seat": seat, "version": version}
        state = engine_state(record)
        if not seat_may_act(record, state, seat):
            ctx.ai_turns.after_change(record, state)  # make sure the seats that may act now have their jobs
            return {"outcome": "nothing-to-do", "match": match_id, "seat": seat, "version": version}
        level = record.seats[seat].ai_level
        if level is None:
            return {"outcome": "not-an-ai-seat", "match": match_id, "seat": seat}
        action = choose(state, seat, level, ai_seed(record, seat, level))
        try:
            apply_action(ctx.store, record, seat, action, record.version, None, on_commit=ctx.after_change)
        except StaleVersion:
            log.info("match %s moved on while seat %d thought at version %d", match_id, seat, version)
            record = ctx.store.load(match_id)
            continue
        except (Refusal, ActionRejected) as rejected:  # the match ended between reading and writing it
            return {"outcome": "refused", "match": match_id, "seat": seat, "code": rejected.code}
        log.info("match %s: AI seat %d (%s) moved at version %d", match_id, seat, level, version)
        return {"outcome": "applied", "match": match_id, "seat": seat, "version": version}
    raise RuntimeError(f"match {match_id} kept changing while seat {seat} thought")


def compute_move(match_id: str, seat: int, version: int, level: str, apply: bool) -> dict[str, Any]:
    """A move a seat asked the AI for: a hint, or applied for it; computed at the current version."""
    ctx = context()
    record = ctx.store.load(match_id)
    for _ in range(MAX_RECOMPUTES):
        if record is None:
            return refused("not-found", f"match {match_id} expired")
        state = engine_state(record)
        if not seat_may_act(record, state, seat):
            code = "not-your-turn" if record.status == ACTIVE else "match-over"
            return refused(code, f"seat {seat} has nothing to do at version {record.version}")
        cap = level_named(level).time_cap or 0.0
        give_way = give_way_to_live_seats(ctx.jobs, until=time.monotonic() + cap)
        action = choose(state, seat, level, ai_seed(record, seat, level), stop=give_way)
        answer = {"action": action, "version": record.version, "applied": False, "applied_version": None}
        if not apply:
            return answer
        try:
            apply_action(ctx.store, record, seat, action, record.version, None, on_commit=ctx.after_change)
        except StaleVersion:
            record = ctx.store.load(match_id)
            continue
        except Refusal as error:
            return refused(error.code, error.detail)
        except ActionRejected as error:
            return refused(error.code, error.reason)
        return {**answer, "applied": True, "applied_version": record.version + 1}
    return refused("stale-version", "the match kept changing while the AI thought; ask again")


def give_way_to_live_seats(jobs: JobQueue, until: float, every: float = YIELD_POLL) -> Callable[[], bool]:
    """A requested move's stop signal: true once a live seat's turn waits; while one runs, a pause (to `until`)."""
    next_look = time.monotonic() + every

    def stop() -> bool:
        nonlocal next_look
        while (now := time.monotonic()) >= next_look:
            next_look = now + every
            try:
                waiting, running = jobs.live_turns()
            except redis.RedisError:
                return False  # the store is away: think on; the answer cannot be stored either way
            if waiting:
                return True
            if not running or now >= until:
                return False
            time.sleep(every)
        return False

    return stop


def refused(code: str, detail: str) -> dict[str, Any]:
    """The answer of a requested move that could not be given: the job fails with this error."""
    return {"error": {"code": code, "detail": detail}}
