"""A tournament's plan and its progress: entrants, format, the matches (slots) and their outcomes.

The plan is plain data (JSON round-trips), the same in the API and the local runner. `next_slots`
is the only place that decides which matches come next: all of a round robin at once; a Swiss
round once the previous one is complete, paired by the points so far.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from domain.tournaments.schedule import round_robin, seatings, swiss_round
from model.tournament import ROUND_ROBIN, Outcome, Plan, Slot


def seat_points(ranking: Sequence[Sequence[int]], seats: int) -> dict[int, float]:
    """Points per seat: 1 for outright first, 0 for outright last, tied places share (a 2-player draw: 0.5 each)."""
    points: dict[int, float] = {}
    place = 0
    for group in ranking:
        middle = place + (len(group) - 1) / 2
        for seat in group:
            points[seat] = 1.0 - middle / (seats - 1) if seats > 1 else 1.0
        place += len(group)
    return points


def entrant_points(slot: Slot, outcome: Outcome) -> dict[int, float]:
    """Points each entrant of the slot scored: by finishing place, or 1 each for a co-operative success."""
    if outcome.void:
        return {}
    if outcome.team_success is not None:
        return {entrant: float(outcome.team_success) for entrant in slot.seats}
    by_seat = seat_points(outcome.ranking, len(slot.seats))
    return {entrant: by_seat[seat] for seat, entrant in enumerate(slot.seats)}


SWISS_BYE_POINTS = 0.5
"""Points for sitting a Swiss round out: an average finish, so a bye neither helps nor hurts much."""


def swiss_scores(plan: Plan, slots: Sequence[Slot], outcomes: Mapping[int, Outcome]) -> dict[int, float]:
    """Each entrant's points so far (byes included), for pairing the next Swiss round."""
    scores = {entrant: 0.0 for entrant in range(len(plan.entrants))}
    for slot in slots:
        for entrant in slot.byes:
            scores[entrant] += SWISS_BYE_POINTS * plan.games_per_pairing
        outcome = outcomes.get(slot.index)
        if outcome is not None:
            for entrant, points in entrant_points(slot, outcome).items():
                scores[entrant] += points
    return scores


def first_slots(plan: Plan) -> list[Slot]:
    """The slots known when the tournament starts: the whole round robin, or Swiss round 1."""
    return next_slots(plan, [], {})


def next_slots(plan: Plan, slots: Sequence[Slot], outcomes: Mapping[int, Outcome]) -> list[Slot]:
    """The slots to add now: none while a round is still playing or once the last round is planned."""
    if plan.format == ROUND_ROBIN:
        if slots:
            return []
        seats = seatings(round_robin(len(plan.entrants), plan.players), plan.games_per_pairing)
        return [Slot(index, 1, order) for index, order in enumerate(seats)]
    planned_round = max((slot.round for slot in slots), default=0)
    if planned_round >= plan.rounds or any(slot.index not in outcomes for slot in slots):
        return []
    return swiss_slots(plan, slots, outcomes, planned_round + 1)


def swiss_slots(plan: Plan, slots: Sequence[Slot], outcomes: Mapping[int, Outcome], number: int) -> list[Slot]:
    """Swiss round `number`, paired by points so far (ties by entry order), seats rotated."""
    scores = swiss_scores(plan, slots, outcomes)
    standing = sorted(scores, key=lambda entrant: (-scores[entrant], entrant))
    met = {frozenset(pair) for slot in slots for pair in _pairs(slot.seats)}
    byes = {entrant for slot in slots for entrant in slot.byes}
    groups, sitting_out = swiss_round(standing, met, byes, plan.players)
    orders = seatings(groups, plan.games_per_pairing)
    start = len(slots)
    return [
        Slot(start + offset, number, order, sitting_out if offset == 0 else []) for offset, order in enumerate(orders)
    ]


def _pairs(seats: Sequence[int]) -> list[tuple[int, int]]:
    """Every pair of entrants that met in one match."""
    return [(a, b) for i, a in enumerate(seats) for b in seats[i + 1 :] if a != b]


def is_complete(plan: Plan, slots: Sequence[Slot], outcomes: Mapping[int, Outcome]) -> bool:
    """True once every planned match has an outcome and no further round is due."""
    return all(slot.index in outcomes for slot in slots) and not next_slots(plan, slots, outcomes)
