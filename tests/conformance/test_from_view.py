"""Conformance: a state rebuilt from one seat's view (`Game.state_from_view`) agrees with that view, for every game.

Over seeded random playouts, at steps 0, 1, 2, 4, 8, ... and at the end, every seat's view (through JSON, as the
API sends it) is rebuilt with two rngs: each rebuilt state shows the seat the same view, lets it do the same,
has the same seats to act and plays on to the end; in a game with hidden information the two rebuilds differ at
least once per case (the unseen parts are really drawn). A tampered view is refused with ViewMismatch, never a
crash.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from engine import Game, GameState, Rng, ViewMismatch, get_game
from tests.conformance.checks import _nudged, canon, choices, random_options
from tests.conformance.test_conformance import CASES, OPTION_SETS, is_deep_step, seats_with_actions

PLAYOUTS = 8  # seeded playouts per game and player count; odd ones with random options
NAMED_PLAYOUTS = 1  # per named option set (RLIC's variants, open hands)
MAX_PLAY_ON = 400  # actions a rebuilt state is played on at most (Freeze Factory's games run to thousands)
FUZZED = 20  # nudged values per view (every seat's, at a few points): refused with ViewMismatch or shown exactly
NUDGED_PLAY_ON = 30  # random actions a state rebuilt from a nudged view is played on


def without_rng(state: GameState) -> Any:
    """The state's JSON but its RNG (which a rebuild always draws fresh)."""
    data = canon(state.to_json())
    data.pop("rng", None)
    return data


def check_rebuilt(game: Game, state: GameState, seat: int, rebuilt: GameState, sent: Any) -> None:
    """The rebuilt state shows the seat the same view, lets it do the same, and waits on the same seats."""
    assert canon(rebuilt.view(seat)) == sent, f"the state rebuilt from seat {seat}'s view shows it another view"
    assert rebuilt.players == state.players and rebuilt.options == state.options
    assert rebuilt.acting_seats() == state.acting_seats(), "the rebuilt state changed who acts"
    assert rebuilt.waiting_for() == state.waiting_for(), "the rebuilt state changed whom the game waits for"
    assert rebuilt.is_over() == state.is_over()
    assert canon(choices(rebuilt, seat)) == canon(choices(state, seat)), f"seat {seat}'s choices changed"


def play_on(state: GameState, rng: Rng) -> None:
    """Random legal actions through the checked path, to the end or for MAX_PLAY_ON actions."""
    for _ in range(MAX_PLAY_ON):
        if state.is_over():
            return
        seat = rng.choice(seats_with_actions(state))
        state.play(seat, state.sample_action(seat, rng))


def rebuild_everywhere(game: Game, players: int, options: dict[str, Any] | None, seed: str) -> bool:
    """Play one seeded game, rebuilding every seat's view at the deep steps; True if two rebuilds ever differed."""
    state, rng = game.start(players, options, seed), Rng.from_seed(f"moves:{seed}")
    differed, step = False, 0
    while True:
        if is_deep_step(step) or state.is_over():
            for seat in range(players):
                sent = canon(state.view(seat))
                first = game.state_from_view(sent, seat, players, options, Rng.from_seed(f"first:{seed}:{step}"))
                second = game.state_from_view(sent, seat, players, options, Rng.from_seed(f"second:{seed}:{step}"))
                for rebuilt in (first, second):
                    check_rebuilt(game, state, seat, rebuilt, sent)
                differed = differed or without_rng(first) != without_rng(second)
                if game.info.information == "perfect":
                    assert without_rng(first) == without_rng(state), "a view that shows everything rebuilt otherwise"
                play_on(first, Rng.from_seed(f"on:{seed}:{step}:{seat}"))
        if state.is_over():
            return differed
        seat = rng.choice(seats_with_actions(state))
        state.play(seat, state.sample_action(seat, rng))
        step += 1


