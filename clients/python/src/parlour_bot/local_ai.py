"""Parlour's AI levels in the bot's own process: a state rebuilt from what the seat sees, then the level's move.

The server's hints run a level on the match's true state; an agent only ever reads it through
`state.determinize(seat, rng)`, which deals again everything the seat cannot see. So a state that agrees with
the seat's view, its hidden parts drawn any way that fits, gets the same kind of answer. The engine builds it:
`Game.state_from_view(view, seat, players, options, rng)`, for every game; this module knows no game's state.

A view alone does not say every option (IceCream's turn limit, Freeze Factory's and Robots Love Ice Cream's
variants): `choose` takes the match's `players` and `options` when the caller has them, and `choose_in_match`
reads them from the match JSON the runner fetches for the seat. Without them it tries each player count the
game takes with the default options, and answers None when no position of those shows the seat this view (the
caller then plays some other legal action).

The server's packages are imported by name at run time, so `parlour-client` installs without them.
"""

from __future__ import annotations

import importlib
from typing import Any

from parlour_client import Action

INSTALL = (
    "LocalAI runs Parlour's own AI, which is not importable here ({error}). Install the server's package "
    "into this environment from a Parlour checkout: pip install /path/to/parlour (or pip install -e . in it)"
)


class LocalLevel:
    """One AI level (by name) with its seed and time cap, on states rebuilt from seat views."""

    def __init__(self, level: str, seed: int, time_cap: float | None) -> None:
        from parlour_bot.engines import EngineError

        try:
            self.levels = importlib.import_module("ai.levels")
            self.registry = importlib.import_module("engine.registry")
            self.engine = importlib.import_module("engine")
        except ImportError as error:
            raise EngineError(INSTALL.format(error=error)) from None
        try:
            self.levels.level_named(level)
        except ValueError as error:
            raise EngineError(f"LocalAI level: {error}") from None
        self.level = level
        self.seed = seed
        self.time_cap = time_cap
        self.moves = 0

    def choose(
        self, game: str, view: Any, seat: int, players: int | None = None, options: dict[str, Any] | None = None
    ) -> Action | None:
        """The level's action for `seat` from its `view` in a match of `players` with `options` (the match's).

        None if the game is unknown here or no position of it shows the seat this view.
        """
        state = self.state_from_view(game, view, seat, players, options)
        if state is None:
            return None
        self.moves += 1
        action: Action = self.levels.choose(state, seat, self.level, f"{self.seed}:{self.moves}", self.time_cap)
        return action

    def choose_in_match(self, match: dict[str, Any], seat: int) -> Action | None:
        """The level's action for `seat` from the match JSON the server sends that seat (`GET /v1/matches/{id}`).

        Its `view`, `players` and `options` give the exact state the view allows, whatever options it hides.
        """
        return self.choose(match["game"], match["view"], seat, match["players"], match["options"])

    def state_from_view(
        self, game: str, view: Any, seat: int, players: int | None, options: dict[str, Any] | None
    ) -> Any:
        """The engine's state rebuilt from the view (`Game.state_from_view`); None if no player count fits it."""
        rules = self.registry.get_game(game)
        if rules is None or not isinstance(view, dict):
            return None
        counts = [players] if players is not None else range(rules.info.min_players, rules.info.max_players + 1)
        rng = self.engine.Rng.from_seed(f"view:{self.seed}:{self.moves}")
        for count in counts:
            try:
                return rules.state_from_view(view, seat, count, options, rng)
            except (self.engine.ViewMismatch, self.engine.InvalidOptions):
                continue
        return None
