"""Standings, crosstable and ratings of a tournament from its outcomes.

Ratings come from openskill's Plackett-Luce model, which rates any number of players per match by
their finishing order (ties share a rank). Matches are rated in schedule order, not in the order
they happened to finish, so the same outcomes always give the same ratings. Each rating has its
uncertainty: `mu` and `sigma`, the display rating `mu - 3 sigma` (openskill's ordinal: the
skill the entrant has with about 99.9% confidence) and a 95% interval `mu +/- 1.96 sigma`.
Co-operative games have no head-to-head: each entrant gets its team success rate with a 95%
Wilson interval instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from ai.intervals import Z95, wilson
from domain.tournaments.plan import SWISS_BYE_POINTS, entrant_points
from model.tournament import Outcome, Plan, Slot


@dataclass
class Record:
    """One entrant's tally: matches, outright wins, shared firsts or draws, losses, points, places, successes."""

    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    places: list[float] = field(default_factory=list)
    successes: int = 0


def place_of(ranking: Sequence[Sequence[int]], seat: int) -> tuple[float, int]:
    """The seat's finishing place (1-based; tied seats share the mean of their places) and its group's size."""
    place = 1
    for group in ranking:
        if seat in group:
            return place + (len(group) - 1) / 2, len(group)
        place += len(group)
    raise ValueError(f"seat {seat} is not in the ranking {ranking}")


def tally(plan: Plan, slots: Sequence[Slot], outcomes: Mapping[int, Outcome]) -> list[Record]:
    """Each entrant's record over the finished (not void) matches; a Swiss bye adds its points."""
    records = [Record() for _ in plan.entrants]
    for slot in slots:
        for entrant in slot.byes:
            records[entrant].points += SWISS_BYE_POINTS * plan.games_per_pairing
    for slot, outcome in finished(slots, outcomes):
        points = entrant_points(slot, outcome)
        for seat, entrant in enumerate(slot.seats):
            record = records[entrant]
            record.played += 1
            record.points += points[entrant]
            if outcome.team_success is not None:
                record.successes += int(outcome.team_success)
                continue
            place, tied = place_of(outcome.ranking, seat)
            record.places.append(place)
            if place == 1 and tied == 1:
                record.wins += 1
            elif outcome.ranking[0] and seat in outcome.ranking[0]:
                record.draws += 1
            else:
                record.losses += 1
    return records


def finished(slots: Sequence[Slot], outcomes: Mapping[int, Outcome]) -> list[tuple[Slot, Outcome]]:
    """The slots with a counting outcome, in schedule order."""
    return [(slot, outcomes[slot.index]) for slot in slots if slot.index in outcomes and not outcomes[slot.index].void]


def openskill_ratings(plan: Plan, slots: Sequence[Slot], outcomes: Mapping[int, Outcome]) -> list[dict[str, Any]]:
    """Each entrant's Plackett-Luce rating after every finished match, rated in schedule order."""
    model = PlackettLuce()
    ratings = [model.rating(name=entrant.name) for entrant in plan.entrants]
    for slot, outcome in finished(slots, outcomes):
        ranks = [place_of(outcome.ranking, seat)[0] for seat in range(len(slot.seats))]
        rated = model.rate([[ratings[entrant]] for entrant in slot.seats], ranks=ranks)
        for entrant, team in zip(slot.seats, rated, strict=True):
            ratings[entrant] = team[0]
    return [rating_json(index, rating.mu, rating.sigma) for index, rating in enumerate(ratings)]


def rating_json(entrant: int, mu: float, sigma: float) -> dict[str, Any]:
    """A rating as served: mu, sigma, the display rating mu - 3 sigma and the 95% interval."""
    return {
        "entrant": entrant,
        "name": None,
        "mu": round(mu, 4),
        "sigma": round(sigma, 4),
        "rating": round(mu - 3 * sigma, 4),
        "interval": [round(mu - Z95 * sigma, 4), round(mu + Z95 * sigma, 4)],
    }


