"""Sundae Split, one choice ahead, scored by the scorepad: the pile, or the split, that leaves the best sundae.

A sundae's standing is its total (banana bonuses included) less the best other total. A chooser
takes the pile whose cards raise its standing most, guessing each face-down card by averaging
over draws from the cards it has not seen. The Splitter tries the example split and a number of
random ones; for each it lets the other players choose in turn, each taking the pile whose
face-up cards (and an average card for each face-down one) raise its own standing most, and it
keeps the split whose last pile leaves its own sundae standing best.
"""

from __future__ import annotations

from collections.abc import Sequence

from ai.greedy.common import best_action
from engine.protocol import Action
from engine.rng import Rng
from engine.sundae_split.cards import ROUND_SIZES
from engine.sundae_split.game import CHOOSE, SPLIT, Pile, SundaeSplitState
from engine.sundae_split.scoring import score_sundaes
from engine.sundae_split.split import example_split, random_split

FACE_DOWN_SAMPLES = 16
"""Draws of unseen cards a chooser averages over to value face-down cards."""
SPLIT_CANDIDATES = 32
"""Random splits the Splitter tries besides the example split."""


def standing(sundaes: Sequence[Sequence[str]], seat: int) -> float:
    """The seat's total less the best total of the other players."""
    totals = [sheet["total"] for sheet in score_sundaes(sundaes)]
    return totals[seat] - max(total for other, total in enumerate(totals) if other != seat)


def with_cards(sundaes: Sequence[Sequence[str]], seat: int, cards: Sequence[str]) -> list[list[str]]:
    """The sundaes once the seat has added the cards to its own."""
    return [[*sundae, *cards] if other == seat else list(sundae) for other, sundae in enumerate(sundaes)]


def unseen_cards(world: SundaeSplitState, seat: int) -> list[str]:
    """Every card the seat cannot see, sorted: which cards they are is all the seat may know."""
    pool = [*world.deck, *world.removed]
    if seat != world.splitter:
        pool += world.hand
        pool += [card for pile in world.piles if not world.sees_face_down(seat, pile) for card in pile.face_down]
    return sorted(pool)


def choose_pile(world: SundaeSplitState, seat: int, rng: Rng) -> Action:
    """The open pile whose face-up cards and guessed face-down cards raise the seat's standing most."""
    pool = unseen_cards(world, seat)
    most_down = max(len(world.piles[index].face_down) for index in world.open_piles())
    draws = [rng.choice_many(pool, min(most_down, len(pool))) for _ in range(FACE_DOWN_SAMPLES)]

    def value(action: Action) -> float:
        pile = world.piles[action["pile"]]
        hidden = len(pile.face_down)
        return sum(standing(with_cards(world.sundaes, seat, pile.face_up + draw[:hidden]), seat) for draw in draws)

    return best_action(world.legal_actions(seat), value, rng)


def card_guesses(world: SundaeSplitState) -> list[float]:
    """For each seat, what one card it has not seen adds to its standing on average."""
    pool = [*world.deck, *world.removed, *world.hand]
    guesses = []
    for seat in range(world.players):
        now = standing(world.sundaes, seat)
        gains = [standing(with_cards(world.sundaes, seat, [card]), seat) - now for card in pool]
        guesses.append(sum(gains) / len(gains) if gains else 0.0)
    return guesses


def splitter_standing(world: SundaeSplitState, split: Action, guesses: list[float]) -> float:
    """The Splitter's standing once the other players have each taken the pile that looks best to them."""
    piles = [Pile(list(p["face_up"]), list(p["face_down"])) for p in split["piles"]]
    sundaes = [list(sundae) for sundae in world.sundaes]
    for turn in range(1, world.players):
        chooser = (world.splitter + turn) % world.players
        open_piles = [pile for pile in piles if pile.taken_by is None]

        def looks(pile: Pile, chooser: int = chooser) -> float:
            face_up = standing(with_cards(sundaes, chooser, pile.face_up), chooser)
            return face_up + guesses[chooser] * len(pile.face_down)

        taken = max(open_piles, key=looks)
        taken.taken_by = chooser
        sundaes[chooser] += taken.cards()
    last = next(pile for pile in piles if pile.taken_by is None)
    return standing(with_cards(sundaes, world.splitter, last.cards()), world.splitter)


def choose_split(world: SundaeSplitState, seat: int, rng: Rng) -> Action:
    """The tried split that leaves the Splitter's sundae standing best after the others choose."""
    size = ROUND_SIZES[world.players]
    candidates = [example_split(world.hand, world.players, size)]
    candidates += [random_split(world.hand, world.players, size, rng) for _ in range(SPLIT_CANDIDATES)]
    guesses = card_guesses(world)
    return best_action(candidates, lambda split: splitter_standing(world, split, guesses), rng)


def choose(world: SundaeSplitState, seat: int, rng: Rng) -> Action:
    """A split for the Splitter, a pile for a chooser."""
    if world.phase == SPLIT:
        return choose_split(world, seat, rng)
    assert world.phase == CHOOSE
    return choose_pile(world, seat, rng)
