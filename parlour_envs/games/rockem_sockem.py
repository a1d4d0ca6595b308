"""Rock'em Sock'em Robots Dice Game as tokens and tensors: one token per engine action.

Tokens (17): `0` flips the Match Coin; `1 + mask` rolls keeping the dice whose bits are set in `mask`
(bit i: die i, the engine's `keep` lists dice positions 0 to 3, never all four, so `mask` is 0 to 14 and
token 1 re-rolls all four); `16` is the NO-OP that only the parallel environment offers, to a seat that may not
act this step (the AEC environment never does).

How the two modes step:

* `rounds` (the engine's simultaneous step): in the AEC environment seat 0 then seat 1 answer each roll step
  (the engine's `acting_seats` order); the seat that answers second sees that the first has answered
  (`answered`, public) but not its keep, which the engine shows only to its sender, and both roll once both
  have answered. In the parallel environment both answer in one step.
* `realtime` (the engine applies each roll at once, the first matching roll grabs the coin): the AEC
  environment offers the roll to the racers in turn, the flipper's opponent first, so neither seat can roll
  twice while the other waits; the parallel environment takes both racers' rolls each step and applies them in
  that same order, the flipper's opponent first (the flipper changes every round, so neither seat is always
  first), and a roll that comes after the other's roll grabbed the coin is void (it arrived too late).

The observation (`sections`, 73 floats, then the common `chosen` counts) comes from the seat's view alone, its
own corner first: the phase, the coin, both seats' dice one-hot by position and face, the Fight Cards shown, the
keeps answered this step (rounds mode, AEC only: the parallel env takes both keeps at once, so they stay 0), the
last round's outcome, the round and the mode. The other seat's pending keep is never in it: the engine's view
shows a keep only to its sender.

Who rolls next in realtime is not in the engine's state, so the environments play on `TurnTakingState`, the
engine's state that also records the last roller (kept by `clone` and `determinize`); whose turn it is is public.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from engine.protocol import Action, GameState, View
from engine.rng import Rng
from engine.rockem_sockem import RockemSockem, RockemSockemState
from engine.rockem_sockem.components import DICE, FACES, HIT_CARDS, KEEP_SETS, MISS_CARDS
from engine.rockem_sockem.game import FLIP, RACE, REALTIME
from parlour_envs.encoding import Choice, Encoding, Section, Tensor
from parlour_envs.parallel import NOOP_NAME

FLIP_TOKEN = 0
ROLL_BASE = 1
"""Token `ROLL_BASE + mask` rolls keeping the dice in the bitmask `mask`."""
ALL_DICE = (1 << DICE) - 1
"""The mask of all four dice: never a legal keep, so it has no token."""
NOOP_TOKEN = ROLL_BASE + ALL_DICE
FACE_INDEX = {(face["colour"], face["icon"]): number for number, face in enumerate(FACES)}
CARDS = HIT_CARDS + MISS_CARDS
ROUND_SCALE = 50
"""Round numbers are shown over this, at most 1: random play rarely reaches round 50 (see MAX_ACTIONS)."""
MAX_ACTIONS = 2000
"""Engine actions after which an episode is truncated: the game has no bound (a heal turns a HIT back).

Uniformly random play (3000 seeded playouts per mode, 2026-12-06) ends a median game in about 230 engine
actions, 99% by about 630 and the longest by about 950, in either mode; 2000 truncates almost no random game.
"""


def keep_mask(keep: Sequence[int]) -> int:
    """The bitmask of the dice positions kept."""
    mask = 0
    for die in keep:
        mask |= 1 << die
    return mask


FLIP_ACTION: Action = {"type": "flip"}
FIRST_ROLL: dict[int, Choice] = {ROLL_BASE: {"type": "roll", "keep": []}}
"""The first roll of a round keeps nothing."""
ROLLS: dict[int, Choice] = {ROLL_BASE + keep_mask(keep): {"type": "roll", "keep": list(keep)} for keep in KEEP_SETS}
"""Every later roll: token to action, one per keep the engine lists."""
assert len(ROLLS) == len(KEEP_SETS) and max(ROLLS) < NOOP_TOKEN


@dataclass
class TurnTakingState(RockemSockemState):
    """The engine's state, also recording who rolled last this race (the environments' realtime turn order)."""

    last_roller: int | None = None

    def apply_trusted(self, seat: int, action: Action) -> None:
        """The engine's action; then the roller, while the race goes on."""
        super().apply_trusted(seat, action)
        self.last_roller = seat if action["type"] == "roll" and self.phase == RACE else None

    def clone(self) -> TurnTakingState:
        """An independent copy, the last roller included."""
        copy = super().clone()
        return TurnTakingState(**vars(copy), last_roller=self.last_roller)


