"""Freeze Factory rules: every rule of ../shared/rules/freeze-factory.txt, for 2 to 4 players.

A turn is several actions: `roll` or `no_roll`, then `slide` steps (one movement point each),
`fulfil` for a cone in hand matched by a line the player's slides formed this turn (assumption
own-lines), and `end_turn` (a turn whose points are spent ends by itself unless a line it formed
matches a cone nobody has laid face up: assumption turn-end); after rolling the symbol,
`take_cone` or `leave_cone` (assumption miss-a-turn). Any other seat may `freeze`: claim a cone
matched by a line another player's slide formed, until that turn ends or, for the turn's last
slide, until the next player decides whether to roll (assumption freeze-window).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.errors import CorruptState, IllegalAction
from engine.freeze_factory.board import DIRECTIONS, Board, Line, index, lines, lines_through, slide_target, slides
from engine.freeze_factory.components import (
    ASSUMPTIONS,
    CONES,
    DIE_FACES,
    FLAVOURS,
    MOST_POINTS,
    NO_ROLL_POINTS,
    REMOVED_CONES,
    SIZE,
    START_LAYOUTS,
    STARTING_HAND,
    SYMBOL,
    cone_json,
)
from engine.freeze_factory.from_view import stored_state
from engine.info import GameInfo
from engine.options import OptionSet, OptionSpec
from engine.protocol import Action, Game, GameState, View
from engine.result import Result
from engine.rng import Rng

ROLL, MOVE, EXTRA_CONE = "roll", "move", "extra_cone"
CONE_IDS = {flavours: cone for cone, flavours in enumerate(CONES)}
"""Each cone's id by its three flavours."""
TURN_DECISIONS = ("roll", "no_roll")  # '1. Roll the Die: Yes or No?': the first action of a turn
CONE_CHOICES = ("take_cone", "leave_cone")  # 'you may take one more cone from the draw pile'
TURN_ACTIONS = 1 + MOST_POINTS + 1
"""Most actions of a turn besides fulfils: the roll decision, a slide per point, `end_turn` or the extra cone choice."""

OPTIONS = OptionSet(
    (
        OptionSpec("auto_freeze", "bool", False, "The server calls FREEZE! for every seat that can claim a cone."),
        OptionSpec(
            "turn_limit",
            "int",
            0,
            "End after this many turns, most cones winning; 0 means no limit.",
            minimum=0,
            maximum=10_000,
        ),
        OptionSpec(
            "starting_hand",
            "int",
            STARTING_HAND,
            "Cones each player draws at the start: 1 as the rulebook says, or 2 as some sources say.",
            minimum=1,
            maximum=2,
        ),
        OptionSpec(
            "start_layout",
            "choice",
            next(iter(START_LAYOUTS)),
            "Where the 13 tiles start: checkerboard (row + column even) or corners (an L per corner and the centre).",
            choices=tuple(START_LAYOUTS),
        ),
        OptionSpec(
            "shuffle_start",
            "bool",
            False,
            "Deal the flavours onto the start spaces at random instead of in the listed order.",
        ),
        OptionSpec(
            "fulfil_any_line",
            "bool",
            False,
            "On your turn, also fulfil a cone with any matching line on the board, whoever formed it.",
        ),
    )
)

INFO = GameInfo(
    id="freeze_factory",
    name="Freeze Factory",
    min_players=2,
    max_players=4,
    summary="Slide flavour tiles round the ice cream machine to line up the cones in your hand; shout FREEZE!",
    information="imperfect",
    chance=True,
    cooperative=False,
    simultaneous=False,
    min_utility=0,  # a seat's score is the cones it fulfilled (a resignation scores 0 or 1)
    max_utility=len(CONES) - min(REMOVED_CONES.values()),  # every cone in play fulfilled by one seat
    max_game_length=None,  # without turn_limit tiles may slide back and forth for ever (assumption turn-limit)
    options=OPTIONS,
    assumptions=ASSUMPTIONS,
    # 2: the FREEZE! window, own lines, the extra cone's choice, relabelled flavours (issue 18);
    # 3: a turn whose points are spent waits for a fulfil by a public rule (turn-end), not by the player's hand
    rules_version=3,
)


