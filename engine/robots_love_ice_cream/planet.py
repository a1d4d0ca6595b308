"""The planet in play: columns topped by a Spinston, robots on levels 1 (just below it) to 4.

'Use matching sets ... to attack a single robot in the lowest occupied position of any column.'
Level 0 is the Spinston atop the column; it is the lowest occupied position once no robot is left
below it.

Levels count down from the top everywhere, as the rulebook counts robot rows ('The lowest row (4th
level)'): a column's robots from level 1 (just below its Spinston, level 0) to 4, and the Spinston
Beam Track's tokens from level 1 (its top card) to 3 (its bottom card, where they start), level 0
being above the track. A token moving up goes from level 3 towards 0. (The set-up numbers the
beam's cards the other way, '1 being at the bottom'.)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

SPINSTON_LEVEL = 0
ABOVE_TRACK = 0  # the Spinston Beam Track's level above its top card: tokens there are captured
LEVELS = (1, 2, 3, 4)
FOURTH = 4  # 'The lowest row (4th level) is only considered to be open space during 4 player games'


@dataclass
class Column:
    """One column: its Spinston (None once destroyed) and the robot on each level (None if empty)."""

    spinston: str | None
    slots: list[str | None]  # slots[level - 1]
    fourth: bool  # the 4th level is open space: a 4-player game whose planet card shows it here

    def copy(self) -> Column:
        """An independent copy."""
        return Column(self.spinston, list(self.slots), self.fourth)

    def robot_at(self, level: int) -> str | None:
        """The robot (or Spinston, level 0) at a level."""
        return self.spinston if level == SPINSTON_LEVEL else self.slots[level - 1]

    def lowest(self) -> int | None:
        """The lowest occupied level: the target of an attack on this column; None when nothing is left."""
        for level in reversed(LEVELS):
            if self.slots[level - 1] is not None:
                return level
        return SPINSTON_LEVEL if self.spinston is not None else None

    def highest_open(self) -> int | None:
        """'the highest open space' of the column, or None; a column without its Spinston has none."""
        if self.spinston is None:
            return None
        for level in LEVELS:
            if level == FOURTH and not self.fourth:
                break
            if self.slots[level - 1] is None:
                return level
        return None

    def robots(self) -> list[str]:
        """The robots below the Spinston."""
        return [robot for robot in self.slots if robot is not None]

    def to_json(self) -> dict[str, Any]:
        """The stored form."""
        return {"spinston": self.spinston, "slots": list(self.slots), "fourth": self.fourth}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Column:
        """Read back `to_json`."""
        return cls(data["spinston"], list(data["slots"]), bool(data["fourth"]))


def resolution_order(columns: list[Column]) -> Iterator[tuple[int, int]]:
    """(column, level) of every robot, 'starting with the robots on the lowest row and going from left to right'.

    The Spinstons, atop the columns, form the highest row and act last.
    """
    for level in (*reversed(LEVELS), SPINSTON_LEVEL):
        for index, column in enumerate(columns):
            if column.robot_at(level) is not None:
                yield index, level


def columns_to_the_right(count: int, start: int) -> list[int]:
    """The other columns from the one right of `start`, wrapping round (assumption lil-chip-wrap)."""
    return [(start + step) % count for step in range(1, count)]


def open_space_for_hop(columns: list[Column], start: int) -> tuple[int, int] | None:
    """Lil Chip: 'the highest open space available in a different column, starting with the column to the right'."""
    for index in columns_to_the_right(len(columns), start):
        level = columns[index].highest_open()
        if level is not None:
            return index, level
    return None


def open_space_for_summon(columns: list[Column], start: int) -> tuple[int, int] | None:
    """Lil Chunk: 'in the same column as Lil Chunk if possible or in the first open space available starting with
    the highest open position in the column to the right'."""
    for index in (start, *columns_to_the_right(len(columns), start)):
        level = columns[index].highest_open()
        if level is not None:
            return index, level
    return None
