"""Freeze Factory knowledge: slides that matter, short playouts, and a score from cones and distances.

Random Freeze Factory games last thousands of actions and random slides almost never line up a
cone, so random playouts say nothing. Instead:

* Candidates: in the moving phase a seat considers fulfilling, ending its turn, and sliding the
  tiles of the cones in its hand or a tile that stands where such a cone's nearest line would
  go; claims and the roll choice are all considered.
* Playouts fulfil or claim whatever they can, never roll and never slide (after a rolled symbol
  they take the cone), and stop when the turn they started in is over: the tree does the sliding,
  the score judges where it left the board.
* The score of a seat is its fulfilled cones plus a little for how close its best cones in hand
  are to a line (`cone_distance`: slides needed, counting wrap-around pushes and ignoring that
  tiles block the way, plus one per foreign tile on the line); a seat's reward is its lead over
  the best other seat, squashed into (-1, 1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ai.knowledge import Knowledge
from engine.freeze_factory import FreezeFactoryState
from engine.freeze_factory.board import DIRECTIONS, segments, slide_target
from engine.freeze_factory.components import CONES, NO_ROLL_POINTS, SIZE
from engine.freeze_factory.game import EXTRA_CONE, MOVE, ROLL

if TYPE_CHECKING:
    from engine.freeze_factory.board import Board
    from engine.protocol import Action, GameState
    from engine.rng import Rng

LINES = segments(SIZE)
"""Every placement of a line of three (the engine's): rows and columns, never across the edge."""


def wrapped(a: int, b: int) -> int:
    """Steps between two coordinates on a ring of SIZE (pushing off one edge lands on the other)."""
    return min(abs(a - b), SIZE - abs(a - b))


STEPS: tuple[tuple[int, ...], ...] = tuple(
    tuple(wrapped(a // SIZE, b // SIZE) + wrapped(a % SIZE, b % SIZE) for b in range(SIZE * SIZE))
    for a in range(SIZE * SIZE)
)
"""Slides from one space to another on an empty board (a torus)."""

PROGRESS = 0.6
"""What a cone in hand that already stands in a line is worth, in cones."""
DECAY = 0.75
"""The worth of a cone in hand shrinks by this factor per slide it still needs."""
SECOND_CONE = 0.3
"""The second-closest cone in hand counts this much of its worth."""
LEAD_SCALE = 3.0
"""A lead of this many cones is worth tanh(1) of a win."""


DISTANCES: dict[tuple[tuple[int | None, ...], int], tuple[int, tuple[int, ...]]] = {}
"""`cone_distance` of (board, cone) already computed in this process (cleared when it grows large)."""
CACHE_LIMIT = 50_000
"""Entries a cache holds before it is emptied (a few tens of megabytes)."""
CANDIDATES_LIMIT = 10_000
PLAN_LIMIT = 20_000
"""Boards `line_up_plan` tries before it gives up."""
CANDIDATES: dict[tuple[tuple[int | None, ...], tuple[int, ...]], list[Action]] = {}
"""`helpful_slides` by (board, hand) (cleared when it grows large)."""


def cone_distance(board: Board, cone: int) -> tuple[int, tuple[int, ...]]:
    """Slides a cone needs to stand in a line (see the module) and the foreign-held spaces of that line."""
    key = (tuple(board), cone)
    found = DISTANCES.get(key)
    if found is None:
        if len(DISTANCES) >= CACHE_LIMIT:
            DISTANCES.clear()
        found = DISTANCES[key] = _cone_distance(board, cone)
    return found


def _cone_distance(board: Sequence[int | None], cone: int) -> tuple[int, tuple[int, ...]]:
    """`cone_distance`, computed."""
    flavours = CONES[cone]
    foreign = [flavour is not None and flavour not in flavours for flavour in board]
    a, b, c = (STEPS[space] for space, flavour in enumerate(board) if flavour in flavours)
    best, where = 1 << 30, LINES[0]
    for line in LINES:
        x, y, z = line
        cost = foreign[x] + foreign[y] + foreign[z]
        cost += min(
            a[x] + b[y] + c[z],
            a[x] + b[z] + c[y],
            a[y] + b[x] + c[z],
            a[y] + b[z] + c[x],
            a[z] + b[x] + c[y],
            a[z] + b[y] + c[x],
        )
        if cost < best:
            best, where = cost, line
    return best, tuple(space for space in where if foreign[space])


def in_line(board: Sequence[int | None], cone: int) -> bool:
    """True if the cone's three flavours stand in a line of three (what `fulfillable` asks, without `lines`)."""
    first, middle, last = (space for space, flavour in enumerate(board) if flavour in CONES[cone])
    if last - first == 2:
        return first // SIZE == last // SIZE
    return middle - first == SIZE and last - middle == SIZE


def laid(state: FreezeFactoryState, seat: int) -> list[Action]:
    """The cones the seat can lay face up now: its fulfils (on its turn), then its FREEZE! claims."""
    fulfils: list[Action] = [{"type": "fulfil", "cone": c} for c in state.fulfillable()] if seat == state.active else []
    return [*fulfils, *({"type": "freeze", "cone": c} for c in state.claimable(seat))]


def line_up_plan(board: Board, hand: list[int], points: int) -> list[tuple[int, str]] | None:
    """The fewest slides, at most `points`, after which a cone of the hand stands in a line.

    A breadth-first search over every tile's slides, pruned where even `cone_distance` (a lower
    bound: each slide moves one tile one step, and a foreign tile on the line must move at least
    once) exceeds the points left. None if no such plan exists or `PLAN_LIMIT` boards were tried.
    """
    if not hand or min(_cone_distance(board, cone)[0] for cone in hand) > points:
        return None
    frontier: list[tuple[Board, tuple[tuple[int, str], ...]]] = [(list(board), ())]
    seen = {tuple(board)}
    for depth in range(1, points + 1):
        following = []
        for current, path in frontier:
            for space, flavour in enumerate(current):
                if flavour is None:
                    continue
                for direction in DIRECTIONS:
                    target, _ = slide_target(current, SIZE, space, direction)
                    if target is None:
                        continue
                    child = list(current)
                    child[target], child[space] = flavour, None
                    key = tuple(child)
                    if key in seen:
                        continue
                    seen.add(key)
                    steps = (*path, (space, direction))
                    if any(in_line(child, cone) for cone in hand if flavour in CONES[cone]):
                        return list(steps)
                    if len(seen) > PLAN_LIMIT:
                        return None
                    left = points - depth
                    if left and min(_cone_distance(child, cone)[0] for cone in hand) <= left:
                        following.append((child, steps))
        frontier = following
    return None


def helpful_slides(board: Board, hand: list[int]) -> list[Action]:
    """Slides of the hand's tiles and of the tiles standing on their nearest lines (any slide if none)."""
    key = (tuple(board), tuple(hand))
    found = CANDIDATES.get(key)
    if found is None:
        if len(CANDIDATES) >= CANDIDATES_LIMIT:
            CANDIDATES.clear()
        spaces: set[int] = set()
        for cone in hand:
            spaces.update(space for space, flavour in enumerate(board) if flavour in CONES[cone])
            spaces.update(cone_distance(board, cone)[1])
        found = CANDIDATES[key] = slides_of(board, spaces) or slides_of(board, set(range(SIZE * SIZE)))
    return found


def hand_worth(board: Board, hand: list[int]) -> float:
    """What a hand of cones is worth, in cones, from their distances to a line."""
    worths = sorted((PROGRESS * DECAY ** cone_distance(board, cone)[0] for cone in hand), reverse=True)
    return sum(worth * (1.0 if i == 0 else SECOND_CONE) for i, worth in enumerate(worths[:2]))


def slides_of(board: Board, spaces: set[int]) -> list[Action]:
    """Every legal one-step slide of the tiles on these spaces."""
    return [
        {"type": "slide", "space": list(divmod(space, SIZE)), "direction": direction}
        for space in sorted(spaces)
        if board[space] is not None
        for direction in DIRECTIONS
        if slide_target(board, SIZE, space, direction)[0] is not None
    ]


class FreezeFactoryKnowledge(Knowledge):
    """See the module."""

    def candidates(self, state: GameState, seat: int, rng: Rng, samples: int) -> list[Action]:
        """Claims, the roll and extra-cone choices, fulfils, end of turn and slides that can help the seat's cones."""
        assert isinstance(state, FreezeFactoryState)
        if seat != state.active or state.outcome or state.phase != MOVE:
            return state.legal_actions(seat)
        fulfils: list[Action] = [{"type": "fulfil", "cone": cone} for cone in state.fulfillable()]
        slides = helpful_slides(state.board, state.hands[seat]) if state.points_left else []
        return [*fulfils, *slides, {"type": "end_turn"}]

    def key(self, action: Action) -> str:
        """A short text per action: `slide` with space and direction, the kind and cone, or the kind."""
        kind = action["type"]
        if kind == "slide":
            row, column = action["space"]
            return f"slide{row}{column}{action['direction']}"
        return f"{kind}{action['cone']}" if "cone" in action else str(kind)

    def obvious(self, state: GameState, seat: int) -> Action | None:
        """Line up a cone this turn when that can be done: fulfil it, or take the first step of the shortest plan.

        Before the roll that means not rolling when the sure 3 points suffice. Nothing is obvious
        when lining up the seat's last cone would end the game (the pile is empty) without the
        seat ahead: the search weighs that. After a rolled symbol the extra cone is taken unless it
        is the pile's last (then the search weighs whether emptying the pile helps a rival end it).
        """
        assert isinstance(state, FreezeFactoryState)
        if seat != state.active or state.outcome:
            return None
        if state.phase == EXTRA_CONE:
            return {"type": "take_cone"} if len(state.pile) > 1 else None
        hand = state.hands[seat]
        ends = len(hand) == 1 and not state.pile
        wins = all(
            len(state.fulfilled[seat]) + 1 > len(theirs)
            for other, theirs in enumerate(state.fulfilled)
            if other != seat
        )
        if ends and not wins:
            return None
        cones = laid(state, seat)
        if cones:
            return cones[0]
        rolling = state.phase == ROLL
        plan = line_up_plan(state.board, hand, NO_ROLL_POINTS if rolling else state.points_left)
        if plan is None:
            return None
        if rolling:
            return {"type": "no_roll"}
        space, direction = plan[0]
        return {"type": "slide", "space": list(divmod(space, SIZE)), "direction": direction}

    def playout_action(self, state: GameState, seat: int, rng: Rng) -> Action:
        """Fulfil or claim if possible, else no roll, the extra cone and no slide: end the turn."""
        assert isinstance(state, FreezeFactoryState)
        cones = laid(state, seat)
        if cones:
            return cones[0]
        return {ROLL: {"type": "no_roll"}, EXTRA_CONE: {"type": "take_cone"}}.get(state.phase, {"type": "end_turn"})

    def playout_mark(self, state: GameState) -> int:
        """The turn the playout starts in."""
        assert isinstance(state, FreezeFactoryState)
        return state.turn

    def cut_off(self, state: GameState, mark: int, steps: int) -> bool:
        """Stop when that turn is over."""
        assert isinstance(state, FreezeFactoryState)
        return state.turn > mark or steps >= 50

    def evaluate(self, state: GameState) -> list[float]:
        """Each seat's lead in cones (fulfilled, plus the worth of its hand) over the best other seat, squashed."""
        assert isinstance(state, FreezeFactoryState)
        scores = [
            len(cones) + hand_worth(state.board, hand) for cones, hand in zip(state.fulfilled, state.hands, strict=True)
        ]
        return [
            math.tanh((score - max(s for other, s in enumerate(scores) if other != seat)) / LEAD_SCALE)
            for seat, score in enumerate(scores)
        ]


KNOWLEDGE = FreezeFactoryKnowledge()
"""What the search knows of the game (found by `ai.knowledge.knowledge_for`)."""
