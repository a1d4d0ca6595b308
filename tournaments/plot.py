"""A PNG of a tournament's ratings: each entrant's mu with its 95% interval and its display rating."""

from __future__ import annotations

from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt

if TYPE_CHECKING:
    from tournaments.standings_table import TournamentResult


def plot_ratings(result: TournamentResult, path: str) -> None:
    """Save the ratings (co-op: team success rates) with their 95% intervals as a PNG at `path`."""
    rows: list[tuple[str, float, float, float]]
    if result["cooperative"]:
        rows = [
            (row["name"], row["success_rate"] or 0.0, *bounds(row["success_interval"]))
            for row in result["standings"]
            if "successes" in row
        ]
        marks: list[float] | None = None
        label = "team success rate (95% Wilson interval)"
    else:
        ratings = result["ratings"] or []
        rows = [(r["name"], r["mu"], *bounds(r["interval"])) for r in ratings]
        marks = [r["rating"] for r in ratings]
        label = "openskill rating: mu with its 95% interval; x = mu - 3 sigma"
    names = [row[0] for row in rows][::-1]
    centres = [row[1] for row in rows][::-1]
    lows = [row[1] - row[2] for row in rows][::-1]
    highs = [row[3] - row[1] for row in rows][::-1]
    figure, axes = plt.subplots(figsize=(7, 1.2 + 0.45 * len(rows)))
    positions = list(range(len(rows)))
    axes.errorbar(centres, positions, xerr=[lows, highs], fmt="o", capsize=4, color="tab:blue", label="mu, 95%")
    if marks is not None:
        axes.scatter(marks[::-1], positions, marker="x", color="tab:red", label="mu - 3 sigma", zorder=3)
        axes.legend(loc="lower right", fontsize="small")
    axes.set_yticks(positions, names)
    axes.set_xlabel(label)
    axes.set_title(f"{result['game']} {result['format']}, {result['progress']['done']} matches")
    axes.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def bounds(interval: list[float]) -> tuple[float, float]:
    """An interval's low and high ends."""
    low, high = interval
    return low, high
