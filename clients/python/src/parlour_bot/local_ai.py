"""Parlour's AI levels in the bot's own process: a state rebuilt from what the seat sees, then the level's move.

The server's hints run a level on the match's true state; an agent only ever reads it through
`state.determinize(seat, rng)`, which deals again every card the seat cannot see. So a state that
agrees with the seat's view, with its hidden cards dealt any way that fits, gets the same kind of
answer. IceCream has no hidden information (the view is the state, but for the `turn_limit` option,
which no view shows: taken as none). Sundae Split's unseen cards (the deck, the removed cards, the
Splitter's hand and face-down cards, for a chooser) are dealt from the cards nobody has seen. Other
games' views do not rebuild a state yet: `LocalLevel.choose` answers None for them.

The server's packages are imported by name at run time, so `parlour-client` installs without them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
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

    def choose(self, game: str, view: Any, seat: int) -> Action | None:
        """The level's action for `seat` from its `view`; None for a game whose state a view does not rebuild."""
        rebuild = SUPPORTED.get(game)
        if rebuild is None or not isinstance(view, dict):
            return None
        state = self.registry.get_game(game).state_from_json(rebuild(view, seat))
        self.moves += 1
        action: Action = self.levels.choose(state, seat, self.level, f"{self.seed}:{self.moves}", self.time_cap)
        return action


def icecream_state(view: dict[str, Any], seat: int) -> dict[str, Any]:
    """IceCream's whole state from a view (it hides nothing; the turn limit is not shown, so none)."""
    flavours: dict[str, str] = importlib.import_module("engine.icecream.game").FLAVOUR_NAMES
    letter = {name: code for code, name in flavours.items()}
    first = "yellow" if letter[view["flavours"][0]] == "Y" else "green"
    return {
        "game": "icecream",
        "options": {"first_player_flavour": first, "turn_limit": 0},
        "rng": 0,
        "cones": ["".join(letter[name] for name in cone) for cone in view["cones"]],
        "turn": view["turn"],
        "points_left": view["points_left"],
        "to_move": view["to_move"] if view["to_move"] is not None else seat,
        "outcome": None,
    }


def sundae_split_state(view: dict[str, Any], seat: int) -> dict[str, Any]:
    """A Sundae Split state that agrees with the seat's view, the cards it cannot see dealt from those unseen."""
    piles = view["piles"]
    players = len(view["sundaes"])
    cards = importlib.import_module("engine.sundae_split.cards")
    seen = {card["id"] for card in view["hand"]}
    seen |= {card["id"] for pile in piles for card in pile["face_up"] + pile["face_down"]}
    seen |= {card["id"] for sundae in view["sundaes"] for card in sundae}
    unseen = iter(sorted(set(cards.starting_deck(players)) - seen))

    def deal(count: int) -> list[str]:
        return [next(unseen) for _ in range(count)]

    hand = [card["id"] for card in view["hand"]] or deal(view["hand_count"])
    rebuilt_piles = [
        {
            "face_up": [card["id"] for card in pile["face_up"]],
            "face_down": [card["id"] for card in pile["face_down"]] or deal(pile["face_down_count"]),
            "taken_by": pile["taken_by"],
        }
        for pile in piles
    ]
    return {
        "game": "sundae_split",
        "players": players,
        "options": {},
        "rng": 0,
        "deck": deal(view["deck_count"]),
        "removed": deal(view["removed_count"]),
        "splitter": view["splitter"],
        "round": view["round"],
        "phase": view["phase"],
        "hand": hand,
        "piles": rebuilt_piles,
        "chooser": view["chooser"],
        "sundaes": [[card["id"] for card in sundae] for sundae in view["sundaes"]],
        "outcome": None,
    }


SUPPORTED: dict[str, Callable[[dict[str, Any], int], dict[str, Any]]] = {
    "icecream": icecream_state,
    "sundae_split": sundae_split_state,
}
"""The games whose state `LocalLevel` rebuilds from a seat's view."""
