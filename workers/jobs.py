"""The RQ jobs: compute an AI move for (match, seat, version) and play it through the checked path.

A move is committed with compare-and-set on the version it was computed for, exactly like a
human's. When the match moved on meanwhile (a stale version) the job reads it again and
computes again, so a move is never lost, doubled, or applied to a position it was not meant for.

A requested move (a hint) gives way to the AI seats of live matches: its search ends with its best
answer so far as soon as one of their jobs waits on the live queue, so a worker is never held by a
hint while an opponent's turn waits for one, and it pauses while one of their jobs runs (never past
the level's time cap), so the cores are theirs. Tournament turns wait for a running hint to end.

Where only AI seats of one match may act (an all-AI match, both racers of a Rock'em round), one
turn job plays their turns one after another (`Relay`), each still its own compare-and-set, version
and events, instead of queueing a job per move. While Redis stores a move, the job already searches
the next one on its own copy of the new state, so the round trip no longer leaves the core idle; it
does so only at levels quick enough to need no claim (`may_outlast_sweep_grace`), since the move's
listeners run once the store answers. A move searched ahead is played only if the match is at the
version it was searched for: it is exactly the move a search after the commit would have found.

In a match of AI seats only, the moves a relay plays within RUN_SPAN s of each other are stored
together: one compare-and-set on the version the first was played on writes the last one's record
and every move's log entry (each its own version), or nothing. Most moves of a game are forced or
found at once, and each would otherwise cost a round trip, a write and its listeners; nobody can act
in such a match meanwhile, and its watchers read the moves from the log as after any change they
were late for.

A match with a spectator pace that applies (`domain/matches/pace.py`) is played otherwise: its moves are
never held, and a move found before the pace allows it is handed to a job on the timer queue that
stores it when due (`workers/pace.py`), so no AI worker sleeps on it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import redis
from rq import get_current_job

from ai.levels import choose, level_named
from ai.play import ai_seed, next_actor
from domain.matches.ai_turns import SWEEP_GRACE
from domain.matches.commands import Move, apply_action, checked_move, engine_state, seat_may_act, send_moves
from domain.matches.pace import paced_until
from domain.wiring import Services
from engine import Action, ActionRejected, GameState
from engine.rng import Rng
from model.jobs import AdvanceJobResult, MoveAnswer, MoveJobResult, MoveRefused, TurnJobResult, TurnResult
from model.match import ACTIVE, MatchRecord
from model.refusals import Refusal, StaleVersion
from model.tournament import MAX_PARALLEL
from store.jobs import LIVE_QUEUE, JobQueue
from store.matches import CommitOutcome
from workers.context import context, stop_requested
from workers.pace import RecentWatchers, schedule_paced_move, take_turn_for_pace, timers_running

log = logging.getLogger(__name__)
MAX_RECOMPUTES = 20
"""Stale versions one job computes again for before it fails (and RQ retries it)."""
TIME_SLICE = 0.5
"""Seconds a turn job plays its match's consecutive AI turns before it gives way to another match's waiting job."""
RELAY_LIMIT = 10.0
"""Seconds a turn job plays at most, far below a job's TIMEOUT_MARGIN: one more capped move always fits in its time."""
RUN_SPAN = 0.005
"""Seconds from the first move a relay holds to the move that stores them all: how late an all-AI match's moves
may reach Redis (and its watchers) so that the quick ones go together."""
RUN_MOVES = 16
"""Moves stored together at most (one compare-and-set)."""
LOOK_EVERY = 0.05
"""Seconds between a run of turns' looks at the queues (at most one or two round trips a look)."""
LOOK_DEPTH = 8 * MAX_PARALLEL
"""Waiting jobs an untimed tournament's run of turns reads at a look: at most MAX_PARALLEL of its matches run,
each with a job per acting seat (five at most), so another's job is seen behind all of them; the look stays
bounded however long a queue grows (one deeper still waits for RELAY_LIMIT at the most)."""
Following = tuple[int, MatchRecord, GameState]
"""The seat a turn job plays next, and the match as the job stored it, with its state."""
Acting = tuple[int, list[int]]
"""The AI seat a relay plays next, and every seat that may act (all of them AI seats of the match)."""
Ahead = tuple[int, int, Action]
"""A move searched ahead: the seat, the version it is for, and the action."""
YIELD_POLL = 0.01
"""Seconds between a requested move's looks at the live queue (a look is one LLEN and one ZCARD)."""


