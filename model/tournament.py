"""A tournament's plan and its progress as values: entrants, format, the matches (slots) and their outcomes.

The plan is plain data (JSON round-trips), the same in the API and the local runner; the planning itself
(which matches come next) is domain/tournaments/plan.py.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from model.match import SeatRequest

ROUND_ROBIN, SWISS = "round-robin", "swiss"
FORMATS = (ROUND_ROBIN, SWISS)
MAX_PARALLEL = 64
"""The most matches a tournament keeps running at once (its `parallel`)."""


@dataclass(frozen=True)
class Entrant:
    """A player of the tournament: a built-in AI level or a registered bot, with a display name."""

    name: str
    type: str  # "ai" or "bot"
    level: str | None = None
    bot: str | None = None

    def seat_spec(self) -> SeatRequest:
        """The `seats` entry of a match this entrant plays in."""
        if self.type == "bot":
            return SeatRequest(type="bot", level=None, name=None, bot=self.bot)
        return SeatRequest(type="ai", level=self.level, name=self.name, bot=None)

    def to_json(self) -> dict[str, Any]:
        """The stored and served form."""
        data: dict[str, Any] = {"name": self.name, "type": self.type}
        data["level" if self.type == "ai" else "bot"] = self.level if self.type == "ai" else self.bot
        return data


@dataclass(frozen=True)
class Plan:
    """What a tournament plays: game, players per match, options, entrants, format and seed."""

    game: str
    players: int
    options: dict[str, Any]
    entrants: tuple[Entrant, ...]
    format: str
    rounds: int
    games_per_pairing: int
    seed: str
    cooperative: bool = False
    turn_timer: int | None = None  # seconds each seat has to act, in every match (server only)
    parallel: int = 8  # matches the server keeps running at once

    def to_json(self) -> dict[str, Any]:
        """The stored form."""
        data = asdict(self)
        data["entrants"] = [entrant.to_json() for entrant in self.entrants]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Plan:
        """Read back the stored form."""
        entrants = tuple(Entrant(**entrant) for entrant in data["entrants"])
        return cls(**{**data, "entrants": entrants})

    @property
    def matches_per_round(self) -> int:
        """Matches in one Swiss round (groups of `players`, byes left out) times games per pairing."""
        return (len(self.entrants) // self.players) * self.games_per_pairing

    def total_matches(self) -> int:
        """How many matches the tournament plays in all."""
        if self.format == ROUND_ROBIN:
            return math.comb(len(self.entrants), self.players) * self.games_per_pairing
        return self.rounds * self.matches_per_round

    def match_seed(self, index: int) -> str:
        """The seed of the `index`-th match, derived from the tournament's seed."""
        return hashlib.sha256(f"parlour-tournament:{self.seed}:{index}".encode()).hexdigest()


@dataclass(frozen=True)
class Slot:
    """One planned match: its index, round, and the entrant in each seat."""

    index: int
    round: int
    seats: list[int]
    byes: list[int] = field(default_factory=list)  # entrants sitting this Swiss round out (on its first slot)

    def to_json(self) -> dict[str, Any]:
        """The stored form."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Slot:
        """Read back the stored form."""
        return cls(**data)


@dataclass(frozen=True)
class Outcome:
    """How one match ended: the finishing order by seat (groups of tied seats), or the team's success."""

    index: int
    ranking: list[list[int]]
    team_success: bool | None = None
    match: str | None = None
    void: bool = False  # the match vanished (expired) before it finished: it counts for nobody

    def to_json(self) -> dict[str, Any]:
        """The stored form."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        """Read back the stored form."""
        return cls(**data)
