"""How one game is seen by a learning agent: integer actions decomposed into small choices, and a tensor observation.

Every engine action of a game is written as a short sequence of *tokens*, integers in `range(num_actions)`, the
environment's fixed `Discrete` action space. The seat picks one token per step; the environment applies the engine
action once the tokens chosen so far complete one, and until then the same seat chooses again. So a large or
constructed action (Sundae Split's split, an attack of Robots Love Ice Cream) is a few small choices, as OpenSpiel
decomposes complex moves, and never a sample or a truncated list: `choices` offers exactly the tokens that lead on
to a legal action, so every legal action is reachable and nothing illegal is.

The observation is a flat float32 tensor built from the seat's `view` alone (and the tokens it has chosen so far
this decision), never from the state, so it cannot leak what the seat cannot see. `layout` names its sections.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.protocol import Action, Game, GameState, View, action_text

Tensor = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Section:
    """One named run of the observation tensor: `size` floats in [low, high], described for the reference page."""

    name: str
    size: int
    meaning: str
    low: float = 0.0
    high: float = 1.0


class Pass:
    """A choice that is no engine action: a seat offered an optional turn (a FREEZE! window) lets it go by."""

    def __repr__(self) -> str:
        return "PASS"


PASS = Pass()
Choice = Action | None | Pass
"""What a token leads to: the engine action it completes, None when more tokens follow, or PASS."""


class Encoding(ABC):
    """One game's action tokens and observation tensor, for a player count and resolved options.

    Subclasses set `game` and implement `token_names`, `encode`, `sections` and `observe`; a game whose
    action space is too large to list (Sundae Split's split) also overrides `choices`.
    """

    game: Game

    def __init__(self, players: int, options: dict[str, Any]) -> None:
        self.players = players
        self.options = options
        self.token_names: tuple[str, ...] = tuple(self.name_tokens())
        self.num_actions = len(self.token_names)
        self.layout: tuple[Section, ...] = tuple(self.sections())
        self.offsets: dict[str, int] = {}
        """Where each section starts in the tensor, by name."""
        start = 0
        for section in self.layout:
            self.offsets[section.name] = start
            start += section.size
        self.body_size = start
        """The floats `observe` returns: every section before the common `chosen` counts."""
        self.observation_size = self.body_size + self.num_actions

    # --- actions ----------------------------------------------------------------------------------------------
    @abstractmethod
    def name_tokens(self) -> Sequence[str]:
        """What each token means, in token order (`move 2 scoops from cone 3`, `card rapid_pop`, ...)."""

    @abstractmethod
    def encode(self, state: GameState, seat: int, action: Action) -> tuple[int, ...]:
        """The tokens of one legal action of the seat, in the order the seat chooses them.

        Injective over the seat's legal actions in this state, and prefix-free: no action's tokens begin
        another's (end a variable-length part with an explicit token where needed).
        """

    def next_seat(self, state: GameState, passed: frozenset[int]) -> int | None:
        """The seat that chooses next in a running game; `passed`: the seats that passed since the last action.

        The default: the first seat the game waits for (a waited-for seat always has an action). A game whose seats
        may act out of turn overrides it, offering the turn to seats in an order that does not depend on what they
        hold (the seat to choose is public), with a PASS token among their choices.
        """
        waiting = state.waiting_for()
        return waiting[0] if waiting else None

    def choices(self, state: GameState, seat: int, chosen: tuple[int, ...]) -> dict[int, Choice]:
        """Every token the seat may choose next after `chosen`: the action it completes, or None if more follow.

        The default walks the tokens of every legal action; a game that cannot list its actions overrides it.
        Only what the seat can see may decide it (the mask is part of what the seat observes).
        """
        depth = len(chosen)
        offered: dict[int, Choice] = {}
        for action in state.legal_actions(seat):
            tokens = self.encode(state, seat, action)
            if tokens[:depth] == chosen and len(tokens) > depth:
                offered[tokens[depth]] = action if len(tokens) == depth + 1 else None
        return offered

    # --- observations -----------------------------------------------------------------------------------------
    @abstractmethod
    def sections(self) -> Sequence[Section]:
        """The observation's sections in order, before the common `chosen` section the environment appends."""

    @abstractmethod
    def observe(self, view: View, seat: int) -> Sequence[float] | Tensor:
        """The seat's observation from its view alone: `sum(section.size)` floats, in `sections` order."""

    def bounds(self) -> tuple[Tensor, Tensor]:
        """The observation's lowest and highest values, element by element (the `chosen` counts reach the
        decision's longest token sequence at most, bounded here by `max_tokens`)."""
        low = np.concatenate(
            [np.full(s.size, s.low, np.float32) for s in self.layout] + [np.zeros(self.num_actions, np.float32)]
        )
        high = np.concatenate(
            [np.full(s.size, s.high, np.float32) for s in self.layout]
            + [np.full(self.num_actions, self.max_tokens(), np.float32)]
        )
        return low, high

    def max_tokens(self) -> int:
        """The most tokens one engine action is written with (the default: 1, every action a single token)."""
        return 1

    def render(self, view: View) -> str:
        """Text of a view for `render_mode="ansi"`; the default prints its JSON, one key per line."""
        return "\n".join(f"{key}: {action_text(value)}" for key, value in view.items())

    # --- bounds -----------------------------------------------------------------------------------------------
    def default_max_actions(self) -> int:
        """Engine actions after which an episode is truncated, unless the environment is given another bound.

        The game's own bound when it has one, else a documented per-game figure.
        """
        bound = self.game.max_game_length(self.players, self.options)
        if bound is None:
            raise NotImplementedError(f"{type(self).__name__} must say where an unbounded game is truncated")
        return bound


def observation(encoding: Encoding, view: View, seat: int, chosen: tuple[int, ...]) -> Tensor:
    """The full observation tensor: the game's sections, then how many times each token is in `chosen`."""
    body = encoding.observe(view, seat)
    tail = np.zeros(encoding.num_actions, dtype=np.float32)
    for token in chosen:
        tail[token] += 1.0
    return np.concatenate((np.asarray(body, dtype=np.float32), tail))
