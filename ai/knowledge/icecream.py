"""IceCream needs no knowledge: the default search serves, with every legal move (a few a turn) a candidate.

Random playouts are cut off after `PLAYOUT_LIMIT` actions, since without `turn_limit` scoops may go back
and forth for ever; the `perfect` level plays the game from its exact solution instead (ai/perfect.py).
"""

from __future__ import annotations

from ai.knowledge import Knowledge

KNOWLEDGE = Knowledge()
"""What the search knows of the game (found by `ai.knowledge.knowledge_for`): nothing beyond its rules."""
