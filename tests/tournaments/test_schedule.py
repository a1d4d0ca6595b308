"""Schedules: round robins cover every group with rotated seats; Swiss pairs by score without repeats."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from domain.tournaments.plan import first_slots, is_complete, next_slots
from domain.tournaments.schedule import choose_byes, rotated, round_robin, seatings, swiss_round
from model.tournament import SWISS, Entrant, Outcome, Plan, Slot


def plan(entrants: int, players: int = 2, games: int = 2, fmt: str = "round-robin", rounds: int = 1) -> Plan:
    """A plan of `entrants` random players."""
    names = tuple(Entrant(f"e{i}", "ai", level="random") for i in range(entrants))
    return Plan("sundae_split", players, {}, names, fmt, rounds, games, "seed")


def test_round_robin_covers_every_pairing_once() -> None:
    groups = round_robin(5, 2)
    assert len(groups) == 10
    assert {frozenset(group) for group in groups} == {frozenset(pair) for pair in combinations(range(5), 2)}


def test_round_robin_of_groups_for_multi_player_games() -> None:
    assert len(round_robin(6, 4)) == 15
    with pytest.raises(ValueError):
        round_robin(2, 3)


def test_seats_rotate_so_every_entrant_takes_every_seat() -> None:
    assert rotated([0, 1, 2], 1) == [1, 2, 0]
    orders = seatings([(3, 5, 7)], 3)
    assert orders == [[3, 5, 7], [5, 7, 3], [7, 3, 5]]
    for entrant in (3, 5, 7):
        assert sorted(order.index(entrant) for order in orders) == [0, 1, 2]


def test_a_round_robin_plan_schedules_each_pairing_with_both_seat_orders() -> None:
    slots = first_slots(plan(4))
    assert len(slots) == 12 == plan(4).total_matches()
    assert [slot.index for slot in slots] == list(range(12))
    orders = Counter(tuple(slot.seats) for slot in slots)
    assert set(orders.values()) == {1}
    assert {(b, a) for a, b in orders} == set(orders)  # every seat order's reverse is played too
    assert next_slots(plan(4), slots, {}) == []


def test_swiss_pairs_by_score_and_avoids_repeats() -> None:
    standing = [0, 1, 2, 3]
    groups, byes = swiss_round(standing, set(), set(), 2)
    assert groups == [(0, 1), (2, 3)] and byes == []
    groups, _ = swiss_round(standing, {frozenset((0, 1)), frozenset((2, 3))}, set(), 2)
    assert groups == [(0, 2), (1, 3)]


def test_swiss_accepts_a_repeat_only_when_none_can_be_avoided() -> None:
    met = {frozenset(pair) for pair in combinations(range(4), 2)} - {frozenset((0, 1))}
    groups, _ = swiss_round([0, 1, 2, 3], met, set(), 2)
    assert groups == [(0, 1), (2, 3)]  # (2, 3) met before, but any pairing repeats one


def test_swiss_byes_go_to_the_lowest_without_one() -> None:
    assert choose_byes([0, 1, 2, 3, 4], set(), 1) == [4]
    assert choose_byes([0, 1, 2, 3, 4], {4}, 1) == [3]
    groups, byes = swiss_round([0, 1, 2, 3, 4], set(), {4}, 2)
    assert byes == [3] and groups == [(0, 1), (2, 4)]


def test_swiss_rounds_follow_the_results() -> None:
    swiss = plan(4, games=1, fmt=SWISS, rounds=3)
    slots = first_slots(swiss)
    assert [slot.seats for slot in slots] == [[0, 1], [2, 3]]
    assert next_slots(swiss, slots, {}) == []  # round 1 still playing
    outcomes = {0: Outcome(0, [[1], [0]]), 1: Outcome(1, [[0], [1]])}  # e1 and e2 win
    second = next_slots(swiss, slots, outcomes)
    assert [(slot.round, slot.seats) for slot in second] == [(2, [1, 2]), (2, [0, 3])]
    all_slots = [*slots, *second]
    outcomes |= {2: Outcome(2, [[0], [1]]), 3: Outcome(3, [[0, 1]])}
    third = next_slots(swiss, all_slots, outcomes)
    met = {frozenset(slot.seats) for slot in all_slots}
    assert all(frozenset(slot.seats) not in met for slot in third)
    outcomes |= {slot.index: Outcome(slot.index, [[0], [1]]) for slot in third}
    assert is_complete(swiss, [*all_slots, *third], outcomes)


def test_swiss_groups_for_multi_player_games() -> None:
    swiss = plan(7, players=3, games=1, fmt=SWISS, rounds=2)
    slots = first_slots(swiss)
    assert [slot.seats for slot in slots] == [[0, 1, 2], [3, 4, 5]]
    assert slots[0].byes == [6]
    outcomes = {slot.index: Outcome(slot.index, [[0], [1], [2]]) for slot in slots}
    second = next_slots(swiss, slots, outcomes)
    assert 6 in {entrant for slot in second for entrant in slot.seats}
    assert second[0].byes and second[0].byes != [6]


def test_slots_round_trip_as_json() -> None:
    slot = Slot(3, 2, [1, 0], [4])
    assert Slot.from_json(slot.to_json()) == slot
    assert Plan.from_json(plan(3).to_json()) == plan(3)
