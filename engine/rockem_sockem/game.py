"""Rock'em Sock'em Robots Dice Game rules: every rule of ../shared/rules/rockem-sockem-robots-dice.txt.

A round: the flipper sends `flip` (the Match Coin picks colour or icon), then both seats race with
`roll` actions that keep some dice and re-roll the rest. In `rounds` mode a roll is a step both
seats answer before the server rolls for both; in `realtime` mode each roll happens at once and
the first matching roll to arrive grabs the coin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.errors import CorruptState, IllegalAction, ViewMismatch
from engine.info import GameInfo
from engine.options import OptionSet, OptionSpec
from engine.protocol import Action, Game, GameState, View
from engine.result import Result
from engine.rng import Rng
from engine.rockem_sockem.components import (
    ASSUMPTIONS,
    BLOCK,
    COIN_SIDES,
    DICE,
    FACES,
    HIT_CARDS,
    KEEP_SETS,
    KNOCKOUT,
    MISS_CARDS,
)
from engine.view_reading import seat_index, whole

FLIP, RACE = "flip", "race"
ROUNDS, REALTIME = "rounds", "realtime"

OPTIONS = OptionSet(
    (
        OptionSpec(
            "mode",
            "choice",
            ROUNDS,
            "rounds: each roll is a step both seats answer, fair to slow clients; realtime: roll whenever you like.",
            choices=(ROUNDS, REALTIME),
        ),
    )
)

INFO = GameInfo(
    id="rockem_sockem",
    name="Rock'em Sock'em Robots Dice Game",
    min_players=2,
    max_players=2,
    summary="Both robots roll at once to match the Match Coin; the loser of each round turns a Fight Card.",
    information="imperfect",
    chance=True,
    cooperative=False,
    simultaneous=True,
    min_utility=0,  # the knocked-out robot scores 0
    max_utility=1,  # the winner scores 1
    max_game_length=None,  # rolls repeat until a match, and Down for the Count turns a HIT back: no bound
    options=OPTIONS,
    assumptions=ASSUMPTIONS,
)


@dataclass
class Corner:
    """One player's Fight Cards and dice: face-down HITs and MISSes, the cards shown, the dice rolled."""

    hits_down: int = HIT_CARDS
    misses_down: int = MISS_CARDS
    hits_shown: int = 0
    misses_shown: int = 0
    dice: list[int] | None = None  # face indexes; None until the first roll of the round

    def to_json(self) -> dict[str, Any]:
        """The stored form."""
        return dict(vars(self), dice=None if self.dice is None else list(self.dice))

    def public_json(self) -> dict[str, Any]:
        """What everyone sees: how many cards are face down, the cards shown, the dice."""
        return {
            "face_down": self.hits_down + self.misses_down,
            "hits_shown": self.hits_shown,
            "misses_shown": self.misses_shown,
            "dice": None if self.dice is None else [FACES[f] for f in self.dice],
        }


