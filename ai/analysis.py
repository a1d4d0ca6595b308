"""Analysis of a position: a seat's best moves, each with its value, win chance and principal line.

Two ways to judge a position, the exact one first:

* **Exact** (`exact=True`), where the project has a solver:
  - IceCream, from the stored solution (`ai.perfect.solution_for`): every legal move's value is the
    solver's win, draw or loss for the mover, value 1, 0 or -1 (the engine's rewards), win probability
    1, 0.5 or 0 (a draw is half a win, as the search counts it below). The moves are ordered by the
    solver's own preference (a win soonest, a draw, a loss latest; a stack now first), so the first is
    `Solution.best_action`; the line is the solver's play after the move (both sides perfect).
  - Rock'em Sock'em in rounds mode, a racer choosing which dice to keep: every distinct keep (by the
    dice classes it holds, shown as its lowest-numbered dice) with its exact chance to win the round's
    race, `ai.rockem_race.keep_chances` (match strictly first, a simultaneous match a half, against
    an opponent racing `fastest_keep` from its visible dice; a keep already sent is never read). The
    value is 2p - 1 on the same scale. This is the round, not the game: a keep decides only its race,
    and a later round starts from fresh dice whatever is kept now. Realtime mode, the flip and a
    round's first roll are searched.
* **Search**: information-set MCTS (`ai.ismcts.Tree`) with the game's knowledge, as the levels play.
  `value` is the seat's mean reward through the root edge (the engine's [-1, 1] rewards, or the
  knowledge's score where a playout is cut off), `visits` its visits, and `win_probability` the
  share of the iterations through it that the seat won, counted at backup (`win_shares`): at the
  end of a game 1 / (number of winners) for a winner, 0 otherwise (a two-player draw is half a win);
  where a playout is cut off, for two seats (r + 1) / 2 of the seat's score r (the knowledge's
  scores are P(win) - P(loss) estimates; exact in Rock'em), for more seats a share of the lead.
  For two seats it is therefore (value + 1) / 2. Co-operative games have no winner among the seats:
  None. Moves are listed best value first (ties: more visits) among the edges with at least
  `LISTED_SHARE` of the most visited edge's visits (fewer is too few to judge); the line follows the
  most visited edges down the tree, each with its mover, skipping a seat's PASS of a claim window.

What is searched:

* `full_information=False` (a seat asking, or a client's position): every iteration is a fresh
  `state.determinize(seat, rng)`, so nothing the seat cannot see is read, and two states the seat
  cannot tell apart get the same analysis for one seed. A line's moves that depend on hidden cards (another
  seat's card played) come from the worlds sampled, not from anyone's real hand.
* `full_information=True` (the public analysis of a finished match): every iteration keeps the whole
  deal (every hand, pile contents, removed cards, keeps already sent) and draws only the future afresh:
  a new RNG for dice and coin, and the draw piles named in `FUTURE_DECKS` shuffled, since their order
  is chance still to come that nobody knew. A game not listed there keeps its piles' order.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict

from ai.icecream_solver import move as moved
from ai.icecream_solver import stacked_flavour
from ai.ismcts import IsmctsAgent, Node, Tree
from ai.knowledge import knowledge_for
from ai.perfect import solution_for
from ai.rockem_race import keep_chances
from engine.icecream import IceCreamState
from engine.protocol import action_text
from engine.registry import get_game
from engine.rng import Rng
from engine.rockem_sockem import RockemSockemState
from engine.rockem_sockem.game import RACE, ROUNDS

if TYPE_CHECKING:
    from ai.ismcts import Edge
    from engine.protocol import Action, GameState

TOP = 5
"""Moves an analysis lists at most."""
LINE_PLIES = 10
"""Moves of a principal line at most."""
LISTED_SHARE = 0.1
"""A searched move is listed only with at least this share of the most visited move's visits."""
SPLIT_SAMPLES = IsmctsAgent.split_samples
"""Actions drawn where a seat has too many to list (as the levels do)."""
FUTURE_DECKS: dict[str, tuple[str, ...]] = {
    "freeze_factory": ("pile",),
    "sundae_split": ("deck",),
    "robots_love_ice_cream": ("ice_deck", "robot_deck", "boost_deck"),
}
"""Per game, the state's draw piles whose order is future chance, shuffled in a full-information world."""


