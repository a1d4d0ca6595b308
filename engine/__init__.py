"""Parlour's rules engines: pure Python, no I/O."""

from __future__ import annotations

from engine.errors import (
    ActionRejected,
    CorruptState,
    EngineError,
    IllegalAction,
    InvalidOptions,
    MatchOver,
    NotYourTurn,
    ViewMismatch,
)
from engine.info import Assumption, GameInfo
from engine.options import OptionSet, OptionSpec
from engine.protocol import Action, Game, GameState, TooManyActions, View, action_text, has_action
from engine.registry import all_games, get_game
from engine.result import Result
from engine.rng import Rng

__all__ = [
    "Action",
    "ActionRejected",
    "Assumption",
    "CorruptState",
    "EngineError",
    "Game",
    "GameInfo",
    "GameState",
    "IllegalAction",
    "InvalidOptions",
    "MatchOver",
    "NotYourTurn",
    "OptionSet",
    "OptionSpec",
    "Result",
    "Rng",
    "TooManyActions",
    "View",
    "ViewMismatch",
    "action_text",
    "all_games",
    "get_game",
    "has_action",
]
