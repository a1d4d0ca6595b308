"""The ice cream machine: a square board of spaces, sliding one step at a time, and lines of three."""

from __future__ import annotations

from dataclasses import dataclass

DIRECTIONS: dict[str, tuple[int, int]] = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
ONE_STEP = "'1 movement point equals moving one flavour onto an adjacent, empty space.'"
LINE_LENGTH = 3  # 'three flavours in a connected, straight line'

Board = list[int | None]  # row-major; a flavour index or None for an empty space


@dataclass(frozen=True)
class Line:
    """Three occupied spaces in a row or column, and the flavours on them."""

    spaces: tuple[int, int, int]
    flavours: frozenset[int]


def index(size: int, row: int, column: int) -> int:
    """The board index of a space."""
    return row * size + column


def slide_target(board: Board, size: int, space: int, direction: str) -> tuple[int | None, str]:
    """Where a tile slides one step: an adjacent empty space, or the opposite edge when pushed off.

    Returns (target, "") or (None, the rule that forbids it).
    """
    row, column = divmod(space, size)
    d_row, d_column = DIRECTIONS[direction]
    row, column = row + d_row, column + d_column
    wrapped = not (0 <= row < size and 0 <= column < size)
    if wrapped:
        # 'push a flavour off the edge ... place the tile on the exactly opposite space of the same row or column'
        row, column = row % size, column % size
    target = index(size, row, column)
    if board[target] is not None:
        if wrapped:
            return None, "the opposite space is occupied: 'This is only possible if the opposite space is not occupied'"
        return None, f"the adjacent space is occupied: {ONE_STEP}"
    return target, ""


def lines(board: Board, size: int) -> set[Line]:
    """Every line of three occupied spaces in a row or column; never diagonal, never across the edge."""
    found: set[Line] = set()
    for fixed in range(size):
        for start in range(size - LINE_LENGTH + 1):
            for spaces in (
                tuple(index(size, fixed, start + k) for k in range(LINE_LENGTH)),
                tuple(index(size, start + k, fixed) for k in range(LINE_LENGTH)),
            ):
                flavours = [board[s] for s in spaces]
                if all(f is not None for f in flavours):
                    found.add(Line(spaces, frozenset(f for f in flavours if f is not None)))  # type: ignore[arg-type]
    return found