class LineStepJson(TypedDict):
    """One move of a principal line."""

    seat: int
    action: Action


class MoveLineJson(TypedDict):
    """One candidate move as JSON."""

    action: Action
    visits: int
    value: float
    win_probability: float | None
    line: list[LineStepJson]
    exact: bool


class AnalysisJson(TypedDict):
    """An analysis as JSON: `{"seat","exact","iterations","moves":[...]}`."""

    seat: int
    exact: bool
    iterations: int
    moves: list[MoveLineJson]


@dataclass(frozen=True)
class MoveLine:
    """One candidate move of the analysed seat, with its value, win chance and the principal line after it."""

    action: Action
    visits: int
    value: float
    win_probability: float | None
    line: tuple[tuple[int, Action], ...]
    exact: bool

    def to_json(self) -> MoveLineJson:
        """The JSON form."""
        return {
            "action": self.action,
            "visits": self.visits,
            "value": self.value,
            "win_probability": self.win_probability,
            "line": [{"seat": seat, "action": action} for seat, action in self.line],
            "exact": self.exact,
        }


@dataclass(frozen=True)
class Analysis:
    """The analysed seat's best moves (up to `TOP`, best value first), the iterations searched, whether exact."""

    seat: int
    moves: tuple[MoveLine, ...]
    iterations: int
    exact: bool

    def to_json(self) -> AnalysisJson:
        """The JSON form."""
        return {
            "seat": self.seat,
            "exact": self.exact,
            "iterations": self.iterations,
            "moves": [move.to_json() for move in self.moves],
        }


@dataclass(frozen=True)
class Judged:
    """One candidate as a solver or the search judged it: its move line and every seat's expected reward after it."""

    move: MoveLine
    rewards: tuple[float, ...]
    key: str
    """The candidate's identity for the game's knowledge (`Knowledge.key`), to find a played move among them."""


@dataclass(frozen=True)
class Evaluation:
    """A position judged for a seat: every judged candidate, best first; what `analyse` lists the first few of."""

    seat: int
    judged: tuple[Judged, ...]
    iterations: int
    exact: bool
    listed: int = TOP
    """How many of `judged` the analysis lists (the search lists only moves visited enough)."""

    def analysis(self, top: int = TOP) -> Analysis:
        """The analysis: the first `top` listed moves."""
        shown = self.judged[: min(top, self.listed)]
        return Analysis(self.seat, tuple(judged.move for judged in shown), self.iterations, self.exact)

    def rewards(self) -> tuple[float, ...]:
        """Every seat's expected reward in this position: after the seat's best move."""
        return self.judged[0].rewards

    def find(self, state: GameState, action: Action) -> Judged | None:
        """The judged candidate that is this action of the seat, if any was judged."""
        key = knowledge_for(state.game_id).key(action)
        text = action_text(action)
        for judged in self.judged:
            if judged.key == key or action_text(judged.move.action) == text:
                return judged
        return None


Progress = Callable[[Analysis], None]
"""Told the analysis so far as the search deepens."""


def analyse(
    state: GameState,
    seat: int,
    budget: int,
    seed: int | str,
    *,
    time_cap: float | None = None,
    stop: Callable[[], bool] | None = None,
    progress: Progress | None = None,
    full_information: bool = False,
    top: int = TOP,
) -> Analysis:
    """The seat's best moves (exact where a solver answers, else `budget` search iterations), best value first."""
    return evaluate(
        state,
        seat,
        budget,
        seed,
        time_cap=time_cap,
        stop=stop,
        progress=progress,
        full_information=full_information,
        top=top,
    ).analysis(top)


def evaluate(
    state: GameState,
    seat: int,
    budget: int,
    seed: int | str,
    *,
    time_cap: float | None = None,
    stop: Callable[[], bool] | None = None,
    progress: Progress | None = None,
    full_information: bool = False,
    top: int = TOP,
    race: bool = True,
) -> Evaluation:
    """Every candidate of the seat judged (see the module); `race=False` searches Rock'em's keeps, not the race."""
    if state.is_over():
        raise ValueError("the game is over: there is no move to analyse")
    if seat not in state.acting_seats():
        raise ValueError(f"seat {seat} may not act now; seats to act: {list(state.acting_seats())}")
    exact = exact_evaluation(state, seat, top, race)
    if exact is not None:
        if progress is not None:
            progress(exact.analysis(top))
        return exact
    return search_evaluation(state, seat, budget, seed, time_cap, stop, progress, full_information, top)


