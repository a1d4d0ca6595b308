"""Building a legal action when `legal-actions` answers `kind: constructed` (a Sundae Split Splitter's split).

The answer's `constraints` say what the JSON Schema cannot: the drawn `cards` (each into exactly one
pile), how many `piles` (one per player), each pile's size (`pile_size.min` to `.max` cards) and how
many cards go `face_down` (any piles; the rest face up). `random_split` and `balanced_split` build a
split that follows them; `construct` builds one for any constructed answer (the `example` for a space
it does not know).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from parlour_client import Action, LegalActions

Value = Callable[[str], float]
"""What a card is worth to the splitter (by card id)."""


def is_split_space(legal: LegalActions) -> bool:
    """True when the constructed answer describes a split (cards into piles)."""
    constraints = legal.get("constraints") or {}
    return {"cards", "piles", "pile_size", "face_down"} <= set(constraints)


def construct(legal: LegalActions, rng: random.Random) -> Action:
    """A legal action for a `constructed` answer: a random split, or the server's `example` for another space."""
    if is_split_space(legal):
        return random_split(legal, rng)
    return dict(legal["example"])


def random_split(legal: LegalActions, rng: random.Random) -> Action:
    """A random legal split: random pile sizes within the bounds, cards shuffled, random face-down cards."""
    cards, piles, low, high, face_down = _constraints(legal)
    sizes = [low] * piles
    for _ in range(len(cards) - low * piles):
        sizes[rng.choice([i for i, n in enumerate(sizes) if n < high])] += 1
    shuffled = list(cards)
    rng.shuffle(shuffled)
    hidden = set(rng.sample(shuffled, face_down))
    return _split(legal, _cut(shuffled, sizes), hidden)


def balanced_split(legal: LegalActions, value: Value) -> Action:
    """A split whose piles are worth about the same (the Splitter takes the pile the others leave): piles as
    even in size as the bounds allow, the most valuable cards dealt first, each to the poorest pile with room,
    and the most valuable cards face down (the others choose without seeing them)."""
    cards, piles, low, high, face_down = _constraints(legal)
    sizes = even_sizes(len(cards), piles, low, high)
    ranked = sorted(cards, key=lambda card: (-value(card), card))
    contents: list[list[str]] = [[] for _ in range(piles)]
    worth = [0.0] * piles
    for card in ranked:
        open_piles = [i for i in range(piles) if len(contents[i]) < sizes[i]]
        poorest = min(open_piles, key=lambda i: (worth[i], i))
        contents[poorest].append(card)
        worth[poorest] += value(card)
    return _split(legal, contents, set(ranked[:face_down]))


def even_sizes(cards: int, piles: int, low: int, high: int) -> list[int]:
    """Pile sizes as even as possible, each within [low, high], summing to `cards`; ValueError if none fits."""
    if not low * piles <= cards <= high * piles:
        raise ValueError(f"{cards} cards do not fit {piles} piles of {low} to {high}")
    base, extra = divmod(cards, piles)
    return [base + (1 if i < extra else 0) for i in range(piles)]


def _constraints(legal: LegalActions) -> tuple[list[str], int, int, int, int]:
    """The split's cards, pile count, pile size bounds and face-down count, checked to be satisfiable."""
    constraints: dict[str, Any] = legal.get("constraints") or {}
    cards = [str(card) for card in constraints["cards"]]
    piles = int(constraints["piles"])
    low, high = int(constraints["pile_size"]["min"]), int(constraints["pile_size"]["max"])
    face_down = int(constraints["face_down"])
    even_sizes(len(cards), piles, low, high)
    if face_down > len(cards):
        raise ValueError(f"{face_down} face-down cards out of {len(cards)}")
    return cards, piles, low, high, face_down


def _cut(cards: Sequence[str], sizes: Sequence[int]) -> list[list[str]]:
    """The cards cut into consecutive piles of these sizes."""
    piles, start = [], 0
    for size in sizes:
        piles.append(list(cards[start : start + size]))
        start += size
    return piles


def _split(legal: LegalActions, piles: list[list[str]], hidden: set[str]) -> Action:
    """The split action: each pile's face-up and face-down cards, its `type` as the schema states it."""
    schema = legal.get("schema") or {}
    kind = schema.get("properties", {}).get("type", {}).get("const") or legal.get("example", {}).get("type", "split")
    return {
        "type": kind,
        "piles": [
            {
                "face_up": [card for card in pile if card not in hidden],
                "face_down": [card for card in pile if card in hidden],
            }
            for pile in piles
        ],
    }
