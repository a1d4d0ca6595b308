"""Post-game review: each move of a finished match judged against the best move found, classed, and summed per seat.

The match is replayed from (game, players, options, seed, actions) on the engine's checked path,
as `Game.replay` does. Before each move the position is judged for its mover with
`ai.analysis.evaluate` at a fixed `budget` (and an optional `time_cap`), with full information
since the match is over (every hand is known; only the future chance is drawn afresh), and exact
where IceCream's solver answers. Rock'em Sock'em's keeps are searched here, not answered from the
race, so every value is one of the game: the race's exact chance is a round's, and the evaluation
graph must not jump between the two scales.

* `value_best`: the best judged move's value for the mover; `value_played`: the played move's, read
  from its root edge when the search visited it at least `PLAYED_VISITS` times, else from a search
  of the position after it (the mover's expected reward there); `loss` = max(0, best - played).
* A move is classed by its loss against the game's `THRESHOLDS` (below), on the engine's reward
  scale [-1, 1]. Lichess classes chess moves by the drop in win chance: 10, 20 and 30 points of
  win percentage for an inaccuracy, a mistake and a blunder. A two-seat reward r is a win chance of
  50 (1 + r) percent (a draw half a win), so those are 0.2, 0.4 and 0.6 of reward; each game adapts
  them, with its reason.
* A forced move (the only legal action) costs nothing and is never classed.
* `evaluation[i]`: every seat's expected reward at step i (0: the start, before the first move; the
  last: the end, the match's rewards), after the mover's best move there.
* Accuracy per seat, 0-100: Lichess's per-move accuracy from the win-percentage drop d = 50 * loss,
  103.1668 * exp(-0.04354 * d) - 3.1669 (clamped to 0..100), averaged over the seat's moves that
  were not forced (None for a seat with none). Lichess then mixes a volatility-weighted and a
  harmonic mean; the plain mean is used here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from ai.analysis import evaluate
from engine.protocol import TooManyActions
from engine.registry import get_game

if TYPE_CHECKING:
    from engine.protocol import Action, GameState
    from engine.result import Result

PLAYED_VISITS = 16
"""Visits of the played move's root edge below which its value comes from a search of the position after it."""
FORCED_SHARE = 4
"""A forced move's position (evaluation graph only) is searched with the budget divided by this."""
INACCURACY, MISTAKE, BLUNDER = "inaccuracy", "mistake", "blunder"


@dataclass(frozen=True)
class Thresholds:
    """The loss (on the reward scale) from which a move is an inaccuracy, a mistake, a blunder; and why."""

    inaccuracy: float
    mistake: float
    blunder: float
    reason: str

    def classify(self, loss: float) -> str | None:
        """The class of a move that lost this much, or None."""
        if loss >= self.blunder:
            return BLUNDER
        if loss >= self.mistake:
            return MISTAKE
        if loss >= self.inaccuracy:
            return INACCURACY
        return None


LICHESS = Thresholds(0.2, 0.4, 0.6, "Lichess's 10, 20 and 30 points of win chance, on the reward scale")
"""The default: Lichess's chess thresholds."""

THRESHOLDS: dict[str, Thresholds] = {
    "icecream": Thresholds(
        0.2, 0.4, 0.6, "exact win/draw/loss values (1/0/-1): a move that throws away a win or a draw is a blunder"
    ),
    "rockem_sockem": Thresholds(
        0.1, 0.2, 0.3, "dice decide most rounds, so a keep that costs 5 points of win chance is already a real loss"
    ),
    "freeze_factory": Thresholds(
        0.2, 0.4, 0.6, "searched values with a cut-off score, judged as Lichess judges an engine's evaluation"
    ),
    "sundae_split": Thresholds(
        0.25,
        0.5,
        0.75,
        "2 to 5 seats, places 2 / (seats - 1) of reward apart: with five, half a place (0.25) is an inaccuracy",
    ),
    "robots_love_ice_cream": Thresholds(
        0.2, 0.4, 0.6, "co-operative: the loss is in the team's reward (its chance of success), shared by every seat"
    ),
}
"""Per game, the thresholds a move's loss is classed by (see the module); a game not listed uses `LICHESS`."""