def play_ai_turn(match_id: str, seat: int, version: int) -> TurnJobResult:
    """Play an AI seat's turn, then the AI turns that follow it while `Relay` keeps the match (each its own version)."""
    ctx = context()
    job = get_current_job()
    job_id = job.id if job is not None else f"inline-{match_id}-{seat}-{version}"
    relay = Relay(ctx, job_id, job.origin if job is not None else LIVE_QUEUE)
    record = ctx.store.load(match_id)
    stored: GameState | None = None
    while True:
        answer, following = play_one_turn(ctx, relay, record, match_id, seat, version, stored)
        if following is None:
            relay.store_held(playing_on=False)  # a move held, then a refusal: the moves held are stored all the same
            return {**answer, "moves": relay.stored}
        seat, record, stored = following  # the match as this job played it: no need to read it again
        version = record.version


def play_one_turn(
    ctx: Services,
    relay: Relay,
    record: MatchRecord | None,
    match_id: str,
    seat: int,
    version: int,
    stored: GameState | None = None,
) -> tuple[TurnResult, Following | None]:
    """Play one AI turn from the record read (when the match moved on, the newer one unless another job has it),
    and say what follows. `stored`: the state of `record` when this job stored it and knows the seat may act."""
    for _ in range(MAX_RECOMPUTES):
        if record is None or record.status != ACTIVE:
            return {"outcome": "match-over-or-gone", "match": match_id, "seat": seat}, None
        if record.version != version:
            version, stored = record.version, None
            if not ctx.store.claim_ai_turn(match_id, seat, version, relay.job_id):
                return {"outcome": "superseded", "match": match_id, "seat": seat, "version": version}, None
        state = engine_state(record) if stored is None else stored
        if stored is None and not seat_may_act(record, state, seat):
            ctx.ai_turns.after_change(record, state)  # make sure the seats that may act now have their jobs
            return {"outcome": "nothing-to-do", "match": match_id, "seat": seat, "version": version}, None
        level = record.seats[seat].ai_level
        if level is None:
            return {"outcome": "not-an-ai-seat", "match": match_id, "seat": seat}, None
        action = relay.searched_ahead(seat, record.version)
        if action is None:
            seed = ai_seed(record.seed, seat, record.version, level)
            action = choose(state.clone(), seat, level, seed, stop=relay.store_held_when_due)
        # The spectator pace: a move found before the match's pace allows it is stored by a timer job when due.
        due = paced_until(record, relay.watchers)
        relay.paced = due is not None  # a paced match's moves are stored one by one, never held
        if due is not None and due > time.time() and timers_running(ctx):
            if not take_turn_for_pace(ctx, relay.job_id, record, seat):
                return {"outcome": "superseded", "match": match_id, "seat": seat, "version": record.version}, None
            relay.store_held(playing_on=False)  # the moves held before it are stored before its job may run
            return schedule_paced_move(ctx, record, seat, action, due), None
        try:
            outcome = relay.commit(checked_move(record, seat, action, record.version, state=state))
        except (Refusal, ActionRejected) as rejected:  # the match ended between reading and writing it
            return {"outcome": "refused", "match": match_id, "seat": seat, "code": rejected.code}, None
        if outcome.kind == "stale":
            log.info("match %s moved on while seat %d thought at version %d (or before)", match_id, seat, version)
            record, stored = ctx.store.load(match_id), None
            continue
        if outcome.kind != "ok":
            return {"outcome": "match-over-or-gone", "match": match_id, "seat": seat}, None
        log.debug("match %s: AI seat %d (%s) moved at version %d", match_id, seat, level, version)
        return {"outcome": "applied", "match": match_id, "seat": seat, "version": version}, relay.take_next()
    raise RuntimeError(f"match {match_id} kept changing while seat {seat} thought")


