"""The Split Phase: checking a Splitter's piles, describing the choice, and drawing random splits."""

from __future__ import annotations

from typing import Any

from engine.errors import IllegalAction
from engine.protocol import CONSTRUCTED, Action
from engine.rng import Rng
from engine.sundae_split.cards import MAX_PILE, MIN_PILE, RoundSize

ONE_PILE_PER_PLAYER = "'There must be one pile per player.'"
PILE_SIZE = "'Each pile must have at least one card, and no more than four cards.'"
FACE_DOWN = "'A specific number of cards ... must be face down; the rest of the cards must be face up.'"


def check_split(action: Action, hand: list[str], players: int, size: RoundSize) -> list[tuple[list[str], list[str]]]:
    """The (face up, face down) piles of a valid split; IllegalAction naming the rule and pile otherwise."""
    if set(action) != {"type", "piles"}:
        raise IllegalAction('a split is {"type": "split", "piles": [{"face_up": [...], "face_down": [...]}, ...]}')
    piles = action["piles"]
    if not isinstance(piles, list) or len(piles) != players:
        raise IllegalAction(f"make exactly {players} piles: {ONE_PILE_PER_PLAYER}")
    parsed = [_pile(index, pile) for index, pile in enumerate(piles)]
    _check_cards(parsed, hand)
    for index, (up, down) in enumerate(parsed):
        if not MIN_PILE <= len(up) + len(down) <= MAX_PILE:
            raise IllegalAction(f"pile {index} has {len(up) + len(down)} cards: {PILE_SIZE}")
    face_down = sum(len(down) for _, down in parsed)
    if face_down != size.face_down:
        raise IllegalAction(f"{face_down} cards are face down but exactly {size.face_down} must be: {FACE_DOWN}")
    return parsed


def _pile(index: int, pile: Any) -> tuple[list[str], list[str]]:
    """One pile's face-up and face-down card ids, or IllegalAction saying what is wrong with it."""
    if not isinstance(pile, dict) or set(pile) != {"face_up", "face_down"}:
        raise IllegalAction(f'pile {index} must be {{"face_up": [card ids], "face_down": [card ids]}}')
    up, down = pile["face_up"], pile["face_down"]
    for side in (up, down):
        if not isinstance(side, list) or not all(isinstance(card, str) for card in side):
            raise IllegalAction(f"pile {index}: face_up and face_down are lists of card ids")
    return up, down


def _check_cards(piles: list[tuple[list[str], list[str]]], hand: list[str]) -> None:
    """Every drawn card in exactly one pile, and nothing else."""
    seen: set[str] = set()
    for index, (up, down) in enumerate(piles):
        for card in up + down:
            if card not in hand:
                raise IllegalAction(f"pile {index}: {card!r} is not one of the cards you drew")
            if card in seen:
                raise IllegalAction(f"pile {index}: {card!r} is in more than one place")
            seen.add(card)
    missing = [card for card in hand if card not in seen]
    if missing:
        raise IllegalAction(f"every drawn card goes into a pile; not placed: {missing}")


def random_split(hand: list[str], players: int, size: RoundSize, rng: Rng) -> Action:
    """A uniformly shuffled valid split: random pile sizes, random cards, random face-down cards."""
    sizes = [MIN_PILE] * players
    for _ in range(len(hand) - MIN_PILE * players):
        sizes[rng.choice([i for i, n in enumerate(sizes) if n < MAX_PILE])] += 1
    cards = list(hand)
    rng.shuffle(cards)
    hidden = set(rng.choice_many(range(len(cards)), size.face_down))
    return _piles_from(cards, sizes, hidden)


def example_split(hand: list[str], players: int, size: RoundSize) -> Action:
    """One concrete valid split: cards dealt round the piles in order, the first ones face down."""
    sizes = [0] * players
    for i in range(len(hand)):
        sizes[i % players] += 1
    return _piles_from(list(hand), sizes, set(range(size.face_down)))


def _piles_from(cards: list[str], sizes: list[int], hidden: set[int]) -> Action:
    """Cut the cards into piles of these sizes; positions in `hidden` go face down."""
    piles, start = [], 0
    for n in sizes:
        positions = range(start, start + n)
        piles.append(
            {
                "face_up": [cards[i] for i in positions if i not in hidden],
                "face_down": [cards[i] for i in positions if i in hidden],
            }
        )
        start += n
    return {"type": "split", "piles": piles}


def split_space(hand: list[str], players: int, size: RoundSize) -> dict[str, Any]:
    """The machine-readable description of the Splitter's choice, with one valid example."""
    card_ids = {"type": "array", "items": {"enum": hand}, "uniqueItems": True}
    pile = {
        "type": "object",
        "required": ["face_up", "face_down"],
        "additionalProperties": False,
        "properties": {"face_up": card_ids, "face_down": card_ids},
    }
    return {
        "kind": CONSTRUCTED,
        "schema": {
            "type": "object",
            "required": ["type", "piles"],
            "additionalProperties": False,
            "properties": {
                "type": {"const": "split"},
                "piles": {"type": "array", "minItems": players, "maxItems": players, "items": pile},
            },
        },
        "constraints": {
            "cards": list(hand),
            "piles": players,
            "pile_size": {"min": MIN_PILE, "max": MAX_PILE},
            "face_down": size.face_down,
            "every_card_exactly_once": True,
        },
        "example": example_split(hand, players, size),
    }
