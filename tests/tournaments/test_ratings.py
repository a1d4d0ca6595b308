"""Standings, crosstable and ratings from known results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from ai.intervals import wilson
from domain.tournaments.plan import seat_points
from domain.tournaments.standings import report
from model.tournament import Entrant, Outcome, Plan, Slot


def plan(names: list[str], players: int = 2, cooperative: bool = False) -> Plan:
    """A plan for these entrants (the schedule comes from the test's slots)."""
    entrants = tuple(Entrant(name, "ai", level="random") for name in names)
    return Plan("sundae_split", players, {}, entrants, "round-robin", 1, 1, "s", cooperative)


def by_name(rows: Sequence[Mapping[str, object]]) -> dict[object, Mapping[str, object]]:
    """Rows keyed by entrant name."""
    return {row["name"]: row for row in rows}


def test_points_by_finishing_place() -> None:
    assert seat_points([[1], [0]], 2) == {1: 1.0, 0: 0.0}
    assert seat_points([[0, 1]], 2) == {0: 0.5, 1: 0.5}
    assert seat_points([[2], [0, 1], [3]], 4) == {2: 1.0, 0: 0.5, 1: 0.5, 3: 0.0}


def test_a_clear_winner_ranks_first_with_the_highest_rating() -> None:
    tournament = plan(["ace", "mid", "low"])
    slots, outcomes = [], {}
    for index, (a, b) in enumerate([(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)] * 2):
        slots.append(Slot(index, 1, [a, b]))
        winner = min(a, b)  # ace beats everyone, mid beats low
        outcomes[index] = Outcome(index, [[[a, b].index(winner)], [[a, b].index(max(a, b))]])
    result = report(tournament, slots, outcomes)
    assert result["ratings"] is not None
    assert [row["name"] for row in result["standings"]] == ["ace", "mid", "low"]
    assert [rating["name"] for rating in result["ratings"]] == ["ace", "mid", "low"]
    ace = by_name(result["standings"])["ace"]
    assert (ace["played"], ace["wins"], ace["draws"], ace["losses"], ace["points"]) == (8, 8, 0, 0, 8.0)
    for rating in result["ratings"]:
        low, high = rating["interval"]
        assert low == pytest.approx(rating["mu"] - 1.959964 * rating["sigma"], abs=1e-3)
        assert high == pytest.approx(rating["mu"] + 1.959964 * rating["sigma"], abs=1e-3)
        assert rating["rating"] == pytest.approx(rating["mu"] - 3 * rating["sigma"], abs=1e-3)
        assert rating["sigma"] < 25 / 3  # played matches make every rating surer
    ace_row = result["crosstable"][0]
    assert ace_row["against"] == [
        {"entrant": 1, "matches": 4, "wins": 4, "draws": 0, "losses": 0},
        {"entrant": 2, "matches": 4, "wins": 4, "draws": 0, "losses": 0},
    ]


def test_multi_player_matches_rate_by_finishing_order() -> None:
    tournament = plan(["a", "b", "c", "d", "e"], players=5)
    seats = [0, 1, 2, 3, 4]
    slots = [Slot(i, 1, seats[i:] + seats[:i]) for i in range(5)]
    # Each match: entrant 4 first, then 3, 2, 1 and 0 last, whatever seat each sits in.
    outcomes = {}
    for slot in slots:
        order = sorted(range(5), key=lambda seat: -slot.seats[seat])
        outcomes[slot.index] = Outcome(slot.index, [[seat] for seat in order])
    result = report(tournament, slots, outcomes)
    assert result["ratings"] is not None
    assert [rating["name"] for rating in result["ratings"]] == ["e", "d", "c", "b", "a"]
    assert [row["name"] for row in result["standings"]] == ["e", "d", "c", "b", "a"]
    rows = by_name(result["standings"])
    assert rows["e"]["mean_place"] == 1.0 and rows["a"]["mean_place"] == 5.0
    assert rows["c"]["points"] == pytest.approx(2.5)  # third of five: 0.5 a match
    mus = [rating["mu"] for rating in result["ratings"]]
    assert mus == sorted(mus, reverse=True) and len(set(mus)) == 5


def test_ties_share_a_place_and_count_as_draws() -> None:
    tournament = plan(["a", "b"])
    result = report(tournament, [Slot(0, 1, [0, 1])], {0: Outcome(0, [[0, 1]])})
    assert result["ratings"] is not None
    rows = by_name(result["standings"])
    assert rows["a"]["draws"] == 1 and rows["a"]["points"] == 0.5
    assert result["ratings"][0]["mu"] == pytest.approx(result["ratings"][1]["mu"])


def test_cooperative_games_report_team_success_rates() -> None:
    tournament = plan(["a", "b", "c"], cooperative=True)
    slots = [Slot(0, 1, [0, 1]), Slot(1, 1, [0, 2]), Slot(2, 1, [1, 2]), Slot(3, 1, [0, 1])]
    outcomes = {
        0: Outcome(0, [[0, 1]], team_success=True),
        1: Outcome(1, [[0, 1]], team_success=True),
        2: Outcome(2, [], team_success=False),
        3: Outcome(3, [[0, 1]], team_success=True),
    }
    result = report(tournament, slots, outcomes)
    assert result["ratings"] is None
    rows = by_name(result["standings"])
    assert [row["name"] for row in result["standings"]] == ["a", "b", "c"]
    assert rows["a"]["success_rate"] == 1.0 and rows["a"]["successes"] == 3
    assert rows["b"]["success_rate"] == pytest.approx(2 / 3)
    assert rows["c"]["success_rate"] == 0.5
    assert rows["a"]["success_interval"] == list(wilson(3, 3))
    assert result["crosstable"][0]["against"] == [
        {"entrant": 1, "matches": 2, "successes": 2},
        {"entrant": 2, "matches": 1, "successes": 1},
    ]


def test_void_matches_count_for_nobody() -> None:
    tournament = plan(["a", "b"])
    result = report(tournament, [Slot(0, 1, [0, 1])], {0: Outcome(0, [], void=True)})
    assert result["ratings"] is not None
    assert all(row["played"] == 0 for row in result["standings"])
    assert all(rating["sigma"] == pytest.approx(25 / 3, abs=1e-3) for rating in result["ratings"])


def test_ratings_do_not_depend_on_the_order_outcomes_arrive_in() -> None:
    tournament = plan(["a", "b", "c"])
    slots = [Slot(0, 1, [0, 1]), Slot(1, 1, [1, 2]), Slot(2, 1, [2, 0])]
    outcomes = {0: Outcome(0, [[0], [1]]), 1: Outcome(1, [[1], [0]]), 2: Outcome(2, [[0], [1]])}
    shuffled = {index: outcomes[index] for index in (2, 0, 1)}
    assert report(tournament, slots, outcomes) == report(tournament, slots, shuffled)
