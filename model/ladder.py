"""A game's ladder as values: a rated entrant and its rating (the rating itself: domain/ladder/ratings.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rating:
    """An entrant's rating: mu, sigma and the matches counted for it."""

    mu: float
    sigma: float
    games: int = 0

    @property
    def ordinal(self) -> float:
        """The displayed rating, mu - 3 sigma: the skill held with about 99.9% confidence."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class Entrant:
    """One rated seat's entrant: `bot:<id>` or `ai:<level>`, with its display name."""

    key: str
    name: str

    @property
    def anchored(self) -> bool:
        """True for a built-in AI level, whose rating never moves."""
        return self.key.startswith("ai:")

    @property
    def level(self) -> str | None:
        """The AI level's name, or None for a bot."""
        return self.key[3:] if self.anchored else None

    @property
    def bot(self) -> str | None:
        """The bot's id, or None for an AI level."""
        return None if self.anchored else self.key[4:]
