"""Sundae Split's ingredient cards and the printed tables, read from data.json beside this file."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from engine.info import Assumption

SCOOP, VEGETABLE, TOPPING = "scoop", "vegetable", "topping"
BANANA, CHERRY, SPRINKLES, WHIPPED_CREAM = "banana", "cherry", "sprinkles", "whipped cream"


@dataclass(frozen=True)
class Card:
    """One ingredient card: a scoop (flavour and points), a vegetable (penalty) or a topping."""

    id: str
    kind: str
    name: str
    points: int
    three_plus: bool

    def to_json(self) -> dict[str, Any]:
        """The card as every view shows it."""
        return {
            "id": self.id,
            "kind": self.kind,
            "name": self.name,
            "points": self.points,
            "three_plus": self.three_plus,
        }


@dataclass(frozen=True)
class RoundSize:
    """How many cards the Splitter draws each round, and how many go face down."""

    draw: int
    face_down: int


def load_data() -> dict[str, Any]:
    """The raw data file."""
    data: dict[str, Any] = json.loads(resources.files(__package__).joinpath("data.json").read_text())
    return data


def build_cards(groups: list[dict[str, Any]]) -> tuple[Card, ...]:
    """Every card, ids C01.. in data order; the first `three_plus` cards of each group carry '3+'."""
    cards: list[Card] = []
    for group in groups:
        for copy in range(group["count"]):
            card_id = f"C{len(cards) + 1:02d}"
            cards.append(Card(card_id, group["kind"], group["name"], group["points"], copy < group["three_plus"]))
    return tuple(cards)


DATA = load_data()
CARDS: tuple[Card, ...] = build_cards(DATA["cards"])
CARD_BY_ID: dict[str, Card] = {card.id: card for card in CARDS}
REMOVED_AT_RANDOM: dict[int, int] = {int(n): count for n, count in DATA["removed_at_random"].items()}
ROUND_SIZES: dict[int, RoundSize] = {int(n): RoundSize(**size) for n, size in DATA["rounds"].items()}
MIN_PILE, MAX_PILE = DATA["pile_size"]["min"], DATA["pile_size"]["max"]
SCORING: dict[str, Any] = DATA["scoring"]
FLAVOURS: tuple[str, ...] = tuple(SCORING["flavours"])
ASSUMPTIONS = tuple(Assumption.from_json(a) for a in DATA["assumptions"])


def starting_deck(players: int) -> list[str]:
    """Card ids in the game before the shuffle: 'If playing with 2 players, remove the 20 ... "3+" cards'."""
    return [card.id for card in CARDS if players > 2 or not card.three_plus]


def deck_size(players: int) -> int:
    """Cards left to play after the removals."""
    return len(starting_deck(players)) - REMOVED_AT_RANDOM[players]


def rounds(players: int) -> int:
    """Rounds in a game: the deck is used up in whole rounds."""
    return deck_size(players) // ROUND_SIZES[players].draw


def check_data() -> None:
    """Refuse card data that cannot make a playable game, with a clear message."""
    counts = {kind: sum(1 for c in CARDS if c.kind == kind) for kind in (SCOOP, VEGETABLE, TOPPING)}
    if counts != {SCOOP: 30, VEGETABLE: 9, TOPPING: 29}:
        raise ValueError(f"Sundae Split data: expected 30 scoops, 9 vegetables, 29 toppings; got {counts}")
    if sum(c.three_plus for c in CARDS) != 20:
        raise ValueError("Sundae Split data: exactly 20 cards carry '3+'")
    for table, name in ((ROUND_SIZES, "rounds"), (REMOVED_AT_RANDOM, "removed_at_random")):
        if set(table) != {2, 3, 4, 5}:
            raise ValueError(f"Sundae Split data: {name} must give 2, 3, 4 and 5 players; it gives {sorted(table)}")
    for players, size in ROUND_SIZES.items():
        if deck_size(players) % size.draw:
            raise ValueError(f"Sundae Split data: {players} players' deck does not divide into rounds of {size.draw}")
        if not players * MIN_PILE <= size.draw <= players * MAX_PILE or not 0 <= size.face_down <= size.draw:
            raise ValueError(f"Sundae Split data: {size} cannot be split into {players} piles")


check_data()
