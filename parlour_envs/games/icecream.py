"""IceCream as tokens and tensors: one token per move, the two cones scoop by scoop."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from engine.icecream import GAME
from engine.protocol import Action, GameState, View
from parlour_envs.encoding import Choice, Encoding, Section, Tensor

SCOOPS = 12
"""Scoops in play: two cones of six at the start (engine/icecream/data.json)."""
MOVABLE = SCOOPS - 1
"""The most scoops one move can take: all but a cone's fixed bottom red."""
FLAVOURS = ("red", "yellow", "green")
FLAVOUR_INDEX = {flavour: index for index, flavour in enumerate(FLAVOURS)}
CONES_SIZE = 2 * SCOOPS * len(FLAVOURS)
LETTERS = {"R": "red", "Y": "yellow", "G": "green"}
POINTS_SCALE = 100
"""Turn numbers (the points of a turn) are shown up to this many, then as this many."""
MAX_ACTIONS = 1000
"""Where an episode is truncated unless `turn_limit` ends it first: random play ends by move 800 (seeded playouts)."""


class IceCreamEncoding(Encoding):
    """Token `cone * 11 + scoops - 1` moves that many scoops from that cone."""

    game = GAME

    def name_tokens(self) -> Sequence[str]:
        return [
            f"move {scoops} scoop{'s' * (scoops > 1)} from cone {cone}"
            for cone in (0, 1)
            for scoops in range(1, MOVABLE + 1)
        ]

    def encode(self, state: GameState, seat: int, action: Action) -> tuple[int, ...]:
        return (action["from_cone"] * MOVABLE + action["scoops"] - 1,)

    def sections(self) -> Sequence[Section]:
        return [
            Section(
                "cones",
                2 * SCOOPS * len(FLAVOURS),
                "for cone 0 then 1, each height from the bottom (12), one-hot red, yellow, green; zeros above the top",
            ),
            Section("my_flavour", 2, "one-hot: this seat's flavour is yellow, green"),
            Section("my_move", 1, "1 when this seat is to move"),
            Section(
                "points_left", 1, f"movement points left this turn, over {MOVABLE} (more than {MOVABLE} shows as 1)"
            ),
            Section("turn_points", 1, f"points of this turn (the turn number), over {POINTS_SCALE}, at most 1"),
            Section(
                "turn_limit_left", 1, f"with turn_limit: turns left over {POINTS_SCALE}, at most 1; 1 without a limit"
            ),
        ]

    def choices(self, state: GameState, seat: int, chosen: tuple[int, ...]) -> dict[int, Choice]:
        """Every move is one token: the legal moves by their tokens."""
        return {action["from_cone"] * MOVABLE + action["scoops"] - 1: action for action in state.legal_actions(seat)}

    def observe(self, view: View, seat: int) -> Tensor:
        cones = view["cones"]
        mine = view["flavours"][seat]
        limit = self.options["turn_limit"]
        turns_left = min(limit - view["turn"], POINTS_SCALE) / POINTS_SCALE if limit else 1.0
        return np.concatenate(
            (
                cones_tensor(tuple(cones[0]), tuple(cones[1])),
                np.array(
                    (
                        mine == "yellow",
                        mine == "green",
                        view["to_move"] == seat,
                        min(view["points_left"], MOVABLE) / MOVABLE,
                        min(view["points_this_turn"], POINTS_SCALE) / POINTS_SCALE,
                        max(turns_left, 0.0),
                    ),
                    dtype=np.float32,
                ),
            )
        )

    def render(self, view: View) -> str:
        cones = [" ".join(flavour[0].upper() for flavour in scoops) for scoops in view["cones"]]
        mover = view["to_move"]
        status = (
            f"turn {view['turn']}: over"
            if mover is None
            else f"turn {view['turn']}: seat {mover} ({view['flavours'][mover]}) "
            f"has {view['points_left']} of {view['points_this_turn']} points left"
        )
        return "\n".join([*(f"cone {cone}: {scoops}" for cone, scoops in enumerate(cones)), status])

    def default_max_actions(self) -> int:
        return self.game.max_game_length(self.players, self.options) or MAX_ACTIONS


@functools.lru_cache(maxsize=65536)
def cones_tensor(first: tuple[str, ...], second: tuple[str, ...]) -> Tensor:
    """The `cones` section for two cones (cached: a game goes back and forth among few positions)."""
    tensor = np.zeros(CONES_SIZE, dtype=np.float32)
    for cone, scoops in enumerate((first, second)):
        base = cone * SCOOPS * len(FLAVOURS)
        tensor[[base + height * len(FLAVOURS) + FLAVOUR_INDEX[flavour] for height, flavour in enumerate(scoops)]] = 1
    tensor.flags.writeable = False
    return tensor