@dataclass
class RockemSockemState(GameState):
    """Both corners, the coin, whose flip it is, and (rounds mode) the keeps already sent."""

    players: int
    options: dict[str, Any]
    rng: Rng
    corners: list[Corner] = field(default_factory=lambda: [Corner(), Corner()])
    phase: str = FLIP
    flipper: int = 0
    coin: str | None = None
    round: int = 1
    pending: list[list[int] | None] = field(default_factory=lambda: [None, None])
    last_round: dict[str, Any] | None = None
    outcome: Result | None = None

    game_id = "rockem_sockem"
    log_tail = 2  # a hidden keep is a step's roll, and a step has one roll per seat

    # --- whose move -------------------------------------------------------------------------
    def acting_seats(self) -> tuple[int, ...]:
        """The flipper; then both racers (in rounds mode, those who have not answered this step)."""
        if self.outcome:
            return ()
        if self.phase == FLIP:
            return (self.flipper,)
        if self.options["mode"] == REALTIME:
            return (0, 1)
        return tuple(seat for seat in (0, 1) if self.pending[seat] is None)

    # --- what may be done -------------------------------------------------------------------
    def legal_actions(self, seat: int) -> list[Action]:
        """The flip, or every set of dice to keep (none on the round's first roll)."""
        if seat not in self.acting_seats():
            return []
        if self.phase == FLIP:
            return [{"type": "flip"}]
        if self.corners[seat].dice is None:
            return [{"type": "roll", "keep": []}]
        return [{"type": "roll", "keep": list(keep)} for keep in KEEP_SETS]

    def default_action(self, seat: int) -> Action:
        """The flipper flips; a racer re-rolls all four dice (see assumption timeout-default-action).

        'one player will flip the Match Coin'; 'Both players roll and re-roll all of their dice'.
        """
        return {"type": "flip"} if self.phase == FLIP else {"type": "roll", "keep": []}

    def check_action(self, seat: int, action: Action) -> None:
        """A flip from the flipper, or a roll keeping distinct dice (not all four)."""
        if self.phase == FLIP:
            if action != {"type": "flip"}:
                raise IllegalAction('the round starts with the flipper\'s {"type": "flip"}')
            return
        if action.get("type") == "flip":
            raise IllegalAction("the coin is already flipped: race with rolls until someone grabs it")
        keep = action.get("keep")
        if set(action) != {"type", "keep"} or action.get("type") != "roll" or not isinstance(keep, list):
            raise IllegalAction('a roll is {"type": "roll", "keep": [indexes of the dice to keep]}')
        if any(type(die) is not int or not 0 <= die < DICE for die in keep) or len(set(keep)) != len(keep):
            raise IllegalAction(f"keep lists distinct dice, each 0 to {DICE - 1}")
        if self.corners[seat].dice is None and keep:
            raise IllegalAction("the first roll of a round rolls all four dice: keep nothing")
        if len(keep) == DICE:
            raise IllegalAction("keeping all four dice is not a roll")

    # --- changing the state -----------------------------------------------------------------
    def apply_trusted(self, seat: int, action: Action) -> None:
        """Flip the coin, or roll (at once in realtime, when both have answered in rounds mode)."""
        if action["type"] == "flip":
            self._flip()
        elif self.options["mode"] == REALTIME:
            self._roll(seat, action["keep"])
            if self._matched(seat):
                self._grab(seat)
        else:
            self.pending[seat] = list(action["keep"])
            if all(keep is not None for keep in self.pending):
                self._roll_both()

    def _flip(self) -> None:
        """'one player will flip the Match Coin'; 'as soon as the coin is flipped, you can start rolling'."""
        self.coin = self.rng.choice(COIN_SIDES)
        self.phase = RACE
        for corner in self.corners:
            corner.dice = None
        self.pending = [None, None]

    def _roll(self, seat: int, keep: list[int]) -> None:
        """Re-roll every die not kept."""
        corner = self.corners[seat]
        dice = corner.dice or [0] * DICE
        corner.dice = [dice[i] if i in keep else self.rng.below(len(FACES)) for i in range(DICE)]

    def _roll_both(self) -> None:
        """Rounds mode: both answered, so both roll; a seat that alone matched grabs the coin."""
        for seat in (0, 1):
            self._roll(seat, self.pending[seat] or [])
        self.pending = [None, None]
        matched = [seat for seat in (0, 1) if self._matched(seat)]
        if len(matched) == 1:
            self._grab(matched[0])
        elif matched:
            # Both matched in the same roll: nobody was first (assumption both-match-in-one-roll).
            self._next_round({"grabbed_by": None, "both_matched": True})

    def _matched(self, seat: int) -> bool:
        """All dice match the coin's side, or all show the block icon (on either side)."""
        return self._matches_coin(seat) or self._all_blocks(seat)

    def _matches_coin(self, seat: int) -> bool:
        """All dice the same colour (colour side) or the same icon (icon side)."""
        dice = self.corners[seat].dice
        key = "colour" if self.coin == "colour" else "icon"
        return dice is not None and len({FACES[f][key] for f in dice}) == 1

    def _all_blocks(self, seat: int) -> bool:
        """'NO MATTER WHAT THE MATCH COIN SHOWS, if you roll all of this icon [block]'."""
        dice = self.corners[seat].dice
        return dice is not None and all(FACES[f]["icon"] == BLOCK for f in dice)

    def _grab(self, seat: int) -> None:
        """'grab the Match Coin! ... The player who DIDN'T get the coin has to turn over ONE Fight Card.'"""
        loser = 1 - seat
        event: dict[str, Any] = {"grabbed_by": seat, "both_matched": False, "healed": False, "turned": None}
        if self._all_blocks(seat):
            # Down for the Count: turn one card back over, and reshuffle.
            event["healed"] = self._heal(seat)
        if self._matches_coin(seat):
            # A match of the coin's side (all blocks always are one on the icon side) costs the loser a card.
            event["turned"] = self._turn_card(loser)
        # "The first player to show 3 HITS on their Fight Cards is KNOCKED OUT and loses!"
        if self.corners[loser].hits_shown >= KNOCKOUT:
            self.outcome = Result(
                scores=tuple(1 if s == seat else 0 for s in (0, 1)),
                ranking=((seat,), (loser,)),
                winners=(seat,),
                reason=f"seat {loser} shows {KNOCKOUT} HITs: knocked out",
            )
            self.last_round = event
            return
        self._next_round(event)

    def _heal(self, seat: int) -> bool:
        """Turn a shown HIT (else a shown MISS) back face down; True if a card was turned back."""
        corner = self.corners[seat]
        if corner.hits_shown:
            corner.hits_shown, corner.hits_down = corner.hits_shown - 1, corner.hits_down + 1
        elif corner.misses_shown:
            corner.misses_shown, corner.misses_down = corner.misses_shown - 1, corner.misses_down + 1
        else:
            return False
        return True

    def _turn_card(self, seat: int) -> dict[str, Any]:
        """Turn one face-down card at random: a HIT or a MISS."""
        corner = self.corners[seat]
        hit = self.rng.below(corner.hits_down + corner.misses_down) < corner.hits_down
        if hit:
            corner.hits_down, corner.hits_shown = corner.hits_down - 1, corner.hits_shown + 1
        else:
            corner.misses_down, corner.misses_shown = corner.misses_down - 1, corner.misses_shown + 1
        return {"seat": seat, "card": "HIT" if hit else "MISS"}

    def _next_round(self, event: dict[str, Any]) -> None:
        """'Now the other player flips the Match Coin and play continues.'"""
        self.last_round = event
        self.flipper = 1 - self.flipper
        self.phase, self.coin = FLIP, None
        self.round += 1
        self.pending = [None, None]

    def clone(self) -> RockemSockemState:
        """An independent copy."""
        return RockemSockemState(
            self.players,
            self.options,
            self.rng.clone(),
            [Corner(**c.to_json()) for c in self.corners],
            self.phase,
            self.flipper,
            self.coin,
            self.round,
            [None if keep is None else list(keep) for keep in self.pending],
            None if self.last_round is None else dict(self.last_round),
            self.outcome,
        )

    # --- what each viewer sees --------------------------------------------------------------
    def view(self, viewer: int | None) -> View:
        """Dice, coin and cards are public; a keep sent this step only to its sender."""
        return {
            "mode": self.options["mode"],
            "round": self.round,
            "phase": None if self.outcome else self.phase,
            "flipper": self.flipper,
            "coin": self.coin,
            "corners": [corner.public_json() for corner in self.corners],
            "answered": [keep is not None for keep in self.pending],
            "my_keep": self._own_keep(viewer),
            "last_round": self.last_round,
        }

    def _own_keep(self, viewer: int | None) -> list[int] | None:
        """The keep the viewer sent this step, if it is waiting for the other seat."""
        keep = None if viewer is None else self.pending[viewer]
        return None if keep is None else list(keep)

    def redact_action(self, seat: int, action: Action, viewer: int | None) -> Action:
        """A keep is hidden from the other seat while it waits for that seat's answer."""
        if action.get("type") == "roll" and viewer != seat and self.pending[seat] is not None:
            return {"type": "roll", "keep": None}
        return action

    def redact_log(self, moves: list[tuple[int, Action]], viewer: int | None) -> list[Action]:
        """Only the last roll of a seat whose keep is still pending is hidden; earlier steps are resolved."""
        hidden = {
            max((i for i, (s, a) in enumerate(moves) if s == seat and a.get("type") == "roll"), default=-1)
            for seat in (0, 1)
            if seat != viewer and self.pending[seat] is not None
        }
        return [{"type": "roll", "keep": None} if i in hidden else action for i, (_, action) in enumerate(moves)]

    def determinize(self, viewer: int | None, rng: Rng) -> RockemSockemState:
        """Fresh chance, and any keep the viewer has not seen replaced by a random one."""
        copy = self.clone()
        copy.rng = Rng(rng.next_u64())
        for seat in (0, 1):
            if seat != viewer and copy.pending[seat] is not None:
                options = [[]] if copy.corners[seat].dice is None else [list(k) for k in KEEP_SETS]
                copy.pending[seat] = rng.choice(options)
        return copy

    # --- storage ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The whole state as JSON."""
        return {
            "game": self.game_id,
            "players": self.players,
            "options": dict(self.options),
            "rng": self.rng.state,
            "corners": [corner.to_json() for corner in self.corners],
            "phase": self.phase,
            "flipper": self.flipper,
            "coin": self.coin,
            "round": self.round,
            "pending": [None if keep is None else list(keep) for keep in self.pending],
            "last_round": self.last_round,
            "outcome": self.outcome.to_json() if self.outcome else None,
        }


