"""Computer players: an agent interface, a random agent, information-set MCTS (the levels), the package-based MCTS."""

from __future__ import annotations

from ai.agent import Agent
from ai.ismcts import IsmctsAgent
from ai.random_agent import RandomAgent
from ai.search import MctsAgent

__all__ = ["Agent", "IsmctsAgent", "MctsAgent", "RandomAgent"]
