"""The protocol every game implements: a game object that makes states, and the states.

A state is mutable and is changed in place. Two paths change it:

* `play(seat, action)` is the checked path for players: it refuses with a typed error that says
  why (`NotYourTurn`, `MatchOver`, `IllegalAction`).
* `apply_trusted(seat, action)` is the fast path for search: no validation at all. Only pass it
  an action that `legal_actions` or `sample_action` produced for that seat in that state.

Several seats may be able to act at once (`acting_seats`): simultaneous steps and out-of-turn
claims are ordinary actions of those seats. Chance is resolved inside `apply_trusted` from the
state's own `Rng`, so the state is a function of (game, players, options, seed, actions).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from typing import Any, ClassVar, TypeAlias

from engine.errors import EngineError, IllegalAction, MatchOver, NotYourTurn, ViewMismatch
from engine.info import GameInfo
from engine.result import Result
from engine.rng import Rng

Action: TypeAlias = dict[str, Any]
"""An action is a plain JSON object with one canonical form per game."""

View: TypeAlias = dict[str, Any]
"""What one viewer may see of a state, as JSON."""

ENUMERATED = "enumerated"
CONSTRUCTED = "constructed"
MALFORMED = (TypeError, KeyError, IndexError, AttributeError, ValueError, RecursionError)
"""What a rule's code may raise on an action of the wrong shape: `GameState.play` refuses it as illegal."""


