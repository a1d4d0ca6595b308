"""What the catalog says about a game: metadata and recorded assumptions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from engine.options import OptionSet


@dataclass(frozen=True)
class Assumption:
    """A choice made where the rulebook is silent or a component is unknown."""

    id: str
    choice: str
    reason: str

    @classmethod
    def from_json(cls, data: dict[str, str]) -> Assumption:
        """Read one assumption from a game's data file."""
        return cls(id=data["id"], choice=data["choice"], reason=data["reason"])

    def to_json(self) -> dict[str, str]:
        """The catalog form."""
        return {"id": self.id, "choice": self.choice, "reason": self.reason}


@dataclass(frozen=True)
class GameInfo:
    """A game's identity, player counts, traits, options and assumptions."""

    id: str
    name: str
    min_players: int
    max_players: int
    summary: str
    information: Literal["perfect", "imperfect"]
    chance: bool
    cooperative: bool
    simultaneous: bool
    options: OptionSet = field(default_factory=OptionSet)
    assumptions: tuple[Assumption, ...] = ()
    cards: tuple[dict[str, Any], ...] = ()
    """Every card of a card game, as its views name them by id (only games that list their cards)."""
    rules_version: int = 1
    """Raised whenever a change of the rules or of the stored state means a stored match no longer reads true."""

    def to_json(self) -> dict[str, Any]:
        """The catalog entry served by the API."""
        return {
            "id": self.id,
            "name": self.name,
            "summary": self.summary,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "information": self.information,
            "chance": self.chance,
            "cooperative": self.cooperative,
            "simultaneous": self.simultaneous,
            "options": self.options.to_json(),
            "assumptions": [a.to_json() for a in self.assumptions],
            "rules_version": self.rules_version,
            **({"cards": [dict(card) for card in self.cards]} if self.cards else {}),
        }
