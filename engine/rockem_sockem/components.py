"""The Rock'em Sock'em Robots Dice Game's components, read from data.json beside this file."""

from __future__ import annotations

import json
from importlib import resources
from itertools import combinations
from typing import Any

from engine.info import Assumption

DATA: dict[str, Any] = json.loads(resources.files(__package__).joinpath("data.json").read_text())
DICE: int = DATA["dice_per_player"]
FACES: tuple[dict[str, str], ...] = tuple(DATA["die_faces"])
BLOCK: str = DATA["block_icon"]
HIT_CARDS: int = DATA["fight_cards"]["hits"]
MISS_CARDS: int = DATA["fight_cards"]["misses"]
KNOCKOUT: int = DATA["knockout_hits"]
COIN_SIDES: tuple[str, ...] = tuple(DATA["coin_sides"])
ASSUMPTIONS = tuple(Assumption.from_json(a) for a in DATA["assumptions"])
KEEP_SETS: tuple[tuple[int, ...], ...] = tuple(
    keep for size in range(DICE) for keep in combinations(range(DICE), size)
)  # every set of dice a roll may keep: never all of them


def check_data() -> None:
    """Refuse component data that cannot make the printed game."""
    if len(FACES) != 6 or any(set(face) != {"colour", "icon"} for face in FACES):
        raise ValueError("Rock'em Sock'em data: six die faces, each with a colour and an icon")
    if BLOCK not in {face["icon"] for face in FACES}:
        raise ValueError("Rock'em Sock'em data: one icon must be the block icon")
    if HIT_CARDS + MISS_CARDS != 5 or HIT_CARDS < KNOCKOUT:
        raise ValueError("Rock'em Sock'em data: 5 Fight Cards, at least as many HITs as a knock-out needs")


check_data()
