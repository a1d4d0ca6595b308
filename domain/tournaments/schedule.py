"""Who meets whom: round-robin groups with rotated seats, and Swiss rounds paired by score.

A *group* is a tuple of entrant indices that meet (two for a two-player game, up to five in
Sundae Split). Each group plays `games` matches; game `g` seats the group rotated by `g` places,
so with `games` equal to the group size every entrant sits in every seat once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations

Group = tuple[int, ...]
SEARCH_LIMIT = 20_000
"""Pairing steps a Swiss round searches for groups without a repeat before it accepts repeats."""


def rotated(group: Sequence[int], game: int) -> list[int]:
    """The seat order of a group's `game`-th match: the group rotated left by `game` places."""
    shift = game % len(group)
    return [*group[shift:], *group[:shift]]


def round_robin(entrants: int, size: int) -> list[Group]:
    """Every group of `size` distinct entrants, once, in a fixed order."""
    if not 1 <= size <= entrants:
        raise ValueError(f"groups of {size} need at least {size} entrants, not {entrants}")
    return list(combinations(range(entrants), size))


def seatings(groups: Iterable[Group], games: int) -> list[list[int]]:
    """Each group's `games` matches, seats rotated: the seat order (entrant per seat) of every match."""
    return [rotated(group, game) for group in groups for game in range(games)]


def swiss_round(
    standing: Sequence[int], met: set[frozenset[int]], byes: set[int], size: int
) -> tuple[list[Group], list[int]]:
    """One Swiss round: groups of `size` in `standing` order (best first) avoiding repeats where possible, and the byes.

    When the entrants do not divide into groups, the lowest-standing entrants who have not yet had
    a bye sit this round out. Groups are formed top down: the best unpaired entrant with the next
    best who has met none of the group; when no full pairing avoids every repeat, the one with the
    fewest repeats found within SEARCH_LIMIT steps is used.
    """
    sitting_out = choose_byes(standing, byes, len(standing) % size)
    players = [entrant for entrant in standing if entrant not in sitting_out]
    search = _PairingSearch(met, size)
    groups = search.best(players)
    return groups, sitting_out


def choose_byes(standing: Sequence[int], byes: set[int], count: int) -> list[int]:
    """The `count` lowest-standing entrants without a bye yet (then the lowest of the rest)."""
    if count == 0:
        return []
    order = list(reversed(standing))
    fresh = [entrant for entrant in order if entrant not in byes]
    again = [entrant for entrant in order if entrant in byes]
    return (fresh + again)[:count]


class _PairingSearch:
    """A depth-first search for the grouping with the fewest repeated meetings, best entrants first."""

    def __init__(self, met: set[frozenset[int]], size: int) -> None:
        self.met = met
        self.size = size
        self.steps = 0
        self.best_groups: list[Group] | None = None
        self.best_repeats = 0

    def repeats(self, group: Sequence[int]) -> int:
        """How many pairs in the group have met before."""
        return sum(frozenset(pair) in self.met for pair in combinations(group, 2))

    def best(self, players: list[int]) -> list[Group]:
        """The grouping found with the fewest repeats (the first such in standing order)."""
        self.search(players, [], 0)
        assert self.best_groups is not None
        return self.best_groups

    def search(self, left: list[int], groups: list[Group], repeats: int) -> None:
        """Extend `groups` with a group led by the best entrant left, trying partners best first."""
        self.steps += 1
        if self.best_groups is not None and (repeats >= self.best_repeats or self.steps > SEARCH_LIMIT):
            return
        if not left:
            self.best_groups, self.best_repeats = list(groups), repeats
            return
        leader, rest = left[0], left[1:]
        for partners in combinations(rest, self.size - 1):
            if self.steps > SEARCH_LIMIT and self.best_groups is not None:
                return
            group = (leader, *partners)
            remaining = [entrant for entrant in rest if entrant not in partners]
            self.search(remaining, [*groups, group], repeats + self.repeats(group))
            if self.best_repeats == 0 and self.best_groups is not None:
                return
