"""A tournament's plan and its progress as values: entrants, format, the matches (slots) and their outcomes.

The plan is plain data (JSON round-trips), the same in the API and the local runner; the planning itself
(which matches come next) is domain/tournaments/plan.py.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from model.match import SeatRequest, TurnTimerRequest

ROUND_ROBIN, SWISS = "round-robin", "swiss"
FORMATS = (ROUND_ROBIN, SWISS)
MAX_PARALLEL = 64
"""The most matches a tournament keeps running at once (its `parallel`)."""


class EntrantRequest(TypedDict):
    """An entrant asked for: `ai` at a `level`, or a registered `bot`, with an optional display `name`.

    The API's schema loads every key (None where not given); the `parlour` command sends only those it has."""

    type: str
    level: NotRequired[str | None]
    bot: NotRequired[str | None]
    name: NotRequired[str | None]


class TournamentRequest(TypedDict):
    """A tournament asked for (`POST /v1/tournaments`, as its schema loads it)."""

    game: str
    players: int | None
    options: dict[str, Any]
    entrants: list[EntrantRequest]
    format: str
    rounds: int | None
    games_per_pairing: int | None
    turn_timer: TurnTimerRequest | None
    seed: str | None
    parallel: int


class EntrantJson(TypedDict):
    """An entrant's stored and served form: an AI entrant has `level`, a bot entrant `bot`."""

    name: str
    type: str
    level: NotRequired[str | None]
    bot: NotRequired[str | None]


class NumberedEntrantJson(EntrantJson):
    """An entrant as a tournament (or its challenge) lists it: its number first."""

    entrant: int


class PlanJson(TypedDict):
    """A plan's stored form."""

    game: str
    players: int
    options: dict[str, Any]
    entrants: list[EntrantJson]
    format: str
    rounds: int
    games_per_pairing: int
    seed: str
    cooperative: bool
    turn_timer: int | None
    parallel: int


class SlotJson(TypedDict):
    """A slot's stored form."""

    index: int
    round: int
    seats: list[int]
    byes: list[int]


class OutcomeJson(TypedDict):
    """An outcome's stored form."""

    index: int
    ranking: list[list[int]]
    team_success: bool | None
    match: str | None
    void: bool


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

    def to_json(self) -> EntrantJson:
        """The stored and served form."""
        if self.type == "ai":
            return {"name": self.name, "type": self.type, "level": self.level}
        return {"name": self.name, "type": self.type, "bot": self.bot}

    @classmethod
    def from_json(cls, data: EntrantJson) -> Entrant:
        """Read back the stored form."""
        return cls(data["name"], data["type"], data.get("level"), data.get("bot"))


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

    def to_json(self) -> PlanJson:
        """The stored form."""
        return {
            "game": self.game,
            "players": self.players,
            "options": self.options,
            "entrants": [entrant.to_json() for entrant in self.entrants],
            "format": self.format,
            "rounds": self.rounds,
            "games_per_pairing": self.games_per_pairing,
            "seed": self.seed,
            "cooperative": self.cooperative,
            "turn_timer": self.turn_timer,
            "parallel": self.parallel,
        }

    @classmethod
    def from_json(cls, data: PlanJson) -> Plan:
        """Read back the stored form (a plan stored without `cooperative`, `turn_timer` or `parallel`: defaults)."""
        return cls(
            game=data["game"],
            players=data["players"],
            options=data["options"],
            entrants=tuple(Entrant.from_json(entrant) for entrant in data["entrants"]),
            format=data["format"],
            rounds=data["rounds"],
            games_per_pairing=data["games_per_pairing"],
            seed=data["seed"],
            cooperative=data.get("cooperative", False),
            turn_timer=data.get("turn_timer"),
            parallel=data.get("parallel", 8),
        )

    def numbered_entrants(self) -> list[NumberedEntrantJson]:
        """The entrants as a tournament and its challenge list them, each with its number."""
        return [{"entrant": index, **entrant.to_json()} for index, entrant in enumerate(self.entrants)]

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

    def to_json(self) -> SlotJson:
        """The stored form."""
        return {"index": self.index, "round": self.round, "seats": list(self.seats), "byes": list(self.byes)}

    @classmethod
    def from_json(cls, data: SlotJson) -> Slot:
        """Read back the stored form."""
        return cls(data["index"], data["round"], data["seats"], data.get("byes", []))


@dataclass(frozen=True)
class Outcome:
    """How one match ended: the finishing order by seat (groups of tied seats), or the team's success."""

    index: int
    ranking: list[list[int]]
    team_success: bool | None = None
    match: str | None = None
    void: bool = False  # the match vanished (expired) before it finished: it counts for nobody

    def to_json(self) -> OutcomeJson:
        """The stored form."""
        return {
            "index": self.index,
            "ranking": [list(group) for group in self.ranking],
            "team_success": self.team_success,
            "match": self.match,
            "void": self.void,
        }

    @classmethod
    def from_json(cls, data: OutcomeJson) -> Outcome:
        """Read back the stored form (an outcome stored before `match` or `void` takes the default)."""
        return cls(data["index"], data["ranking"], data.get("team_success"), data.get("match"), data.get("void", False))
