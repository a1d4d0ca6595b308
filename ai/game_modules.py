"""A game's own module in an AI package (`ai/knowledge/<game id>.py`, `ai/greedy/<game id>.py`), found by its id.

Nothing lists these modules: a game has one when the file exists, and tests/test_game_parts.py names
a registered game that has none.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from types import ModuleType


@functools.cache
def game_module(package: str, game_id: str) -> ModuleType | None:
    """The module `<package>.<game_id>`, imported; None when the package has none for the game."""
    if not game_id.isidentifier():
        return None
    name = f"{package}.{game_id}"
    if importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)
