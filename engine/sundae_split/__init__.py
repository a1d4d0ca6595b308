"""Sundae Split: split-and-choose ice cream sundaes for 2 to 5 players."""

from __future__ import annotations

from engine.registry import register
from engine.sundae_split.game import SundaeSplit, SundaeSplitState

GAME = register(SundaeSplit())

__all__ = ["GAME", "SundaeSplit", "SundaeSplitState"]
