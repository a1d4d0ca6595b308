"""Freeze Factory: slide flavour tiles, fulfil cone orders, call FREEZE! out of turn; 2 to 4 players."""

from __future__ import annotations

from engine.freeze_factory.game import FreezeFactory, FreezeFactoryState

GAME = FreezeFactory()

__all__ = ["GAME", "FreezeFactory", "FreezeFactoryState"]
