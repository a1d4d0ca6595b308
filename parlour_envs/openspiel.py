"""The Parlour games as OpenSpiel Python games: `pyspiel.load_game("python_parlour_icecream")`.

Importing this module registers every game whose encoding exists (`parlour_envs/games/<id>.py`) under the short
name `python_parlour_<id>` (and Rock'em Sock'em's turn-based twin, `python_parlour_rockem_sockem_turn_based`), with
the player count (`players`), the game's options and the truncation (`max_actions`, engine actions; 0: the
encoding's default) as game parameters:

```python
import pyspiel
import parlour_envs.openspiel  # registers the games
game = pyspiel.load_game("python_parlour_sundae_split", {"players": 3})
```

* **Actions** are the environment's tokens (`parlour_envs.encoding`): one engine action is one token or a few
  consecutive tokens of the same player (Sundae Split's split, an attack of Robots Love Ice Cream), and a PASS
  token lets a FREEZE! window go by. `num_distinct_actions` is the encoding's token count.
* **Chance is explicit.** The engine draws everything through `Rng.below(n)` inside `apply_trusted` and
  `Game.new_state_from_rng`; here each `below(n)` with n > 1 is a chance node with n equally likely outcomes.
  The engine action (or the set-up) is applied to a fresh clone with a `ScriptedRng` that answers the outcomes
  chosen so far and raises `NeedsChance(n)` at the first draw it has no outcome for; that draw becomes the chance
  node, and the action is applied again, from the start, once its outcome is chosen. So a draw is a node, and a
  shuffle of N cards is N - 1 nodes (N, N - 1, ..., 2 outcomes), which keeps `max_chance_outcomes` at the largest
  deck, not N!. The cost: an action with k draws is applied k + 1 times. Where chance is large: Sundae Split's
  set-up shuffles its whole deck (48 cards with two players, else 68: 47 or 67 nodes, then the first Splitter),
  Robots Love Ice Cream's shuffles three decks (robots 54, Ice Cream 65, Boosts 27: 143 nodes, then the first
  player) and an action may reshuffle a discard pile, Freeze Factory's shuffles the 26 cones (25 nodes; the tiles
  too with `shuffle_start`) and each turn rolls a die, Rock'em Sock'em rolls up to eight dice a step. Every node is
  enumerable (at most `max_chance_outcomes` outcomes), but of the game trees only chance-free IceCream's is not
  astronomically wide: CFR-style methods need sampling (outcome or external sampling MCCFR) on the other four.
* **Simultaneous moves**: Rock'em Sock'em is `SIMULTANEOUS`. Where both racers answer a roll at once the node's
  current player is `SIMULTANEOUS` and `apply_actions` takes both keeps (a seat that waits has the encoding's
  NO-OP alone); where only one seat acts (the coin flip) the node is an ordinary one of that seat. In realtime
  mode the two rolls land as in the parallel environment, the flipper's opponent's first, and a roll after the
  other's grabbed the coin is void. OpenSpiel's ISMCTS and MCTS take sequential games only, and
  `pyspiel.convert_to_turn_based` gives a game without `resample_from_infostate`, so they play the turn-based
  twin (`SPECS`), Rock'em as the AEC environment steps it.
* **Observations**: `observation_tensor` is the environment's tensor (the encoding's sections from the seat's
  `view`, then a count per token the seat has chosen so far in its decision); `observation_string` is the
  view's canonical JSON with those tokens. Information states are not provided: a view shows the present,
  not everything a seat has seen, and a perfect-recall history of views was not built.
  `resample_from_infostate` draws the hidden part with the engine's `determinize`, so OpenSpiel's ISMCTS runs
  with `use_observation_string=True`.
* **Returns** are the engine's rewards at the end (`Result.rewards`: +1 first, -1 last, ties share; the
  co-operative game's +1 or -1 for the whole team), so utilities lie in [-1, 1] and the competitive games are
  zero-sum. A game that reaches `max_actions` engine actions is truncated: terminal, every return 0. The
  games without an end of their own (IceCream and Freeze Factory without `turn_limit`, Rock'em Sock'em) stop
  there (the encoding's documented default). `max_game_length` bounds the OpenSpiel moves (tokens, passes and
  chance nodes): the set-up's draws, then per engine action its most tokens, a pass by each other seat and its
  most draws (`Chance`); a state also ends truncated on reaching it, so it is a bound by construction.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pyspiel

from engine.protocol import Action, GameState, View, has_action
from engine.rng import Rng
from parlour_envs.encoding import PASS, Choice, Encoding, observation
from parlour_envs.parallel import NOOP_NAME

SHORT_NAME = "python_parlour_{}"
"""Each game's OpenSpiel name, from its Parlour id."""
CHANCE = pyspiel.PlayerId.CHANCE
SIMULTANEOUS = pyspiel.PlayerId.SIMULTANEOUS
TERMINAL = pyspiel.PlayerId.TERMINAL


