"""IceCream rules: every rule of ../shared/rules/icecream.txt.

A turn is a series of moves. Each move takes the top `scoops` scoops of one cone to the top of
the other, in order, and costs that many movement points; the turn ends when its points are
spent. The win is checked after every single move.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from engine.errors import CorruptState, IllegalAction, ViewMismatch
from engine.info import Assumption, GameInfo
from engine.options import OptionSet, OptionSpec
from engine.protocol import Action, Game, GameState, View
from engine.result import Result
from engine.rng import Rng
from engine.view_reading import whole

DATA: dict[str, Any] = json.loads(resources.files(__package__).joinpath("data.json").read_text())
FLAVOUR_NAMES: dict[str, str] = DATA["flavours"]
START_CONES: tuple[str, ...] = tuple(DATA["cones"])
FIXED_BOTTOM: int = DATA["fixed_bottom_scoops"]
STACK_SIZE = 4  # "all four scoops of one flavor ... in a consecutive stack"

OPTIONS = OptionSet(
    (
        OptionSpec(
            "first_player_flavour",
            "choice",
            "yellow",
            "The flavour of seat 0, who moves first; seat 1 takes the other.",
            choices=("yellow", "green"),
        ),
        OptionSpec(
            "turn_limit",
            "int",
            0,
            "End as a draw after this many turns without a winner; 0 means no limit.",
            minimum=0,
            maximum=10_000,
        ),
    )
)

INFO = GameInfo(
    id="icecream",
    name="IceCream",
    min_players=2,
    max_players=2,
    summary="Move scoops between two cones with ever more movement points; stack all four of your flavour.",
    information="perfect",
    chance=False,
    cooperative=False,
    simultaneous=False,
    min_utility=0,  # a loss or a draw scores 0
    max_utility=1,  # the winner scores 1
    max_game_length=None,  # without turn_limit the scoops may go back and forth for ever (assumption turn-limit)
    options=OPTIONS,
    assumptions=tuple(Assumption.from_json(a) for a in DATA["assumptions"]),
)


def seat_flavours(first_player_flavour: str) -> tuple[str, str]:
    """The flavour letter of seat 0 and of seat 1."""
    return ("Y", "G") if first_player_flavour == "yellow" else ("G", "Y")


class IceCreamState(GameState):
    """Two cones (bottom to top), the turn number, the points left and who moves."""

    game_id = "icecream"

    def __init__(
        self,
        options: dict[str, Any],
        rng: Rng,
        cones: list[str],
        turn: int = 1,
        points_left: int = 1,
        to_move: int = 0,
        outcome: Result | None = None,
    ) -> None:
        self.players = 2
        self.options = options
        self.rng = rng
        self.cones = cones
        self.turn = turn
        self.points_left = points_left
        self.to_move = to_move
        self.outcome = outcome

    # --- whose move -------------------------------------------------------------------------
    def acting_seats(self) -> tuple[int, ...]:
        """The player to move, or nobody once the game is over."""
        return () if self.outcome else (self.to_move,)

    def points_this_turn(self) -> int:
        """'The first player gets one movement point', then one more each turn than the last."""
        return self.turn

    def movable_scoops(self, cone: int) -> int:
        """'The bottommost red pieces, if present, cannot be moved.'"""
        return len(self.cones[cone]) - FIXED_BOTTOM

    # --- what may be done -------------------------------------------------------------------
    def legal_actions(self, seat: int) -> list[Action]:
        """Every (cone, number of scoops) move the points left allow."""
        if self.outcome or seat != self.to_move:
            return []
        return [
            {"type": "move", "from_cone": cone, "scoops": scoops}
            for cone in (0, 1)
            for scoops in range(1, min(self.points_left, self.movable_scoops(cone)) + 1)
        ]

    def default_action(self, seat: int) -> Action:
        """One scoop from the cone with more movable scoops (cone 0 on a tie): burning a point.

        'A single movement point can be spent to move the top scoop of one cone to the top of the
        other cone'; 'It is completely legal to move one piece or stack back and forth to burn
        movement points.' A waited-for seat has a point left, and the fuller cone holds at least
        five movable scoops (see assumption timeout-default-action).
        """
        cone = 0 if self.movable_scoops(0) >= self.movable_scoops(1) else 1
        return {"type": "move", "from_cone": cone, "scoops": 1}

    def sample_action(self, seat: int, rng: Rng) -> Action:
        """A random legal move, without building the whole list."""
        return rng.choice(self.legal_actions(seat))

    def check_action(self, seat: int, action: Action) -> None:
        """Refuse anything but a move of 1..points-left scoops that the cone holds."""
        if set(action) != {"type", "from_cone", "scoops"} or action.get("type") != "move":
            raise IllegalAction('an IceCream action is {"type": "move", "from_cone": 0 or 1, "scoops": n}')
        cone, scoops = action["from_cone"], action["scoops"]
        # Only the ints 0 and 1: 1.0 == 1 and True == 1 would pass a plain `in (0, 1)` and
        # then fail as list indices, and an action has one canonical form.
        if type(cone) is not int or cone not in (0, 1):
            raise IllegalAction("from_cone must be 0 or 1: there are two cones")
        if not isinstance(scoops, int) or isinstance(scoops, bool) or scoops < 1:
            raise IllegalAction("scoops must be a whole number of at least 1")
        if scoops > self.points_left:
            raise IllegalAction(
                f"moving {scoops} scoops costs {scoops} movement points and only {self.points_left} are left "
                "('X movement points can be spent to move the top X scoops')"
            )
        if scoops > self.movable_scoops(cone):
            raise IllegalAction(
                f"cone {cone} has only {self.movable_scoops(cone)} movable scoops "
                "('The bottommost red pieces, if present, cannot be moved')"
            )

    # --- changing the state -----------------------------------------------------------------
    def apply_trusted(self, seat: int, action: Action) -> None:
        """Move the scoops, check for a win, and pass the turn when the points are spent."""
        source, scoops = action["from_cone"], action["scoops"]
        moving = self.cones[source][-scoops:]
        self.cones[source] = self.cones[source][:-scoops]
        self.cones[1 - source] += moving
        self.points_left -= scoops
        self.outcome = self._winner_after_move(seat)
        if self.outcome is None and self.points_left == 0:
            self._end_turn()

    def _end_turn(self) -> None:
        """'each turn one more than the last'; the turn limit, if set, draws the game."""
        limit = self.options["turn_limit"]
        if limit and self.turn >= limit:
            self.outcome = Result.ranked_by_score([0, 0], f"turn limit of {limit} reached without a winner")
            return
        self.turn += 1
        self.points_left = self.points_this_turn()
        self.to_move = 1 - self.to_move

    def stacked_flavours(self) -> set[str]:
        """Flavours whose four scoops stand consecutively in one cone."""
        return {
            flavour
            for flavour in seat_flavours(self.options["first_player_flavour"])
            if any(flavour * STACK_SIZE in cone for cone in self.cones)
        }

    def _winner_after_move(self, mover: int) -> Result | None:
        """'When all four scoops of one flavor are in a consecutive stack, the player who chose that flavor wins'."""
        stacked = self.stacked_flavours()
        if not stacked:
            return None
        flavours = seat_flavours(self.options["first_player_flavour"])
        if len(stacked) == 1:
            winner = flavours.index(stacked.pop())
            how = "stacked their own flavour" if winner == mover else "had their flavour stacked by the opponent"
            return _won_by(winner, f"seat {winner} {how}")
        # Unreachable in play (a move makes one new adjacency); see assumption one-move-completes-both.
        return Result.ranked_by_score([0, 0], "both flavours stacked at once: a draw")

    def clone(self) -> IceCreamState:
        """A cheap copy: strings are immutable, so only the list is copied."""
        return IceCreamState(
            self.options, self.rng.clone(), list(self.cones), self.turn, self.points_left, self.to_move, self.outcome
        )

    # --- what each viewer sees --------------------------------------------------------------
    def view(self, viewer: int | None) -> View:
        """Everything but the RNG: IceCream has no hidden information."""
        flavours = seat_flavours(self.options["first_player_flavour"])
        return {
            "cones": [[FLAVOUR_NAMES[s] for s in cone] for cone in self.cones],
            "fixed_bottom_scoops": FIXED_BOTTOM,
            "flavours": [FLAVOUR_NAMES[f] for f in flavours],
            "turn": self.turn,
            "points_this_turn": self.points_this_turn(),
            "points_left": self.points_left,
            "to_move": None if self.outcome else self.to_move,
        }

    # --- storage ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The whole state as JSON."""
        return {
            "game": self.game_id,
            "options": dict(self.options),
            "rng": self.rng.state,
            "cones": list(self.cones),
            "turn": self.turn,
            "points_left": self.points_left,
            "to_move": self.to_move,
            "outcome": self.outcome.to_json() if self.outcome else None,
        }


