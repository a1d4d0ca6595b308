"""Computer players: an agent interface, a random agent and a determinized per-seat MCTS."""

from __future__ import annotations

from ai.agent import Agent
from ai.random_agent import RandomAgent
from ai.search import MctsAgent

__all__ = ["Agent", "MctsAgent", "RandomAgent"]