class TurnTakingGame(RockemSockem):
    """The engine's game making `TurnTakingState`s."""

    def new_state_from_rng(self, players: int, options: dict[str, Any], rng: Rng) -> TurnTakingState:
        """The starting state, its chance drawn from `rng`."""
        return TurnTakingState(players, options, rng)

    def new_state(self, players: int, options: dict[str, Any], seed: str | int) -> TurnTakingState:
        """The starting state for a seed."""
        return self.new_state_from_rng(players, options, Rng.from_seed(seed))


GAME = TurnTakingGame()


def realtime_order(state: RockemSockemState) -> tuple[int, int]:
    """The order realtime rolls are taken in: the flipper's opponent first."""
    first = 1 - state.flipper
    return first, 1 - first


class RockemSockemEncoding(Encoding):
    """Token 0 flips, `1 + mask` rolls keeping the dice in `mask`, 16 is the parallel env's NO-OP."""

    game = GAME

    def __init__(self, players: int, options: dict[str, Any]) -> None:
        super().__init__(players, options)
        self.realtime = options["mode"] == REALTIME
        # Where `observe` writes: index tables, so that it looks nothing up by name.
        o = self.offsets
        self.phase_at = {FLIP: o["phase"], RACE: o["phase"] + 1}
        self.i_flip_at, self.answered_at, self.my_keep_at = o["i_flip"], o["answered"], o["my_keep"]
        self.last_round_at, self.realtime_at = o["last_round"], o["realtime"]
        self.coin_at = {"colour": o["coin"], "icon": o["coin"] + 1}
        self.my_dice_at, self.other_dice_at = (
            [{face: at + die * len(FACES) + number for face, number in FACE_INDEX.items()} for die in range(DICE)]
            for at in (o["my_dice"], o["other_dice"])
        )
        cards = [o["my_cards"] + k for k in range(3)] + [o["other_cards"] + k for k in range(3)]
        self.fraction_at = np.array([*cards, o["round"]])

    # --- actions ----------------------------------------------------------------------------------------------
    def name_tokens(self) -> Sequence[str]:
        def roll(mask: int) -> str:
            kept = [die for die in range(DICE) if mask >> die & 1]
            return f"roll, keeping dice {', '.join(map(str, kept))}" if kept else "roll all four dice"

        return ["flip the Match Coin", *(roll(mask) for mask in range(ALL_DICE)), NOOP_NAME]

    def encode(self, state: GameState, seat: int, action: Action) -> tuple[int, ...]:
        if action["type"] == "flip":
            return (FLIP_TOKEN,)
        return (ROLL_BASE + keep_mask(action["keep"]),)

    def choices(self, state: GameState, seat: int, chosen: tuple[int, ...]) -> dict[int, Choice]:
        """The tables of `legal_actions`, without building and encoding fifteen actions a step."""
        rockem = cast(RockemSockemState, state)
        if chosen or seat not in rockem.acting_seats():
            return {}
        if rockem.phase == FLIP:
            return {FLIP_TOKEN: FLIP_ACTION}
        return dict(FIRST_ROLL if rockem.corners[seat].dice is None else ROLLS)

    def next_seat(self, state: GameState, passed: frozenset[int]) -> int | None:
        """The engine's first waiting seat; in a realtime race the racers in turn, the flipper's opponent first."""
        rockem = cast(RockemSockemState, state)
        if not self.realtime or rockem.phase != RACE or rockem.outcome is not None:
            return super().next_seat(state, passed)
        last = getattr(rockem, "last_roller", None)
        return realtime_order(rockem)[0] if last is None else 1 - last

    # --- observations -----------------------------------------------------------------------------------------
    def sections(self) -> Sequence[Section]:
        faces = ", ".join(f"{face['colour']} {face['icon']}" for face in FACES)
        return [
            Section("phase", 2, "one-hot: the round is at its flip, the race is on (zeros once the game is over)"),
            Section("i_flip", 1, "1 when this seat flips (flipped) the Match Coin this round"),
            Section(
                "coin", 2, "one-hot: the coin shows colour (match colours), icon (match icons); zeros before the flip"
            ),
            Section(
                "my_dice",
                DICE * len(FACES),
                f"this seat's dice 0 to 3, each one-hot over the faces {faces}; zeros before its first roll",
            ),
            Section("other_dice", DICE * len(FACES), "the other seat's dice, as my_dice"),
            Section(
                "my_cards",
                3,
                f"this seat's Fight Cards: HITs shown / {HIT_CARDS}, MISSes shown / {MISS_CARDS}, face down / {CARDS}",
            ),
            Section("other_cards", 3, "the other seat's Fight Cards, as my_cards"),
            Section("answered", 2, "rounds mode: this seat, the other seat has sent its keep for this roll step"),
            Section("my_keep", DICE, "rounds mode: the dice this seat kept in the keep it sent this step"),
            Section(
                "last_round",
                6,
                "the last round: I grabbed the coin, the other did, both matched at once (nobody grabbed), "
                "the grabber healed, the loser turned a HIT, a MISS",
            ),
            Section("round", 1, f"the round number over {ROUND_SCALE}, at most 1"),
            Section("realtime", 1, "1 in realtime mode, 0 in rounds mode"),
        ]

    def observe(self, view: View, seat: int) -> Tensor:
        # Numpy's item assignment is slow next to a rule's step: gather where the 1s go, then set them, and the
        # fractions (the Fight Cards and the round), with one fancy assignment each.
        ones = [self.phase_at[view["phase"]]] if view["phase"] is not None else []
        if view["flipper"] == seat:
            ones.append(self.i_flip_at)
        if view["coin"] is not None:
            ones.append(self.coin_at[view["coin"]])
        mine, other = view["corners"][seat], view["corners"][1 - seat]
        for shown, dice_at in ((mine, self.my_dice_at), (other, self.other_dice_at)):
            if shown["dice"] is not None:
                ones += [dice_at[die][face["colour"], face["icon"]] for die, face in enumerate(shown["dice"])]
        answered = view["answered"]
        if answered[seat]:
            ones.append(self.answered_at)
        if answered[1 - seat]:
            ones.append(self.answered_at + 1)
        if view["my_keep"]:
            ones += [self.my_keep_at + die for die in view["my_keep"]]
        last = view["last_round"]
        if last is not None:
            at, grabber, turned = self.last_round_at, last["grabbed_by"], last.get("turned")
            if grabber is not None:
                ones.append(at + (grabber != seat))
            if last.get("both_matched"):
                ones.append(at + 2)
            if last.get("healed"):
                ones.append(at + 3)
            if turned is not None:
                ones.append(at + 4 + (turned["card"] != "HIT"))
        if self.realtime:
            ones.append(self.realtime_at)
        tensor = np.zeros(self.body_size, dtype=np.float32)
        tensor[ones] = 1.0
        tensor[self.fraction_at] = (
            mine["hits_shown"] / HIT_CARDS,
            mine["misses_shown"] / MISS_CARDS,
            mine["face_down"] / CARDS,
            other["hits_shown"] / HIT_CARDS,
            other["misses_shown"] / MISS_CARDS,
            other["face_down"] / CARDS,
            min(view["round"], ROUND_SCALE) / ROUND_SCALE,
        )
        return tensor

    def render(self, view: View) -> str:
        if view["phase"] is None:
            status = f"round {view['round']}: game over"
        elif view["phase"] == FLIP:
            status = f"round {view['round']}: seat {view['flipper']} to flip the Match Coin"
        else:
            status = f"round {view['round']}: the coin shows {view['coin']} (seat {view['flipper']} flipped); race on"
        rows = [f"{status} [{view['mode']} mode]"]
        for corner, shown in enumerate(view["corners"]):
            dice = (
                "not rolled"
                if shown["dice"] is None
                else "  ".join(f"[{die}] {face['colour']} {face['icon']}" for die, face in enumerate(shown["dice"]))
            )
            waiting = " (answered)" if view["answered"][corner] else ""
            rows.append(
                f"seat {corner}: {shown['hits_shown']} HIT, {shown['misses_shown']} MISS shown, "
                f"{shown['face_down']} face down | dice: {dice}{waiting}"
            )
        last = view["last_round"]
        if last is not None:
            if last["grabbed_by"] is None:
                rows.append("last round: both matched in one roll, nobody grabbed the coin")
            else:
                turned = last.get("turned")
                loss = f", seat {turned['seat']} turned a {turned['card']}" if turned else ""
                heal = ", and healed" if last.get("healed") else ""
                rows.append(f"last round: seat {last['grabbed_by']} grabbed the coin{heal}{loss}")
        if view["my_keep"] is not None:
            rows.append(f"my keep this step: {view['my_keep']}")
        return "\n".join(rows)

    def default_max_actions(self) -> int:
        return self.game.max_game_length(self.players, self.options) or MAX_ACTIONS
