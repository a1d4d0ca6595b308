"""Plain-text tables of a tournament's result: standings with ratings, and the crosstable."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from domain.tournaments.director import TournamentJson
    from domain.tournaments.standings import CompetitiveStanding, CooperativeStanding, CrosstableCell, RatingJson
    from tournaments.local import LocalResult

    TournamentResult = TournamentJson | LocalResult
    """A tournament's result: as a server answers it, or as `tournaments.local` played it."""

Cell = str | int | float


def render(result: TournamentResult) -> str:
    """The standings (with ratings, or team success rates for a co-operative game) and the crosstable."""
    title = f"{result['game']}, {result['players']} players per match, {result['format']}: "
    progress = result["progress"]
    title += f"{progress['done']}/{progress['total']} matches (seed {result['seed']})"
    parts = [title, "", standings_table(result), "", crosstable_table(result)]
    return "\n".join(parts)


def standings_table(result: TournamentResult) -> str:
    """The standings, best first."""
    if result["cooperative"]:
        header = ["#", "entrant", "played", "successes", "success rate", "95% interval"]
    else:
        header = ["#", "entrant", "played", "W", "D", "L", "points", "rating", "mu", "sigma", "95% interval"]
    ratings = {rating["entrant"]: rating for rating in result["ratings"] or []}
    rows = [
        cooperative_line(row) if "successes" in row else competitive_line(row, ratings[row["entrant"]])
        for row in result["standings"]
    ]
    return table(header, rows)


def cooperative_line(row: CooperativeStanding) -> list[Cell]:
    """A co-operative game's line: matches, team successes, their rate and its 95% interval."""
    interval = "-".join(percent(bound) for bound in row["success_interval"])
    return [row["rank"], row["name"], row["played"], row["successes"], percent(row["success_rate"]), interval]


def competitive_line(row: CompetitiveStanding, rating: RatingJson) -> list[Cell]:
    """A competitive game's line: matches, wins, draws, losses, points, and the rating with its 95% interval."""
    low, high = rating["interval"]
    counts: list[Cell] = [row["played"], row["wins"], row["draws"], row["losses"], f"{row['points']:g}"]
    figures = [f"{rating['rating']:.1f}", f"{rating['mu']:.1f}", f"{rating['sigma']:.1f}", f"{low:.1f}-{high:.1f}"]
    return [row["rank"], row["name"], *counts, *figures]


def crosstable_table(result: TournamentResult) -> str:
    """Row against column: wins-draws-losses (co-op: successes/matches together)."""
    names = [row["name"] for row in result["crosstable"]]
    rows: list[list[Cell]] = []
    for row in result["crosstable"]:
        cells = {cell["entrant"]: cell for cell in row["against"]}
        rows.append([row["name"], *(cell_text(cells.get(other)) for other in range(len(names)))])
    return table(["crosstable", *names], rows)


def cell_text(cell: CrosstableCell | None) -> str:
    """One crosstable cell."""
    if cell is None:
        return "."
    if "successes" in cell:
        return f"{cell['successes']}/{cell['matches']}"
    return f"{cell['wins']}-{cell['draws']}-{cell['losses']}"


def percent(value: float | None) -> str:
    """A rate as a percentage ('-' when there is none)."""
    return "-" if value is None else f"{value:.0%}"


def table(header: Sequence[Cell], rows: Sequence[Sequence[Cell]]) -> str:
    """Columns padded to their widest cell; text left, numbers right."""
    cells = [[str(value) for value in header], *([str(value) for value in row] for row in rows)]
    widths = [max(len(row[column]) for row in cells) for column in range(len(header))]
    lines = []
    for index, row in enumerate(cells):
        lines.append(
            "  ".join(pad(value, width, column) for column, (value, width) in enumerate(zip(row, widths, strict=True)))
        )
        if index == 0:
            lines.append("  ".join("-" * width for width in widths))
    return "\n".join(lines)


def pad(value: str, width: int, column: int) -> str:
    """The entrant's name (column 1) left-aligned, everything else right-aligned."""
    return value.ljust(width) if column == 1 or (column == 0 and not value.isdigit()) else value.rjust(width)