# --- exact answers ---------------------------------------------------------------------------


def exact_evaluation(state: GameState, seat: int, top: int = TOP, race: bool = True) -> Evaluation | None:
    """The exact judgement of the seat's moves where a solver has one (see the module), else None."""
    if isinstance(state, IceCreamState):
        return icecream_evaluation(state, seat, top)
    if race and isinstance(state, RockemSockemState):
        return race_evaluation(state, seat)
    return None


def icecream_evaluation(state: IceCreamState, seat: int, top: int) -> Evaluation:
    """Every legal IceCream move with the solver's win, draw or loss, in the solver's order of preference."""
    solution = solution_for(state.options["turn_limit"])
    cones, turn, left = solution.check(state), state.turn, state.points_left
    ranked: list[tuple[tuple[int, bool], int, Action]] = []
    for index, action in enumerate(state.legal_actions(seat)):
        cone, scoops = action["from_cone"], action["scoops"]
        stacks = bool(stacked_flavour(moved((cones[0], cones[1]), cone, scoops)))
        ranked.append(((solution.after(cones, turn, left, cone, scoops), stacks), -index, action))
    ranked.sort(key=lambda item: (item[0], item[1]), reverse=True)
    judged = []
    for place, ((score, _), _, action) in enumerate(ranked):
        value = float((score > 0) - (score < 0))
        line = icecream_line(state, seat, action) if place < top else ()
        rewards = (value, 0.0 - value) if seat == 0 else (0.0 - value, value)  # 0.0 - 0.0 is 0.0, not -0.0
        move = MoveLine(action, 0, value, (value + 1) / 2, line, True)
        judged.append(Judged(move, rewards, knowledge_for(state.game_id).key(action)))
    return Evaluation(seat, tuple(judged), 0, True, len(judged))


def icecream_line(state: IceCreamState, seat: int, action: Action) -> tuple[tuple[int, Action], ...]:
    """The solver's play after a move, both sides perfect, up to `LINE_PLIES` moves or the game's end."""
    solution = solution_for(state.options["turn_limit"])
    after = state.clone()
    after.apply_trusted(seat, action)
    line: list[tuple[int, Action]] = []
    while not after.is_over() and len(line) < LINE_PLIES:
        mover = after.to_move
        best = solution.best_action(after)
        line.append((mover, best))
        after.apply_trusted(mover, best)
    return tuple(line)


def race_evaluation(state: RockemSockemState, seat: int) -> Evaluation | None:
    """Every distinct keep of a racer in rounds mode with its exact chance to win the round's race; None otherwise."""
    dice = state.corners[seat].dice
    if state.options["mode"] != ROUNDS or state.phase != RACE or state.coin is None or dice is None:
        return None
    chances = keep_chances(state.coin, dice, state.corners[1 - seat].dice)
    order = sorted(range(len(chances)), key=lambda i: (-chances[i][1], i))
    key = knowledge_for(state.game_id).key
    judged = []
    for i in order:
        keep, chance = chances[i]
        value = 2 * chance - 1
        action: Action = {"type": "roll", "keep": keep}
        rewards = (value, 0.0 - value) if seat == 0 else (0.0 - value, value)  # 0.0 - 0.0 is 0.0, not -0.0
        judged.append(Judged(MoveLine(action, 0, value, chance, (), True), rewards, key(action)))
    return Evaluation(seat, tuple(judged), 0, True, len(judged))


# --- search ----------------------------------------------------------------------------------


def full_world(state: GameState, rng: Rng) -> GameState:
    """The whole deal of `state` with the future drawn afresh: a new RNG and the `FUTURE_DECKS` shuffled."""
    world = state.clone()
    world.rng = Rng(rng.next_u64())
    for name in FUTURE_DECKS.get(state.game_id, ()):
        rng.shuffle(getattr(world, name))
    return world


def win_shares(world: GameState, rewards: list[float]) -> list[float]:
    """Each seat's share of the win where an iteration ended (see the module)."""
    players = len(rewards)
    result = world.result()
    if result is not None:
        winners = result.winners
        return [1.0 / len(winners) if seat in winners else 0.0 for seat in range(players)]
    if players == 2:
        return [(reward + 1.0) / 2.0 for reward in rewards]
    lead = max(rewards)
    leaders = [seat for seat, reward in enumerate(rewards) if reward == lead]
    return [1.0 / len(leaders) if seat in leaders else 0.0 for seat in range(players)]


