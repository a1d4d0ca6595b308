"""IceCream (Jake Eakle, 2005): two cones of scoops, growing movement points, stack your flavour."""

from __future__ import annotations

from engine.icecream.game import IceCream, IceCreamState

GAME = IceCream()

__all__ = ["GAME", "IceCream", "IceCreamState"]
