"""A Robots Love Ice Cream position as a game state: the table (table.py) and the protocol the engine speaks.

What a seat may do is `actions.py`, what a viewer sees `viewing.py`; the order of play `phases.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import CorruptState
from engine.protocol import ENUMERATED, Action, GameState, View
from engine.result import Result
from engine.rng import Rng
from engine.robots_love_ice_cream import actions, viewing
from engine.robots_love_ice_cream.planet import Column
from engine.robots_love_ice_cream.table import Table


@dataclass
class RobotsState(Table, GameState):
    """One position, and the game protocol on it."""

    game_id = "robots_love_ice_cream"

    # --- the protocol ---------------------------------------------------------------------------
    def legal_actions(self, seat: int) -> list[Action]:
        """Every action the seat may take now."""
        return actions.legal_actions(self, seat)

    def action_space(self, seat: int) -> dict[str, Any]:
        """Every legal action, and `ends_turn`: for each one, whether it ends the seat's turn (`actions.ends_turn`)."""
        listed = self.legal_actions(seat)
        return {"kind": ENUMERATED, "actions": listed, "ends_turn": [actions.ends_turn(self, seat, a) for a in listed]}

    def default_action(self, seat: int) -> Action:
        """The seat's pass, or its first choice where the step has no pass (see `actions.default_action`)."""
        return actions.default_action(self, seat)

    def check_action(self, seat: int, action: Action) -> None:
        """IllegalAction naming the rule unless the action is one of the legal ones."""
        actions.check_action(self, seat, action)

    def apply_trusted(self, seat: int, action: Action) -> None:
        """Apply a legal action and everything it sets off, up to the next decision."""
        self.events = []
        actions.apply_action(self, seat, action)

    def view(self, viewer: int | None) -> View:
        """The table for everyone; a hand (and a pending draw) only for its owner unless hands are open."""
        return viewing.view(self, viewer)

    def redact_action(self, seat: int, action: Action, viewer: int | None) -> Action:
        """What a seat kept of its draw, or gave away, is hidden from the others."""
        return viewing.redact_action(self, seat, action, viewer)

    def determinize(self, viewer: int | None, rng: Rng) -> RobotsState:
        """Deal the cards the viewer cannot see at random; shuffle the robot and Boost decks."""
        return viewing.determinize(self, viewer, rng)

    def to_json(self) -> dict[str, Any]:
        """The whole state, RNG included."""
        data: dict[str, Any] = {"game": self.game_id, "rng": self.rng.state}
        for name in STORED_FIELDS:
            value = getattr(self, name)
            data[name] = [column.to_json() for column in value] if name == "columns" else _plain(value)
        data["outcome"] = self.outcome.to_json() if self.outcome else None
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any], options: dict[str, Any]) -> RobotsState:
        """Read back `to_json` (options already resolved); CorruptState if it is not such a state."""
        try:
            values = {name: data[name] for name in STORED_FIELDS}
            values["columns"] = [Column.from_json(column) for column in data["columns"]]
            values["options"] = options
            outcome = data["outcome"]
            state = cls(rng=Rng(int(data["rng"])), outcome=Result.from_json(outcome) if outcome else None, **values)
        except (KeyError, TypeError, ValueError) as error:
            raise CorruptState(f"not a Robots Love Ice Cream state: {error!r}") from error
        if not 1 <= state.players <= 4 or len(state.hands) != state.players:
            raise CorruptState("not a Robots Love Ice Cream state: the seats do not match the player count")
        return state


STORED_FIELDS = (
    *(name for name in RobotsState.__dataclass_fields__ if name not in ("rng", "outcome", "options", "columns")),
    "options",
    "columns",
)


def _plain(value: Any) -> Any:
    """A deep copy of nested lists (JSON-ready); a stored list holds only lists or only plain values."""
    if isinstance(value, list):
        return [_plain(item) for item in value] if value and isinstance(value[0], list) else list(value)
    if isinstance(value, dict):
        return dict(value)
    return value
