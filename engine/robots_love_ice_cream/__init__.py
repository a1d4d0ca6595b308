"""Robots Love Ice Cream: the co-operative card game for 1 to 4 players, with Solo Play and Challenge Variants A-F."""

from __future__ import annotations

from engine.robots_love_ice_cream.game import RobotsLoveIceCream
from engine.robots_love_ice_cream.state import RobotsState

GAME = RobotsLoveIceCream()

__all__ = ["GAME", "RobotsLoveIceCream", "RobotsState"]
