"""One seat learns, Parlour's AI levels play the others: any game's AEC environment as a Gymnasium `Env`.

```python
from parlour_envs.single_agent import Opponent, SingleAgentEnv
env = SingleAgentEnv("icecream", opponents=Opponent("easy", budget=20), turn_limit=10)
observation, info = env.reset(seed=7)
observation, reward, terminated, truncated, info = env.step(token)
```

The learning seat sees what its agent sees in the AEC environment: the `{"observation", "action_mask"}` dict, and
it picks one token per step. Between two of its choices every other seat plays: its level chooses a whole engine
action on the engine state (as the server's AI seats do, `ai.levels`; each agent reasons on `determinize`d
copies, never on what its seat cannot see), and the environment plays that action's tokens (`Encoding.encode`).
A seat with nothing to do but let a FREEZE! window go by passes. The reward is the learning seat's reward from
the game's result (0 until the end); the co-operative game's other seats are AI teammates.

Seeding: `reset(seed=s)` deals the engine with `s`, and every AI move is seeded from it (`ai.play.ai_seed`, as on
the server), so the same seed and the same tokens give the same episode, as long as no opponent has a time cap
(a capped search stops wherever the machine's speed leaves it). `reset()` without a seed draws one from the
environment's generator, so a run of episodes after one seeded reset reproduces too.

A token outside the mask ends the episode (`terminated`, reward `illegal_reward`, `info["illegal_action"]`), as
PettingZoo's classic environments do; mask the policy's logits to avoid it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from ai.levels import Level, level_move, level_named, levels_for
from ai.play import ai_seed
from engine.protocol import View, has_action
from parlour_envs import environment
from parlour_envs.aec import ObsDict, ParlourEnv, agent_name
from parlour_envs.encoding import PASS

SEED_BOUND = 2**63
"""Episode seeds drawn by `reset()` without a seed are below this."""


@dataclass(frozen=True)
class Opponent:
    """How an AI seat plays: a level of `ai.levels`, its budget per move (None: the level's own) and a time cap.

    `time_cap` (seconds a move may search) is off by default, so that a seed reproduces an episode; the levels'
    own caps are for the server's players, not for training.
    """

    level: str = "random"
    budget: int | None = None
    time_cap: float | None = None

    def resolved(self, game_id: str) -> Level:
        """The level this opponent plays at, checked against the game's offered levels."""
        level = level_named(self.level)
        if self.level not in levels_for(game_id):
            raise ValueError(
                f"level {self.level!r} is not offered for {game_id}; levels: {', '.join(levels_for(game_id))}"
            )
        if self.budget is not None and self.budget < 1:
            raise ValueError(f"an opponent's budget is at least 1 (got {self.budget})")
        return replace(level, budget=level.budget if self.budget is None else self.budget, time_cap=self.time_cap)


OpponentSpec = str | Opponent
"""A level's name (its own budget, no time cap) or an `Opponent`."""


class SingleAgentEnv(gymnasium.Env[ObsDict, np.int64]):
    """A Parlour game for one learning seat, the other seats played by AI levels in this process.

    `game`: a game id (its environment is built with `env_kwargs`: `players`, `max_actions` and the game's
    options), or an AEC environment of `parlour_envs` (wrapped or raw). `seat`: the learning seat, or None to draw
    it per episode. `opponents`: one spec for every other seat, or a spec per seat (every seat that may be an
    opponent).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012 (Gymnasium's instance variable)

    def __init__(
        self,
        game: str | AECEnv[str, ObsDict, int],
        *,
        seat: int | None = 0,
        opponents: OpponentSpec | Mapping[int, OpponentSpec] = "random",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        **env_kwargs: Any,
    ) -> None:
        if isinstance(game, str):
            self.env: ParlourEnv = environment(game).raw_env(render_mode=render_mode, **env_kwargs)
        else:
            if env_kwargs or render_mode is not None:
                raise ValueError("give players, options and render_mode to the environment itself, not here")
            unwrapped = game.unwrapped
            if not isinstance(unwrapped, ParlourEnv):
                raise TypeError(f"not a Parlour environment: {type(unwrapped).__name__}")
            self.env = unwrapped
        self.game_id = self.env.encoding.game.info.id
        self.players = self.env.players
        if seat is not None and not 0 <= seat < self.players:
            raise ValueError(f"there is no seat {seat} among {self.players} players")
        self.fixed_seat = seat
        self.levels = self._levels(opponents, seat)
        self.illegal_reward = float(illegal_reward)
        self.render_mode = self.env.render_mode
        self.metadata = {**type(self).metadata, "name": f"{self.env.metadata['name']}_single_agent"}
        first = self.env.possible_agents[0]
        self.observation_space: spaces.Space[ObsDict] = self.env.observation_space(first)
        self.action_space: spaces.Space[np.int64] = self.env.action_space(first)
        self.seat = 0 if seat is None else seat
        self.episode_seed = 0
        self._done = True

    def _levels(self, opponents: OpponentSpec | Mapping[int, OpponentSpec], seat: int | None) -> dict[int, Level]:
        """Each seat's level (the learning seat's too when it is drawn per episode)."""
        seats = range(self.players)
        if isinstance(opponents, Mapping):
            specs = dict(opponents)
            needed = [other for other in seats if other != seat]
            missing = [other for other in needed if other not in specs]
            if missing:
                raise ValueError(f"no opponent given for seat(s) {missing}")
            unknown = sorted(set(specs) - set(seats))
            if unknown:
                raise ValueError(f"there is no seat {unknown[0]} among {self.players} players")
        else:
            specs = dict.fromkeys(seats, opponents)
        return {
            other: (Opponent(spec) if isinstance(spec, str) else spec).resolved(self.game_id)
            for other, spec in specs.items()
            if other != seat
        }

    # --- the episode ------------------------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        """Deal a game (seeded by `seed`, else by a seed drawn from the environment's generator) and let the AI seats
        play until the learning seat chooses."""
        super().reset(seed=seed)
        self.episode_seed = int(self.np_random.integers(SEED_BOUND)) if seed is None else seed
        self.seat = int(self.np_random.integers(self.players)) if self.fixed_seat is None else self.fixed_seat
        self.agent = agent_name(self.seat)
        self.env.reset(seed=self.episode_seed)
        self._done = False
        self._pending = self._play_others()
        return self._observe(), self._info()

    def step(self, action: np.int64 | int) -> tuple[ObsDict, SupportsFloat, bool, bool, dict[str, Any]]:
        """The learning seat chooses one token; then the AI seats play until it chooses again or the game ends."""
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        reward = self._pending
        if not self._over():
            token = int(action)
            if not (0 <= token < len(self._mask) and self._mask[token]):
                self._done = True
                info = {**self._info(), "illegal_action": True}
                return self._observe(), self.illegal_reward, True, False, info
            self.env.step(token)
            reward += self.env.rewards[self.agent]
            reward += self._play_others()
        terminated, truncated = self.env.terminations[self.agent], self.env.truncations[self.agent]
        self._done = terminated or truncated
        return self._observe(), reward, terminated, truncated, self._info()

    def render(self) -> str | None:
        """The public view as text (`render_mode="ansi"`)."""
        return self.env.render()

    def close(self) -> None:
        """Nothing to release."""
        self.env.close()

    # --- the other seats --------------------------------------------------------------------------------------
    def _play_others(self) -> float:
        """Play every AI seat's choices until the learning seat chooses or the episode ends; its reward meanwhile."""
        env = self.env
        reward = 0.0
        while not self._over() and env.agent_selection != self.agent:
            seat = env.possible_agents.index(env.agent_selection)
            for token in self._ai_tokens(seat):
                env.step(token)
                reward += env.rewards[self.agent]
        return reward

    def _ai_tokens(self, seat: int) -> tuple[int, ...]:
        """The tokens of the AI seat's next move: its level's engine action, or PASS when it has none to take."""
        state = self.env.state_
        assert state is not None, "reset() deals the state"
        if not has_action(state, seat):  # a FREEZE! window offered to a seat that cannot claim
            offered = self.env.encoding.choices(state, seat, ())
            return (next(token for token, choice in offered.items() if choice is PASS),)
        level = self.levels[seat]
        seed = ai_seed(str(self.episode_seed), seat, self.env.actions_played, level.name)
        action = level_move(level, state, seat, seed)
        return self.env.encoding.encode(state, seat, action)

    # --- helpers ----------------------------------------------------------------------------------------------
    def _over(self) -> bool:
        return bool(self.env.terminations[self.agent] or self.env.truncations[self.agent])

    def _observe(self) -> ObsDict:
        """The learning seat's observation; its mask is kept to check the next token against."""
        observation = self.env.observe(self.agent)
        self._mask: npt.NDArray[np.int8] = observation["action_mask"].copy()
        return observation

    def _info(self) -> dict[str, Any]:
        """The learning seat, the episode's seed and the seat's view (a copy: every answer holds its own)."""
        view: View = self.env.infos[self.agent]["view"]
        return {"seat": self.seat, "episode_seed": self.episode_seed, "view": copied(view)}


def copied(value: Any) -> Any:
    """A copy of a JSON value (dicts and lists copied, scalars shared)."""
    if isinstance(value, dict):
        return {key: copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copied(item) for item in value]
    if isinstance(value, tuple):
        return tuple(copied(item) for item in value)
    return value
