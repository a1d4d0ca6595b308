"""The spectator pace's job: store an AI move that was found before its match's pace allowed it.

An AI turn job (`workers/jobs.py`) that finds its move early (`domain.matches.pace.paced_until`)
hands the move over instead of sleeping on it: the turn's claim passes from the turn job to a job
on the timer queue, named by (match, seat, version), so neither the listeners nor the workers'
sweep queue that turn again while the move waits (`take_turn_for_pace`); the turn job stores the
moves it held, if any; and that job is scheduled for when the move is due (`schedule_paced_move`,
`TimerQueue.call_at`: within the second before it, the job waiting out the rest).
The timer worker then runs `play_paced_move`, which stores the move through the checked path with
compare-and-set at the version it was found for, exactly as the turn job would have, and runs the
change's listeners, which queue the match's next AI turn as after any change. Should the match have
moved on meanwhile (another seat's move, a timeout), the move is dropped and the turns of the new
version are queued: each is found again there, and paced again. While the timer worker is away (its
scheduler's heartbeat silent, `timers_running`), moves are stored as they are found, unpaced.
"""

from __future__ import annotations

import logging
import time

from domain.matches.commands import checked_move, commit_move, engine_state
from domain.matches.pace import paced_until
from domain.turn_timers import AWAY_AFTER_MS
from domain.wiring import Services
from engine import Action, ActionRejected
from model.jobs import TurnResult
from model.match import ACTIVE, MatchRecord
from model.refusals import Refusal
from store.watchers import Watchers
from workers.context import context

log = logging.getLogger(__name__)
PACE_JOB = "workers.pace.play_paced_move"
LONGEST_WAIT = 1.0
"""Seconds a paced move's job waits at most at a time: it runs within the second before the move is due."""
WATCHERS_LOOK = 0.05
"""Seconds a turn job trusts its last look at a match's watchers: a relay playing an unwatched match's moves at
full speed (stored together) asks Redis at most this often, and a new watcher is noticed this late at most."""


class RecentWatchers:
    """A turn job's view of who watches its match: read from the store at most once every WATCHERS_LOOK s."""

    def __init__(self, watchers: Watchers, every: float = WATCHERS_LOOK) -> None:
        self.watchers = watchers
        self.every = every
        self.seen: dict[str, tuple[float, bool]] = {}  # match -> (monotonic time of the look, watched)

    def watched(self, match_id: str) -> bool:
        """True while a stream or long-poll watches the match, as of a look at most WATCHERS_LOOK s old."""
        now = time.monotonic()
        look = self.seen.get(match_id)
        if look is None or now - look[0] >= self.every:
            look = self.seen[match_id] = (now, self.watchers.watched(match_id))
        return look[1]


def timers_running(ctx: Services) -> bool:
    """True while the timer worker's scheduler beats: it runs the paced moves' jobs, so a move waits for its pace
    only then. Without it a paced match plays on unpaced rather than stall (no sweep re-queues a waiting move)."""
    last = ctx.timers.clock.last_beat()
    return last is not None and time.time() * 1000 - last < AWAY_AFTER_MS


def pace_job_id(match_id: str, seat: int, version: int) -> str:
    """The id of the job that stores a seat's paced move at one version (one per turn)."""
    return f"pace-{match_id}-{seat}-{version}"


def take_turn_for_pace(ctx: Services, job_id: str, record: MatchRecord, seat: int) -> bool:
    """Pass the turn's claim from the turn job that found the move early (`job_id`; or from nobody, in a relay
    that played on without one) to the job that will store it; False when another job plays this turn."""
    paced = pace_job_id(record.id, seat, record.version)
    held = ctx.store.ai_turn_claim(record.id, seat, record.version)
    if held is None:
        return ctx.store.claim_ai_turn(record.id, seat, record.version, paced)
    return held == paced or ctx.store.reclaim_ai_turn(record.id, seat, record.version, job_id, paced)


def schedule_paced_move(ctx: Services, record: MatchRecord, seat: int, action: Action, due: float) -> TurnResult:
    """Schedule the job that stores the move at `due` (epoch s), once it holds the turn (`take_turn_for_pace`)."""
    paced = pace_job_id(record.id, seat, record.version)
    ctx.timers.queue.call_at(due, PACE_JOB, (record.id, seat, record.version, action), paced)
    log.debug("match %s: seat %d's move at version %d waits for its pace", record.id, seat, record.version)
    return {"outcome": "paced", "match": record.id, "seat": seat, "version": record.version}


def play_paced_move(match_id: str, seat: int, version: int, action: Action) -> TurnResult:
    """Store a paced AI move once due, if the match is still at `version`; then the listeners run as after any
    change. The timer worker runs it, queued within the second before the move is due."""
    ctx = context()
    record = ctx.store.load(match_id)
    while record is not None and record.status == ACTIVE and record.version == version:
        due = paced_until(record, ctx.store.watchers)  # None: the pace no longer applies (nobody watches)
        early = 0.0 if due is None else due - time.time()
        if early <= 0:
            return store_paced_move(ctx, record, seat, action)
        time.sleep(min(early, LONGEST_WAIT))
        record = ctx.store.load(match_id)
    if record is None or record.status != ACTIVE:
        return {"outcome": "match-over-or-gone", "match": match_id, "seat": seat}
    return passed_over(ctx, record, seat)


def store_paced_move(ctx: Services, record: MatchRecord, seat: int, action: Action) -> TurnResult:
    """Check the move on the record read and store it with compare-and-set at its version; run the listeners."""
    try:
        move = checked_move(record, seat, action, record.version)
    except (Refusal, ActionRejected) as rejected:  # the match ended, or the seat may no longer act
        return {"outcome": "refused", "match": record.id, "seat": seat, "code": rejected.code}
    outcome = commit_move(ctx.store, move)
    if outcome.kind == "ok":
        ctx.after_change(move.after, move.state)
        return {"outcome": "applied", "match": record.id, "seat": seat, "version": record.version}
    later = ctx.store.load(record.id) if outcome.kind == "stale" else None
    if later is None or later.status != ACTIVE:
        return {"outcome": "match-over-or-gone", "match": record.id, "seat": seat}
    return passed_over(ctx, later, seat)


def passed_over(ctx: Services, record: MatchRecord, seat: int) -> TurnResult:
    """The match moved on before the paced move was stored: make sure the AI seats that may act now have jobs
    (the change that passed it queued them already, unless a relay plays them; the claims keep them single)."""
    ctx.ai_turns.after_change(record, engine_state(record))
    return {"outcome": "superseded", "match": record.id, "seat": seat, "version": record.version}