@pytest.mark.parametrize(("game", "players"), CASES)
def test_a_state_rebuilt_from_a_view_agrees_with_it(game: Game, players: int) -> None:
    """Every seat's view, at many points of seeded playouts, rebuilds to a state it cannot tell from the true one."""
    differed = False
    named = [(options, index) for options in OPTION_SETS.get(game.info.id, []) for index in range(NAMED_PLAYOUTS)]
    for options, index in [*((None, index) for index in range(PLAYOUTS)), *named]:
        seed = f"from-view:{game.info.id}:{players}p:{index}:{options}"
        if options is None and index % 2:
            options = random_options(game, Rng.from_seed(f"options:{seed}"))
        try:
            differed = rebuild_everywhere(game, players, options, seed) or differed
        except Exception as error:
            raise AssertionError(f"seed {seed!r}, options {options!r}: {error}") from error
    hidden = game.info.information == "imperfect"
    if hidden:
        assert differed, "two rngs always rebuilt the same state: the unseen parts are not drawn at random"
    if not hidden:
        assert not differed, "a perfect-information game's view rebuilt to two different states"


# --- tampered views -----------------------------------------------------------------------------------------------


def mid_game(game: Game, players: int, steps: int = 9) -> GameState:
    """A seeded position a few actions in (or the end, for a short game)."""
    state, rng = game.start(players, None, f"tamper:{game.info.id}"), Rng.from_seed("tamper")
    for _ in range(steps):
        if state.is_over():
            break
        seat = rng.choice(seats_with_actions(state))
        state.play(seat, state.sample_action(seat, rng))
    return state


@pytest.mark.parametrize(("game", "players"), CASES)
def test_a_view_missing_a_key_is_refused(game: Game, players: int) -> None:
    """A view without one of its keys is not one the game shows: ViewMismatch, never a KeyError."""
    state = mid_game(game, players)
    for seat in range(players):
        view = canon(state.view(seat))
        for key in view:
            tampered = {name: value for name, value in view.items() if name != key}
            with pytest.raises(ViewMismatch):
                game.state_from_view(tampered, seat, players, None, Rng(1))


@pytest.mark.parametrize(("game", "players"), CASES)
def test_a_nudged_view_is_refused_or_shown_exactly(game: Game, players: int) -> None:
    """Any value of a view nudged (a count off by one, a list cut, a text changed) is refused with ViewMismatch,
    or rebuilds to a state showing exactly that view, whose rules then run: nothing else ever escapes."""
    rng = Rng.from_seed(f"fuzz:{game.info.id}:{players}")
    for steps in (0, 3, 9, 27):
        state = mid_game(game, players, steps)
        for seat in range(players):
            view = canon(state.view(seat))
            paths = [path for path in walk_paths(view) if path]
            for _ in range(FUZZED):
                path = rng.choice(paths)
                for value in _nudged(get_at(view, path)):
                    tampered = set_at(view, path, value)
                    try:
                        rebuilt = game.state_from_view(tampered, seat, players, None, Rng(2))
                    except ViewMismatch as refused:
                        assert refused.reason
                        continue
                    assert canon(rebuilt.view(seat)) == canon(tampered)
                    rules_run_on(rebuilt, rng)


def rules_run_on(state: GameState, rng: Rng) -> None:
    """Every seat's view and choices, and random legal actions through the checked path, raise nothing: a value
    the view check let through (it shows the seat exactly what it was sent) is one the rules can play with."""
    for seat in range(state.players):
        state.view(seat)
        choices(state, seat)
    state = state.clone()
    for _ in range(NUDGED_PLAY_ON):
        if state.is_over():
            return
        seat = rng.choice(seats_with_actions(state))
        state.play(seat, state.sample_action(seat, rng))


def walk_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path (keys and indexes) into nested JSON, the root's empty one included."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += walk_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += walk_paths(item, (*path, index))
    return found


