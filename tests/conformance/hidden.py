"""What each hidden-information game hides from a viewer, read from its state JSON, for the determinization check.

Each entry names the parts of `to_json` that the game's `view` keeps from the viewer and its `determinize`
deals again: a determinization that never moves one of them (a clone with a fresh RNG, say) is caught.
A new game with hidden information must add its entry here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine import Game, GameState

HiddenParts = Callable[[dict[str, Any], int | None], dict[str, Any]]


def _freeze_factory(data: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """The cone pile, the removed cones and the other hands (the view shows only counts)."""
    others = [hand for seat, hand in enumerate(data["hands"]) if seat != viewer]
    return {"pile": data["pile"], "removed": data["removed"], "other hands": others}


def _sundae_split(data: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """The deck and removed cards; unless the viewer is the Splitter, its drawn cards and the untaken face-down ones."""
    parts = {"deck": data["deck"], "removed": data["removed"]}
    if viewer != data["splitter"]:
        parts["drawn cards"] = data["hand"]
        parts["face-down cards"] = [pile["face_down"] for pile in data["piles"] if pile["taken_by"] is None]
    return parts


def _robots_love_ice_cream(data: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """Every deck's order, and the hands and draw the viewer may not see (all are seen with open_hands)."""
    open_hands = data["options"]["open_hands"]
    parts = {
        "ice cream deck": data["ice_deck"],
        "robot deck": data["robot_deck"],
        "boost deck": data["boost_deck"],
        "other hands": [hand for seat, hand in enumerate(data["hands"]) if seat != viewer and not open_hands],
    }
    active = data["queue"][0] if data["queue"] else None
    if active is not None and active != viewer and not open_hands:
        parts["drawn cards"] = data["drawn"]
    return parts


def _rockem_sockem(data: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """The keep another seat sent this step, while it waits for the viewer (rounds mode)."""
    return {"other keeps": [keep for seat, keep in enumerate(data["pending"]) if seat != viewer and keep is not None]}


HIDDEN_PARTS: dict[str, HiddenParts] = {
    "freeze_factory": _freeze_factory,
    "sundae_split": _sundae_split,
    "robots_love_ice_cream": _robots_love_ice_cream,
    "rockem_sockem": _rockem_sockem,
}


def has_leaf(value: Any) -> bool:
    """True if the JSON value holds at least one card, number or text (a part there is something to deal)."""
    if isinstance(value, dict):
        return any(has_leaf(item) for item in value.values())
    if isinstance(value, list):
        return any(has_leaf(item) for item in value)
    return value is not None


@dataclass
class HiddenMoves:
    """Which hidden parts were there to deal (`held`) and which some determinization dealt differently (`moved`)."""

    held: set[str] = field(default_factory=set)
    moved: set[str] = field(default_factory=set)

    def record(self, game: Game, state: dict[str, Any], guess: GameState, viewer: int | None) -> None:
        """Compare a determinization's hidden parts for the viewer with those of the state (as JSON)."""
        parts = HIDDEN_PARTS.get(game.info.id)
        if parts is None:
            return
        truth, dealt = parts(state, viewer), parts(json.loads(json.dumps(guess.to_json())), viewer)
        for name, value in truth.items():
            if has_leaf(value):
                self.held.add(name)
                if dealt[name] != value:
                    self.moved.add(name)

    def update(self, other: HiddenMoves) -> None:
        """Add another playout's record."""
        self.held |= other.held
        self.moved |= other.moved

    def assert_every_part_moved(self, game: Game) -> None:
        """Every hidden part that held something was dealt differently by some determinization."""
        stuck = sorted(self.held - self.moved)
        assert not stuck, (
            f"{game.info.id}'s determinize never changed {stuck} across seeds, though they were hidden and held"
            " something: it must deal what the viewer cannot see at random (see tests/conformance/hidden.py)"
        )
