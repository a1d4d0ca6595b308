"""A Parlour GameState in the protocol of the `mcts` package (getPossibleActions, takeAction, ...).

The package's tree needs one chooser per node, while a Parlour state may let several seats act at
once: who moves at a node, and the PASS of a claim window, is the search's turn rule,
`ai.play.next_mover`. A seat whose actions are too many to list (a Sundae split) gets a fixed
number of distinct sampled actions per node, drawn from the node's own seeded `Rng`, so a search
is deterministic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ai.agent import sampled_actions
from ai.play import PASS, next_mover
from engine.protocol import action_text
from engine.rng import Rng

if TYPE_CHECKING:
    from engine.protocol import Action, GameState


class ParlourState:
    """One node's state for the `mcts` package; actions are canonical JSON strings."""

    def __init__(
        self,
        state: GameState,
        mover: int | None,
        perspective: int,
        rng: Rng,
        *,
        claiming: bool = False,
        last: int | None = None,
        passed: frozenset[int] = frozenset(),
        actions: list[Action] | None = None,
        split_samples: int = 8,
    ) -> None:
        self.state = state
        self.mover = mover
        self.perspective = perspective
        self.rng = rng
        self.claiming = claiming
        self.last = last
        self.passed = passed
        self.split_samples = split_samples
        self._actions: dict[str, Action] | None = None
        if actions is not None:
            self._actions = {action_text(action): action for action in actions}

    @classmethod
    def root(
        cls, state: GameState, seat: int, rng: Rng, actions: list[Action] | None = None, split_samples: int = 8
    ) -> ParlourState:
        """The root of a search for `seat`, which moves first (a claim if it is not waited for)."""
        claiming = seat not in state.waiting_for()
        return cls(state, seat, seat, rng, claiming=claiming, actions=actions, split_samples=split_samples)

    # --- the package's protocol -------------------------------------------------------------
    def getPossibleActions(self) -> list[str]:
        """The mover's actions (sampled if too many; with PASS in a claim window), fixed per node."""
        if self._actions is None:
            assert self.mover is not None
            actions = sampled_actions(self.state, self.mover, self.rng, self.split_samples)
            self._actions = {action_text(action): action for action in actions}
            if self.claiming:
                self._actions[PASS] = {}
        return list(self._actions)

    def takeAction(self, key: str) -> ParlourState:
        """The child node's state after the mover takes the action (clone + apply_trusted)."""
        assert self.mover is not None
        if key == PASS:
            passed = self.passed | {self.mover}
            mover, claiming = next_mover(self.state, self.last, passed)
            return self._child(self.state, mover, claiming, self.last, passed)
        child = self.state.clone()
        child.apply_trusted(self.mover, self.action(key))
        last = self.last if self.claiming else self.mover
        mover, claiming = next_mover(child, last, frozenset())
        return self._child(child, mover, claiming, last, frozenset())

    def isTerminal(self) -> bool:
        """True once the game is over."""
        return self.state.is_over()

    def getReward(self) -> float:
        """The package's single scalar: the reward of the searching seat only."""
        return self.state.rewards()[self.perspective]

    # --- what the per-seat searcher adds ----------------------------------------------------
    def action(self, key: str) -> Action:
        """The Parlour action behind one of this node's keys."""
        assert self._actions is not None, "getPossibleActions lists the keys first"
        return self._actions[key]

    def rewards(self) -> list[float]:
        """Every seat's reward (zeros while the game runs)."""
        return self.state.rewards()

    def rollout(self, rng: Rng, max_steps: int) -> list[float]:
        """Play random actions to the end (or `max_steps`) on a copy; every seat's reward."""
        state, mover, claiming, last, passed = self.state.clone(), self.mover, self.claiming, self.last, self.passed
        for _ in range(max_steps):
            if mover is None:
                break
            if claiming:
                claims = state.legal_actions(mover)
                pick = rng.below(len(claims) + 1)
                if pick == len(claims):
                    passed = passed | {mover}
                    mover, claiming = next_mover(state, last, passed)
                    continue
                action = claims[pick]
            else:
                action = state.sample_action(mover, rng)
            state.apply_trusted(mover, action)
            last = last if claiming else mover
            passed = frozenset()
            mover, claiming = next_mover(state, last, passed)
        return state.rewards()

    def _child(
        self, state: GameState, mover: int | None, claiming: bool, last: int | None, passed: frozenset[int]
    ) -> ParlourState:
        return ParlourState(
            state,
            mover,
            self.perspective,
            Rng(self.rng.next_u64()),
            claiming=claiming,
            last=last,
            passed=passed,
            split_samples=self.split_samples,
        )
