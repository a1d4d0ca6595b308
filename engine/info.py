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
    min_utility: float
    """The lowest score any seat's `Result` can give it (resignations and give-ups included), as OpenSpiel's."""
    max_utility: float
    """The highest score any seat's `Result` can give it: a true bound derived from the rules, maybe never reached."""
    max_game_length: int | None
    """The most actions any match can take, over every player count and option; None when nothing bounds it.

    `Game.max_game_length(players, options)` gives the bound of one match, which some options tighten.
    """
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