def thresholds_for(game_id: str) -> Thresholds:
    """The game's thresholds."""
    return THRESHOLDS.get(game_id, LICHESS)


class ThresholdsJson(TypedDict):
    """The thresholds a review classed its moves by."""

    inaccuracy: float
    mistake: float
    blunder: float


ReviewedMoveJson = TypedDict(  # "class" is a keyword, so the functional form
    "ReviewedMoveJson",
    {
        "version": int,
        "seat": int,
        "action": dict[str, Any],
        "best": dict[str, Any],
        "value_played": float,
        "value_best": float,
        "loss": float,
        "class": str | None,
    },
)


class SeatReviewJson(TypedDict):
    """One seat's summary."""

    seat: int
    accuracy: float | None
    inaccuracies: int
    mistakes: int
    blunders: int


class BudgetJson(TypedDict, total=False):
    """The budget each position was judged with."""

    iterations: int
    milliseconds: int


class ReviewJson(TypedDict):
    """A review as JSON (see the module)."""

    match: str
    budget: BudgetJson
    thresholds: ThresholdsJson
    moves: list[ReviewedMoveJson]
    evaluation: list[list[float]]
    seats: list[SeatReviewJson]


@dataclass(frozen=True)
class ReviewedMove:
    """One move judged: the mover's best and played values, the loss, the class (None: fine or forced)."""

    version: int
    seat: int
    action: Action
    best: Action
    value_played: float
    value_best: float
    loss: float
    kind: str | None
    forced: bool

    def to_json(self) -> ReviewedMoveJson:
        """The JSON form (`kind` is "class")."""
        return {
            "version": self.version,
            "seat": self.seat,
            "action": self.action,
            "best": self.best,
            "value_played": self.value_played,
            "value_best": self.value_best,
            "loss": self.loss,
            "class": self.kind,
        }


@dataclass(frozen=True)
class SeatReview:
    """One seat's accuracy (None without an unforced move) and how many moves of each class it made."""

    seat: int
    accuracy: float | None
    inaccuracies: int
    mistakes: int
    blunders: int

    def to_json(self) -> SeatReviewJson:
        """The JSON form."""
        return {
            "seat": self.seat,
            "accuracy": self.accuracy,
            "inaccuracies": self.inaccuracies,
            "mistakes": self.mistakes,
            "blunders": self.blunders,
        }


@dataclass(frozen=True)
class Review:
    """A finished match reviewed: its moves judged, the evaluation per step, and each seat's summary."""

    match: str
    budget: int
    time_cap: float | None
    thresholds: Thresholds
    moves: tuple[ReviewedMove, ...]
    evaluation: tuple[tuple[float, ...], ...]
    seats: tuple[SeatReview, ...]

    def to_json(self) -> ReviewJson:
        """The JSON form."""
        budget: BudgetJson = {"iterations": self.budget}
        if self.time_cap is not None:
            budget["milliseconds"] = round(self.time_cap * 1000)
        return {
            "match": self.match,
            "budget": budget,
            "thresholds": {
                "inaccuracy": self.thresholds.inaccuracy,
                "mistake": self.thresholds.mistake,
                "blunder": self.thresholds.blunder,
            },
            "moves": [move.to_json() for move in self.moves],
            "evaluation": [list(rewards) for rewards in self.evaluation],
            "seats": [seat.to_json() for seat in self.seats],
        }


Progress = Callable[[int, int], None]
"""Told (moves reviewed, moves in all) after each move."""


