"""Freeze Factory as tokens and tensors: one token per engine action, and FREEZE! windows for out-of-turn claims.

Tokens: `roll`, `no_roll`, `take_cone`, `leave_cone`, `end_turn`; `slide` one per (space, direction), 25 x 4;
`fulfil` one per cone (26); `freeze` one per cone (26); and PASS, which lets a FREEZE! window go by.

FREEZE! windows (option `auto_freeze` off). The engine lets any seat but the last slider claim a cone matched by
an open line at any moment (`acting_seats` is every seat), but PettingZoo's AEC env selects one agent at a time
and who is selected is public. Offering a turn to a seat because its hidden hand can claim would tell everyone
that it holds the line's cone. So the window is decided from what every view shows:

* after every engine action, a window opens when an open line (the view's `freeze_lines`) has the flavours of a
  cone nobody has fulfilled yet: by what is public, some hand may hold it;
* it is offered, one seat at a time, to every seat but the active player and the last slider, clockwise from
  the seat after the active player; each chooses a `freeze` token for a cone it may claim, or PASS (a seat
  that cannot claim gets PASS alone, and only that seat sees its mask);
* a claim is an engine action: the window reopens for every seat after it (the claimer drew a cone, which may
  match another open line); once each seat has passed, the active player acts.

The active player is in no window: its own claims (the last turn's last slide, open until it rolls or not) are
among its turn's choices, and while it slides it formed every open line. The window leaks nothing: whether it
opens and who is asked are functions of the public board and fulfilled cones, and the same seats are asked
whether or not any of them can claim. What a seat chooses is public, as at the table: a claim shows the cone
('As proof, show everyone your cone'), and a PASS says nothing a seat could not also say by passing with a
claim in hand. The windows cost steps but no engine actions: at most `players - 1` passes per action.
With `auto_freeze` on the engine makes every claim for the seats, so no window ever opens.

The observation (`sections`) comes from the seat's view alone; seats are listed relative to the observer (itself
first, then clockwise).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any, cast

import numpy as np

from engine.freeze_factory import GAME, FreezeFactoryState
from engine.freeze_factory.board import DIRECTIONS
from engine.freeze_factory.components import CONES, DIE_FACES, FLAVOURS, NO_ROLL_POINTS, SIZE
from engine.protocol import Action, GameState, View
from parlour_envs.encoding import PASS, Choice, Encoding, Section, Tensor

SPACES = SIZE * SIZE
SIMPLE = ("roll", "no_roll", "take_cone", "leave_cone", "end_turn")
"""The actions with no argument, tokens 0 to 4."""
DIRECTION_NAMES = tuple(DIRECTIONS)
SLIDE_BASE = len(SIMPLE)
"""Token `SLIDE_BASE + space * 4 + direction` slides the tile on `space` (row * 5 + column) one step that way."""
FULFIL_BASE = SLIDE_BASE + SPACES * len(DIRECTION_NAMES)
FREEZE_BASE = FULFIL_BASE + len(CONES)
PASS_TOKEN = FREEZE_BASE + len(CONES)
SIMPLE_TOKENS = {kind: token for token, kind in enumerate(SIMPLE)}
SLIDE_TOKENS: tuple[tuple[dict[str, int], ...], ...] = tuple(
    tuple(
        {
            direction: SLIDE_BASE + (row * SIZE + column) * len(DIRECTION_NAMES) + number
            for number, direction in enumerate(DIRECTION_NAMES)
        }
        for column in range(SIZE)
    )
    for row in range(SIZE)
)
"""Per row, per column, each direction's slide token."""
CONE_BASES = {"fulfil": FULFIL_BASE, "freeze": FREEZE_BASE}
FLAVOUR_INDEX = {name: number for number, name in enumerate(FLAVOURS)}
CONE_OF_FLAVOURS = {cone: number for number, cone in enumerate(CONES)}
"""A line's flavours (frozenset of flavour indices) to the cone that has them; most triples are no cone."""
CONE_OF_NAMES = {tuple(sorted(FLAVOURS[f] for f in cone)): number for number, cone in enumerate(CONES)}
"""A view's line flavours (sorted names) to the cone that has them."""
POINTS = max(NO_ROLL_POINTS, *(face for face in DIE_FACES if isinstance(face, int)))
"""The most movement points of a turn (a roll of 5)."""
FACES = tuple(dict.fromkeys(DIE_FACES))
PHASES = ("roll", "move", "extra_cone")
HAND_SCALE = 8
"""Hand sizes are shown over this, at most 1: a hand holds 1 or 2 cones plus one per symbol rolled and taken."""
MAX_ACTIONS = 10_000
"""Where an episode is truncated unless `turn_limit` bounds it first (engine actions; PASS steps are not counted).

Without `turn_limit` tiles may slide back and forth for ever. Uniformly random tokens (300 seeded games per player
count, 2026-12-06) end a game in a median 3533 engine actions with 2 players (99th percentile 7200, longest 7683),
2700 with 3 (5496, 5860) and 2247 with 4 (4237, 4435): 10,000 cuts no random game seen yet bounds a degenerate one.
"""
TURN_SCALE = MAX_ACTIONS // 2
"""Turn numbers are shown over this, at most 1: a turn takes two engine actions at least, so a game truncated at
MAX_ACTIONS never passes it."""
ABBREVIATION = {name: name[:3] for name in FLAVOURS}
"""Three letters per flavour for `render`; the 13 names differ in their first three."""
assert len(set(ABBREVIATION.values())) == len(FLAVOURS), "render needs a distinct abbreviation per flavour"