def get_at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def set_at(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A deep copy of the JSON value with the item at the path replaced."""
    copied = copy.deepcopy(value)
    holder = get_at(copied, path[:-1])
    holder[path[-1]] = new
    return copied


Tamper = Callable[[dict[str, Any]], None]


def _icecream_scoop_twice(view: dict[str, Any]) -> None:
    view["cones"][0].append(view["cones"][1][-1])  # 'all four scoops of one flavor': there are four, no fifth


def _icecream_wrong_turn(view: dict[str, Any]) -> None:
    view["points_left"] = view["turn"] + 1  # 'they get X + 1 movement points': never more than the turn's


def _sundae_card_twice(view: dict[str, Any]) -> None:
    shown = [card for sundae in view["sundaes"] for card in sundae] + [c for p in view["piles"] for c in p["face_up"]]
    view["sundaes"][1].append(shown[0])  # each card is one card: 'take those cards and immediately reveal them'


def _sundae_deck_count(view: dict[str, Any]) -> None:
    view["deck_count"] += 1  # 'Remove a certain number of ingredient cards at random': the deck is what is left


def _sundae_removed_count(view: dict[str, Any]) -> None:
    view["removed_count"] -= 1  # '2 players: Remove 12 cards'
    view["deck_count"] += 1


def _rockem_extra_card(view: dict[str, Any]) -> None:
    view["corners"][0]["face_down"] += 1  # 'Each player starts with 5 Fight Cards'


def _rockem_wrong_flipper(view: dict[str, Any]) -> None:
    view["flipper"] = 1 - view["flipper"]  # 'Now the other player flips the Match Coin and play continues.'


def _freeze_cone_twice(view: dict[str, Any]) -> None:
    view["fulfilled"][1].append(view["hand"][0])  # 'Shuffle the 26 ice cream cones': each cone is one cone


def _freeze_pile_count(view: dict[str, Any]) -> None:
    view["pile_count"] += 1  # '2 players: remove 7 cones': the pile is what is neither removed nor dealt


def _freeze_flavour_twice(view: dict[str, Any]) -> None:
    row = next(row for row in view["board"] if None in row)
    row[row.index(None)] = next(name for row in view["board"] for name in row if name)  # 13 different flavour tiles


def _robots_card_too_often(view: dict[str, Any]) -> None:
    own = next(shown for shown in view["seats"] if shown["hand"])
    own["hand"] += [own["hand"][0]] * 30  # no ice cream card has thirty copies in the deck
    own["hand_count"] += 30


def _robots_ice_deck_count(view: dict[str, Any]) -> None:
    view["ice_cream_deck_count"] += 1


def _robots_robot_deck_count(view: dict[str, Any]) -> None:
    view["robot_deck_count"] -= 1  # 'shuffle the Robots cards': every robot is in the deck, on a planet or discarded


def _robots_unknown_spinston(view: dict[str, Any]) -> None:
    # '60 Robot Cards: 3 Spinston | 3 Spinston 2.0 | ...': a column's Spinston is one of those, or destroyed (None)
    next(column for column in view["columns"] if column["spinston"])["spinston"] += "?"


def _robots_attacks_not_a_count(view: dict[str, Any]) -> None:
    view["attacks_made"] = "one"  # 'players may perform two attacks instead of one': attacks are counted


def _robots_unknown_boost_discarded(view: dict[str, Any]) -> None:
    view["boost_discard"].append("free_ice_cream_forever")  # '27 Unique Boost Cards', and this is none of them


def _robots_pending_boost_of_another_kind(view: dict[str, Any]) -> None:
    view["pending_boost"] = []  # a Boost card, or none: 'a new Boost card is drawn to replace the purchased Boost card'


TAMPERED: dict[str, list[Tamper]] = {
    "icecream": [_icecream_scoop_twice, _icecream_wrong_turn],
    "sundae_split": [_sundae_card_twice, _sundae_deck_count, _sundae_removed_count],
    "rockem_sockem": [_rockem_extra_card, _rockem_wrong_flipper],
    "freeze_factory": [_freeze_cone_twice, _freeze_pile_count, _freeze_flavour_twice],
    "robots_love_ice_cream": [
        _robots_card_too_often,
        _robots_ice_deck_count,
        _robots_robot_deck_count,
        _robots_unknown_spinston,
        _robots_attacks_not_a_count,
        _robots_unknown_boost_discarded,
        _robots_pending_boost_of_another_kind,
    ],
}
"""Per game, views no state can show (a card twice, a count wrong): each must be refused with ViewMismatch."""


@pytest.mark.parametrize("game_id", sorted(TAMPERED))
def test_a_tampered_view_is_refused(game_id: str) -> None:
    game = get_game(game_id)
    assert game is not None
    players = game.info.min_players
    state = mid_game(game, players)
    for tamper in TAMPERED[game_id]:
        for seat in range(players):
            view = canon(state.view(seat))
            tamper(view)
            with pytest.raises(ViewMismatch):
                game.state_from_view(view, seat, players, None, Rng(3))
