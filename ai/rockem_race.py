"""Rock'em Sock'em's dice race solved exactly: which dice to keep to match first.

On one side of the Match Coin only two things about a die matter: the colour or icon the side
asks for, and whether it shows the block icon (four blocks match on either side). So a hand of
four dice is a count per die *class*, and a keep is a smaller count. Two policies come from
that model:

* `fastest_keep`: the keep that minimizes the expected number of rolls until the dice match
  (value iteration over the hands; the playout policy of the search, and the model of the
  opponent below).
* `racing_keep`: the keep that maximizes the chance to match strictly before the opponent, a
  simultaneous match counting one half, when the opponent races from its visible dice with
  `fastest_keep` (a finite-horizon dynamic programme over the rolls; exact up to a tail below
  `TAIL`). In rounds mode this is the `perfect` level's choice. The opponent's keep sent this
  step is never read: only the dice every seat sees.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from math import factorial

from engine.rockem_sockem.components import BLOCK, DICE, FACES

Hand = tuple[int, ...]
"""How many dice of each class a hand holds."""

TAIL = 1e-7
"""The race is followed until the opponent has matched with at least 1 - TAIL."""
MAX_ROLLS = 60


@dataclass(frozen=True)
class Side:
    """One side of the coin: the die classes, their chances, the hands and every keep's outcomes."""

    coin: str
    face_class: tuple[int, ...]  # class of each die face
    classes: tuple[tuple[str, bool], ...]  # (colour or icon, shows block) per class
    hands: tuple[Hand, ...]  # every unmatched hand of four dice
    keeps: tuple[tuple[Hand, ...], ...]  # per unmatched hand, every keep of 0..3 dice
    # per hand and keep: the chance the roll matches, and (chance, next unmatched hand index) pairs
    outcomes: tuple[tuple[tuple[float, tuple[tuple[float, int], ...]], ...], ...]
    fresh: tuple[float, tuple[tuple[float, int], ...]]  # rolling all four dice


def class_of(face: dict[str, str], coin: str) -> tuple[str, bool]:
    """What a face counts as on this side: its colour (or icon) and whether it is a block."""
    return face["colour" if coin == "colour" else "icon"], face["icon"] == BLOCK


def matched(hand: Hand, classes: Sequence[tuple[str, bool]]) -> bool:
    """All dice share the side's colour or icon, or all show the block icon."""
    held = [classes[i] for i, count in enumerate(hand) if count]
    return len({key for key, _ in held}) == 1 or all(block for _, block in held)


def rolls(dice: int, chances: Sequence[float]) -> list[tuple[Hand, float]]:
    """Every count per class that rolling `dice` dice can give, with its chance."""
    found = []
    for counts in product(range(dice + 1), repeat=len(chances)):
        if sum(counts) != dice:
            continue
        ways = factorial(dice)
        chance = 1.0
        for count, p in zip(counts, chances, strict=True):
            ways //= factorial(count)
            chance *= p**count
        found.append((counts, ways * chance))
    return found


@functools.cache
def side(coin: str) -> Side:
    """The model of one coin side (built once per process)."""
    classes = tuple(sorted({class_of(face, coin) for face in FACES}))
    face_class = tuple(classes.index(class_of(face, coin)) for face in FACES)
    chances = [face_class.count(i) / len(FACES) for i in range(len(classes))]
    hands = tuple(h for h, _ in rolls(DICE, chances) if not matched(h, classes))
    index = {hand: i for i, hand in enumerate(hands)}
    by_size = {n: rolls(n, chances) for n in range(1, DICE + 1)}

    def outcome(keep: Hand) -> tuple[float, tuple[tuple[float, int], ...]]:
        match, after = 0.0, []
        for rolled, p in by_size[DICE - sum(keep)]:
            hand = tuple(k + r for k, r in zip(keep, rolled, strict=True))
            if matched(hand, classes):
                match += p
            else:
                after.append((p, index[hand]))
        return match, tuple(after)

    keeps = tuple(tuple(k for k in product(*(range(c + 1) for c in hand)) if sum(k) < DICE) for hand in hands)
    outcomes = tuple(tuple(outcome(keep) for keep in hand_keeps) for hand_keeps in keeps)
    return Side(coin, face_class, classes, hands, keeps, outcomes, outcome((0,) * len(classes)))


