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
from typing import TypedDict, final

from openskill.models import PlackettLuce

from ai.intervals import Z95, wilson
from domain.tournaments.plan import SWISS_BYE_POINTS, entrant_points
from model.tournament import Outcome, Plan, Slot


class RatingJson(TypedDict):
    """An entrant's openskill rating as served: mu, sigma, the display rating mu - 3 sigma, the 95% interval."""

    entrant: int
    name: str
    mu: float
    sigma: float
    rating: float
    interval: list[float]


@final
class CompetitiveStanding(TypedDict):
    """A line of a competitive game's table."""

    rank: int
    entrant: int
    name: str
    played: int
    wins: int
    draws: int
    losses: int
    points: float
    mean_place: float | None


@final
class CooperativeStanding(TypedDict):
    """A line of a co-operative game's table: the team successes of the matches the entrant played in."""

    rank: int
    entrant: int
    name: str
    played: int
    successes: int
    success_rate: float | None
    success_interval: list[float]


StandingJson = CompetitiveStanding | CooperativeStanding


@final
class CompetitiveCell(TypedDict):
    """The row's entrant against one other in a competitive game: matches together, and who finished above."""

    entrant: int
    matches: int
    wins: int
    draws: int
    losses: int


@final
class CooperativeCell(TypedDict):
    """The row's entrant with one other in a co-operative game: matches together and team successes."""

    entrant: int
    matches: int
    successes: int


CrosstableCell = CompetitiveCell | CooperativeCell


class CrosstableRow(TypedDict):
    """One row of the crosstable: the entrant against each other entrant it met."""

    entrant: int
    name: str
    against: list[CrosstableCell]


class Report(TypedDict):
    """Standings, crosstable and ratings (None for a co-operative game)."""

    standings: list[StandingJson]
    crosstable: list[CrosstableRow]
    ratings: list[RatingJson] | None


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

    @property
    def success_rate(self) -> float | None:
        """The share of its matches the entrant's team succeeded in (None before it played)."""
        return self.successes / self.played if self.played else None


@dataclass
class Meetings:
    """One entrant against another: matches together, team successes, and places above, level or below."""

    matches: int = 0
    successes: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0


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


def openskill_ratings(plan: Plan, slots: Sequence[Slot], outcomes: Mapping[int, Outcome]) -> list[RatingJson]:
    """Each entrant's Plackett-Luce rating after every finished match, rated in schedule order; in entry order."""
    model = PlackettLuce()
    ratings = [model.rating(name=entrant.name) for entrant in plan.entrants]
    for slot, outcome in finished(slots, outcomes):
        ranks = [place_of(outcome.ranking, seat)[0] for seat in range(len(slot.seats))]
        rated = model.rate([[ratings[entrant]] for entrant in slot.seats], ranks=ranks)
        for entrant, team in zip(slot.seats, rated, strict=True):
            ratings[entrant] = team[0]
    return [
        rating_json(index, entrant.name, rating.mu, rating.sigma)
        for index, (entrant, rating) in enumerate(zip(plan.entrants, ratings, strict=True))
    ]


def rating_json(entrant: int, name: str, mu: float, sigma: float) -> RatingJson:
    """A rating as served: mu, sigma, the display rating mu - 3 sigma and the 95% interval."""
    return {
        "entrant": entrant,
        "name": name,
        "mu": round(mu, 4),
        "sigma": round(sigma, 4),
        "rating": round(mu - 3 * sigma, 4),
        "interval": [round(mu - Z95 * sigma, 4), round(mu + Z95 * sigma, 4)],
    }


def standings(plan: Plan, records: Sequence[Record], ratings: Sequence[RatingJson] | None) -> list[StandingJson]:
    """The table, best first: by points (co-op: success rate), then display rating, then entry order.

    `ratings` are in entry order (None for a co-operative game)."""
    entries = range(len(records))
    if plan.cooperative:
        order = sorted(entries, key=lambda i: (-(records[i].success_rate or 0.0), 0.0, i))
        return [cooperative_row(plan, rank, i, records[i]) for rank, i in enumerate(order, start=1)]
    assert ratings is not None
    order = sorted(entries, key=lambda i: (-round(records[i].points, 4), -ratings[i]["rating"], i))
    return [competitive_row(plan, rank, i, records[i]) for rank, i in enumerate(order, start=1)]


