"""The exact dice race: the class model against real dice, and the racing keep against the engine."""

from __future__ import annotations

from itertools import pairwise, product

import pytest

from ai.rockem_race import (
    fastest_keep,
    hand_of,
    keep_indexes,
    matched,
    opponent_survival,
    racing_choice,
    racing_keep,
    side,
)
from engine.registry import get_game
from engine.rng import Rng
from engine.rockem_sockem import RockemSockemState
from engine.rockem_sockem.components import DICE, FACES, KEEP_SETS


def engine_matches(coin: str, dice: tuple[int, ...]) -> bool:
    """The engine's own test of four dice against the coin side."""
    key = "colour" if coin == "colour" else "icon"
    return len({FACES[f][key] for f in dice}) == 1 or all(FACES[f]["icon"] == "block" for f in dice)


@pytest.mark.parametrize("coin", ["colour", "icon"])
def test_the_class_model_matches_exactly_the_dice_the_engine_matches(coin: str) -> None:
    model = side(coin)
    for dice in product(range(len(FACES)), repeat=DICE):
        assert matched(hand_of(dice, model), model.classes) == engine_matches(coin, dice)


@pytest.mark.parametrize("coin", ["colour", "icon"])
def test_each_keeps_chance_to_match_next_roll_is_that_of_the_real_dice(coin: str) -> None:
    model = side(coin)
    faces = range(len(FACES))
    for dice in [(0, 1, 2, 4), (0, 0, 3, 5), (1, 4, 2, 3), (2, 3, 3, 5)]:
        hand = hand_of(dice, model)
        if matched(hand, model.classes):
            continue
        h = model.hands.index(hand)
        for keep, (chance, after) in zip(model.keeps[h], model.outcomes[h], strict=True):
            assert chance + sum(p for p, _ in after) == pytest.approx(1.0)
            kept = keep_indexes(dice, keep, model)
            rolled = [i for i in range(DICE) if i not in kept]
            hits = 0
            for faces_rolled in product(faces, repeat=len(rolled)):
                new = list(dice)
                for i, face in zip(rolled, faces_rolled, strict=True):
                    new[i] = face
                hits += engine_matches(coin, tuple(new))
            assert chance == pytest.approx(hits / len(FACES) ** len(rolled))


def test_the_fastest_keep_holds_a_triple_of_one_colour() -> None:
    # red punch, red block, red punch, blue uppercut on the colour side: keep the three reds
    assert fastest_keep("colour", [0, 1, 0, 2]) == [0, 1, 2]
    # the same dice on the icon side: punch, block, punch, uppercut: keep the two punches
    assert fastest_keep("icon", [0, 1, 0, 2]) == [0, 2]


def test_the_opponents_chance_to_be_still_racing_falls_to_nothing() -> None:
    survival = opponent_survival("colour", None)
    assert survival[0] == 1.0
    assert all(a >= b for a, b in pairwise(survival))
    assert survival[-1] < 1e-6


def race(state: RockemSockemState, rng: Rng) -> float:
    """Seat 0 racing with the racing keep, seat 1 with the fastest keep, to the end of the round: seat 0's share."""
    start = state.round
    while state.round == start and not state.is_over():
        assert state.coin is not None
        mine, theirs = state.corners[0].dice, state.corners[1].dice
        assert mine is not None and theirs is not None
        state.apply_trusted(0, {"type": "roll", "keep": racing_keep(state.coin, mine, theirs)})
        state.apply_trusted(1, {"type": "roll", "keep": fastest_keep(state.coin, theirs)})
    event = state.last_round
    assert event is not None
    return 0.5 if event["grabbed_by"] is None else float(event["grabbed_by"] == 0)


@pytest.mark.parametrize(
    ("coin", "mine", "theirs"), [("colour", [0, 1, 2, 4], [2, 3, 3, 5]), ("icon", [0, 2, 4, 1], [5, 5, 0, 3])]
)
def test_the_racing_keeps_chance_is_what_the_engine_plays_out(coin: str, mine: list[int], theirs: list[int]) -> None:
    model = side(coin)
    _, predicted = racing_choice(coin, hand_of(mine, model), hand_of(theirs, model))
    game = get_game("rockem_sockem")
    assert game is not None
    base = game.start(2, {"mode": "rounds"}, 0)
    assert isinstance(base, RockemSockemState)
    base.phase, base.coin = "race", coin
    base.corners[0].dice, base.corners[1].dice = list(mine), list(theirs)
    rng = Rng(3)
    races = 4000
    total = 0.0
    for _ in range(races):
        state = base.clone()
        state.rng = Rng(rng.next_u64())
        total += race(state, rng)
    # 4000 races: the standard error is under 0.008
    assert total / races == pytest.approx(predicted, abs=0.03)


def test_the_racing_keep_is_one_of_the_legal_keeps() -> None:
    for dice in product(range(len(FACES)), repeat=DICE):
        for coin in ("colour", "icon"):
            if engine_matches(coin, dice):
                continue
            keep = racing_keep(coin, dice, [2, 3, 3, 5])
            assert tuple(keep) in KEEP_SETS
