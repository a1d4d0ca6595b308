"""Monte Carlo tree search on the `mcts` package, with statistics per seat and determinization.

The package (1.0.4) backs up one scalar reward and maximizes it at every node, as if every seat
played for the searching seat. `PerSeatMCTS` keeps a reward vector per node (every seat's
`rewards()`, co-operative games included) and picks each child for the seat that moves at the
parent; ties and rollouts draw from a seeded `Rng`, so a search is a function of its seed.

Hidden information: `MctsAgent` searches several determinizations, `state.determinize(seat, rng)`,
each with a share of the budget, and adds up the visits of every root action (a registered game
of perfect information without chance gets one tree and the whole budget). The root actions
are the seat's own legal actions (sampled once for a huge space), the same in every sample.

The levels play `ai.ismcts.IsmctsAgent` instead: a package node holds one state, so each tree
here plans with one deal and one future of the dice (see that module). This searcher stays as
the package-based baseline (`python -m lab.ai_strength --opponent determinized`, `python -m lab.ai_speed`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcts  # type: ignore[import-untyped]

from ai.agent import sampled_actions
from ai.baseline.adapter import ParlourState
from engine.protocol import action_text
from engine.registry import get_game
from engine.rng import Rng

if TYPE_CHECKING:
    from collections.abc import Callable

    from engine.protocol import Action, GameState

EXPLORATION = 1 / math.sqrt(2)
MAX_ROLLOUT_STEPS = 2000
"""A playout cut off here scores zeros (random Freeze Factory games without a turn limit run ~3000 steps)."""


class PerSeatMCTS(mcts.mcts):  # type: ignore[misc]
    """The package's searcher with one reward per seat and the child chosen by the parent's mover."""

    def __init__(
        self, iterations: int, rng: Rng, exploration: float = EXPLORATION, max_rollout_steps: int = MAX_ROLLOUT_STEPS
    ) -> None:
        super().__init__(iterationLimit=iterations, explorationConstant=exploration)
        self.rng = rng
        self.max_rollout_steps = max_rollout_steps

    def search(self, initialState: Any, deadline: float | None = None, stop: Callable[[], bool] | None = None) -> Any:
        """Run the iterations, ending early at `deadline` (a `time.perf_counter()` value) or when `stop()` holds."""
        self.root = mcts.treeNode(initialState, None)
        for done in range(self.searchLimit):
            if done and ((deadline is not None and time.perf_counter() >= deadline) or (stop is not None and stop())):
                break
            self.executeRound()
        return self.getAction(self.root, self.getBestChild(self.root, 0))

    def executeRound(self) -> None:
        """Select and expand, play out at random, back up every seat's reward."""
        node = self.selectNode(self.root)
        self.backpropogate(node, node.state.rollout(self.rng, self.max_rollout_steps))

    def backpropogate(self, node: Any, reward: list[float]) -> None:
        """Add the reward vector to every node up to the root."""
        while node is not None:
            node.numVisits += 1
            if node.numVisits == 1:
                node.totalReward = list(reward)
            else:
                node.totalReward = [total + r for total, r in zip(node.totalReward, reward, strict=True)]
            node = node.parent

    def getBestChild(self, node: Any, explorationValue: float) -> Any:
        """UCT for the seat that moves at `node`; ties broken with the searcher's `Rng`."""
        seat = node.state.mover
        best_value, best = -math.inf, []
        for child in node.children.values():
            value = child.totalReward[seat] / child.numVisits + explorationValue * math.sqrt(
                2 * math.log(node.numVisits) / child.numVisits
            )
            if value > best_value:
                best_value, best = value, [child]
            elif value == best_value:
                best.append(child)
        return self.rng.choice(best)


def package_search(state: GameState, seat: int, iterations: int) -> Action:
    """The unmodified package searcher on one state (a baseline; it uses the global `random`)."""
    root = ParlourState.root(state, seat, Rng(0))
    searcher = mcts.mcts(iterationLimit=iterations)
    return root.action(searcher.search(root))


def needs_sampling(state: GameState) -> bool:
    """False for a registered game of perfect information without chance: one tree sees it all."""
    game = get_game(state.game_id)
    return game is None or game.info.information == "imperfect" or game.info.chance


@dataclass(frozen=True)
class MctsAgent:
    """Determinized per-seat MCTS: `budget` iterations shared by up to `determinizations` samples."""

    determinizations: int = 4
    split_samples: int = 8
    exploration: float = EXPLORATION
    max_rollout_steps: int = MAX_ROLLOUT_STEPS

    def choose(
        self,
        state: GameState,
        seat: int,
        budget: int,
        seed: int | str,
        time_cap: float | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> Action:
        """The root action with the most visits over every determinization (ties: best mean, then first)."""
        deadline = None if time_cap is None else time.perf_counter() + time_cap
        rng = Rng.from_seed(f"mcts-agent:{seed}")
        runs = max(1, min(self.determinizations if needs_sampling(state) else 1, budget))
        candidates: list[Action] = []
        visits: dict[str, int] = {}
        totals: dict[str, float] = {}
        for run in range(runs):
            world = state.determinize(seat, rng)
            if run == 0:
                candidates = sampled_actions(world, seat, rng, self.split_samples)
                if not candidates:
                    raise ValueError(f"seat {seat} has no legal action")
                if len(candidates) == 1:
                    return candidates[0]
            iterations = max(1, budget // runs + (run < budget % runs))
            root = ParlourState.root(world, seat, Rng(rng.next_u64()), candidates, self.split_samples)
            searcher = PerSeatMCTS(iterations, Rng(rng.next_u64()), self.exploration, self.max_rollout_steps)
            searcher.search(root, deadline, stop)
            for key, child in searcher.root.children.items():
                visits[key] = visits.get(key, 0) + child.numVisits
                totals[key] = totals.get(key, 0.0) + child.totalReward[seat]

        def score(action: Action) -> tuple[int, float]:
            key = action_text(action)
            return visits.get(key, 0), totals.get(key, 0.0) / max(1, visits.get(key, 0))

        return max(candidates, key=score)