class Relay:
    """Whether a turn job plays on after its move: only while nobody but the match's AI seats may act.

    It hands over (the next turns are queued like after any change) within LOOK_EVERY s when a job of
    a higher-priority queue waits, so a tournament's match never holds a worker a live match needs;
    once TIME_SLICE is spent, as soon as another match's job waits on its own queue, so matches take
    turns; and at RELAY_LIMIT, or when its worker is asked to stop. A match of a tournament without a
    turn timer does not give way to its own tournament's matches: nobody waits on one of their moves,
    and turns taken among them only leave the longest match to finish alone on one worker at the end.
    Playing on, it skips the change's listener that queues AI turns, and claims the turns of every AI
    seat that may act when a move may outlast the sweep's grace (`may_outlast_sweep_grace`), so none
    of them gets a job too. In a match of AI seats only it holds the moves it plays on from (`holds`)
    and stores them with the next one it does not hold.
    """

    def __init__(
        self, ctx: Services, job_id: str, queue: str, time_slice: float = TIME_SLICE, limit: float = RELAY_LIMIT
    ) -> None:
        self.ctx = ctx
        self.job_id = job_id
        self.queue = queue
        started = time.monotonic()
        self.slice_ends = started + time_slice
        self.until = started + limit
        self.following: Following | None = None
        self.ahead: Ahead | None = None
        self.next_look = 0.0
        self.own_matches: set[str] | None = None
        self.held: list[Move] = []
        self.held_since = 0.0
        self.stored = 0  # moves this job stored
        self.paced = False  # the match's spectator pace applies to the move being played (`workers/pace.py`)
        self.watchers = RecentWatchers(ctx.store.watchers)  # who watches the match, looked at every 50 ms at most

    def commit(self, move: Move) -> CommitOutcome:
        """Store the move (compare-and-set) with the moves held before it, searching meanwhile the next move this
        job would play, then run the change's listeners once stored; the compare-and-set's outcome. A move it
        `holds` is only kept (its outcome `ok` for now): the move that stores it tells."""
        acting = self.acting_next(move.after, move.state)
        if acting is not None and self.holds(move, acting):
            self.held.append(move)
            self.following = acting[0], move.after, move.state
            return CommitOutcome("ok", move.after.version)
        run, self.held = [*self.held, move], []
        storing = send_moves(self.ctx.store, run)
        self.ahead = self.search_ahead(move.after, move.state, acting)
        outcome = storing.outcome()
        if outcome.kind == "ok":
            self.stored += len(run)
            self.on_commit(move.after, move.state, acting)
        return outcome

    def holds(self, move: Move, acting: Acting) -> bool:
        """True when the move may wait to be stored with the next: a match of AI seats only and not paced, whose
        next move needs no claim, within RUN_SPAN s of the first move held and RUN_MOVES moves."""
        seats = move.after.seats
        if self.paced or any(seat.ai_level is None for seat in seats) or len(self.held) + 1 >= RUN_MOVES:
            return False
        if any(may_outlast_sweep_grace(seats[seat].ai_level) for seat in acting[1]):
            return False
        now = time.monotonic()
        if not self.held:
            self.held_since = now
        return now - self.held_since < RUN_SPAN

    def store_held(self, playing_on: bool) -> None:
        """Store the moves held, if any, and run the listeners (queueing AI turns unless this job is `playing_on`).

        A job never ends with a move held. Should the match have moved on meanwhile, nothing is stored, and the
        move this job plays next is refused as stale in its turn.
        """
        if not self.held:
            return
        run, self.held = self.held, []
        last = run[-1]
        if send_moves(self.ctx.store, run).outcome().kind == "ok":
            self.stored += len(run)
            self.ctx.after_change(last.after, last.state, skip=self.ctx.schedule_ai_turns if playing_on else None)

    def store_held_when_due(self) -> bool:
        """A search's `stop`, always False: stores the moves held once RUN_SPAN s have passed since the first,
        so that a long search never keeps the moves before it from Redis and the match's watchers."""
        if self.held and time.monotonic() - self.held_since >= RUN_SPAN:
            self.store_held(playing_on=True)
        return False

    def search_ahead(self, record: MatchRecord, state: GameState, acting: Acting | None) -> Ahead | None:
        """The move the first acting seat would play at this version, if this job plays it and needs no claim."""
        if acting is None or self.spent():
            return None
        seat = acting[0]
        level = record.seats[seat].ai_level
        if level is None or any(may_outlast_sweep_grace(record.seats[other].ai_level) for other in acting[1]):
            return None
        seed = ai_seed(record.seed, seat, record.version, level)
        return seat, record.version, choose(state.clone(), seat, level, seed)

    def on_commit(self, record: MatchRecord, state: GameState, acting: Acting | None) -> None:
        """After a move is stored: claim the next turns if this job plays them (`acting`), then run the change's
        listeners (the one that queues AI turns only when this job hands over: it plays them otherwise)."""
        self.following = self.claim_next(record, state, acting)
        playing_on = self.following is not None
        self.ctx.after_change(record, state, skip=self.ctx.schedule_ai_turns if playing_on else None)

    def searched_ahead(self, seat: int, version: int) -> Action | None:
        """The move searched ahead for this seat at this version, if that is what was searched; once."""
        ahead, self.ahead = self.ahead, None
        return ahead[2] if ahead is not None and ahead[:2] == (seat, version) else None

    def take_next(self) -> Following | None:
        """The seat this job plays next and the match it plays it in, once; None to hand over."""
        following, self.following = self.following, None
        return following

    def acting_next(self, record: MatchRecord, state: GameState) -> Acting | None:
        """The AI seats this job plays on with after a move to this state (`acting_ai_seats`); None to hand over."""
        acting = acting_ai_seats(record, state)
        return None if acting is None or self.hands_over(record) else acting

    def claim_next(self, record: MatchRecord, state: GameState, acting: Acting | None) -> Following | None:
        """Claim every acting AI seat's turn at the new version (`acting_next`); the seat to play first."""
        if acting is None:
            return None
        first, seats = acting
        if not any(may_outlast_sweep_grace(record.seats[seat].ai_level) for seat in seats):
            return first, record, state
        # Every acting seat is held by this job; should another job hold one, compare-and-set sorts it out.
        held = self.ctx.store.claim_ai_turns(record.id, record.version, dict.fromkeys(seats, self.job_id))
        return (first, record, state) if first in held else None

    def spent(self) -> bool:
        """True once this job played RELAY_LIMIT s, or its worker is asked to stop."""
        return time.monotonic() >= self.until or stop_requested.is_set()

    def hands_over(self, record: MatchRecord) -> bool:
        """True when this job should queue the match's next turns instead of playing them (looks every LOOK_EVERY s)."""
        if self.spent():
            return True
        now = time.monotonic()
        if now < self.next_look:
            return False
        self.next_look = now + LOOK_EVERY
        try:
            return self.higher_priority_waits() or (now >= self.slice_ends and self.another_match_waits(record))
        except redis.RedisError:
            return True

    def higher_priority_waits(self) -> bool:
        """True when a job waits on a queue served before this job's queue."""
        return self.queue != LIVE_QUEUE and self.ctx.jobs.waiting(LIVE_QUEUE) > 0

    def another_match_waits(self, record: MatchRecord) -> bool:
        """True when a job waits on this job's queue that is not a turn of the match's own untimed tournament."""
        if record.tournament is None or record.turn_seconds is not None:
            return self.ctx.jobs.waiting(self.queue) > 0
        waiting = self.ctx.jobs.waiting_turn_matches(self.queue, LOOK_DEPTH)
        if self.own_matches is None or not self.own_matches.issuperset(waiting):  # it may have started more since
            self.own_matches = self.ctx.tournaments.store.match_ids(record.tournament)
        return not self.own_matches.issuperset(waiting)