# --- a state from what a seat sees -------------------------------------------------------------


def state_from_view(view: View, seat: int, options: dict[str, Any], rng: Rng) -> RockemSockemState:
    """The coin, dice and Fight Cards the view shows; the other seat's keep, if it sent one this step, drawn at random.

    Which face-down cards are HITs needs no guess: every player has the same Fight Cards, so the count shown
    tells how many of each are still face down, and the next one is turned at random.
    """
    state = RockemSockemState(2, options, Rng(rng.next_u64()), [_corner(c) for c in view["corners"]])
    state.round, state.coin = whole(view["round"], "round"), view["coin"]
    state.flipper = seat_index(view["flipper"], 2, "the Match Coin's flipper")
    state.phase = view["phase"] or RACE  # a knock-out ends the game in the race
    state.last_round = None if view["last_round"] is None else dict(view["last_round"])
    if state.round < 1 or state.flipper != (state.round - 1) % 2:
        raise ViewMismatch("seat 0 flips first, then 'the other player flips the Match Coin and play continues'")
    if (state.phase == RACE) != (state.coin in COIN_SIDES) or (state.phase != RACE and state.phase != FLIP):
        raise ViewMismatch("the Match Coin shows a side exactly while the players race")
    for other, answered in enumerate(view["answered"]):
        if answered is True:
            dice = state.corners[other].dice
            keeps = [[]] if dice is None else [list(keep) for keep in KEEP_SETS]
            state.pending[other] = list(view["my_keep"]) if other == seat else rng.choice(keeps)
            if state.pending[other] not in keeps:
                raise ViewMismatch(f"seat {seat} cannot have kept the dice {view['my_keep']!r}")
    if all(state.pending[racer] is not None for racer in (0, 1)):
        raise ViewMismatch("once both players have kept their dice, they roll again: both cannot be waiting")
    knocked_out = [corner for corner in (0, 1) if state.corners[corner].hits_shown >= KNOCKOUT]
    if view["phase"] is None:
        if len(knocked_out) != 1:
            raise ViewMismatch(f"a game shown as over has one player showing {KNOCKOUT} HITs")
        winner = 1 - knocked_out[0]
        state.outcome = Result(
            scores=tuple(1 if s == winner else 0 for s in (0, 1)),
            ranking=((winner,), (knocked_out[0],)),
            winners=(winner,),
            reason=f"seat {knocked_out[0]} shows {KNOCKOUT} HITs: knocked out",
        )
    elif knocked_out or (state.phase == RACE and any(state._matched(racer) for racer in (0, 1))):
        raise ViewMismatch("'The first player to show 3 HITS ... is KNOCKED OUT'; a matching roll grabs the coin")
    return state


