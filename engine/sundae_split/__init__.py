"""Sundae Split: split-and-choose ice cream sundaes for 2 to 5 players."""

from __future__ import annotations

from engine.sundae_split.game import SundaeSplit, SundaeSplitState

GAME = SundaeSplit()

__all__ = ["GAME", "SundaeSplit", "SundaeSplitState"]