# --- chance, draw by draw ---------------------------------------------------------------------------------------
class NeedsChance(BaseException):
    """Raised by `ScriptedRng.below` at a draw it has no outcome for: that draw is the next chance node."""

    def __init__(self, outcomes: int) -> None:
        super().__init__(outcomes)
        self.outcomes = outcomes


class ScriptedRng(Rng):
    """An Rng whose draws are given: `below(n)` answers the next scripted outcome (n = 1 needs none)."""

    __slots__ = ("at", "script")

    def __init__(self, script: Sequence[int] = ()) -> None:
        super().__init__(0)
        self.script = tuple(script)
        self.at = 0

    def clone(self) -> ScriptedRng:
        copy = ScriptedRng(self.script)
        copy.at = self.at
        return copy

    def next_u64(self) -> int:
        raise RuntimeError("the engine drew a raw 64-bit number: every draw must go through Rng.below")

    def below(self, n: int) -> int:
        if n == 1:
            return 0
        if self.at == len(self.script):
            raise NeedsChance(n)
        outcome = self.script[self.at]
        if not 0 <= outcome < n:
            raise ValueError(f"chance outcome {outcome} is not below {n}")
        self.at += 1
        return outcome


Moves = tuple[tuple[int, Action], ...]
"""Engine actions applied together, in order: one, or both keeps of a simultaneous Rock'em step."""


@dataclass(frozen=True)
class Chance:
    """How large a game's chance is, for its GameInfo: the most outcomes of one draw, and draws per set-up / action."""

    outcomes: int = 0
    setup: int = 0
    per_action: int = 0


def seat_order(engine: GameState, seats: tuple[int, ...]) -> tuple[int, ...]:
    """The order a simultaneous step's actions are applied in: seat order."""
    return seats


@dataclass(frozen=True)
class Spec:
    """What OpenSpiel is told about one game beyond its encoding: its chance bounds and, where seats act at once,
    the order their actions of one step are applied in."""

    game: str
    chance: Callable[[int, dict[str, Any]], Chance]
    simultaneous: bool = False
    order: Callable[[GameState, tuple[int, ...]], tuple[int, ...]] = seat_order


def _icecream(players: int, options: dict[str, Any]) -> Chance:
    return Chance()


def _rockem_sockem(players: int, options: dict[str, Any]) -> Chance:
    """The coin (2 sides), a die (6 faces), a Fight Card from those face down (5): a rounds step rolls both
    seats' four dice and may turn one card."""
    from engine.rockem_sockem.components import COIN_SIDES, DICE, FACES, HIT_CARDS, MISS_CARDS

    return Chance(max(len(COIN_SIDES), len(FACES), HIT_CARDS + MISS_CARDS), 0, 2 * DICE + 1)


def _rockem_order(engine: GameState, seats: tuple[int, ...]) -> tuple[int, ...]:
    """Realtime rolls land in the parallel environment's order, the flipper's opponent first."""
    from parlour_envs.games.rockem_sockem import realtime_order

    return tuple(seat for seat in realtime_order(engine) if seat in seats)  # type: ignore[arg-type]


def _freeze_factory(players: int, options: dict[str, Any]) -> Chance:
    """The cone pile shuffled (26 cones: 25 draws), the tiles too with `shuffle_start`; one die roll an action."""
    from engine.freeze_factory.components import CONES, DIE_FACES, FLAVOURS

    setup = len(CONES) - 1 + (len(FLAVOURS) - 1 if options["shuffle_start"] else 0)
    return Chance(max(len(CONES), len(FLAVOURS), len(DIE_FACES)), setup, 1)


def _sundae_split(players: int, options: dict[str, Any]) -> Chance:
    """The whole deck shuffled at set-up (48 cards with 2 players, else 68) and the first Splitter drawn."""
    from engine.sundae_split.cards import starting_deck

    deck = len(starting_deck(players))
    return Chance(max(deck, players), deck - 1 + 1, 0)


