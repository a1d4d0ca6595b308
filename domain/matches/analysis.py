"""Analyses a client asks for: which position, searched for which seat, at which budget; one pending job per asker.

Three positions may be analysed:

* a seat's (`POST /v1/matches/{id}/analysis` with its token): the match as it stands, searched over what that
  seat may know (its information set, as the AI levels search), only while the match allows assistance
  (`domain.matches.fair_play.check_assistance`) and only when the seat may act;
* the public's: a match that is over, at any step of its replay, searched with full information (its seed is
  revealed and its whole log public, so nothing is hidden any more); the public never analyses a live match;
* a client's (`POST /v1/analysis`): a perfect-information game's state, or any game's seat view, rebuilt with
  `Game.state_from_view` (everything the seat cannot see drawn at random) and searched by determinization.

A budget is iterations or milliseconds, capped (MAX_ITERATIONS, MAX_MILLISECONDS: twice the hard level's
iterations, and its time cap); every search also ends at MAX_MILLISECONDS. As with a requested move
(`domain/matches/hints.py`), an asker (a seat, else an address) has one analysis pending at a time: asking again
while it waits or runs answers that job.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal, TypedDict

from ai.levels import level_named
from ai.play import play_out
from domain.matches.commands import check_may_act, engine_state, game_of, game_or_400, is_move
from domain.matches.fair_play import check_assistance
from domain.matches.hints import CLAIM_ATTEMPTS
from domain.matches.replay import CACHE, state_at
from engine import Game, GameState, has_action
from engine.errors import CorruptState, EngineError, ViewMismatch
from engine.protocol import MALFORMED, View
from engine.rng import Rng
from model.match import MatchRecord
from model.refusals import Conflict, NotFound, ServiceUnavailable, Unprocessable
from store.analysis import AnalysisStore
from store.jobs import JobMeta, JobQueue
from store.matches import MatchStore

_HARD = level_named("hard")
MAX_ITERATIONS = 2 * _HARD.budget
"""The most iterations an analysis may ask for: twice the hard level's (3000)."""
MAX_MILLISECONDS = int((_HARD.time_cap or 10.0) * 1000)
"""The most milliseconds an analysis may ask for, and where every analysis ends: the hard level's time cap (10 s)."""
DEFAULT_ITERATIONS = _HARD.budget
"""The budget of an analysis that names none: the hard level's iterations (1500)."""
TIMED_ITERATIONS = 1_000_000
"""The iterations bound of a search given milliseconds: its time ends it long before."""
TRIAL_MOVES = 300
"""Random moves played from a client's position before it is taken (`try_rules`): most games end sooner, and
the slowest play them in about 10 ms (Freeze Factory, Robots Love Ice Cream, from their start)."""
Scope = Literal["seat", "public", "position"]


@dataclass(frozen=True)
class Budget:
    """What a search may spend: iterations or milliseconds (exactly one), within the caps."""

    iterations: int | None = None
    milliseconds: int | None = None

    @classmethod
    def of(cls, asked: dict[str, int] | None) -> Budget:
        """The budget asked for (`{"iterations": N}` or `{"milliseconds": N}`; None: the default); 422 over a cap."""
        if not asked:
            return cls(iterations=DEFAULT_ITERATIONS)
        budget = cls(asked.get("iterations"), asked.get("milliseconds"))
        if budget.iterations is not None and budget.iterations > MAX_ITERATIONS:
            raise Unprocessable(
                "budget-over-cap",
                f"an analysis searches {MAX_ITERATIONS} iterations at most; {budget.iterations} were asked for",
                cap={"iterations": MAX_ITERATIONS},
            )
        if budget.milliseconds is not None and budget.milliseconds > MAX_MILLISECONDS:
            raise Unprocessable(
                "budget-over-cap",
                f"an analysis searches {MAX_MILLISECONDS} ms at most; {budget.milliseconds} were asked for",
                cap={"milliseconds": MAX_MILLISECONDS},
            )
        return budget

    def search(self) -> tuple[int, float]:
        """The search's iterations and time cap (seconds)."""
        if self.milliseconds is not None:
            return TIMED_ITERATIONS, self.milliseconds / 1000
        return self.iterations or DEFAULT_ITERATIONS, MAX_MILLISECONDS / 1000

    def to_json(self) -> dict[str, int]:
        """The budget as asked: `{"iterations": N}` or `{"milliseconds": N}`."""
        if self.milliseconds is not None:
            return {"milliseconds": self.milliseconds}
        return {"iterations": self.iterations or DEFAULT_ITERATIONS}


class PositionJson(TypedDict):
    """What an analysis job searches (its first argument): the game, the state (JSON), the seat searched for, and
    whether the search may read the whole state (`full_information`) or only what the seat may know."""

    game: str
    state: dict[str, Any]
    seat: int
    full_information: bool


@dataclass(frozen=True)
class Position:
    """A position to analyse for one seat, and where it comes from (a match's version or step, or a client)."""

    game: str
    state: GameState
    seat: int
    scope: Scope
    match: str | None = None
    version: int | None = None
    step: int | None = None

    def to_json(self) -> PositionJson:
        """What the job searches: only a finished match's public analysis reads the whole state."""
        return {
            "game": self.game,
            "state": self.state.to_json(),
            "seat": self.seat,
            "full_information": self.scope == "public",
        }


def seat_position(record: MatchRecord, seat: int) -> Position:
    """The match as it stands, for one of its seats: 403 while the match forbids assistance, 409 unless it may act."""
    check_assistance(record, seat)
    state = engine_state(record)
    check_may_act(record, state, seat)
    return Position(record.game, state, seat, "seat", record.id, record.version)