def acting_ai_seats(record: MatchRecord, state: GameState) -> Acting | None:
    """When only AI seats of the match may act: the one that plays first (`next_actor`) and all of them; else None."""
    acting = [seat.seat for seat in record.seats if seat_may_act(record, state, seat.seat)]
    if not acting or any(record.seats[seat].ai_level is None for seat in acting):
        return None
    first = next_actor(state, Rng.from_seed(f"order:{record.seed}:{record.version}"))
    return (first, acting) if first in acting else None


def may_outlast_sweep_grace(level: str | None) -> bool:
    """True when a move at this level may take long enough for the AI-turn sweep to look at its match.

    The sweep leaves a match alone for SWEEP_GRACE s after its last change, and a relayed turn's own
    change queues no job, so a turn that is played sooner needs no claim: nothing else can queue it
    meanwhile (a change by anyone else is a new version, whose turns its own listeners queue). A
    level without a time cap does not search (`random`, `perfect`); a capped one may take its cap.
    """
    cap = level_named(level).time_cap if level is not None else None
    return cap is not None and cap >= SWEEP_GRACE / 2


def compute_move(match_id: str, seat: int, version: int, level: str, apply: bool) -> MoveJobResult:
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
        action = choose(state, seat, level, ai_seed(record.seed, seat, record.version, level), stop=give_way)
        answer: MoveAnswer = {"action": action, "version": record.version, "applied": False, "applied_version": None}
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


def advance_tournament(tournament_id: str) -> AdvanceJobResult:
    """Carry on advancing a tournament that an earlier call handed over after its steps."""
    ctx = context()
    ctx.tournaments.store.taken_over(tournament_id)
    ctx.tournaments.advance(tournament_id, ctx.after_change)
    return {"tournament": tournament_id}


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


def refused(code: str, detail: str) -> MoveRefused:
    """The answer of a requested move that could not be given: the job fails with this error."""
    return {"error": {"code": code, "detail": detail}}
