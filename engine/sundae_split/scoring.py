"""Game End & Scoring: the six categories of the scorepad, and the winner."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from engine.result import Result
from engine.sundae_split.cards import (
    BANANA,
    CARD_BY_ID,
    CHERRY,
    FLAVOURS,
    SCOOP,
    SCORING,
    SPRINKLES,
    TOPPING,
    VEGETABLE,
    WHIPPED_CREAM,
)

Breakdown = dict[str, int]


def banana_bonuses(banana_counts: Sequence[int]) -> list[int]:
    """'All players with the most bananas score a bonus 10 points. All players with the second-most ... 5 points.'

    'You must have at least 1 banana to be eligible'; a tie for most leaves second place to the next
    smaller count (assumption second-most-bananas).
    """
    distinct = sorted({count for count in banana_counts if count > 0}, reverse=True)
    bonus = dict(zip(distinct[:2], (SCORING["banana_most"], SCORING["banana_second"]), strict=False))
    return [bonus.get(count, 0) for count in banana_counts]


def score_without_bananas(card_ids: Sequence[str]) -> Breakdown:
    """Every category but the banana bonus, which depends on the other sundaes."""
    cards = [CARD_BY_ID[card_id] for card_id in card_ids]
    toppings = Counter(card.name for card in cards if card.kind == TOPPING)
    flavours = Counter(card.name for card in cards if card.kind == SCOOP)
    most_scoops = max((flavours[f] for f in FLAVOURS), default=0)
    return {
        # 'Select your ice cream flavor with the most scoops. Score points for cherries x scoops of that flavor.'
        "cherries": toppings[CHERRY] * most_scoops,
        # 'Score 3 points for each complete set of flavors: vanilla, chocolate, strawberry.'
        "flavour_sets": SCORING["flavour_set"] * min(flavours[f] for f in FLAVOURS),
        # 'Score 5 points for each set of sprinkles and whipped cream.'
        "sprinkles_and_whipped_cream": SCORING["sprinkles_and_whipped_cream"]
        * min(toppings[SPRINKLES], toppings[WHIPPED_CREAM]),
        # 'Score the points shown on all your ice cream scoops.'
        "scoops": sum(card.points for card in cards if card.kind == SCOOP),
        # 'Subtract from your score the points shown on all your vegetables.'
        "vegetables": -sum(card.points for card in cards if card.kind == VEGETABLE),
    }


@functools.lru_cache(maxsize=4096)
def kept_score_without_bananas(card_ids: tuple[str, ...]) -> Breakdown:
    """`score_without_bananas` of a sundae, kept: every view shows every sundae's score. Do not change it."""
    return score_without_bananas(card_ids)


def score_sundaes(sundaes: Sequence[Sequence[str]]) -> list[Breakdown]:
    """Each player's scorepad column, with its total."""
    bananas = [sum(CARD_BY_ID[c].name == BANANA for c in sundae) for sundae in sundaes]
    sheets = []
    for sundae, bonus in zip(sundaes, banana_bonuses(bananas), strict=True):
        sheet = {"bananas": bonus, **kept_score_without_bananas(tuple(sundae))}
        sheet["total"] = sum(sheet.values())
        sheets.append(sheet)
    return sheets


def scoop_count(sundae: Sequence[str]) -> int:
    """How many ice cream scoop cards a sundae holds (the tie-break)."""
    return sum(CARD_BY_ID[c].kind == SCOOP for c in sundae)


def final_result(sundaes: Sequence[Sequence[str]]) -> Result:
    """'The player with the most points ... wins'; a tie goes to 'the tied player(s) with the most ice cream scoops'.

    Only a tie for first place is broken by scoops; lower places tied on points share their place.
    """
    totals = [sheet["total"] for sheet in score_sundaes(sundaes)]
    by_points = _groups(range(len(totals)), lambda seat: totals[seat])
    top_by_scoops = _groups(by_points[0], lambda seat: scoop_count(sundaes[seat]))
    groups = (*top_by_scoops, *by_points[1:])
    winners = groups[0]
    best = totals[winners[0]]
    if len(winners) > 1:
        reason = f"seats {list(winners)} tie on {best} points and on scoops"
    elif len(top_by_scoops) > 1:
        reason = f"seat {winners[0]} wins the tie on {best} points with the most scoops"
    else:
        reason = f"seat {winners[0]} has the most points: {best}"
    return Result(scores=tuple(totals), ranking=groups, winners=winners, reason=reason)


def _groups(seats: Iterable[int], key: Callable[[int], int]) -> tuple[tuple[int, ...], ...]:
    """Seats grouped by equal key, highest key first, seat order within a group."""
    grouped: dict[int, list[int]] = {}
    for seat in seats:
        grouped.setdefault(key(seat), []).append(seat)
    return tuple(tuple(grouped[k]) for k in sorted(grouped, reverse=True))