def public_position(store: MatchStore, record: MatchRecord, step: int | None, seat: int | None) -> Position:
    """A match that is over at `step` of its replay (default: the position its last move was played from), for
    `seat` (default: the first that acts there); 409 for a match still running, 404 for a step it does not have."""
    if not record.ended:
        raise Conflict(
            "match-not-over",
            "the public analyses a match once it is over; a seat of a running match asks with its own token"
            " (where the match allows assistance)",
        )
    game = game_of(record)
    replayed = CACHE.get(store, record, game)
    entries = replayed.entries
    if step is None:
        step = max((index for index, entry in enumerate(entries) if is_move(entry)), default=0)
    if step > len(entries):
        raise NotFound(f"the match has {len(entries)} steps; there is no step {step}")
    state = state_at(game, replayed, step)
    acting = [each for each in state.acting_seats() if has_action(state, each)] if not state.is_over() else []
    chosen = acting[0] if seat is None and acting else seat
    if chosen is None or chosen not in acting:
        who = "no seat acts" if not acting else f"seat {seat} does not act (seats {acting} do)"
        raise Conflict("nothing-to-analyse", f"{who} at step {step} of {len(entries)}")
    return Position(record.game, state, chosen, "public", record.id, step=step)


def client_position(
    game_id: str,
    players: int,
    options: dict[str, Any] | None,
    seat: int,
    view: View | None = None,
    state: dict[str, Any] | None = None,
) -> Position:
    """A position a client sends: a seat's view of any game (422 `view-mismatch` when no state shows it that view),
    or the state of a perfect-information game (422 `invalid-state` when it is not one); 409 unless the seat acts."""
    game = game_or_400(game_id)
    rng = Rng.from_seed(secrets.token_hex(8))  # what the seat cannot see is drawn afresh for each ask
    if state is not None:
        view = checked_view(game, state, seat, players, options)
    try:
        rebuilt = game.state_from_view(view if view is not None else {}, seat, players, options, rng)
    except CorruptState as error:  # a game that rebuilds through its state's JSON: what it read is no state
        raise ViewMismatch(f"the view does not read as {game.info.name}'s: {error.reason}") from error
    try:
        acts = seat in rebuilt.acting_seats() and has_action(rebuilt, seat)
        if acts:
            try_rules(rebuilt.clone())
    except (EngineError, *MALFORMED) as error:  # a view the rebuild took but whose rules cannot run
        raise ViewMismatch(f"no {game.info.name} position is this one: {error!r}") from error
    if not acts:
        raise Conflict("nothing-to-analyse", f"seat {seat} has nothing to do in this position")
    return Position(game_id, rebuilt, seat, "position")


def try_rules(state: GameState) -> None:
    """Random moves from a position a client sent (TRIAL_MOVES at most, the checked path): the rules run on it.

    A view is checked against what its rebuilt state shows (`Game.state_from_view`), and a value of the wrong
    kind copied into the state passes that check, to fail where the rules first use it: in the search. Played
    here, it fails the request (422) instead of the job."""
    rng = Rng.from_seed("trial")
    play_out(state, lambda position, seat, _: position.sample_action(seat, rng), "trial", TRIAL_MOVES)


def checked_view(game: Game, data: dict[str, Any], seat: int, players: int, options: dict[str, Any] | None) -> View:
    """The seat's view of a state a client sent: 422 `state-not-taken` for a game with hidden information (send the
    seat's view), `invalid-state` for what is no state of the game, or one of other players or options."""
    if game.info.information != "perfect":
        raise Unprocessable(
            "state-not-taken",
            f"{game.info.name} hides information: send the seat's view (`view`), not a state",
        )
    game.check_players(players)
    resolved = game.info.options.resolve(options)
    try:
        state = game.state_from_json(data)
        players_and_options = state.players, state.options
        view = state.view(seat)
    except (EngineError, *MALFORMED) as error:
        raise Unprocessable("invalid-state", f"the state does not read as {game.info.name}'s: {error}") from error
    if players_and_options != (players, resolved):
        raise Unprocessable("invalid-state", f"the state is not one of {players} players and these options")
    return view


@dataclass(frozen=True)
class RequestedAnalysis:
    """The job analysing a position: a new one, or the asker's earlier one still pending (its meta)."""

    id: str
    status: str
    meta: JobMeta
    pending: bool


def request_analysis(
    analyses: AnalysisStore, jobs: JobQueue, asker: str, position: Position, budget: Budget
) -> RequestedAnalysis:
    """The asker's pending analysis if it has one, else a job newly queued to analyse this position."""
    iterations, time_cap = budget.search()
    meta: JobMeta = {"kind": "analysis", "scope": position.scope, "game": position.game, "seat": position.seat}
    if position.match is not None:
        meta["match"] = position.match
    if position.version is not None:
        meta["version"] = position.version
    meta["step"] = position.step
    meta["budget"] = budget.to_json()
    arguments = [dict(position.to_json()), iterations, time_cap]
    for _ in range(CLAIM_ATTEMPTS):
        held = analyses.pending(asker)
        earlier = jobs.fetch_unended(held) if held is not None else None
        if earlier is not None:
            return RequestedAnalysis(earlier.id, earlier.status, earlier.meta, True)
        claim = partial(analyses.claim, asker, replacing=held, ttl=jobs.pending_ttl(time_cap))
        job_id = jobs.enqueue_analysis(arguments, meta, time_cap, claim)
        if job_id is not None:
            return RequestedAnalysis(job_id, "queued", meta, False)
    raise ServiceUnavailable("other analyses asked by the same client kept racing this one; ask again")