def _won_by(winner: int, reason: str) -> Result:
    """A two-player result with one winner."""
    scores = [0, 0]
    scores[winner] = 1
    return Result.ranked_by_score(scores, reason)


# --- a state from what a seat sees -------------------------------------------------------------

LETTER: dict[str, str] = {name: code for code, name in FLAVOUR_NAMES.items()}


def state_from_view(view: View, options: dict[str, Any], rng: Rng) -> IceCreamState:
    """The position the view shows; ViewMismatch if the scoops, turn or points could not come from play."""
    cones = ["".join(LETTER[name] for name in cone) for cone in view["cones"]]
    if len(cones) != len(START_CONES) or sorted("".join(cones)) != sorted("".join(START_CONES)):
        raise ViewMismatch("the cones must hold exactly the twelve scoops the game starts with")
    if any(cone[:FIXED_BOTTOM] != start[:FIXED_BOTTOM] for cone, start in zip(cones, START_CONES, strict=True)):
        raise ViewMismatch("'The bottommost red pieces, if present, cannot be moved': each cone keeps its bottom red")
    turn, points_left, to_move = whole(view["turn"], "turn"), whole(view["points_left"], "points_left"), view["to_move"]
    if turn < 1 or points_left > turn:
        raise ViewMismatch(f"turn {turn!r} cannot have {points_left!r} movement points left")
    mover = (turn - 1) % 2  # 'The first player gets one movement point', then turns alternate
    state = IceCreamState(options, Rng(rng.next_u64()), cones, turn, points_left, mover)
    limit = options["turn_limit"]
    if limit and turn > limit:
        raise ViewMismatch(f"turn {turn} is past the turn limit of {limit}")
    if to_move is not None:
        if to_move != mover or points_left == 0 or state.stacked_flavours():
            raise ViewMismatch("a running game has its player to move, points left and no flavour stacked")
        return state
    state.outcome = _finished(state, limit)
    return state


