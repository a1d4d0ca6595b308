"""Sundae Split needs no knowledge: a match is a fixed number of splits, so random playouts end and score truly.

The default candidates serve: a chooser's piles, or a fixed sample of the Splitter's splits (too many to list).
"""

from __future__ import annotations

from ai.knowledge import Knowledge

KNOWLEDGE = Knowledge()
"""What the search knows of the game (found by `ai.knowledge.knowledge_for`): nothing beyond its rules."""
