"""How a finished game is scored: competitive rankings and co-operative team results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Result:
    """The outcome of a finished game.

    `ranking` lists groups of seats, best first; seats in one group are tied. `winners` is the
    first group, or empty when nobody wins (a co-operative loss). `team_success` is set only for
    co-operative games.
    """

    scores: tuple[float, ...]
    ranking: tuple[tuple[int, ...], ...]
    winners: tuple[int, ...]
    reason: str
    team_success: bool | None = None

    @classmethod
    def ranked_by_score(cls, scores: Sequence[float], reason: str) -> Result:
        """Rank seats by score, highest first; equal scores share a place and all top seats win."""
        places: dict[float, list[int]] = {}
        for seat, score in enumerate(scores):
            places.setdefault(score, []).append(seat)
        ranking = tuple(tuple(places[score]) for score in sorted(places, reverse=True))
        return cls(scores=tuple(scores), ranking=ranking, winners=ranking[0], reason=reason)

    @classmethod
    def resignation(cls, players: int, seat: int) -> Result:
        """A competitive game ended by `seat` resigning: every other seat tied first, the resigner last."""
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not one of {players} seats")
        others = tuple(other for other in range(players) if other != seat)
        scores = tuple(0.0 if other == seat else 1.0 for other in range(players))
        ranking = (others, (seat,)) if others else ((seat,),)
        return cls(scores=scores, ranking=ranking, winners=others, reason=f"seat {seat} resigned")

    @classmethod
    def gave_up(cls, players: int) -> Result:
        """A co-operative game the team gave up: nobody wins, every seat shares one place."""
        return cls(
            scores=(0.0,) * players,
            ranking=(tuple(range(players)),),
            winners=(),
            reason="the team gave up",
            team_success=False,
        )

    @classmethod
    def after_resignation(cls, cooperative: bool, players: int, seat: int, others_play_on: bool) -> Result | None:
        """What a seat's resignation does: a competitive game ends with it last; in a co-operative game the seat
        goes to the AI while another human or bot seat plays on (None: the game goes on), else the team gives up."""
        if not cooperative:
            return cls.resignation(players, seat)
        return None if others_play_on else cls.gave_up(players)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Result:
        """Read back a result written by `to_json`."""
        return cls(
            scores=tuple(data["scores"]),
            ranking=tuple(tuple(group) for group in data["ranking"]),
            winners=tuple(data["winners"]),
            reason=data["reason"],
            team_success=data.get("team_success"),
        )

    @property
    def is_draw(self) -> bool:
        """True when every seat shares first place in a competitive game."""
        return self.team_success is None and len(self.ranking) == 1

    def rewards(self) -> list[float]:
        """Per-seat rewards in [-1, 1] for search: +1 first place, -1 last, ties share."""
        players = len(self.scores)
        if self.team_success is not None:
            return [1.0 if self.team_success else -1.0] * players
        if len(self.ranking) == 1:
            return [0.0] * players
        rewards = [0.0] * players
        place = 0
        for group in self.ranking:
            # Seats of a tied group share the average of the places they cover.
            middle = place + (len(group) - 1) / 2
            value = 1.0 - 2.0 * middle / (players - 1)
            for seat in group:
                rewards[seat] = value
            place += len(group)
        return rewards

    def to_json(self) -> dict[str, Any]:
        """The form served by the API."""
        data: dict[str, Any] = {
            "scores": list(self.scores),
            "ranking": [list(group) for group in self.ranking],
            "winners": list(self.winners),
            "draw": self.is_draw,
            "reason": self.reason,
        }
        if self.team_success is not None:
            data["team_success"] = self.team_success
        return data
