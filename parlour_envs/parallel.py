"""The PettingZoo parallel environment for games whose seats act at once (Rock'em Sock'em's race).

Every live agent submits one token each step. A seat that may act now (in `acting_seats`, offered some token)
chooses among the tokens `Encoding.choices` offers it (a PASS among them does nothing); every other seat is
offered the encoding's NO-OP token alone, and its NO-OP is ignored. The actions of the seats that acted are
applied through the engine one after another, in the order `order` gives (seat order unless a game says
otherwise); the engine resolves what simultaneity means (Rock'em's rounds mode rolls both seats once both have
answered). An action that the earlier ones of the same step made illegal is void (in Rock'em's realtime mode: a
roll that arrives after the other seat's roll grabbed the coin). No seat sees another's choice before it has
chosen, since every observation is taken before the step or after all of it.

A token outside an agent's mask ends the episode as PettingZoo's `TerminateIllegalWrapper` does for `env()`:
that agent is rewarded `ILLEGAL_REWARD` (-1), the others 0, every agent is terminated, and its info says why
(`infos[agent]["illegal"]`). A live agent left out of the actions plays its NO-OP if that is all it may do.

Rewards are the game's (`state.rewards()`) on the step it ends. The episode is truncated after the step in which
the engine actions played reach `max_actions` (a step plays up to one per seat, so it may end a few beyond).
Observations are `{"observation": Box, "action_mask": int8 Box}` as in the AEC environment (the mask all zeros
once the episode is over), and `infos[agent]["view"]` is the seat's view after the step.

Every action must be one token (`Encoding.max_tokens() == 1`): a game whose actions take several tokens would
have its seats finish them at different steps, which this environment does not arrange.
"""

from __future__ import annotations

import secrets
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from pettingzoo import ParallelEnv

from engine.protocol import Action, GameState
from parlour_envs.aec import ObsDict
from parlour_envs.encoding import PASS, Choice, observation
from parlour_envs.table import Table

NOOP_NAME = "no-op"
"""The token name an encoding gives the NO-OP a seat that may not act is offered."""
ILLEGAL_REWARD = -1.0