def competitive_row(plan: Plan, rank: int, index: int, record: Record) -> CompetitiveStanding:
    """One entrant's line of a competitive game's table."""
    return {
        "rank": rank,
        "entrant": index,
        "name": plan.entrants[index].name,
        "played": record.played,
        "wins": record.wins,
        "draws": record.draws,
        "losses": record.losses,
        "points": round(record.points, 4),
        "mean_place": sum(record.places) / len(record.places) if record.places else None,
    }


def cooperative_row(plan: Plan, rank: int, index: int, record: Record) -> CooperativeStanding:
    """One entrant's line of a co-operative game's table."""
    low, high = wilson(record.successes, record.played)
    return {
        "rank": rank,
        "entrant": index,
        "name": plan.entrants[index].name,
        "played": record.played,
        "successes": record.successes,
        "success_rate": record.success_rate,
        "success_interval": [low, high],
    }


def crosstable(plan: Plan, slots: Sequence[Slot], outcomes: Mapping[int, Outcome]) -> list[CrosstableRow]:
    """Head to head, row against column: who finished above whom (co-op: matches and successes together)."""
    size = len(plan.entrants)
    cells = [[Meetings() for _ in range(size)] for _ in range(size)]
    for slot, outcome in finished(slots, outcomes):
        competitive = outcome.team_success is None
        places = [place_of(outcome.ranking, seat)[0] if competitive else 0.0 for seat in range(len(slot.seats))]
        for seat, entrant in enumerate(slot.seats):
            for other_seat, other in enumerate(slot.seats):
                if other_seat == seat:
                    continue
                cell = cells[entrant][other]
                cell.matches += 1
                cell.successes += int(bool(outcome.team_success))
                if competitive:
                    mine, theirs = places[seat], places[other_seat]
                    cell.wins += mine < theirs
                    cell.losses += mine > theirs
                    cell.draws += mine == theirs
    return [crosstable_row(plan, entrant, cells[entrant]) for entrant in range(size)]


def crosstable_row(plan: Plan, entrant: int, cells: list[Meetings]) -> CrosstableRow:
    """One row of the crosstable: the entrant against each other entrant it met."""
    met = [(other, cell) for other, cell in enumerate(cells) if other != entrant and cell.matches]
    against: list[CrosstableCell] = [crosstable_cell(other, cell, plan.cooperative) for other, cell in met]
    return {"entrant": entrant, "name": plan.entrants[entrant].name, "against": against}


def crosstable_cell(other: int, cell: Meetings, cooperative: bool) -> CrosstableCell:
    """The row's entrant against `other`: matches and successes (co-op), or matches and places above, level, below."""
    if cooperative:
        return {"entrant": other, "matches": cell.matches, "successes": cell.successes}
    return {"entrant": other, "matches": cell.matches, "wins": cell.wins, "draws": cell.draws, "losses": cell.losses}


def report(plan: Plan, slots: Sequence[Slot], outcomes: Mapping[int, Outcome]) -> Report:
    """Standings, crosstable and ratings (null for a co-operative game) from the outcomes so far."""
    records = tally(plan, slots, outcomes)
    if plan.cooperative:
        return {
            "standings": standings(plan, records, None),
            "crosstable": crosstable(plan, slots, outcomes),
            "ratings": None,
        }
    ratings = openskill_ratings(plan, slots, outcomes)
    table = standings(plan, records, ratings)
    ranked = sorted(ratings, key=lambda rating: (-rating["rating"], rating["entrant"]))
    return {"standings": table, "crosstable": crosstable(plan, slots, outcomes), "ratings": ranked}