@functools.cache
def expected_rolls(coin: str) -> tuple[float, ...]:
    """Per unmatched hand, the expected number of rolls to a match when keeping with `fastest_keep`."""
    model = side(coin)
    expected = [0.0] * len(model.hands)
    for _ in range(1000):
        changed = 0.0
        for h, hand_outcomes in enumerate(model.outcomes):
            best = min(1.0 + sum(p * expected[j] for p, j in after) for _, after in hand_outcomes)
            changed = max(changed, abs(best - expected[h]))
            expected[h] = best
        if changed < 1e-12:
            break
    return tuple(expected)


def keep_costs(coin: str, h: int) -> list[float]:
    """For each keep of unmatched hand `h`, the expected rolls to a match keeping it now and racing fastest after."""
    expected = expected_rolls(coin)
    return [1.0 + sum(p * expected[j] for p, j in after) for _, after in side(coin).outcomes[h]]


@functools.cache
def fastest_policy(coin: str) -> tuple[int, ...]:
    """Per unmatched hand, the index of the keep with the fewest expected rolls to a match."""
    policy = []
    for h in range(len(side(coin).hands)):
        costs = keep_costs(coin, h)
        policy.append(min(range(len(costs)), key=costs.__getitem__))
    return tuple(policy)


def hand_of(dice: Sequence[int], model: Side) -> Hand:
    """The count per class of four dice (face indexes)."""
    counts = [0] * len(model.classes)
    for face in dice:
        counts[model.face_class[face]] += 1
    return tuple(counts)


def keep_indexes(dice: Sequence[int], keep: Hand, model: Side) -> list[int]:
    """The lowest-numbered dice that make up the keep."""
    wanted = list(keep)
    chosen = []
    for i, face in enumerate(dice):
        if wanted[model.face_class[face]]:
            wanted[model.face_class[face]] -= 1
            chosen.append(i)
    return chosen


def fastest_keep(coin: str, dice: Sequence[int]) -> list[int]:
    """The dice to keep for the fewest expected rolls (an empty keep when the dice already match)."""
    model = side(coin)
    hand = hand_of(dice, model)
    if matched(hand, model.classes):
        return []
    h = model.hands.index(hand)
    return keep_indexes(dice, model.keeps[h][fastest_policy(coin)[h]], model)


def opponent_survival(coin: str, dice: Sequence[int] | None) -> list[float]:
    """The chance the opponent, racing with `fastest_keep`, has not matched after 0, 1, 2, ... rolls."""
    if dice is None:
        return list(survival(coin, None))
    model = side(coin)
    hand = hand_of(dice, model)
    return [1.0, 0.0] if matched(hand, model.classes) else list(survival(coin, hand))


@functools.lru_cache(maxsize=512)
def survival(coin: str, hand: Hand | None) -> tuple[float, ...]:
    """`opponent_survival` from an unmatched hand, or from unrolled dice (None)."""
    model = side(coin)
    policy = fastest_policy(coin)
    spread = [0.0] * len(model.hands)
    if hand is None:
        match, after = model.fresh
        for p, j in after:
            spread[j] += p
        curve = [1.0, 1.0 - match]
    else:
        spread[model.hands.index(hand)] = 1.0
        curve = [1.0]
    while curve[-1] > TAIL and len(curve) <= MAX_ROLLS:
        moved = [0.0] * len(model.hands)
        for h, mass in enumerate(spread):
            if mass:
                for p, j in model.outcomes[h][policy[h]][1]:
                    moved[j] += mass * p
        spread = moved
        curve.append(sum(spread))
    return tuple(curve)


def survival_after_keep(coin: str, dice: Sequence[int] | None, keep: Sequence[int]) -> list[float]:
    """`opponent_survival` for a seat that has sent this keep for its next roll (then races with `fastest_keep`)."""
    if dice is None:
        return list(survival(coin, None))
    model = side(coin)
    match, after = keep_outcome(coin, hand_of([dice[i] for i in keep], model))
    curves = [(p, survival(coin, model.hands[j])) for p, j in after]
    length = max((len(curve) for _, curve in curves), default=1) + 1
    return [1.0, 1.0 - match] + [
        sum(p * curve[t - 1] for p, curve in curves if t - 1 < len(curve)) for t in range(2, length)
    ]