def _robots_love_ice_cream(players: int, options: dict[str, Any]) -> Chance:
    """Three decks shuffled at set-up (robots 54, Ice Cream 65, Boosts 27) and the first player drawn; an action
    may reshuffle a discard pile into its deck or pick a card from a hand (up to every Ice Cream card and every
    Sprinkletonium), so one action's draws are bounded by all the cards there are."""
    from engine.robots_love_ice_cream.data import DATA

    robots = sum(robot.count for robot in DATA.robots.values())
    ice, boosts, sprinkletonium = sum(DATA.ice_cream.values()), len(DATA.boosts), DATA.components["sprinkletonium"]
    setup = robots - 1 + ice - 1 + boosts - 1 + 1
    return Chance(max(robots, ice + sprinkletonium, boosts, players), setup, robots + ice + boosts + sprinkletonium)


SPECS: dict[str, Spec] = {
    "icecream": Spec("icecream", _icecream),
    "rockem_sockem": Spec("rockem_sockem", _rockem_sockem, simultaneous=True, order=_rockem_order),
    "rockem_sockem_turn_based": Spec("rockem_sockem", _rockem_sockem),
    "freeze_factory": Spec("freeze_factory", _freeze_factory),
    "robots_love_ice_cream": Spec("robots_love_ice_cream", _robots_love_ice_cream),
    "sundae_split": Spec("sundae_split", _sundae_split),
}
"""Each registered name's game, its chance bounds (from its rules and data) and whether its seats act at once.

`rockem_sockem_turn_based` is Rock'em Sock'em as the AEC environment plays it, for OpenSpiel's ISMCTS and MCTS
(which take sequential games only, and `pyspiel.convert_to_turn_based` gives no `resample_from_infostate`): in
rounds mode seat 0 then seat 1 answer a roll, the first keep hidden from the second by the engine's view as in the
simultaneous game; in realtime mode the racers take turns rolling, the flipper's opponent first.
"""


# --- the game -----------------------------------------------------------------------------------------------------
def encoding_type(game_id: str) -> type[Encoding]:
    """The Encoding subclass of a game, from parlour_envs/games/<id>.py (ImportError while it does not exist)."""
    module = importlib.import_module(f"parlour_envs.games.{game_id}")
    for value in vars(module).values():
        encodes = isinstance(value, type) and issubclass(value, Encoding) and value is not Encoding
        if encodes and getattr(value, "game", None) is not None and value.game.info.id == game_id:
            return value  # type: ignore[no-any-return]
    raise ImportError(f"parlour_envs.games.{game_id} has no Encoding of {game_id}")