def token_of(action: Action) -> int:
    """The token of an engine action (whoever takes it)."""
    kind = action["type"]
    if kind == "slide":
        row, column = action["space"]
        token: int = SLIDE_TOKENS[row][column][action["direction"]]
        return token
    if kind in CONE_BASES:
        return CONE_BASES[kind] + int(action["cone"])
    return SIMPLE_TOKENS[kind]


class FreezeFactoryEncoding(Encoding):
    """One token per engine action; PASS in FREEZE! windows (module docstring)."""

    game = GAME

    def __init__(self, players: int, options: dict[str, Any]) -> None:
        super().__init__(players, options)
        self.auto_freeze = bool(options["auto_freeze"])
        self.turn_limit = cast(int, options["turn_limit"])
        # Window seats by active player: the others, clockwise from the next seat.
        self.clockwise = tuple(tuple((active + k) % players for k in range(1, players)) for active in range(players))

    # --- actions ----------------------------------------------------------------------------------------------
    def name_tokens(self) -> Sequence[str]:
        slides = [
            f"slide {divmod(space, SIZE)} {direction}" for space in range(SPACES) for direction in DIRECTION_NAMES
        ]
        cones = [", ".join(sorted(FLAVOURS[f] for f in cone)) for cone in CONES]
        return [
            *SIMPLE,
            *slides,
            *(f"fulfil cone {n} ({names})" for n, names in enumerate(cones)),
            *(f"freeze cone {n} ({names})" for n, names in enumerate(cones)),
            "pass (let the FREEZE! window go by)",
        ]

    def encode(self, state: GameState, seat: int, action: Action) -> tuple[int, ...]:
        return (token_of(action),)

    def choices(self, state: GameState, seat: int, chosen: tuple[int, ...]) -> dict[int, Choice]:
        """Every legal action's one token; a seat in a FREEZE! window (not the active player) may also PASS."""
        offered: dict[int, Choice] = {}
        for action in state.legal_actions(seat):  # token_of inlined for slides, the bulk: a step's main cost
            if action["type"] == "slide":
                row, column = action["space"]
                offered[SLIDE_TOKENS[row][column][action["direction"]]] = action
            else:
                offered[token_of(action)] = action
        if seat != cast(FreezeFactoryState, state).active:
            offered[PASS_TOKEN] = PASS
        return offered

    def next_seat(self, state: GameState, passed: frozenset[int]) -> int | None:
        """The next seat of an open FREEZE! window that has not passed, else the active player."""
        ff = cast(FreezeFactoryState, state)
        if ff.outcome:
            return None
        for seat in self.window(ff):
            if seat not in passed:
                return seat
        return ff.active

    def window(self, state: FreezeFactoryState) -> tuple[int, ...]:
        """The seats a FREEZE! window is offered to now, in order; () when none opens. Public facts only."""
        if self.auto_freeze or not (state.turn_lines or state.fresh_lines):
            return ()
        fulfilled = {cone for cones in state.fulfilled for cone in cones}
        if all(CONE_OF_FLAVOURS.get(line.flavours, -1) in fulfilled | {-1} for line in state.open_lines()):
            return ()
        return tuple(seat for seat in self.clockwise[state.active] if seat != state.last_slider)

    # --- observations -----------------------------------------------------------------------------------------
    def sections(self) -> Sequence[Section]:
        p = self.players
        return [
            Section(
                "board",
                SPACES * len(FLAVOURS),
                "per space, row-major, one-hot of its flavour (data.json order); zeros when empty",
            ),
            Section("hand", len(CONES), "1 for each cone in this seat's hand"),
            Section("fulfilled", len(CONES), "1 for each cone fulfilled by any seat (public, face up)"),
            Section("scores", p, f"cones fulfilled per seat, this seat first then clockwise, over {len(CONES)}"),
            Section("hand_counts", p, f"cones in hand per seat (relative order), over {HAND_SCALE}, at most 1"),
            Section("pile", 1, f"cones left in the draw pile, over {len(CONES)}"),
            Section("active", p, "one-hot: whose turn, relative to this seat (index 0: this seat's); zeros once over"),
            Section(
                "phase",
                3,
                "one-hot: roll (decide whether to roll), move (slide), extra_cone (take or leave a cone); 0s once over",
            ),
            Section("points_left", 1, f"movement points left this turn, over {POINTS}"),
            Section("last_roll", len(FACES), f"one-hot: the turn's roll, faces {list(FACES)}; zeros when not rolled"),
            Section("open_spaces", SPACES, "1 for each space of a line open to FREEZE! (the view's freeze_lines)"),
            Section("open_cones", len(CONES), "1 for each cone whose flavours an open line shows"),
            Section("formed_by", p, "one-hot: the seat whose slides formed the open lines (relative); zeros if none"),
            Section("turn", 1, f"the turn number over {TURN_SCALE}, at most 1"),
            Section("turns_left", 1, "with turn_limit: turns left after this one over the limit; 1 without a limit"),
        ]

    def observe(self, view: View, seat: int) -> Tensor:
        o, p = self.offsets, self.players
        ones = [
            o["board"] + space * len(FLAVOURS) + FLAVOUR_INDEX[name]
            for space, name in enumerate(chain(*view["board"]))
            if name
        ]
        ones += [o["hand"] + cone["id"] for cone in view["hand"]]
        at: list[int] = [o["pile"], o["points_left"], o["turn"], o["turns_left"]]
        limit = self.turn_limit
        values: list[float] = [
            view["pile_count"] / len(CONES),
            min(view["points_left"], POINTS) / POINTS,
            min(view["turn"], TURN_SCALE) / TURN_SCALE,
            max(limit - view["turn"], 0) / limit if limit else 1.0,
        ]
        for other, (cones, count) in enumerate(zip(view["fulfilled"], view["hand_counts"], strict=True)):
            relative = (other - seat) % p
            ones += [o["fulfilled"] + cone["id"] for cone in cones]
            at += (o["scores"] + relative, o["hand_counts"] + relative)
            values += (len(cones) / len(CONES), min(count, HAND_SCALE) / HAND_SCALE)
        if view["active"] is not None:
            ones.append(o["active"] + (view["active"] - seat) % p)
        if view["phase"] is not None:
            ones.append(o["phase"] + PHASES.index(view["phase"]))
        if view["last_roll"] is not None:
            ones.append(o["last_roll"] + FACES.index(view["last_roll"]))
        for line in view["freeze_lines"]:
            ones += [o["open_spaces"] + row * SIZE + column for row, column in line["spaces"]]
            cone = CONE_OF_NAMES.get(tuple(line["flavours"]))
            if cone is not None:
                ones.append(o["open_cones"] + cone)
            ones.append(o["formed_by"] + (line["formed_by"] - seat) % p)
        tensor = np.zeros(self.body_size, dtype=np.float32)
        tensor[ones + at] = [1.0] * len(ones) + values  # one scatter: numpy's per-call cost outweighs the lists'
        return tensor

    def render(self, view: View) -> str:
        rows = [("     " + "".join(f"{column:<5}" for column in range(SIZE))).rstrip()]
        for number, row in enumerate(view["board"]):
            rows.append(f"{number:<5}" + "".join(f"{ABBREVIATION[name] if name else '.':<5}" for name in row).rstrip())
        if view["active"] is None:
            status = f"game over after turn {view['turn']}"
        else:
            roll = "" if view["last_roll"] is None else f", rolled {view['last_roll']}"
            points = f"{view['points_left']} points left{roll}"
            status = f"turn {view['turn']}: seat {view['active']} to {view['phase']}, {points}"
        rows.append(status)
        scores = [len(cones) for cones in view["fulfilled"]]
        rows.append(f"pile {view['pile_count']}; cones fulfilled {scores}; in hand {view['hand_counts']}")
        for line in view["freeze_lines"]:
            spaces = " ".join(f"({r},{c})" for r, c in line["spaces"])
            rows.append(
                f"open to FREEZE!: {', '.join(line['flavours'])} at {spaces}, formed by seat {line['formed_by']}"
            )
        if view["hand"]:
            rows.append("hand: " + "; ".join(f"cone {c['id']} ({', '.join(c['flavours'])})" for c in view["hand"]))
        return "\n".join(rows)

    def default_max_actions(self) -> int:
        return self.game.max_game_length(self.players, self.options) or MAX_ACTIONS