@functools.lru_cache(maxsize=512)
def keep_outcome(coin: str, keep: Hand) -> tuple[float, tuple[tuple[float, int], ...]]:
    """The chance that rolling the dice not kept matches, and the chance of each unmatched hand after it."""
    model = side(coin)
    for hand, hand_keeps, hand_outcomes in zip(model.hands, model.keeps, model.outcomes, strict=True):
        if keep in hand_keeps and all(k <= c for k, c in zip(keep, hand, strict=True)):
            return hand_outcomes[hand_keeps.index(keep)]
    raise ValueError(f"no unmatched hand keeps {keep}")


def race_odds(first: Sequence[float], second: Sequence[float]) -> tuple[float, float]:
    """From two seats' survival curves (rolling together): the chance the first matches strictly first, and of a tie."""
    length = max(len(first), len(second))
    a = list(first) + [0.0] * (length - len(first))
    b = list(second) + [0.0] * (length - len(second))
    win = tie = 0.0
    for t in range(1, length):
        now = a[t - 1] - a[t]
        win += now * b[t]
        tie += now * (b[t - 1] - b[t])
    return win, tie


@functools.lru_cache(maxsize=4096)
def racing_choice(coin: str, hand: Hand, opponent: Hand | None) -> tuple[int, float]:
    """The keep (index into the hand's keeps) that best wins the race, and the chance of winning it."""
    values = racing_values(coin, hand, opponent)
    best = max(range(len(values)), key=values.__getitem__)
    return best, values[best]


@functools.lru_cache(maxsize=4096)
def racing_values(coin: str, hand: Hand, opponent: Hand | None) -> tuple[float, ...]:
    """Per keep of the hand (`side(coin).keeps` order), the chance to win the race keeping it now, racing best after."""
    model = side(coin)
    opponent_dice = (
        None if opponent is None else [model.face_class.index(c) for c, n in enumerate(opponent) for _ in range(n)]
    )
    survival = opponent_survival(coin, opponent_dice)
    horizon = len(survival) - 1
    later = [0.5 * survival[-1]] * len(model.hands)  # past the horizon: a coin toss of a tiny tail
    chances: tuple[float, ...] = ()
    for t in range(horizon, 0, -1):
        reward = survival[t] + 0.5 * (survival[t - 1] - survival[t])
        now = []
        for h, hand_outcomes in enumerate(model.outcomes):
            values = [match * reward + sum(p * later[j] for p, j in after) for match, after in hand_outcomes]
            now.append(max(values))
            if t == 1 and model.hands[h] == hand:
                chances = tuple(values)
        later = now
    return chances


def racing_keep(coin: str, dice: Sequence[int], opponent_dice: Sequence[int] | None) -> list[int]:
    """The dice to keep that maximize the chance to match before the opponent (see the module)."""
    model = side(coin)
    hand = hand_of(dice, model)
    if matched(hand, model.classes):
        return []
    opponent = None if opponent_dice is None else hand_of(opponent_dice, model)
    if opponent is not None and matched(opponent, model.classes):
        opponent = None
    best, _ = racing_choice(coin, hand, opponent)
    return keep_indexes(dice, model.keeps[model.hands.index(hand)][best], model)


def keep_chances(coin: str, dice: Sequence[int], opponent_dice: Sequence[int] | None) -> list[tuple[list[int], float]]:
    """Every distinct keep of unmatched dice (its lowest-numbered dice) and its chance to win the race as `racing_keep`
    scores it: match strictly before the opponent racing `fastest_keep` from its visible dice, a tie counting a half."""
    model = side(coin)
    hand = hand_of(dice, model)
    if matched(hand, model.classes):
        raise ValueError("the dice already match: there is no race left")
    opponent = None if opponent_dice is None else hand_of(opponent_dice, model)
    if opponent is not None and matched(opponent, model.classes):
        opponent = None
    values = racing_values(coin, hand, opponent)
    keeps = model.keeps[model.hands.index(hand)]
    return [(keep_indexes(dice, keep, model), value) for keep, value in zip(keeps, values, strict=True)]
