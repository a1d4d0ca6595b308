"""Every game Parlour serves, in catalog order: the one registry a new game is added to.

A game's id is the name of its package, `engine/<id>/`, whose `GAME` is listed here. Everything
else about a game is found from that id: the AI's `ai/knowledge/<id>.py` and `ai/greedy/<id>.py`,
the web client's `web/games/<id>.js`, the `GameMatch` discriminator mapping in openapi.yaml, and its
tests. docs/how-to/add-a-game.md lists every file; tests/test_game_parts.py names what a game lacks.
"""

from __future__ import annotations

from engine import freeze_factory, icecream, robots_love_ice_cream, rockem_sockem, sundae_split
from engine.protocol import Game

GAMES: tuple[Game, ...] = (
    icecream.GAME,
    rockem_sockem.GAME,
    freeze_factory.GAME,
    robots_love_ice_cream.GAME,
    sundae_split.GAME,
)

__all__ = ["GAMES"]