def standings(plan: Plan, records: Sequence[Record], ratings: Sequence[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """The table, best first: by points (co-op: success rate), then display rating, then entry order."""
    rows = [standing_row(plan, index, record) for index, record in enumerate(records)]
    key: list[tuple[float, float, int]]
    if plan.cooperative:
        key = [(-(row["success_rate"] or 0.0), 0.0, row["entrant"]) for row in rows]
    else:
        assert ratings is not None
        key = [(-row["points"], -ratings[row["entrant"]]["rating"], row["entrant"]) for row in rows]
    order = sorted(range(len(rows)), key=lambda i: key[i])
    return [{"rank": rank, **rows[i]} for rank, i in enumerate(order, start=1)]


def standing_row(plan: Plan, index: int, record: Record) -> dict[str, Any]:
    """One entrant's line of the table."""
    row: dict[str, Any] = {"entrant": index, "name": plan.entrants[index].name, "played": record.played}
    if plan.cooperative:
        rate = record.successes / record.played if record.played else None
        low, high = wilson(record.successes, record.played)
        row |= {"successes": record.successes, "success_rate": rate, "success_interval": [low, high]}
        return row
    mean_place = sum(record.places) / len(record.places) if record.places else None
    row |= {"wins": record.wins, "draws": record.draws, "losses": record.losses}
    return row | {"points": round(record.points, 4), "mean_place": mean_place}


def crosstable(plan: Plan, slots: Sequence[Slot], outcomes: Mapping[int, Outcome]) -> list[dict[str, Any]]:
    """Head to head, row against column: who finished above whom (co-op: matches and successes together)."""
    size = len(plan.entrants)
    blank = {"wins": 0, "draws": 0, "losses": 0, "matches": 0, "successes": 0}
    cells = [[dict(blank) for _ in range(size)] for _ in range(size)]
    for slot, outcome in finished(slots, outcomes):
        competitive = outcome.team_success is None
        places = [place_of(outcome.ranking, seat)[0] if competitive else 0.0 for seat in range(len(slot.seats))]
        for seat, entrant in enumerate(slot.seats):
            for other_seat, other in enumerate(slot.seats):
                if other_seat == seat:
                    continue
                cell = cells[entrant][other]
                cell["matches"] += 1
                cell["successes"] += int(bool(outcome.team_success))
                if outcome.team_success is None:
                    outcome_key = _compare(places[seat], places[other_seat])
                    cell[outcome_key] += 1
    return [crosstable_row(plan, entrant, cells[entrant]) for entrant in range(size)]


def _compare(mine: float, theirs: float) -> str:
    """`wins`, `draws` or `losses` for a place against another (lower is better)."""
    return "wins" if mine < theirs else "losses" if mine > theirs else "draws"


def crosstable_row(plan: Plan, entrant: int, cells: list[dict[str, int]]) -> dict[str, Any]:
    """One row of the crosstable: the entrant against each other entrant it met."""
    keys = ("matches", "successes") if plan.cooperative else ("matches", "wins", "draws", "losses")
    against = [
        {"entrant": other, **{key: cell[key] for key in keys}}
        for other, cell in enumerate(cells)
        if other != entrant and cell["matches"]
    ]
    return {"entrant": entrant, "name": plan.entrants[entrant].name, "against": against}


def report(plan: Plan, slots: Sequence[Slot], outcomes: Mapping[int, Outcome]) -> dict[str, Any]:
    """Standings, crosstable and ratings (null for a co-operative game) from the outcomes so far."""
    ratings = None if plan.cooperative else openskill_ratings(plan, slots, outcomes)
    records = tally(plan, slots, outcomes)
    if ratings is not None:
        for rating in ratings:
            rating["name"] = plan.entrants[rating["entrant"]].name
        ratings = sorted(ratings, key=lambda rating: (-rating["rating"], rating["entrant"]))
        by_entrant = {rating["entrant"]: rating for rating in ratings}
        table = standings(plan, records, [by_entrant[i] for i in range(len(plan.entrants))])
    else:
        table = standings(plan, records, None)
    return {"standings": table, "crosstable": crosstable(plan, slots, outcomes), "ratings": ratings}
