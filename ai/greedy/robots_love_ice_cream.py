"""Robots Love Ice Cream, one rule-based step: the team policy of ai/knowledge/robots_love_ice_cream.py.

Keep the cards that grow the largest matching group, attack when the kill is worth its cards (a
Spinston's token first), use Boosts when they save a token or a card, refill a short hand, buy the
Boosts worth their price and equip the best upgrades.
"""

from __future__ import annotations

from ai.knowledge.robots_love_ice_cream import policy_action
from engine.protocol import Action
from engine.rng import Rng
from engine.robots_love_ice_cream.state import RobotsState


def choose(world: RobotsState, seat: int, rng: Rng) -> Action:
    """The team policy's action on the determinized world (the rng is not needed: the policy is deterministic)."""
    return policy_action(world, seat)