def game_type(name: str, encoding: type[Encoding], spec: Spec) -> pyspiel.GameType:
    """The OpenSpiel GameType of a game: its dynamics, chance, information, utility and parameters."""
    info = encoding.game.info
    Type = pyspiel.GameType
    parameters: dict[str, Any] = {"players": info.min_players, "max_actions": 0}
    parameters.update({option.name: option.default for option in info.options.specs})
    return Type(
        short_name=SHORT_NAME.format(name),
        long_name=f"Parlour {info.name}{' (turn-based)' if name.endswith('_turn_based') else ''}",
        dynamics=Type.Dynamics.SIMULTANEOUS if spec.simultaneous else Type.Dynamics.SEQUENTIAL,
        chance_mode=Type.ChanceMode.EXPLICIT_STOCHASTIC if info.chance else Type.ChanceMode.DETERMINISTIC,
        information=(
            Type.Information.PERFECT_INFORMATION
            if info.information == "perfect"
            else Type.Information.IMPERFECT_INFORMATION
        ),
        utility=Type.Utility.IDENTICAL if info.cooperative else Type.Utility.ZERO_SUM,
        reward_model=Type.RewardModel.TERMINAL,
        max_num_players=info.max_players,
        min_num_players=info.min_players,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


@dataclass(frozen=True, eq=False)
class Rules:
    """What every position of one game shares: the encoding, the player count, options and bounds."""

    encoding: Encoding
    spec: Spec
    max_actions: int
    chance: Chance

    def __deepcopy__(self, memo: dict[int, Any]) -> Rules:
        return self

    @property
    def players(self) -> int:
        return self.encoding.players

    @property
    def simultaneous(self) -> bool:
        return self.spec.simultaneous

    @property
    def noop(self) -> int | None:
        """The encoding's NO-OP token, alone offered to a seat that waits at a simultaneous node (None: none)."""
        names = self.encoding.token_names
        return names.index(NOOP_NAME) if NOOP_NAME in names else None

    @property
    def max_moves(self) -> int:
        """A bound on OpenSpiel moves: the set-up's draws, then per engine action its tokens, passes and draws."""
        per_action = self.encoding.max_tokens() + self.players - 1 + self.chance.per_action
        return self.chance.setup + self.max_actions * per_action


class ParlourGame(pyspiel.Game):
    """One Parlour game for a player count and options (OpenSpiel's parameters); `register` makes a subclass per game.

    The subclass is the factory OpenSpiel keeps, as Kuhn poker's class is: a class lives until the interpreter
    ends, while a closure would be freed by OpenSpiel's registry after Python has shut down (a crash at exit).
    """

    encoding_type: ClassVar[type[Encoding]]
    spec: ClassVar[Spec]
    kind: ClassVar[pyspiel.GameType]

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        encoding, spec, kind, params = self.encoding_type, self.spec, self.kind, dict(params or {})
        info = encoding.game.info
        players = int(params.get("players", info.min_players))
        encoding.game.check_players(players)
        options = info.options.resolve(
            {key: value for key, value in params.items() if key not in ("players", "max_actions")}
        )
        encoded = encoding(players, options)
        given = int(params.get("max_actions", 0))
        self.rules = Rules(encoded, spec, given or encoded.default_max_actions(), spec.chance(players, options))
        if spec.simultaneous and self.rules.noop is None:
            raise ValueError(f"{encoding.__name__} needs a {NOOP_NAME!r} token for a seat that waits")
        super().__init__(
            kind,
            pyspiel.GameInfo(
                num_distinct_actions=encoded.num_actions,
                max_chance_outcomes=self.rules.chance.outcomes,
                num_players=players,
                min_utility=-1.0,
                max_utility=1.0,
                utility_sum=None if info.cooperative else 0.0,
                max_game_length=self.rules.max_moves,
            ),
            params,
        )

    def new_initial_state(self) -> ParlourState:
        """The set-up: its first chance node, or the first decision where the set-up draws nothing."""
        return ParlourState(self, settle(self.rules, None, (), (), 0))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ParlourObserver:
        """The observer of the seats' tensors and strings (no perfect-recall information state)."""
        if params:
            raise ValueError(f"observation parameters are not supported; given {params}")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            raise ValueError("Parlour games provide no perfect-recall information state")
        return ParlourObserver(self.rules.encoding)


# --- one position -------------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Node:
    """One OpenSpiel position, immutable (so a clone shares it): the engine state and where its decision stands.

    `engine` is never changed in place; every action is applied to a clone of it (None during the set-up's
    draws). `moves` and `outcomes`: the engine actions being applied and the chance outcomes drawn for them so
    far (a chance node); `seat` and `chosen`: who is choosing and the tokens they chose so far (a decision);
    `together`: the seats answering at once (a simultaneous node).
    """

    engine: GameState | None
    actions: int
    seat: int | None = None
    chosen: tuple[int, ...] = ()
    passed: frozenset[int] = frozenset()
    offered: dict[int, Choice] = field(default_factory=dict)
    together: tuple[int, ...] = ()
    moves: Moves | None = None
    outcomes: tuple[int, ...] = ()
    draw: int = 0
    truncated: bool = False
    views: dict[int, View] = field(default_factory=dict)

    def __deepcopy__(self, memo: dict[int, Any]) -> Node:
        return self

    def view(self, seat: int | None) -> View | None:
        """The seat's view of the engine state (cached: the node never changes); None during the set-up."""
        if self.engine is None:
            return None
        key = -1 if seat is None else seat
        if key not in self.views:
            self.views[key] = self.engine.view(seat)
        return self.views[key]

    def running(self) -> GameState:
        """The engine state of a decision (there is one once the set-up is drawn)."""
        assert self.engine is not None
        return self.engine


def settle(game: Rules, engine: GameState | None, moves: Moves, outcomes: tuple[int, ...], actions: int) -> Node:
    """Apply `moves` (or the set-up, for no engine) with these chance outcomes: a chance node or the next decision."""
    rng, before = ScriptedRng(outcomes), actions
    try:
        if engine is None:
            after = game.encoding.game.new_state_from_rng(game.players, game.encoding.options, rng)
        else:
            after = engine.clone()
            after.rng = rng
            for position, (seat, action) in enumerate(moves):
                if position and action not in game.encoding.choices(after, seat, ()).values():
                    continue  # void: an earlier action of the step ended it (a realtime roll after the grab)
                after.apply_trusted(seat, action)
                actions += 1
                if after.is_over():
                    break
    except NeedsChance as draw:
        return Node(engine, before, moves=moves, outcomes=outcomes, draw=draw.outcomes)
    return decide(game, after, actions, frozenset())


def decide(game: Rules, engine: GameState, actions: int, passed: frozenset[int]) -> Node:
    """The next decision of a running game (a terminal node once it is over or truncated)."""
    if engine.is_over():
        return Node(engine, actions)
    if actions >= game.max_actions:
        return Node(engine, actions, truncated=True)
    if game.simultaneous:
        together = simultaneous_seats(game, engine)
        if len(together) > 1:
            return Node(engine, actions, together=together)
    seat = game.encoding.next_seat(engine, passed)
    if seat is None:
        raise RuntimeError(f"no seat can act in a running {game.encoding.game.info.name} game")
    return Node(engine, actions, seat, (), passed, game.encoding.choices(engine, seat, ()))


def simultaneous_seats(game: Rules, engine: GameState) -> tuple[int, ...]:
    """The seats that answer at once: every seat the game waits for that has an action (Rock'em's racers)."""
    return tuple(seat for seat in engine.waiting_for() if has_action(engine, seat))


class ParlourState(pyspiel.State):
    """A position of a Parlour game for OpenSpiel; `node` holds it (see `Node`)."""

    def __init__(self, game: ParlourGame, node: Node) -> None:
        super().__init__(game)
        self.rules = game.rules
        self.node = node

    # --- whose move ----------------------------------------------------------------------------------------------
    def current_player(self) -> int:
        """A seat, CHANCE during a draw, SIMULTANEOUS where both racers answer, TERMINAL once over or truncated."""
        node = self.node
        if node.moves is not None:
            return int(CHANCE)
        if node.together:
            return int(SIMULTANEOUS)
        if node.seat is None:
            return int(TERMINAL)
        return node.seat

    def is_terminal(self) -> bool:
        """True once the game is over or truncated."""
        node = self.node
        return node.moves is None and not node.together and node.seat is None

    def _legal_actions(self, player: int) -> list[int]:
        """The tokens the player may choose now, ascending (the no-op alone for a seat that waits)."""
        node = self.node
        if node.together:
            if player in node.together:
                return sorted(self.rules.encoding.choices(node.running(), player, ()))
            return [] if self.rules.noop is None else [self.rules.noop]
        if player != node.seat:
            return []
        return sorted(node.offered)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The draw's outcomes, equally likely."""
        draw = self.node.draw
        return [(outcome, 1.0 / draw) for outcome in range(draw)]

    # --- changing the position -----------------------------------------------------------------------------------
    def _apply_action(self, action: int) -> None:
        """A chance outcome, or one token of the seat choosing."""
        node, game = self.node, self.rules
        if node.moves is not None:
            self.node = settle(game, node.engine, node.moves, (*node.outcomes, action), node.actions)
            self._truncate()
            return
        assert node.seat is not None
        engine, choice = node.running(), node.offered[action]
        if choice is None:
            chosen = (*node.chosen, action)
            offered = game.encoding.choices(engine, node.seat, chosen)
            self.node = Node(engine, node.actions, node.seat, chosen, node.passed, offered)
        elif choice is PASS:
            self.node = decide(game, engine, node.actions, node.passed | {node.seat})
        else:
            self.node = settle(game, engine, ((node.seat, choice),), (), node.actions)  # type: ignore[arg-type]
        self._truncate()

    def _apply_actions(self, actions: Sequence[int]) -> None:
        """Every waiting seat's one-token action at once, applied in the game's order (the others' no-ops ignored)."""
        node, game = self.node, self.rules
        engine = node.running()
        moves: list[tuple[int, Action]] = []
        for seat in game.spec.order(engine, node.together):
            choice = game.encoding.choices(engine, seat, ())[actions[seat]]
            if not isinstance(choice, dict):
                raise ValueError(f"seat {seat}'s simultaneous action must be one token, got {actions[seat]}")
            moves.append((seat, choice))
        self.node = settle(game, engine, tuple(moves), (), node.actions)
        self._truncate()

    def _truncate(self) -> None:
        """End the game, returns 0, once it has taken `max_game_length` moves (a bound by construction)."""
        if self.move_number() + 1 >= self.rules.max_moves and not self.is_terminal():
            self.node = Node(self.node.engine, self.node.actions, truncated=True)

    # --- the end -------------------------------------------------------------------------------------------------
    def returns(self) -> list[float]:
        """The engine's rewards once the game is over; zeros while it runs and when it was truncated."""
        node = self.node
        if node.truncated or not self.is_terminal():
            return [0.0] * self.rules.players
        return [float(reward) for reward in node.running().rewards()]

    # --- text ----------------------------------------------------------------------------------------------------
    def _action_to_string(self, player: int, action: int) -> str:
        """A token's meaning, or a chance outcome's number."""
        if player == CHANCE:
            return f"chance outcome {action}"
        if action == self.rules.noop:
            return "wait"
        return self.rules.encoding.token_names[action]

    def __str__(self) -> str:
        node = self.node
        public = node.view(None)
        lines = ["setting up"] if public is None else [json.dumps(public, sort_keys=True, separators=(",", ":"))]
        if node.moves is not None:
            lines.append(f"drawing: outcomes {list(node.outcomes)}, next of {node.draw}")
        elif node.seat is not None:
            lines.append(f"seat {node.seat} chooses; tokens so far {list(node.chosen)}")
        return "\n".join(lines)

    # --- for ISMCTS ----------------------------------------------------------------------------------------------
    def resample_from_infostate(self, player: int, sampler: Callable[[], float]) -> ParlourState:
        """A position the player cannot tell from this one, its hidden part drawn by the engine's `determinize`."""
        node = self.node
        engine = node.running().determinize(player, Rng(int(sampler() * 2**63)))
        offered = {} if node.seat is None else self.rules.encoding.choices(engine, node.seat, node.chosen)
        fresh = Node(
            engine,
            node.actions,
            node.seat,
            node.chosen,
            node.passed,
            offered,
            node.together,
            truncated=node.truncated,
        )
        return ParlourState(self.get_game(), fresh)


# --- what a seat observes ---------------------------------------------------------------------------------------
class ParlourObserver:
    """The seats' observations: the environment's tensor and the view's canonical JSON, with the chosen tokens."""

    def __init__(self, encoding: Encoding) -> None:
        self.encoding = encoding
        self.tensor = np.zeros(self.encoding.observation_size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: ParlourState, player: int) -> None:
        """Fill `tensor` with the player's observation of the state."""
        node = state.node
        view = node.view(player)
        if view is None:  # the set-up's draws: nothing to see yet
            self.tensor.fill(0.0)
            return
        chosen = node.chosen if node.seat == player else ()
        self.tensor[:] = observation(self.encoding, view, player, chosen)

    def string_from(self, state: ParlourState, player: int) -> str:
        """The player's observation as text: its view's JSON, who chooses, and its own tokens so far."""
        node = state.node
        chosen = list(node.chosen) if node.seat == player else []
        view = json.dumps(node.view(player), sort_keys=True, separators=(",", ":"))
        return f"seat {player}; chooser {node.seat}; chosen {chosen}; view {view}"


# --- registration -------------------------------------------------------------------------------------------------
def register(name: str) -> bool:
    """Register one of SPECS with OpenSpiel (again is a no-op); False while its game's encoding does not exist."""
    if SHORT_NAME.format(name) in pyspiel.registered_names():
        return True
    spec = SPECS[name]
    try:
        encoding = encoding_type(spec.game)
    except ImportError:
        return False
    kind = game_type(name, encoding, spec)
    attributes = {
        "encoding_type": encoding,
        "spec": spec,
        "kind": kind,
        "__doc__": f"{encoding.game.info.name} for OpenSpiel.",
    }
    title = "".join(word.title() for word in name.split("_"))
    game_class = type(f"{title}Game", (ParlourGame,), attributes)
    pyspiel.register_game(kind, game_class)
    return True


REGISTERED: tuple[str, ...] = tuple(name for name in SPECS if register(name))
"""The names registered with OpenSpiel on import (`python_parlour_<name>`): game ids, and Rock'em's turn-based twin."""


def load(name: str, **params: Any) -> ParlourGame:
    """`pyspiel.load_game` of a Parlour game by its name (a game id, or `rockem_sockem_turn_based`), parameters as
    keyword arguments."""
    game: ParlourGame = pyspiel.load_game(SHORT_NAME.format(name), params)
    return game