def _corner(shown: dict[str, Any]) -> Corner:
    """A corner from its public form: the face-down split follows from the cards shown."""
    cards = f"of each player's {HIT_CARDS} HIT and {MISS_CARDS} MISS Fight Cards"
    hits = whole(shown["hits_shown"], f"the HITs shown {cards}", HIT_CARDS)
    misses = whole(shown["misses_shown"], f"the MISSes shown {cards}", MISS_CARDS)
    dice = shown["dice"]
    faces = None if dice is None else [FACES.index(face) for face in dice]
    if faces is not None and len(faces) != DICE:
        raise ViewMismatch(f"each player rolls {DICE} dice")
    return Corner(HIT_CARDS - hits, MISS_CARDS - misses, hits, misses, faces)


class RockemSockem(Game):
    """The Rock'em Sock'em Robots Dice Game object."""

    info = INFO

    def new_state_from_rng(self, players: int, options: dict[str, Any], rng: Rng) -> RockemSockemState:
        """Five Fight Cards shuffled face down and four dice each; seat 0 flips first."""
        return RockemSockemState(players, options, rng)

    def rebuild_from_view(
        self, view: View, seat: int, players: int, options: dict[str, Any], rng: Rng
    ) -> RockemSockemState:
        """The position the view shows, the other seat's unseen keep drawn at random."""
        return state_from_view(view, seat, options, rng)

    def state_from_json(self, data: dict[str, Any]) -> RockemSockemState:
        """Read back a state written by `to_json`."""
        try:
            outcome = data["outcome"]
            return RockemSockemState(
                int(data["players"]),
                OPTIONS.resolve(data["options"]),
                Rng(int(data["rng"])),
                [Corner(**corner) for corner in data["corners"]],
                str(data["phase"]),
                int(data["flipper"]),
                data["coin"],
                int(data["round"]),
                [None if keep is None else list(keep) for keep in data["pending"]],
                data["last_round"],
                Result.from_json(outcome) if outcome else None,
            )
        except (KeyError, TypeError, ValueError) as error:
            raise CorruptState(f"not a Rock'em Sock'em state: {error}") from error
