"""What the AEC and the parallel environments share: a game's encoding, its seats' spaces, and its rendering."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from engine.protocol import GameState
from parlour_envs.encoding import Encoding


def agent_name(seat: int) -> str:
    """The agent of a seat, as PettingZoo's classic environments name them."""
    return f"player_{seat}"


class Table:
    """A game at a player count and options, seen through its `Encoding`; `encoding_type` makes it one game."""

    encoding_type: ClassVar[type[Encoding]]
    metadata: ClassVar[dict[str, Any]]

    def set_table(self, players: int | None, render_mode: str | None, max_actions: int | None, options: Any) -> None:
        """Check the player count, options and render mode; build the encoding, the agents and their spaces."""
        game = self.encoding_type.game
        self.players = game.info.min_players if players is None else players
        game.check_players(self.players)
        self.options = game.info.options.resolve(options)
        self.encoding = self.encoding_type(self.players, self.options)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.max_actions = self.encoding.default_max_actions() if max_actions is None else max_actions
        self.possible_agents = [agent_name(seat) for seat in range(self.players)]
        self.seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        low, high = self.encoding.bounds()
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(low, high, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (self.encoding.num_actions,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(self.encoding.num_actions) for agent in self.possible_agents}
        self.state_: GameState | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def render(self) -> str | None:
        """The public view as text (`render_mode="ansi"`)."""
        if self.render_mode is None:
            return None
        return self.encoding.render(self._state().view(None))

    def close(self) -> None:
        """Nothing to release."""

    def _state(self) -> GameState:
        if self.state_ is None:
            raise RuntimeError("call reset() before using the environment")
        return self.state_
