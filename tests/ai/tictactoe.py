"""A test-only tic-tac-toe on the Parlour protocol: X is seat 0, O is seat 1, cells 0-8."""

from __future__ import annotations

from typing import Any

from engine.errors import IllegalAction
from engine.protocol import Action, GameState, View
from engine.result import Result
from engine.rng import Rng

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


class TicTacToeState(GameState):
    """A board of nine cells holding None, 0 or 1."""

    game_id = "tictactoe"

    def __init__(self, board: list[int | None] | None = None, seed: int = 0) -> None:
        self.players = 2
        self.options = {}
        self.rng = Rng.from_seed(seed)
        self.board: list[int | None] = list(board) if board else [None] * 9

    @classmethod
    def from_text(cls, text: str) -> TicTacToeState:
        """A board from X, O and '.' row by row; other characters (a '/' between rows) are skipped."""
        marks: dict[str, int | None] = {"X": 0, "O": 1, ".": None}
        return cls([marks[c] for c in text if c in marks])

    def to_move(self) -> int:
        return 0 if self.board.count(0) == self.board.count(1) else 1

    def winner(self) -> int | None:
        for a, b, c in LINES:
            if self.board[a] is not None and self.board[a] == self.board[b] == self.board[c]:
                return self.board[a]
        return None

    def acting_seats(self) -> tuple[int, ...]:
        return () if self.is_over() else (self.to_move(),)

    def is_over(self) -> bool:
        return self.winner() is not None or None not in self.board

    def result(self) -> Result | None:
        if not self.is_over():
            return None
        winner = self.winner()
        scores = [0.0, 0.0] if winner is None else [float(seat == winner) for seat in (0, 1)]
        return Result.ranked_by_score(scores, "three in a row" if winner is not None else "full board")

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.acting_seats():
            return []
        return [{"cell": cell} for cell in range(9) if self.board[cell] is None]

    def check_action(self, seat: int, action: Action) -> None:
        if action not in self.legal_actions(seat):
            raise IllegalAction("an empty cell")

    def apply_trusted(self, seat: int, action: Action) -> None:
        self.board[action["cell"]] = seat

    def clone(self) -> TicTacToeState:
        copy = TicTacToeState(self.board)
        copy.rng = self.rng.clone()
        return copy

    def view(self, viewer: int | None) -> View:
        return {"board": list(self.board)}

    def to_json(self) -> dict[str, Any]:
        return {"board": list(self.board), "rng": self.rng.state}