class GameState(ABC):
    """One position of one game, including its RNG."""

    game_id: ClassVar[str]
    log_tail: ClassVar[int] = 0
    """How many of the newest logged moves `redact_log` may redact by their place in the log.

    Every older move it redacts from that move and those newest ones alone, so a page of the log,
    with the newest `log_tail` moves after it appended, is redacted as in the whole log.
    """

    players: int
    options: dict[str, Any]
    rng: Rng
    outcome: Result | None  # set by the game when it ends; is_over() and result() read it

    # --- whose move -------------------------------------------------------------------------
    @abstractmethod
    def acting_seats(self) -> tuple[int, ...]:
        """Seats that may act now, in seat order; empty once the game is over."""

    def waiting_for(self) -> tuple[int, ...]:
        """Seats the game waits on (whose turn it is); a subset of `acting_seats`.

        The others in `acting_seats` may act out of turn (a FREEZE! claim) but need not. Both sets
        are public, so neither may depend on what some seat cannot see.
        """
        return self.acting_seats()

    def is_over(self) -> bool:
        """True once the game has ended (its `outcome` is set)."""
        return self.outcome is not None

    def result(self) -> Result | None:
        """The outcome, or None while the game runs."""
        return self.outcome

    # --- what may be done -------------------------------------------------------------------
    @abstractmethod
    def legal_actions(self, seat: int) -> list[Action]:
        """Every action the seat may take now (empty if it may not act).

        Games whose action space is too large to list raise `TooManyActions` and describe the
        space through `action_space` instead.
        """

    def action_space(self, seat: int) -> dict[str, Any]:
        """A machine-readable description of what the seat may do now.

        The default lists every action: `{"kind": "enumerated", "actions": [...]}`. A game with a
        huge space returns `{"kind": "constructed", "schema": ..., "constraints": ...,
        "example": ...}` where `example` is one concrete legal action.
        """
        return {"kind": ENUMERATED, "actions": self.legal_actions(seat)}

    def sample_action(self, seat: int, rng: Rng) -> Action:
        """One legal action of the seat chosen at random (for playouts and search)."""
        return rng.choice(self.legal_actions(seat))

    @abstractmethod
    def check_action(self, seat: int, action: Action) -> None:
        """Raise IllegalAction, naming the rule, unless the seat may take this action now.

        Called only for a seat in `acting_seats` of a running game.
        """

    def default_action(self, seat: int) -> Action:
        """What a seat the game waits for does when its time runs out (a turn timer).

        Always legal for any seat in `waiting_for()` of a running game, deterministic, and the
        weakest choice a player keeping to the rules could make: a pass where passing is legal,
        otherwise the first legal action in an order the game documents (its catalog records the
        choice as an assumption, since rulebooks say nothing of timeouts). This fallback takes the
        first action `legal_actions` lists; every built-in game overrides it.
        """
        return self.legal_actions(seat)[0]

    # --- changing the state -----------------------------------------------------------------
    def play(self, seat: int, action: Action) -> None:
        """The checked path: validate the action for the seat, then apply it."""
        if self.is_over():
            raise MatchOver("the game is over")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            raise IllegalAction(f"there is no seat {seat!r}")
        if seat not in self.acting_seats():
            raise NotYourTurn(f"seat {seat} may not act now; seats to act: {list(self.acting_seats())}")
        if not isinstance(action, dict):
            raise IllegalAction("an action must be a JSON object")
        try:
            self.check_action(seat, action)
            self.apply_trusted(seat, action)
        except EngineError:
            raise
        except MALFORMED as error:  # a rule's code that chokes on a malformed action still refuses it
            raise IllegalAction(f"the action is malformed for this game: {error!r}") from error

    @abstractmethod
    def apply_trusted(self, seat: int, action: Action) -> None:
        """The fast path for search: apply an action already known to be legal."""

    @abstractmethod
    def clone(self) -> GameState:
        """A cheap, independent copy (the RNG included)."""

    # --- what each viewer sees --------------------------------------------------------------
    @abstractmethod
    def view(self, viewer: int | None) -> View:
        """What a seat (or the public, for None) may see; never the seed or the RNG state."""

    def redact_action(self, seat: int, action: Action, viewer: int | None) -> Action:
        """The form of a logged action that a viewer may see while the game runs."""
        return action

    def redact_log(self, moves: list[tuple[int, Action]], viewer: int | None) -> list[Action]:
        """Every logged (seat, action) as the viewer may see it while the game runs."""
        return [self.redact_action(seat, action, viewer) for seat, action in moves]

    def redact_log_page(
        self, page: list[tuple[int, Action]], later: list[tuple[int, Action]], viewer: int | None
    ) -> list[Action]:
        """A page of the log as the viewer sees it in the whole log; `later`: the newest `log_tail` moves after it."""
        return self.redact_log(page + later, viewer)[: len(page)]

    def determinize(self, viewer: int | None, rng: Rng) -> GameState:
        """A state the viewer cannot tell from this one, hidden parts sampled with `rng`.

        Perfect-information games return a clone. The result also gets a fresh RNG so the
        future chance the viewer cannot know is re-drawn too.
        """
        copy = self.clone()
        copy.rng = Rng(rng.next_u64())
        return copy

    def rewards(self) -> list[float]:
        """Per-seat rewards in [-1, 1] at the end; zeros while the game runs."""
        result = self.result()
        return result.rewards() if result else [0.0] * self.players

    # --- storage ----------------------------------------------------------------------------
    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The whole state, RNG included, as JSON; `Game.state_from_json` reads it back."""


class TooManyActions(Exception):
    """Raised by `legal_actions` when a seat's choices are too many to list."""


def action_text(action: Action) -> str:
    """The canonical JSON text of an action: hashable, and equal exactly for equal actions (true is not 1)."""
    return json.dumps(action, sort_keys=True, separators=(",", ":"))


def has_action(state: GameState, seat: int) -> bool:
    """True if the seat has at least one legal action now (a space too large to list counts)."""
    try:
        return bool(state.legal_actions(seat))
    except TooManyActions:
        return True


