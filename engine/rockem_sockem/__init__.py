"""Rock'em Sock'em Robots Dice Game: a two-player simultaneous dice race to a knock-out."""

from __future__ import annotations

from engine.rockem_sockem.game import RockemSockem, RockemSockemState

GAME = RockemSockem()

__all__ = ["GAME", "RockemSockem", "RockemSockemState"]