@dataclass
class FreezeFactoryState(GameState):
    """The board, the cone pile, hands, fulfilled cones, whose turn and how many points are left."""

    players: int
    options: dict[str, Any]
    rng: Rng
    board: Board
    pile: list[int]
    removed: list[int]
    hands: list[list[int]]
    fulfilled: list[list[int]] = field(default_factory=list)
    active: int = 0
    turn: int = 1
    phase: str = ROLL
    points_left: int = 0
    last_roll: int | str | None = None
    last_slider: int | None = None
    fresh_lines: list[Line] = field(default_factory=list)  # formed by the last slide
    turn_lines: list[Line] = field(default_factory=list)  # formed by the active player's slides this turn
    outcome: Result | None = None

    game_id = "freeze_factory"

    # --- whose move -------------------------------------------------------------------------
    def acting_seats(self) -> tuple[int, ...]:
        """Every seat: the active player, and the others who may call FREEZE! (which only they can know)."""
        return () if self.outcome else tuple(range(self.players))

    def waiting_for(self) -> tuple[int, ...]:
        """The player whose turn it is."""
        return () if self.outcome else (self.active,)

    # --- what may be done -------------------------------------------------------------------
    def legal_actions(self, seat: int) -> list[Action]:
        """The active player's turn actions and claims; another seat's FREEZE! claims."""
        if self.outcome:
            return []
        claims: list[Action] = [{"type": "freeze", "cone": cone} for cone in self.claimable(seat)]
        if seat != self.active:
            return claims
        if self.phase == EXTRA_CONE:
            return [{"type": kind} for kind in CONE_CHOICES]
        fulfils: list[Action] = [{"type": "fulfil", "cone": cone} for cone in self.fulfillable()]
        if self.phase == ROLL:
            return [*({"type": kind} for kind in TURN_DECISIONS), *fulfils, *claims]
        moves: list[Action] = [
            {"type": "slide", "space": list(divmod(space, SIZE)), "direction": direction}
            for space, direction in (slides(self.board, SIZE) if self.points_left else ())
        ]
        return [*fulfils, *moves, {"type": "end_turn"}]

    def default_action(self, seat: int) -> Action:
        """The active player's pass: `no_roll`, `leave_cone`, then `end_turn` (see assumption timeout-default-action).

        'You decide whether or not to roll the die ... If you do not roll the die, you have exactly
        3 movement points available'; 'you may take one more cone'; 'You may divide your movement
        points freely', none required.
        """
        if self.phase == ROLL:
            return {"type": "no_roll"}
        return {"type": "leave_cone"} if self.phase == EXTRA_CONE else {"type": "end_turn"}

    def open_lines(self) -> list[Line]:
        """Lines open to FREEZE!: formed by this turn's slides, or by the last slide of the turn before.

        The second are kept in `fresh_lines` past the end of their turn until the next player rolls or not.
        """
        return [*self.turn_lines, *(line for line in self.fresh_lines if line not in self.turn_lines)]

    def fulfilling_lines(self) -> set[frozenset[int]]:
        """The flavours of every line that may fulfil a cone on this turn: the lines the active player's slides
        formed this turn (assumption own-lines), and with the option fulfil_any_line every line on the board."""
        formed = {line.flavours for line in self.turn_lines}
        if self.options["fulfil_any_line"]:
            formed |= {line.flavours for line in lines(self.board, SIZE)}
        return formed

    def fulfillable(self) -> list[int]:
        """Cones in the active player's hand matched by a line that may fulfil one this turn (`fulfilling_lines`)."""
        if self.phase == EXTRA_CONE:
            return []
        formed = self.fulfilling_lines()
        return [cone for cone in self.hands[self.active] if CONES[cone] in formed]

    def turn_waits_for_fulfil(self) -> bool:
        """Whether a turn whose points are spent stays open for a fulfil (assumption turn-end): some line that may
        fulfil a cone this turn matches a cone nobody has laid face up, wherever that cone is.

        Everyone can tell this from the board and the cones laid face up, so whether the turn passes by itself
        never tells the others whether the player holds a matching cone (the player may still send end_turn).
        """
        laid = {cone for cones in self.fulfilled for cone in cones}
        return any(CONE_IDS.get(flavours) not in (None, *laid) for flavours in self.fulfilling_lines())

    def claimable(self, seat: int) -> list[int]:
        """Cones in the seat's hand matched by an open line, unless the seat made the slides that formed it."""
        if seat == self.last_slider:
            return []
        formed = {line.flavours for line in self.open_lines()}
        return [cone for cone in self.hands[seat] if CONES[cone] in formed]

    def check_action(self, seat: int, action: Action) -> None:
        """Refuse anything the rules do not allow now, saying which rule."""
        kind = action.get("type")
        if kind == "freeze":
            self._check_freeze(seat, action)
        elif seat != self.active:
            raise IllegalAction(f"it is seat {self.active}'s turn; another seat may only call 'freeze'")
        elif self.phase == EXTRA_CONE:
            if action not in ({"type": choice} for choice in CONE_CHOICES):
                raise IllegalAction("you rolled the symbol: 'you may take one more cone': send take_cone or leave_cone")
        elif kind == "fulfil":
            cone = _cone_of(action)
            if cone not in self.fulfillable():
                raise IllegalAction(
                    f"cone {cone} is not in your hand or no line your slides formed this turn matches it:"
                    " 'If, during or at the end of your turn, you arrange three flavours'"
                )
        elif self.phase == ROLL:
            if action not in ({"type": decision} for decision in TURN_DECISIONS):
                raise IllegalAction('first decide: {"type": "roll"} or {"type": "no_roll"} (exactly 3 points)')
        elif kind == "slide":
            self._check_slide(action)
        elif action != {"type": "end_turn"}:
            raise IllegalAction('send "slide", "fulfil" or "end_turn" during your turn')

    def _check_freeze(self, seat: int, action: Action) -> None:
        """FREEZE!: 'As proof, show everyone your cone, and you may then lay it in front of you if ... correct.'"""
        cone = _cone_of(action)
        if cone not in self.claimable(seat):
            raise IllegalAction(
                f"cone {cone} is not in your hand or no open line matches it: a claim needs a line another"
                " player's slide formed this turn, or their turn's last slide until the next player rolls or not"
            )

    def _check_slide(self, action: Action) -> None:
        """One point: one tile, one step, orthogonally, onto an empty space (or wrapped to the opposite edge)."""
        space, direction = action.get("space"), action.get("direction")
        if (
            set(action) != {"type", "space", "direction"}
            or not isinstance(direction, str)
            or direction not in DIRECTIONS
        ):
            raise IllegalAction(
                'a slide is {"type": "slide", "space": [row, column], "direction": "up|down|left|right"}'
            )
        if (
            not isinstance(space, list)
            or len(space) != 2
            or any(type(v) is not int or not 0 <= v < SIZE for v in space)
        ):
            raise IllegalAction(f"space must be [row, column], each 0 to {SIZE - 1}")
        if self.points_left < 1:
            raise IllegalAction("no movement points are left this turn")
        start = index(SIZE, space[0], space[1])
        if self.board[start] is None:
            raise IllegalAction(f"there is no flavour tile on {space}")
        target, reason = slide_target(self.board, SIZE, start, direction)
        if target is None:
            raise IllegalAction(reason)

    # --- changing the state -----------------------------------------------------------------
    def apply_trusted(self, seat: int, action: Action) -> None:
        """Apply one action; turns pass and the game ends as the rules say."""
        kind = action["type"]
        if kind in ("freeze", "fulfil"):
            self._fulfil(seat, action["cone"])
        elif kind in TURN_DECISIONS:
            self.fresh_lines = []  # the turn before's last slide: its FREEZE! window closes (freeze-window)
            if kind == "roll":
                self._roll()
            else:
                self._no_roll()
        elif kind in CONE_CHOICES:
            if kind == "take_cone":
                self.hands[self.active].append(self.pile.pop())
            self._end_turn()
        elif kind == "slide":
            self._slide(seat, index(SIZE, *action["space"]), action["direction"])
        else:
            self._end_turn()
        # A spent turn passes unless it waits for a fulfil (turn-end); a claim never passes it: 'The normal turn
        # order is not disturbed by this action'.
        spent = not self.outcome and self.phase == MOVE and self.points_left == 0
        if spent and kind != "freeze" and not self.turn_waits_for_fulfil():
            self._end_turn()

    def _no_roll(self) -> None:
        """'If you do not roll the die, you have exactly 3 movement points available.'"""
        self.phase, self.points_left, self.last_roll = MOVE, NO_ROLL_POINTS, None

    def _roll(self) -> None:
        """'If you roll the die's symbol ... you must miss a turn, but you may take one more cone'."""
        face = self.rng.choice(DIE_FACES)
        self.last_roll = face
        if face != SYMBOL:
            self.phase, self.points_left = MOVE, int(face)
        elif self.pile:
            self.phase = EXTRA_CONE  # 'may': the seat chooses (assumption miss-a-turn)
        else:
            self._end_turn()

    def _slide(self, seat: int, space: int, direction: str) -> None:
        """Move the tile; the lines it forms stay open to FREEZE! claims (assumption freeze-window)."""
        target, _ = slide_target(self.board, SIZE, space, direction)
        assert target is not None
        self.board[target], self.board[space] = self.board[space], None
        self.points_left -= 1
        self.last_slider = seat
        self.fresh_lines = lines_through(self.board, SIZE, target)
        self.turn_lines += [line for line in self.fresh_lines if line not in self.turn_lines]
        if self.options["auto_freeze"]:
            self._claim_for_every_seat()

    def _claim_for_every_seat(self) -> None:
        """Option auto_freeze: every open claim of every seat, in seat order."""
        for other in range(self.players):
            # Again after each claim: a cone drawn after a claim may match an open line too.
            while not self.outcome and (claims := self.claimable(other)):
                self._fulfil(other, claims[0])

    def _fulfil(self, seat: int, cone: int) -> None:
        """Lay the cone face up; 'If you now have no cone left in hand, draw a new one' or the game ends."""
        self.hands[seat].remove(cone)
        self.fulfilled[seat].append(cone)
        if self.hands[seat]:
            return
        if self.pile:
            self.hands[seat].append(self.pile.pop())
        else:
            # 'The game ends immediately when a player, after fulfilling a cone order, cannot draw a new cone'
            self._finish(f"seat {seat} fulfilled a cone and the pile is empty")

    def _end_turn(self) -> None:
        """'Then the next player takes their turn.'"""
        limit = self.options["turn_limit"]
        if limit and self.turn >= limit:
            self._finish(f"the turn limit of {limit} was reached")
            return
        self.active = (self.active + 1) % self.players
        self.turn += 1
        self.phase, self.points_left = ROLL, 0
        self.turn_lines = []  # the last slide's lines stay in fresh_lines (assumption freeze-window)

    def _finish(self, reason: str) -> None:
        """'The player who has collected the most cones wins. In case of a tie, there are several winners.'"""
        self.outcome = Result.ranked_by_score([len(cones) for cones in self.fulfilled], reason)

    def clone(self) -> FreezeFactoryState:
        """An independent copy."""
        return FreezeFactoryState(
            self.players,
            self.options,
            self.rng.clone(),
            list(self.board),
            list(self.pile),
            list(self.removed),
            [list(hand) for hand in self.hands],
            [list(cones) for cones in self.fulfilled],
            self.active,
            self.turn,
            self.phase,
            self.points_left,
            self.last_roll,
            self.last_slider,
            list(self.fresh_lines),
            list(self.turn_lines),
            self.outcome,
        )

    # --- what each viewer sees --------------------------------------------------------------
    def view(self, viewer: int | None) -> View:
        """The board, the roll and fulfilled cones for all; a hand only for its owner."""
        return {
            "board": [
                [FLAVOURS[f] if (f := self.board[index(SIZE, r, c)]) is not None else None for c in range(SIZE)]
                for r in range(SIZE)
            ],
            "turn": self.turn,
            "active": None if self.outcome else self.active,
            "phase": None if self.outcome else self.phase,
            "points_left": self.points_left,
            "last_roll": self.last_roll,
            "hand": [cone_json(c) for c in self.hands[viewer]] if viewer is not None else [],
            "hand_counts": [len(hand) for hand in self.hands],
            "fulfilled": [[cone_json(c) for c in cones] for cones in self.fulfilled],
            "pile_count": len(self.pile),
            "removed_count": len(self.removed),
            "freeze_lines": [self._line_view(line) for line in self.open_lines()],
        }

    def _line_view(self, line: Line) -> dict[str, Any]:
        """An open line as views show it: its spaces, its flavours (sorted) and the seat whose slide formed it."""
        return {
            "spaces": [list(divmod(s, SIZE)) for s in line.spaces],
            "flavours": sorted(FLAVOURS[f] for f in line.flavours),
            "formed_by": self.last_slider,
        }

    def determinize(self, viewer: int | None, rng: Rng) -> FreezeFactoryState:
        """Deal the cones the viewer cannot see (pile, removed, other hands) at random."""
        copy = self.clone()
        copy.rng = Rng(rng.next_u64())
        hidden = [copy.pile, copy.removed, *(hand for seat, hand in enumerate(copy.hands) if seat != viewer)]
        unknown = [cone for cones in hidden for cone in cones]
        unknown.sort()  # the sample must not depend on where the hidden cones really are
        rng.shuffle(unknown)
        for cones in hidden:
            cones[:], unknown = unknown[: len(cones)], unknown[len(cones) :]
        return copy

    # --- storage ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The whole state as JSON."""
        return {
            "game": self.game_id,
            "players": self.players,
            "options": dict(self.options),
            "rng": self.rng.state,
            "board": list(self.board),
            "pile": list(self.pile),
            "removed": list(self.removed),
            "hands": [list(hand) for hand in self.hands],
            "fulfilled": [list(cones) for cones in self.fulfilled],
            "active": self.active,
            "turn": self.turn,
            "phase": self.phase,
            "points_left": self.points_left,
            "last_roll": self.last_roll,
            "last_slider": self.last_slider,
            "fresh_lines": [line.to_json() for line in self.fresh_lines],
            "turn_lines": [line.to_json() for line in self.turn_lines],
            "outcome": self.outcome.to_json() if self.outcome else None,
        }