class ParlourParallelEnv(Table, ParallelEnv[str, ObsDict, int]):
    """A Parlour game as a parallel environment; `encoding_type` makes it one game (module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "parlour_parallel",
        "is_parallelizable": True,
    }

    def __init__(
        self, players: int | None = None, render_mode: str | None = None, max_actions: int | None = None, **options: Any
    ) -> None:
        self.set_table(players, render_mode, max_actions, options)
        if self.encoding.max_tokens() != 1:
            raise NotImplementedError(
                f"{type(self.encoding).__name__}: the parallel environment takes one-token actions"
            )
        if NOOP_NAME not in self.encoding.token_names:
            raise ValueError(f"{type(self.encoding).__name__} has no {NOOP_NAME!r} token for seats that may not act")
        self.noop = self.encoding.token_names.index(NOOP_NAME)
        self.agents: list[str] = []
        self.offered: list[dict[int, Choice]] = []
        self._masks: dict[tuple[int, ...], npt.NDArray[np.int8]] = {}

    # --- the episode ------------------------------------------------------------------------------------------
    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, ObsDict], dict[str, dict[str, Any]]]:
        """Deal a new game; the same `seed` gives the same episode for the same actions."""
        self.seed_ = secrets.randbits(63) if seed is None else seed
        self.state_ = self.encoding.game.new_state(self.players, self.options, self.seed_)
        self.actions_played = 0
        self.agents = self.possible_agents[:]
        self._offer()
        return self._observations(), self.infos

    def step(
        self, actions: dict[str, int]
    ) -> tuple[dict[str, ObsDict], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        """Every live agent's token at once: the acting seats' actions are applied, the others' NO-OPs ignored."""
        state = self._state()
        if not self.agents:
            raise RuntimeError("the episode is over: call reset()")
        agents = self.agents
        rewards = dict.fromkeys(agents, 0.0)
        chosen: list[tuple[int, int, Action]] = []
        for seat, agent in enumerate(self.possible_agents):
            offered = self.offered[seat]
            token = actions.get(agent, self.noop if self.noop in offered else None)
            if token is None:
                raise ValueError(f"{agent} may act this step: give it a token among {sorted(offered)}")
            token = int(token)
            if token not in offered:
                return self._illegal(agent, token)
            choice = offered[token]
            if choice is None:
                raise RuntimeError(
                    f"token {token} does not complete an action: the parallel env takes one-token actions"
                )
            if choice is not PASS:
                chosen.append((seat, token, choice))  # type: ignore[arg-type]
        for position, (seat, token, action) in enumerate(self.order(state, chosen)):
            if position and self.encoding.choices(state, seat, ()).get(token) != action:
                continue  # the actions before it this step made it void
            state.apply_trusted(seat, action)
            self.actions_played += 1
            if state.is_over():
                break
        over, truncated = state.is_over(), self.actions_played >= self.max_actions
        if over:
            rewards = dict(zip(agents, state.rewards(), strict=True))
        terminations = dict.fromkeys(agents, over)
        truncations = dict.fromkeys(agents, truncated and not over)
        self._offer()
        observations = self._observations(agents)
        if over or truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, self.infos

    def order(self, state: GameState, chosen: list[tuple[int, int, Action]]) -> list[tuple[int, int, Action]]:
        """The order a step's (seat, token, action)s are applied in: seat order, unless a game overrides it."""
        return chosen

    # --- helpers ----------------------------------------------------------------------------------------------
    def _offer(self) -> None:
        """Every seat's choices for the next step (the NO-OP alone for a seat that may not act) and its view."""
        state = self._state()
        self.infos: dict[str, dict[str, Any]] = {
            agent: {"view": state.view(seat)} for seat, agent in enumerate(self.possible_agents)
        }
        running = not state.is_over() and self.actions_played < self.max_actions
        acting = state.acting_seats() if running else ()
        noop: dict[int, Choice] = {self.noop: PASS}
        self.offered = [
            (self.encoding.choices(state, seat, ()) or noop) if seat in acting else noop for seat in range(self.players)
        ]
        if running and all(offered is noop for offered in self.offered):
            raise RuntimeError(f"no seat can act in a running {self.encoding.game.info.name} game")

    def _observations(self, agents: list[str] | None = None) -> dict[str, ObsDict]:
        """Each live agent's tensor and mask (all zeros once the episode is over)."""
        running = bool(self.agents) and not (self._state().is_over() or self.actions_played >= self.max_actions)
        observed: dict[str, ObsDict] = {}
        for agent in self.agents if agents is None else agents:
            seat = self.possible_agents.index(agent)
            mask = self._mask(tuple(self.offered[seat]) if running else ())
            tensor = observation(self.encoding, self.infos[agent]["view"], seat, ())
            observed[agent] = {"observation": tensor, "action_mask": mask}
        return observed

    def _mask(self, tokens: tuple[int, ...]) -> npt.NDArray[np.int8]:
        """A fresh mask of these tokens, copied from one built the first time they were offered together."""
        mask = self._masks.get(tokens)
        if mask is None:
            mask = self._masks[tokens] = np.zeros(self.encoding.num_actions, dtype=np.int8)
            mask[list(tokens)] = 1
        return mask.copy()

    def _illegal(
        self, agent: str, token: int
    ) -> tuple[dict[str, ObsDict], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        """End the episode: the agent chose a token outside its mask (as `TerminateIllegalWrapper` does)."""
        agents = self.agents
        self.infos[agent]["illegal"] = (
            f"token {token} is not among {sorted(self.offered[self.possible_agents.index(agent)])}"
        )
        rewards = dict.fromkeys(agents, 0.0)
        rewards[agent] = ILLEGAL_REWARD
        self.offered = [{} for _ in range(self.players)]
        observations = self._observations(agents)
        self.agents = []
        return observations, rewards, dict.fromkeys(agents, True), dict.fromkeys(agents, False), self.infos
