"""Errors the engine raises: each says why an action, option or state was refused."""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""

    code = "engine-error"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InvalidOptions(EngineError, ValueError):
    """The player count or a game option is not one the game allows."""

    code = "invalid-options"

    def __init__(self, reason: str, field: str = "options") -> None:
        super().__init__(reason)
        self.field = field


class ActionRejected(EngineError, ValueError):
    """Base class of the reasons a checked action is refused."""

    code = "illegal-action"


class IllegalAction(ActionRejected):
    """The action breaks a rule of the game; `reason` names the rule."""

    code = "illegal-action"


class NotYourTurn(ActionRejected):
    """The seat may not act in the current state."""

    code = "not-your-turn"


class MatchOver(ActionRejected):
    """The game has ended; no action applies any more."""

    code = "match-over"


class CorruptState(EngineError, ValueError):
    """A serialised state could not be read back."""

    code = "corrupt-state"


class ViewMismatch(EngineError, ValueError):
    """A seat's view that no state of the game, player count and options could show (malformed or inconsistent)."""

    code = "view-mismatch"