class Game(ABC):
    """A game: its catalog entry and a factory for its states."""

    info: ClassVar[GameInfo]

    def new_state(self, players: int, options: dict[str, Any], seed: str | int) -> GameState:
        """The starting state for resolved options and a seed: `new_state_from_rng` with the seed's Rng."""
        return self.new_state_from_rng(players, options, Rng.from_seed(seed))

    def new_state_from_rng(self, players: int, options: dict[str, Any], rng: Rng) -> GameState:
        """The starting state for resolved options, the set-up's chance drawn from `rng` (which the state keeps).

        Every built-in game implements it (its `new_state(seed)` is this with `Rng.from_seed(seed)`); a caller
        may hand a scripted Rng to see the set-up's draws one by one (OpenSpiel's explicit chance nodes).
        """
        raise NotImplementedError(f"{self.info.name} must implement Game.new_state_from_rng or Game.new_state")

    @abstractmethod
    def state_from_json(self, data: dict[str, Any]) -> GameState:
        """Read back a state written by `GameState.to_json`."""

    def rebuild_from_view(self, view: View, seat: int, players: int, options: dict[str, Any], rng: Rng) -> GameState:
        """A state showing the seat this view, what it cannot see drawn with `rng`; options already resolved.

        Raise ViewMismatch for a view no state could show; a malformed view may raise anything of MALFORMED
        (`state_from_view` turns it into ViewMismatch and checks the rebuilt state's view). Every built-in game
        overrides it, and tests/conformance/test_from_view.py fails for a game that does not.
        """
        raise NotImplementedError(f"{self.info.name} must override Game.rebuild_from_view (docs/how-to/add-a-game.md)")

    def state_from_view(
        self, view: View, seat: int, players: int, options: dict[str, Any] | None, rng: Rng
    ) -> GameState:
        """A state whose `view(seat)` is exactly `view`, everything the seat cannot see drawn at random with `rng`.

        The checked path for a position a client sends (a bot's own search, position analysis): hidden cards are
        dealt from those the seat has not seen, counts as the view shows them, and the state's RNG for future
        chance is fresh from `rng`. ViewMismatch for a view that no state of this game, player count and options
        could show to this seat; InvalidOptions for a player count or options the game does not take.
        """
        self.check_players(players)
        resolved = self.info.options.resolve(options)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise ViewMismatch(f"there is no seat {seat!r} among {players} players")
        if not isinstance(view, dict):
            raise ViewMismatch(f"a {self.info.name} view is a JSON object")
        try:
            state = self.rebuild_from_view(view, seat, players, resolved, rng)
            shown, sent = json.loads(json.dumps(state.view(seat))), json.loads(json.dumps(view))
        except EngineError:
            raise
        except MALFORMED as error:
            raise ViewMismatch(f"not a {self.info.name} view: {error!r}") from error
        if shown != sent:
            differ = sorted(str(key) for key in {*shown, *sent} if shown.get(key) != sent.get(key))
            raise ViewMismatch(f"no {self.info.name} position shows seat {seat} this view (it differs in {differ})")
        return state

    def max_game_length(self, players: int, options: dict[str, Any]) -> int | None:
        """The most actions a match with this many players and these resolved options can take; None: no bound.

        Never above `info.max_game_length` when that is set. The default is that bound over every match.
        """
        return self.info.max_game_length

    def check_players(self, players: int) -> None:
        """Raise InvalidOptions unless the game takes this many players."""
        from engine.errors import InvalidOptions

        low, high = self.info.min_players, self.info.max_players
        if isinstance(players, bool) or not isinstance(players, int) or not low <= players <= high:
            span = str(low) if low == high else f"{low} to {high}"
            raise InvalidOptions(f"{self.info.name} takes {span} players", "players")

    def start(self, players: int, options: dict[str, Any] | None = None, seed: str | int = 0) -> GameState:
        """Check the player count and options, then make the starting state."""
        self.check_players(players)
        return self.new_state(players, self.info.options.resolve(options), seed)

    def replay(
        self,
        players: int,
        options: dict[str, Any] | None,
        seed: str | int,
        moves: list[tuple[int, Action]],
    ) -> GameState:
        """Rebuild a state from its seed and its log of (seat, action), checking every action."""
        state = self.start(players, options, seed)
        for seat, action in moves:
            state.play(seat, action)
        return state