def _cone_of(action: Action) -> int:
    """The cone an action names; IllegalAction if the action is not {"type": ..., "cone": n}."""
    cone = action.get("cone")
    if set(action) != {"type", "cone"} or type(cone) is not int:
        raise IllegalAction(f'send {{"type": "{action.get("type")}", "cone": <cone id>}}')
    return cone


class FreezeFactory(Game):
    """The Freeze Factory game object."""

    info = INFO

    def max_game_length(self, players: int, options: dict[str, Any]) -> int | None:
        """With turn_limit L: L turns of TURN_ACTIONS, plus one fulfil or FREEZE! per cone in play at most."""
        limit: int = options["turn_limit"]
        return limit * TURN_ACTIONS + len(CONES) - REMOVED_CONES[players] if limit else None

    def new_state_from_rng(self, players: int, options: dict[str, Any], rng: Rng) -> FreezeFactoryState:
        """Tiles on their start spaces; cones shuffled, some removed, the starting hand dealt to each player."""
        board = start_board(options, rng)
        pile = list(range(len(CONES)))
        rng.shuffle(pile)
        removed = [pile.pop() for _ in range(REMOVED_CONES[players])]
        hands = [[pile.pop() for _ in range(options["starting_hand"])] for _ in range(players)]
        return FreezeFactoryState(players, options, rng, board, pile, removed, hands, [[] for _ in range(players)])

    def rebuild_from_view(
        self, view: View, seat: int, players: int, options: dict[str, Any], rng: Rng
    ) -> FreezeFactoryState:
        """The position the view shows, the cones the seat has not seen dealt at random."""
        return self.state_from_json(stored_state(view, seat, players, options, rng))

    def state_from_json(self, data: dict[str, Any]) -> FreezeFactoryState:
        """Read back a state written by `to_json`."""
        try:
            outcome = data["outcome"]
            board = list(data["board"])
            return FreezeFactoryState(
                int(data["players"]),
                OPTIONS.resolve(data["options"]),
                Rng(int(data["rng"])),
                board,
                list(data["pile"]),
                list(data["removed"]),
                [list(hand) for hand in data["hands"]],
                [list(cones) for cones in data["fulfilled"]],
                int(data["active"]),
                int(data["turn"]),
                str(data["phase"]),
                int(data["points_left"]),
                data["last_roll"],
                data["last_slider"],
                [Line.from_json(line, board) for line in data["fresh_lines"]],
                [Line.from_json(line, board) for line in data.get("turn_lines", [])],
                Result.from_json(outcome) if outcome else None,
            )
        except (KeyError, TypeError, ValueError) as error:
            raise CorruptState(f"not a Freeze Factory state: {error}") from error


def start_board(options: dict[str, Any], rng: Rng) -> Board:
    """'Place the flavour tiles for the starting layout, in any arrangement, on the marked spaces' (start-layout)."""
    flavours = list(range(len(FLAVOURS)))
    if options["shuffle_start"]:
        rng.shuffle(flavours)
    board: Board = [None] * (SIZE * SIZE)
    for flavour, (row, column) in zip(flavours, START_LAYOUTS[options["start_layout"]], strict=True):
        board[index(SIZE, row, column)] = flavour
    return board
