"""The PettingZoo AEC environment every game shares: one agent chooses one token at a time."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from engine.protocol import View
from parlour_envs.encoding import PASS, Choice, Tensor
from parlour_envs.table import Table, agent_name

__all__ = ["ObsDict", "ParlourEnv", "agent_name", "make_env"]

ObsDict = dict[str, Any]
MASKS_KEPT = 4096
"""Action masks kept for reuse, by the tokens they offer (observations hand out copies)."""


class ParlourEnv(Table, AECEnv[str, ObsDict, int]):
    """A Parlour game as an AEC environment; `encoding_type` makes it one game.

    Each step is one token of the agent in `agent_selection`; when its tokens complete a legal engine action the
    action is played, and otherwise the same agent chooses again. Rewards come from the game's result when it ends
    (every seat's, `Result.rewards`: +1 first, -1 last, ties share; a co-operative team's shared); an episode that
    reaches `max_actions` engine actions is truncated. `infos[agent]["view"]` is the seat's view as JSON.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "parlour", "is_parallelizable": False}

    def __init__(
        self, players: int | None = None, render_mode: str | None = None, max_actions: int | None = None, **options: Any
    ) -> None:
        super().__init__()
        self.set_table(players, render_mode, max_actions, options)
        self._masks: dict[tuple[int, ...], npt.NDArray[np.int8]] = {}

    # --- the episode ------------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game; the same `seed` gives the same episode for the same choices."""
        self.seed_ = secrets.randbits(63) if seed is None else seed
        self.state_ = self.encoding.game.new_state(self.players, self.options, self.seed_)
        self.actions_played = 0
        self.chosen: tuple[int, ...] = ()
        self.passed: frozenset[int] = frozenset()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._rewarded = False
        self._next_decision()

    def step(self, action: int) -> None:
        """The selected agent chooses one token."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._state()
        seat = self.seat_of[agent]
        offered = self._offered
        token = int(action)
        if token not in offered:
            raise ValueError(f"token {token} is not among {agent}'s choices now: {sorted(offered)}")
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._rewarded = False
        choice = offered[token]
        if choice is None:
            self.chosen = (*self.chosen, token)
            self._decide(seat)
        elif choice is PASS:
            self.passed = self.passed | {seat}
            self.chosen = ()
            self._next_decision()
        else:
            state.apply_trusted(seat, choice)  # type: ignore[arg-type]
            self.actions_played += 1
            self.passed = frozenset()
            self.chosen = ()
            if state.is_over():
                self.rewards = dict(zip(self.agents, state.rewards(), strict=True))
                self._rewarded = True
                self.terminations = dict.fromkeys(self.agents, True)
            elif self.actions_played >= self.max_actions:
                self.truncations = dict.fromkeys(self.agents, True)
            self._next_decision()
        self._accumulate_rewards()

    def observe(self, agent: str) -> ObsDict:
        """The agent's observation: its tensor and its action mask (all zeros unless it is choosing now)."""
        seat = self.seat_of[agent]
        choosing = agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent])
        blank = self._bodies.get(seat)
        if blank is None:  # once per seat and engine action: the tokens of a decision change only `chosen`
            blank = self._bodies[seat] = np.zeros(self.encoding.observation_size, dtype=np.float32)
            blank[: self.encoding.body_size] = self.encoding.observe(self._view(seat), seat)
        tensor: Tensor = blank.copy()
        if choosing:
            for token in self.chosen:
                tensor[self.encoding.body_size + token] += 1.0
            mask = self._mask.copy()
        else:
            mask = np.zeros(self.encoding.num_actions, dtype=np.int8)
        return {"observation": tensor, "action_mask": mask}

    # --- helpers ----------------------------------------------------------------------------------------------
    def _view(self, seat: int) -> View:
        view = self._views.get(seat)
        if view is None:
            view = self._views[seat] = self._state().view(seat)
        return view

    def _next_decision(self) -> None:
        """Pick the next agent (after an action or a pass), or keep the last one selected once the game is done."""
        state = self._state()
        self._views: dict[int, View] = {}
        self._bodies: dict[int, Tensor] = {}
        self.infos = SeatInfos(self)
        if self.terminations[self.agents[0]] or self.truncations[self.agents[0]]:
            self._offered: dict[int, Choice] = {}
            self._mask = np.zeros(self.encoding.num_actions, dtype=np.int8)
            self.agent_selection = getattr(self, "agent_selection", self.agents[0])
            return
        seat = self.encoding.next_seat(state, self.passed)
        if seat is None:
            raise RuntimeError(f"no seat can act in a running {self.encoding.game.info.name} game")
        self._decide(seat)

    def _decide(self, seat: int) -> None:
        self.agent_selection = self.possible_agents[seat]
        self._offered = self.encoding.choices(self._state(), seat, self.chosen)
        offered = tuple(self._offered)
        mask = self._masks.get(offered)
        if mask is None:  # the same few sets of tokens come back decision after decision
            if len(self._masks) >= MASKS_KEPT:
                self._masks.clear()
            mask = self._masks[offered] = np.zeros(self.encoding.num_actions, dtype=np.int8)
            mask[list(offered)] = 1
        self._mask = mask
        if not self._offered:
            raise RuntimeError(f"seat {seat} has no choice after tokens {self.chosen}")


class SeatInfos(dict[str, dict[str, Any]]):
    """`infos`: each agent's `{"view": ...}`, its view computed when the agent's info is first read.

    A view can cost more than the engine action before it, and most steps read only the acting agent's, so the
    others are not computed unless read. Every way of reading a value (indexing, `get`, `values`, `items`,
    iteration by `dict(...)` or `json.dumps`) fills it first; once read it stays, as the view of that moment. An
    agent's info first read after the next engine action (through an `infos` kept from before) has no view.
    """

    def __init__(self, env: ParlourEnv) -> None:
        super().__init__({agent: {} for agent in env.agents})
        self.env = env
        self.views = env._views

    def __getitem__(self, agent: str) -> dict[str, Any]:
        info = super().__getitem__(agent)
        if "view" not in info and self.views is self.env._views:
            info["view"] = self.env._view(self.env.seat_of[agent])
        return info

    def get(self, agent: str, default: Any = None) -> Any:
        return self[agent] if agent in self else default  # noqa: SIM401 (dict.get would skip __getitem__)

    def values(self) -> Any:
        return [self[agent] for agent in self]

    def items(self) -> Any:
        return [(agent, self[agent]) for agent in self]

    def __iter__(self) -> Iterator[str]:  # a dict subclass with its own __iter__ is copied through __getitem__
        return super().__iter__()

    def copy(self) -> dict[str, dict[str, Any]]:
        return dict(self.items())

    def __repr__(self) -> str:
        return repr(dict(self.items()))


def make_env(env_type: type[ParlourEnv], **kwargs: Any) -> AECEnv[str, ObsDict, int]:
    """A game's `env()`: the raw environment wrapped as PettingZoo's classic environments are."""
    env: AECEnv[str, ObsDict, int] = env_type(**kwargs)
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)
