"""The games that ship with Parlour; importing this module registers them."""

from __future__ import annotations

import engine.freeze_factory
import engine.icecream
import engine.robots_love_ice_cream
import engine.rockem_sockem
import engine.sundae_split

__all__ = ["engine"]
