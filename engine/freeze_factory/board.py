"""The ice cream machine: a square board of spaces, sliding one step at a time, and lines of three."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

DIRECTIONS: dict[str, tuple[int, int]] = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
ONE_STEP = "'1 movement point equals moving one flavour onto an adjacent, empty space.'"
LINE_LENGTH = 3  # 'three flavours in a connected, straight line'

Board = list[int | None]  # row-major; a flavour index or None for an empty space


@dataclass(frozen=True)
class Line:
    """Three occupied spaces in a row or column, and the flavours on them."""

    spaces: tuple[int, ...]
    flavours: frozenset[int]

    def to_json(self) -> dict[str, list[int]]:
        """The line as a state's JSON stores it."""
        return {"spaces": list(self.spaces), "flavours": sorted(self.flavours)}

    @classmethod
    def from_json(cls, data: Any, board: Board) -> Line:
        """A stored line; older states stored its spaces alone, whose flavours the board still shows."""
        if isinstance(data, list):
            return cls(tuple(data), frozenset(f for s in data if (f := board[s]) is not None))
        return cls(tuple(data["spaces"]), frozenset(data["flavours"]))


def index(size: int, row: int, column: int) -> int:
    """The board index of a space."""
    return row * size + column


@functools.cache
def steps(size: int) -> tuple[tuple[tuple[str, int, bool], ...], ...]:
    """Per space: each direction, the space one step that way, and whether the step goes off the edge.

    'push a flavour off the edge ... place the tile on the exactly opposite space of the same row or column'
    """
    table = []
    for space in range(size * size):
        row, column = divmod(space, size)
        moves = []
        for direction, (d_row, d_column) in DIRECTIONS.items():
            to_row, to_column = row + d_row, column + d_column
            wrapped = not (0 <= to_row < size and 0 <= to_column < size)
            moves.append((direction, index(size, to_row % size, to_column % size), wrapped))
        table.append(tuple(moves))
    return tuple(table)


def slides(board: Board, size: int) -> list[tuple[int, str]]:
    """Every (space, direction) a tile may slide one step: onto an empty space, wrapped or not."""
    table = steps(size)
    return [
        (space, direction)
        for space, flavour in enumerate(board)
        if flavour is not None
        for direction, target, _ in table[space]
        if board[target] is None
    ]


def slide_target(board: Board, size: int, space: int, direction: str) -> tuple[int | None, str]:
    """Where a tile slides one step: an adjacent empty space, or the opposite edge when pushed off.

    Returns (target, "") or (None, the rule that forbids it).
    """
    _, target, wrapped = next(move for move in steps(size)[space] if move[0] == direction)
    if board[target] is not None:
        if wrapped:
            return None, "the opposite space is occupied: 'This is only possible if the opposite space is not occupied'"
        return None, f"the adjacent space is occupied: {ONE_STEP}"
    return target, ""


@functools.cache
def segments(size: int) -> tuple[tuple[int, ...], ...]:
    """Every run of three spaces in a row or column; never diagonal, never across the edge."""
    return tuple(
        spaces
        for fixed in range(size)
        for start in range(size - LINE_LENGTH + 1)
        for spaces in (
            tuple(index(size, fixed, start + k) for k in range(LINE_LENGTH)),
            tuple(index(size, start + k, fixed) for k in range(LINE_LENGTH)),
        )
    )


@functools.cache
def segments_through(size: int, space: int) -> tuple[tuple[int, ...], ...]:
    """The runs of three spaces that hold this space."""
    return tuple(spaces for spaces in segments(size) if space in spaces)


def line_on(board: Board, spaces: tuple[int, ...]) -> Line | None:
    """The line of three on these spaces, or None if one of them is empty."""
    flavours = [board[s] for s in spaces]
    if any(f is None for f in flavours):
        return None
    return Line(spaces, frozenset(f for f in flavours if f is not None))


def lines(board: Board, size: int) -> set[Line]:
    """Every line of three occupied spaces in a row or column."""
    return {line for spaces in segments(size) if (line := line_on(board, spaces))}


def lines_through(board: Board, size: int, space: int) -> list[Line]:
    """The lines of three through a space; after a slide, exactly the lines it formed (its target was empty)."""
    return [line for spaces in segments_through(size, space) if (line := line_on(board, spaces))]