def review(
    game_id: str,
    players: int,
    options: dict[str, Any] | None,
    seed: str | int,
    actions: Sequence[tuple[int, Action]],
    budget: int,
    *,
    time_cap: float | None = None,
    progress: Progress | None = None,
    stop: Callable[[], bool] | None = None,
    match: str = "",
    versions: Sequence[int] | None = None,
    result: Result | None = None,
) -> Review:
    """Replay the match and judge every move for its mover (see the module).

    `versions`: the match version of each move (default 1, 2, ...: a log with resignations numbers its
    moves otherwise); `result`: the match's result where the moves alone do not end it (a resignation);
    `stop()` ends each position's search early, as `time_cap` does; to abandon the review, raise from `progress`.
    """
    game = get_game(game_id)
    if game is None:
        raise ValueError(f"no game {game_id!r}")
    if versions is not None and len(versions) != len(actions):
        raise ValueError("one version per move")
    state = game.start(players, options, seed)
    thresholds = thresholds_for(game_id)
    judge = Judge(budget, time_cap, stop, str(seed))
    moves: list[ReviewedMove] = []
    evaluation: list[tuple[float, ...]] = []
    for index, (seat, action) in enumerate(actions):
        version = index + 1 if versions is None else versions[index]
        move, rewards = judge.move(state, index, seat, action, version, thresholds)
        moves.append(move)
        evaluation.append(rewards)
        state.play(seat, action)
        if progress is not None:
            progress(index + 1, len(actions))
    if state.is_over():
        evaluation.append(tuple(state.rewards()))
    elif result is not None:
        evaluation.append(tuple(result.rewards()))
    else:
        evaluation.append(judge.position(state, len(actions), judge.budget))
    return Review(match, budget, time_cap, thresholds, tuple(moves), tuple(evaluation), summaries(players, moves))


@dataclass(frozen=True)
class Judge:
    """Judges positions of one match at one budget."""

    budget: int
    time_cap: float | None
    stop: Callable[[], bool] | None
    seed: str

    def move(
        self, state: GameState, index: int, seat: int, action: Action, version: int, thresholds: Thresholds
    ) -> tuple[ReviewedMove, tuple[float, ...]]:
        """The move judged, and every seat's expected reward in the position before it."""
        if forced(state, seat):
            rewards = self.position(state, index, max(1, self.budget // FORCED_SHARE), seat)
            value = rewards[seat]
            return ReviewedMove(version, seat, action, action, value, value, 0.0, None, True), rewards
        judged = evaluate(
            state,
            seat,
            self.budget,
            f"review:{self.seed}:{index}",
            time_cap=self.time_cap,
            stop=self.stop,
            full_information=True,
            race=False,
        )
        best = judged.judged[0].move
        played = judged.find(state, action)
        if played is not None and (played.move.exact or played.move.visits >= PLAYED_VISITS):
            value_played = played.move.value
        else:
            after = state.clone()
            after.play(seat, action)
            value_played = self.position(after, index, max(1, self.budget // 2))[seat]
        loss = max(0.0, best.value - value_played)
        kind = thresholds.classify(loss)
        reviewed = ReviewedMove(version, seat, action, best.action, value_played, best.value, loss, kind, False)
        return reviewed, judged.rewards()

    def position(self, state: GameState, index: int, budget: int, seat: int | None = None) -> tuple[float, ...]:
        """Every seat's expected reward in a position: the rewards at the end, else after the best move of its
        mover (`seat`, or the first seat the game waits for)."""
        if state.is_over():
            return tuple(state.rewards())
        mover = seat if seat is not None else (state.waiting_for() or state.acting_seats())[0]
        judged = evaluate(
            state,
            mover,
            budget,
            f"review:{self.seed}:{index}:position",
            time_cap=self.time_cap,
            stop=self.stop,
            full_information=True,
            race=False,
        )
        return judged.rewards()


def forced(state: GameState, seat: int) -> bool:
    """True when the seat has exactly one legal action (a space too large to list is never forced)."""
    try:
        return len(state.legal_actions(seat)) == 1
    except TooManyActions:
        return False


def move_accuracy(loss: float) -> float:
    """Lichess's accuracy of one move from its loss on the reward scale (a drop of 50 * loss win-percent points)."""
    drop = 50.0 * loss
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * drop) - 3.1669))


def summaries(players: int, moves: Sequence[ReviewedMove]) -> tuple[SeatReview, ...]:
    """Each seat's accuracy and counts of classed moves."""
    seats = []
    for seat in range(players):
        mine = [move for move in moves if move.seat == seat and not move.forced]
        accuracy = round(sum(move_accuracy(move.loss) for move in mine) / len(mine), 1) if mine else None
        seats.append(
            SeatReview(
                seat,
                accuracy,
                sum(move.kind == INACCURACY for move in mine),
                sum(move.kind == MISTAKE for move in mine),
                sum(move.kind == BLUNDER for move in mine),
            )
        )
    return tuple(seats)
