"""The table of Robots Love Ice Cream: decks, hands, trucks, the planet and the Spinston Beam Track.

`Table` holds every part of a position and the small moves the rules are made of (draw a card,
collect Sprinkletonium, move an Ice Cream token, destroy a robot). The order of play lives in
`phases.py`, what a seat may do in `actions.py`, what a viewer sees in `viewing.py`; `state.py` makes a
table a game state, whose protocol calls them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Self

from engine.result import Result
from engine.rng import Rng
from engine.robots_love_ice_cream.data import DATA, Boost, Robot
from engine.robots_love_ice_cream.planet import ABOVE_TRACK, SPINSTON_LEVEL, Column
from engine.robots_love_ice_cream.schema import SPRINKLETONIUM

RULES = DATA.rules
SOLO = RULES.solo
PLAYER, STORE, EQUIP, SOCIAL, OVER = "player", "store", "equip", "social", "over"
"""The phases of a round (phases.py plays them)."""
DRAW_UP, KEEP, ACT = "draw_up", "keep", "act"
"""The steps of a player's turn."""


@dataclass
class Table:
    """One position: everything on the table, in the hands and in the decks, and whose move it is.

    The rules' modules (phases, actions, views, effects, sets) work on a Table; state.py's game state adds the
    game protocol, which calls them.
    """

    players: int
    options: dict[str, Any]
    rng: Rng
    first_player: int = 0
    planet: int = 0  # the planet in play, 1 to 5
    planet_card: str = ""
    round: int = 0
    phase: str = PLAYER
    step: str = ""  # in the player phase: draw_up, keep or act
    queue: list[int] = field(default_factory=list)  # seats still to act in this phase; the acting one first
    hands: list[list[str]] = field(default_factory=list)  # ice cream ids, sorted
    weaponized: list[int] = field(default_factory=list)  # Variant B: Sprinkletonium held in hand as a wild card
    drawn: list[str] = field(default_factory=list)  # the active player's draw, waiting for the keep
    ice_deck: list[str] = field(default_factory=list)  # the top card is the last
    ice_discard: list[str] = field(default_factory=list)
    robot_deck: list[str] = field(default_factory=list)
    robot_discard: list[str] = field(default_factory=list)
    boost_deck: list[str] = field(default_factory=list)
    boost_discard: list[str] = field(default_factory=list)
    store_row: list[str] = field(default_factory=list)
    bought: int = 0  # Boosts the current buyer bought this store phase (Variant F)
    pending: str | None = None  # an immediate Boost waiting for its buyer to choose how it resolves
    supply: int = 0  # the Sprinkletonium deck
    sprinkles: list[int] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)  # Ice Cream tokens saved by each player
    captured: int = 0
    track_levels: list[int] = field(default_factory=list)  # tokens on the track's levels 1 (top) to 3 (bottom)
    above: int = 0  # tokens moved above the track (level 0): captured when the planet ends
    columns: list[Column] = field(default_factory=list)
    attacks: int = 0  # regular attacks made this turn
    extras: list[str] = field(default_factory=list)  # upgrades whose extra attack was used this turn
    spares: list[list[str]] = field(default_factory=list)  # owned truck upgrades not equipped
    equipped: list[list[str]] = field(default_factory=list)
    effects: list[list[str]] = field(default_factory=list)  # game effects that remain in play
    used: list[str] = field(default_factory=list)  # once-per-planet Boosts used on this planet
    jammed: list[int] = field(default_factory=list)  # Sticky Syrup: columns stuck until the planet ends
    social: list[str] = field(default_factory=list)  # Variant D: the Ice Cream Social's face-up cards
    events: list[str] = field(default_factory=list)  # what the last action set off, in words (public)
    outcome: Result | None = None

    @classmethod
    def blank(cls, players: int, options: dict[str, Any], rng: Rng) -> Self:
        """An empty table for this many players."""

        def per_seat() -> list[list[str]]:
            return [[] for _ in range(players)]

        zeros = [0] * players
        return cls(
            players,
            options,
            rng,
            hands=per_seat(),
            weaponized=list(zeros),
            sprinkles=list(zeros),
            tokens=list(zeros),
            spares=per_seat(),
            equipped=per_seat(),
            effects=per_seat(),
            track_levels=[0] * RULES.track_levels,
        )

    # --- the numbers that depend on the player count and the variants ---------------------------
    @property
    def solo(self) -> bool:
        """'When playing a solo mission, several rule changes take effect.'"""
        return self.players == 1

    def hand_size(self) -> int:
        """'Deal 7 ... cards'; 'Solo players begin the game with 8 cards in hand.'"""
        return SOLO.hand_size if self.solo else RULES.hand_size

    def draw_count(self, seat: int) -> int:
        """'Draw 2 ... cards'; solo: 'draw 3 ... and keep 2'; plus draw bonuses."""
        return (SOLO.draw if self.solo else RULES.draw) + self.passive_amount(seat, "draw_bonus")

    def keep_count(self, seat: int) -> int:
        """How many of the drawn cards the player keeps."""
        return (SOLO.keep if self.solo else RULES.keep) + self.passive_amount(seat, "keep_bonus")

    def regular_attacks(self) -> int:
        """One attack; 'Solo player may attack twice per turn'; Variant E: 'two attacks instead of one'."""
        if self.solo:
            return SOLO.attacks_per_turn
        if self.options.get("attack_twice"):
            return RULES.variants.attack_twice_attacks
        return RULES.attacks_per_turn

    def upgrade_slots(self, seat: int) -> int:
        """'a maximum of two upgrades'; solo 'up to 3'; plus slot bonuses."""
        return (SOLO.upgrade_slots if self.solo else RULES.upgrade_slots) + self.passive_amount(seat, "slot_bonus")

    def refill_target(self, seat: int) -> int:
        """'fill their Weaponized Ice Cream hand back up to 7 cards' (8 in solo), plus refill bonuses."""
        return self.hand_size() + self.passive_amount(seat, "refill_bonus")

    def hand_count(self, seat: int) -> int:
        """Cards in a hand, weaponized Sprinkletonium included."""
        return len(self.hands[seat]) + self.weaponized[seat]

    # --- Boosts in play ----------------------------------------------------------------------
    def active_boosts(self, seat: int) -> list[Boost]:
        """The seat's equipped upgrades and its effects that remain in play."""
        return [DATA.boosts[b] for b in (*self.equipped[seat], *self.effects[seat])]

    def passive_amount(self, seat: int, effect: str) -> int:
        """The sum of `amount` over the seat's Boosts in play with this effect."""
        return sum(b.ability.params["amount"] for b in self.active_boosts(seat) if b.ability.effect == effect)

    def has_passive(self, seat: int, effect: str) -> bool:
        """True when one of the seat's Boosts in play has this effect."""
        return any(b.ability.effect == effect for b in self.active_boosts(seat))

    def use_trigger(self, seat: int, effect: str) -> Boost | None:
        """Use one of the seat's once-per-planet Boosts with this effect not used yet on this planet."""
        for boost in self.active_boosts(seat):
            if boost.ability.effect == effect and boost.id not in self.used:
                self.used.append(boost.id)
                return boost
        return None

    def seats_from_first(self) -> list[int]:
        """Every seat, clockwise (increasing seat order) from the first player."""
        return [(self.first_player + step) % self.players for step in range(self.players)]

    # --- cards -------------------------------------------------------------------------------
    def draw_ice(self, count: int) -> list[str]:
        """Draw from the Weaponized Ice Cream deck; 'shuffled when ... depleted', never before."""
        cards: list[str] = []
        for _ in range(count):
            if not self.ice_deck:
                if not self.ice_discard:
                    break
                self.ice_deck, self.ice_discard = self.ice_discard, []
                self.rng.shuffle(self.ice_deck)
                self.event("the Weaponized Ice Cream discard pile is shuffled into a new deck")
            cards.append(self.ice_deck.pop())
        return cards

    def add_to_hand(self, seat: int, cards: list[str]) -> None:
        """Put cards into a hand (a weaponized Sprinkletonium stays a Sprinkletonium)."""
        for card in cards:
            if card == SPRINKLETONIUM:
                self.weaponized[seat] += 1
            else:
                self.hands[seat].append(card)
        self.hands[seat].sort()

    def remove_from_hand(self, seat: int, card: str) -> None:
        """Take one card out of a hand."""
        if card == SPRINKLETONIUM:
            self.weaponized[seat] -= 1
        else:
            self.hands[seat].remove(card)

    def discard(self, seat: int, card: str) -> None:
        """Discard a card from a hand: ice cream to its discard pile, Sprinkletonium back to the supply.

        'Sprinkletonium cards do not have a discard pile. Lost or spent Sprinkletonium cards are simply placed
        back in the deck.'
        """
        self.remove_from_hand(seat, card)
        if card == SPRINKLETONIUM:
            self.supply += 1
        else:
            self.ice_discard.append(card)

    def random_card(self, seat: int) -> str | None:
        """A card of the hand picked at random (weaponized Sprinkletonium included), or None if empty."""
        count = self.hand_count(seat)
        if count == 0:
            return None
        index = self.rng.below(count)
        return self.hands[seat][index] if index < len(self.hands[seat]) else SPRINKLETONIUM

    def draw_robot(self) -> str | None:
        """The top robot card; the discards are shuffled in only when the deck is empty."""
        if not self.robot_deck:
            if not self.robot_discard:
                return None
            self.robot_deck, self.robot_discard = self.robot_discard, []
            self.rng.shuffle(self.robot_deck)
            self.event("the robot discard pile is shuffled into a new robot deck")
        return self.robot_deck.pop()

    def draw_boost(self) -> str | None:
        """The top Boost card; the discards are shuffled in only when the deck is empty."""
        if not self.boost_deck:
            if not self.boost_discard:
                return None
            self.boost_deck, self.boost_discard = self.boost_discard, []
            self.rng.shuffle(self.boost_deck)
            self.event("the Boost discard pile is shuffled into a new Boost deck")
        return self.boost_deck.pop()

    # --- Sprinkletonium ------------------------------------------------------------------------
    def collect(self, seat: int, amount: int) -> int:
        """'Should a player need to draw Sprinkletonium and there is none available in the deck, they simply do not
        receive any that turn.'"""
        got = min(amount, self.supply)
        self.supply -= got
        self.sprinkles[seat] += got
        return got

    def pay(self, seat: int, amount: int) -> None:
        """Spent Sprinkletonium goes back to the deck."""
        self.sprinkles[seat] -= amount
        self.supply += amount

    # --- the Spinston Beam Track (levels count down from the top: see planet.py) -------------------
    def tokens_on_track(self) -> int:
        """Ice Cream tokens still on the track."""
        return sum(self.track_levels)

    def token_level(self, which: str) -> int | None:
        """The level of the lowest (or highest) token on the track; None when the track is empty."""
        levels = [level for level, count in enumerate(self.track_levels, 1) if count]
        if not levels:
            return None
        return levels[-1] if which == "lowest" else levels[0]

    def move_token(self, start: int, end: int) -> None:
        """Move one token from level `start` to level `end` (ABOVE_TRACK up top; never below the bottom level)."""
        if start == ABOVE_TRACK:
            self.above -= 1
        else:
            self.track_levels[start - 1] -= 1
        end = min(end, len(self.track_levels))
        if end <= ABOVE_TRACK:
            self.above += 1
        else:
            self.track_levels[end - 1] += 1

    def advance_token(self, which: str) -> None:
        """Move the lowest (or highest) token on the track up one level; off the top it is above the track."""
        level = self.token_level(which)
        if level is not None:
            self.move_token(level, level - 1)

    def claim_token(self, seat: int) -> bool:
        """'the player additionally claims 1 Ice Cream token from the Spinston Beam Track' (the highest one)."""
        level = self.token_level("highest")
        if level is None:
            return False
        self.track_levels[level - 1] -= 1
        self.tokens[seat] += 1
        return True

    def place_tokens(self, count: int) -> None:
        """'Place Ice Cream victory tokens ... onto the card at the bottom of the Spinston Beam Track.'"""
        self.track_levels = [0] * (RULES.track_levels - 1) + [count]
        self.above = 0

    def move_beam_up(self) -> None:
        """'The man holding the crate and the remaining Ice Cream tokens move together up the track.'"""
        self.above += self.track_levels[0]
        self.track_levels = [*self.track_levels[1:], 0]

    def track_text(self) -> str:
        """Where the tokens are, in words for the events: above the track, then level by level from the top."""
        levels = ", ".join(str(count) for count in self.track_levels)
        return f"{self.above} above the track; levels 1 (top) to {len(self.track_levels)}: {levels}"

    # --- robots --------------------------------------------------------------------------------
    def robot(self, column: int, level: int) -> Robot:
        """The robot card at a spot."""
        robot_id = self.columns[column].robot_at(level)
        assert robot_id is not None
        return DATA.robot(robot_id)

    def target(self, column: int) -> tuple[int, Robot] | None:
        """The level and robot an attack on this column hits: 'the lowest occupied position'."""
        level = self.columns[column].lowest()
        return None if level is None else (level, self.robot(column, level))

    def destroy(self, seat: int, column: int, level: int) -> None:
        """A3 Clean Up: the robot to the discard pile (a Spinston set aside), its reward, a Spinston's token."""
        robot = self.robot(column, level)
        if level == SPINSTON_LEVEL:
            self.columns[column].spinston = None
        else:
            self.columns[column].slots[level - 1] = None
            self.robot_discard.append(robot.id)
        got = self.collect(seat, robot.reward + self.passive_amount(seat, "reward_bonus"))
        text = f"seat {seat} destroys {robot.name} (column {column}) and collects {got} Sprinkletonium"
        if level == SPINSTON_LEVEL:
            text += " and an Ice Cream token" if self.claim_token(seat) else "; no Ice Cream token is left to claim"
        self.event(text)

    def event(self, text: str) -> None:
        """Note something the last action set off (public information only)."""
        self.events.append(text)

    def acting_seats(self) -> tuple[int, ...]:
        """The one seat whose decision the game waits for."""
        return () if self.outcome or not self.queue else (self.queue[0],)

    def clone(self) -> Self:
        """An independent copy."""
        return type(self)(
            self.players,
            self.options,
            self.rng.clone(),
            self.first_player,
            self.planet,
            self.planet_card,
            self.round,
            self.phase,
            self.step,
            list(self.queue),
            [list(hand) for hand in self.hands],
            list(self.weaponized),
            list(self.drawn),
            list(self.ice_deck),
            list(self.ice_discard),
            list(self.robot_deck),
            list(self.robot_discard),
            list(self.boost_deck),
            list(self.boost_discard),
            list(self.store_row),
            self.bought,
            self.pending,
            self.supply,
            list(self.sprinkles),
            list(self.tokens),
            self.captured,
            list(self.track_levels),
            self.above,
            [column.copy() for column in self.columns],
            self.attacks,
            list(self.extras),
            [list(cards) for cards in self.spares],
            [list(cards) for cards in self.equipped],
            [list(cards) for cards in self.effects],
            list(self.used),
            list(self.jammed),
            list(self.social),
            list(self.events),
            self.outcome,
        )