@dataclass
class Search:
    """One analysis search: its tree, the worlds it iterates in, and how to judge the root's edges."""

    tree: Tree
    sample: Callable[[], GameState]
    players: int
    cooperative: bool
    key_of: Callable[[Action], str] = field(repr=False)
    iterations: int = 0

    def judge(self, top: int = TOP) -> Evaluation:
        """Every visited root edge judged: those visited enough to list first, each part best value first (ties:
        visits, then candidate order); the first `top` listed with their principal lines."""
        seat = self.tree.seat
        edges = [
            (index, edge)
            for index, (key, _) in enumerate(self.tree.root_options)
            if (edge := self.tree.root.edges.get(key)) is not None and edge.visits
        ]
        most = max((edge.visits for _, edge in edges), default=0)
        edges.sort(
            key=lambda item: (item[1].visits < LISTED_SHARE * most, -item[1].mean(seat), -item[1].visits, item[0])
        )
        listed = sum(1 for _, edge in edges if edge.visits >= LISTED_SHARE * most)
        judged = []
        for place, (_, edge) in enumerate(edges):
            assert edge.action is not None, "a root option is never a PASS"
            rewards = tuple(edge.mean(s) for s in range(self.players))
            chance = None if self.cooperative or not edge.credits else edge.credits[seat] / edge.visits
            line = principal_line(edge.child) if place < min(top, listed) else ()
            move = MoveLine(edge.action, edge.visits, rewards[seat], chance, line, False)
            judged.append(Judged(move, rewards, self.key_of(edge.action)))
        return Evaluation(seat, tuple(judged), self.iterations, False, listed)


def principal_line(node: Node | None) -> tuple[tuple[int, Action], ...]:
    """The most visited edges down from a node (ties: the mover's better mean), PASSes skipped."""
    line: list[tuple[int, Action]] = []
    while node is not None and len(line) < LINE_PLIES:
        edges = [edge for edge in node.edges.values() if edge.visits]
        if not edges:
            break
        edge: Edge = max(edges, key=lambda e: (e.visits, e.mean(e.mover)))
        if edge.action is not None:
            line.append((edge.mover, edge.action))
        node = edge.child
    return tuple(line)


def search_evaluation(
    state: GameState,
    seat: int,
    budget: int,
    seed: int | str,
    time_cap: float | None,
    stop: Callable[[], bool] | None,
    progress: Progress | None,
    full_information: bool,
    top: int,
) -> Evaluation:
    """`budget` iterations of ISMCTS for the seat (fewer if `time_cap` or `stop()` ends it), reported as it deepens."""
    deadline = None if time_cap is None else time.perf_counter() + time_cap
    search = plant(state, seat, seed, full_information)
    report = 1
    for done in range(max(1, budget)):
        if done and ((deadline is not None and time.perf_counter() >= deadline) or (stop is not None and stop())):
            break
        search.tree.iterate(search.sample())
        search.iterations = done + 1
        if progress is not None and search.iterations == report:
            progress(search.judge(top).analysis(top))
            report *= 2
    evaluation = search.judge(top)
    if progress is not None and search.iterations != report // 2:
        progress(evaluation.analysis(top))
    return evaluation


def plant(state: GameState, seat: int, seed: int | str, full_information: bool) -> Search:
    """A fresh search of the seat's moves: its root candidates come from the first world sampled."""
    rng = Rng.from_seed(f"analysis:{seed}")
    knowledge = knowledge_for(state.game_id)

    def sample() -> GameState:
        return full_world(state, rng) if full_information else state.determinize(seat, rng)

    candidates = knowledge.candidates(sample(), seat, rng, SPLIT_SAMPLES)
    if not candidates:
        raise ValueError(f"seat {seat} has no legal action")
    game = get_game(state.game_id)
    cooperative = game is not None and game.info.cooperative
    tree = Tree(
        seat,
        seat not in state.waiting_for(),
        [(f"{seat}:{knowledge.key(action)}", action) for action in candidates],
        knowledge,
        rng,
        knowledge.exploration,
        SPLIT_SAMPLES,
        credit=None if cooperative else win_shares,
    )
    return Search(tree, sample, state.players, cooperative, knowledge.key)
