"""Computer players: the agent interface, a random agent, information-set MCTS (the levels), and in `ai.baseline`
the package-based MCTS the benchmarks measure it against."""

from __future__ import annotations

from ai.agent import Agent
from ai.ismcts import IsmctsAgent
from ai.random_agent import RandomAgent

__all__ = ["Agent", "IsmctsAgent", "RandomAgent"]