def _finished(state: IceCreamState, limit: int) -> Result:
    """How a game the view shows as over ended: a stacked flavour, or the turn limit."""
    stacked = state.stacked_flavours()
    won = state._winner_after_move(state.to_move)  # the last move was the player's whose turn it was
    if len(stacked) == 1 and won is not None:
        return won
    if not stacked and limit and state.turn == limit and state.points_left == 0:
        return Result.ranked_by_score([0, 0], f"turn limit of {limit} reached without a winner")
    raise ViewMismatch("a game shown as over has one flavour stacked or its turn limit reached")


class IceCream(Game):
    """The IceCream game object."""

    info = INFO

    def max_game_length(self, players: int, options: dict[str, Any]) -> int | None:
        """With turn_limit L: turn t has t points and a move costs at least one, so at most 1 + 2 + ... + L moves."""
        limit: int = options["turn_limit"]
        return limit * (limit + 1) // 2 if limit else None

    def new_state_from_rng(self, players: int, options: dict[str, Any], rng: Rng) -> IceCreamState:
        """Both cones as set up; seat 0 to move with one point."""
        return IceCreamState(options, rng, list(START_CONES))

    def rebuild_from_view(
        self, view: View, seat: int, players: int, options: dict[str, Any], rng: Rng
    ) -> IceCreamState:
        """The position the view shows: it hides nothing; `turn_limit` comes from the options."""
        return state_from_view(view, options, rng)

    def state_from_json(self, data: dict[str, Any]) -> IceCreamState:
        """Read back a state written by `to_json`."""
        try:
            outcome = data["outcome"]
            return IceCreamState(
                OPTIONS.resolve(data["options"]),
                Rng(int(data["rng"])),
                [str(cone) for cone in data["cones"]],
                int(data["turn"]),
                int(data["points_left"]),
                int(data["to_move"]),
                Result.from_json(outcome) if outcome else None,
            )
        except (KeyError, TypeError, ValueError) as error:
            raise CorruptState(f"not an IceCream state: {error}") from error
