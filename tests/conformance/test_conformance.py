"""Conformance: every registered game at every player count, through seeded random playouts.

Like OpenSpiel's generic simulation test: each playout checks the cheap invariants at every step
and the expensive ones (every action on a clone, JSON round trip, clone, views, determinization, log pages)
at steps 0, 1, 2, 4, 8, ... and at the end, then rebuilds the final state from seed and log.
A failure names the seed and step, so `play_out(game, players, index)` reproduces it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from engine import Action, Game, GameState, InvalidOptions, Result, Rng, all_games, get_game, has_action
from engine.protocol import action_text
from engine.rng import seed_to_state
from tests.conformance.checks import (
    Secrets,
    candidate_actions,
    canon,
    check_actions_apply,
    check_clone,
    check_default_actions,
    check_finished,
    check_json_round_trip,
    check_log_pages,
    check_redaction,
    check_refusals,
    check_result,
    check_running,
    check_turn_errors,
    check_views,
    random_options,
)
from tests.conformance.hidden import HIDDEN_PARTS, HiddenMoves

PLAYOUTS_PER_GAME = 2_000  # seeded playouts per game, shared among its player counts; half with random options
MIN_PLAYOUTS = 12  # at least this many playouts for each (game, player count) ...
STEPS_PER_CASE = 40_000  # ... then no new playout once this many actions were played
MAX_STEPS = 20_000  # actions in one playout before it counts as not terminating (when the game declares no bound)
STRANGERS = 48  # actions listed at earlier deep steps kept to offer other seats and states

RLIC_VARIANTS = [  # Robots Love Ice Cream's Challenge Variants A-F
    {"harder_robots": True},
    {"weaponized_sprinkletonium": True},
    {"all_red_spinstons": True},
    {"ice_cream_social": True},
    {"attack_twice": True},
    {"boost_limit": True},
]
OPTION_SETS: dict[str, list[dict[str, Any]]] = {
    "robots_love_ice_cream": [
        *RLIC_VARIANTS,
        {name: value for variant in RLIC_VARIANTS for name, value in variant.items()},  # all six combined
        {"open_hands": True, "stop_when_lost": True},
        {"solo_planets": "3"},
    ],
}
"""Named option sets (a game's variants) played at every player count, besides the random options."""
OPTION_PLAYOUTS = 3  # seeded playouts per named option set and player count

GAMES = [pytest.param(game, id=game.info.id) for game in all_games()]
CASES = [
    pytest.param(game, players, id=f"{game.info.id}-{players}p")
    for game in all_games()
    for players in range(game.info.min_players, game.info.max_players + 1)
]


OPTION_CASES = [
    pytest.param(
        game, players, options, id=f"{game.info.id}-{players}p-" + "-".join(f"{k}={v}" for k, v in options.items())
    )
    for game in all_games()
    for options in OPTION_SETS.get(game.info.id, [])
    for players in range(game.info.min_players, game.info.max_players + 1)
]


@dataclass
class Playout:
    """One seeded random game: what it was started with, the log, and where it got to."""

    game: Game
    players: int
    seed: str
    options: dict[str, Any] | None
    state: GameState
    log: list[tuple[int, Action]] = field(default_factory=list)
    hidden: HiddenMoves = field(default_factory=HiddenMoves)
    strangers: dict[str, Action] = field(default_factory=dict)
    """Actions listed at earlier deep steps, by their text: offered to other seats and states, they must be refused."""


def is_deep_step(step: int) -> bool:
    """Steps 0, 1, 2, 4, 8, ... get the expensive checks."""
    return step & (step - 1) == 0


def deep_check(playout: Playout, secrets: Secrets, rng: Rng) -> None:
    """Everything the protocol promises about a running state."""
    game, state = playout.game, playout.state
    check_running(state)
    check_json_round_trip(game, state)
    check_clone(state, rng)
    check_views(game, state, secrets, rng, playout.hidden)
    some_action: Action = {}
    listed = {seat: candidate_actions(state, seat, rng) for seat in state.acting_seats()}
    for seat, actions in listed.items():
        check_actions_apply(state, seat, actions)
        if actions:
            some_action = some_action or actions[0]
    strangers = [*playout.strangers.values(), *(action for actions in listed.values() for action in actions)]
    for seat in listed:
        check_refusals(state, seat, strangers, rng)
    for actions in listed.values():
        playout.strangers.update((action_text(action), action) for action in actions)
    while len(playout.strangers) > STRANGERS:
        del playout.strangers[next(iter(playout.strangers))]  # the oldest go first
    check_turn_errors(state, some_action)
    assert state.rewards() == [0.0] * state.players, "a running game has rewards"


def play_out(game: Game, players: int, index: int, named: dict[str, Any] | None = None) -> Playout:
    """Play seeded random actions through the checked path to the end, checking as it goes.

    Without `named` options, half the playouts use the defaults and half random options.
    """
    seed = f"conformance:{game.info.id}:{players}p:{index}"
    choices, checks = Rng.from_seed(f"choices:{seed}"), Rng.from_seed(f"checks:{seed}")
    pages = Rng.from_seed(f"pages:{seed}")
    options = named if named is not None else None if index % 2 == 0 else random_options(game, choices)
    playout = Playout(game, players, seed, options, game.start(players, options, seed))
    secrets = Secrets(seed, {seed_to_state(seed)})
    state, step = playout.state, 0
    try:
        while not state.is_over():
            assert step < MAX_STEPS, f"no end after {MAX_STEPS} actions"
            check_running(state)
            check_default_actions(state)
            seat = choices.choice(seats_with_actions(state))
            action = canon(state.sample_action(seat, choices))
            if is_deep_step(step):
                deep_check(playout, secrets, checks)
                check_redaction(state, seat, action, secrets)
                check_log_pages(state, playout.log, pages)
            state.play(seat, action)
            playout.log.append((seat, action))
            step += 1
        check_finished(game, state, playout.log[-1][1] if playout.log else {})
        check_length(playout)
        check_json_round_trip(game, state)
        check_clone(state, checks)
        check_views(game, state, secrets, checks, playout.hidden)
        check_replay(playout)
    except Exception as error:
        raise AssertionError(f"playout seed {seed!r}, options {options!r}, step {step}: {error}") from error
    return playout


def seats_with_actions(state: GameState) -> list[int]:
    """Acting seats that have something to do; every seat the game waits for must be one."""
    seats = [seat for seat in state.acting_seats() if has_action(state, seat)]
    assert set(state.waiting_for()) <= set(seats), f"a seat the game waits for has no action: {state.waiting_for()}"
    return seats


def check_length(playout: Playout) -> None:
    """No playout is longer than the game declares a match of its player count and options can be."""
    bound = playout.game.max_game_length(playout.players, playout.state.options)
    overall = playout.game.info.max_game_length
    assert bound is None or len(playout.log) <= bound, f"{len(playout.log)} actions, over the declared {bound}"
    assert overall is None or (bound is not None and bound <= overall), f"bound {bound} above info's {overall}"


def check_replay(playout: Playout) -> None:
    """game.replay from the seed and the log rebuilds the final state exactly."""
    again = playout.game.replay(playout.players, playout.options, playout.seed, playout.log)
    assert canon(again.to_json()) == canon(playout.state.to_json()), "replay from seed and log differs"
    assert again.result() == playout.state.result()


# --- the tests --------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_catalog_entry(game: Game) -> None:
    """The registry finds the game by id; its info is sane JSON and its defaults are valid options."""
    info = game.info
    assert get_game(info.id) is game
    assert 1 <= info.min_players <= info.max_players
    assert canon(info.to_json())["id"] == info.id
    defaults = info.options.resolve(None)
    assert defaults == {spec.name: spec.default for spec in info.options.specs}
    assert len({a.id for a in info.assumptions}) == len(info.assumptions), "assumption ids repeat"


@pytest.mark.parametrize("game", GAMES)
def test_declared_bounds(game: Game) -> None:
    """Utility bounds hold the results a game can end with by other means; lengths are positive and consistent."""
    info = game.info
    assert info.min_utility <= info.max_utility
    for players in range(info.min_players, info.max_players + 1):
        ended = [Result.gave_up(players)] if info.cooperative else [Result.resignation(players, 0)]
        for result in ended:
            check_result(game, players, result)
        bound = game.max_game_length(players, info.options.resolve(None))
        assert bound is None or bound >= 1
        if info.max_game_length is not None:
            assert bound is not None and bound <= info.max_game_length, f"{players}p bound {bound} above the info's"


@pytest.mark.parametrize("game", GAMES)
def test_hidden_parts_are_declared(game: Game) -> None:
    """A game with hidden information says what it hides, so the suite can see determinize deal it."""
    assert (game.info.information == "imperfect") == (game.info.id in HIDDEN_PARTS), (
        "add the game's hidden parts to tests/conformance/hidden.py (or remove a perfect-information game's)"
    )


@pytest.mark.parametrize("game", GAMES)
def test_wrong_player_counts_are_refused(game: Game) -> None:
    for players in (game.info.min_players - 1, game.info.max_players + 1):
        with pytest.raises(InvalidOptions) as refused:
            game.start(players, None, "x")
        assert refused.value.field == "players"


@pytest.mark.parametrize(("game", "players"), CASES)
def test_start_depends_only_on_the_seed(game: Game, players: int) -> None:
    """Same seed, same start; the start holds the player count and the resolved options."""
    state = game.start(players, None, "start")
    assert type(state).game_id == game.info.id
    assert state.players == players
    assert state.options == game.info.options.resolve(None)
    assert canon(state.to_json()) == canon(game.start(players, None, "start").to_json())
    assert canon(state.to_json()) == canon(game.replay(players, None, "start", []).to_json())


@pytest.mark.parametrize(("game", "players"), CASES)
def test_random_playouts(game: Game, players: int) -> None:
    """Seeded random playouts keep every promise of the protocol, step after step, to the end."""
    playouts = PLAYOUTS_PER_GAME // (game.info.max_players - game.info.min_players + 1)
    steps, hidden = 0, HiddenMoves()
    for index in range(playouts):
        if index >= MIN_PLAYOUTS and steps > STEPS_PER_CASE:
            break  # long games (Freeze Factory's run to thousands of steps) stop at a step budget
        playout = play_out(game, players, index)
        assert playout.state.is_over()
        steps += len(playout.log)
        hidden.update(playout.hidden)
    hidden.assert_every_part_moved(game)


@pytest.mark.parametrize(("game", "players", "options"), OPTION_CASES)
def test_named_option_sets(game: Game, players: int, options: dict[str, Any]) -> None:
    """A game's named option sets (its variants) keep every promise of the protocol too."""
    for index in range(OPTION_PLAYOUTS):
        assert play_out(game, players, index, options).state.is_over()


@pytest.mark.parametrize(("game", "players"), CASES)
def test_determinization_ignores_what_the_viewer_cannot_see(game: Game, players: int) -> None:
    """Two states a seat cannot tell apart give that seat the same sample for the same seed (fair AI)."""
    for index in range(20):
        state, rng = game.start(players, None, f"fair:{index}"), Rng.from_seed(f"steps:{index}")
        for _ in range(index * 3):  # some mid-game positions too
            if state.is_over():
                break
            seat = rng.choice(seats_with_actions(state))
            state.play(seat, state.sample_action(seat, rng))
        if state.is_over():
            continue
        for viewer in (None, *range(players)):
            twin = state.determinize(viewer, Rng.from_seed(f"twin:{index}"))  # same view, hidden parts moved
            first = state.determinize(viewer, Rng.from_seed("sample")).to_json()
            second = twin.determinize(viewer, Rng.from_seed("sample")).to_json()
            assert canon(first) == canon(second), f"{viewer}'s sample depends on hidden information"
