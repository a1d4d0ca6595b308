"""The engines parlour-bot ships: RandomEngine and SplitEngine build splits the rules accept, SplitEngine's piles
are even, LocalAI plays the AI levels' moves from a seat's view (and says how to install them when it cannot)."""

from __future__ import annotations

import importlib
import json
import random
from typing import Any, cast

import pytest
from parlour_bot.engines import EngineError, LocalAI, RandomEngine, SplitEngine
from parlour_bot.local_ai import LocalLevel
from parlour_bot.splits import balanced_split, random_split
from parlour_client import LegalActions

from engine.protocol import GameState
from engine.registry import get_game
from engine.rng import Rng
from engine.sundae_split.cards import CARD_BY_ID


def canon(view: Any) -> Any:
    """The view as the server sends it: through JSON."""
    return json.loads(json.dumps(view))


def legal_of(state: GameState, seat: int) -> LegalActions:
    """What `GET .../legal-actions` answers for the seat (its version aside)."""
    space = state.action_space(seat)
    legal = {"version": 0, "seat": seat, "may_act": True, **space}
    if space["kind"] == "enumerated":
        legal["actions"] = state.legal_actions(seat)
    return cast(LegalActions, legal)


def positions(
    game_id: str, players: int, seed: int, options: dict[str, Any] | None = None
) -> list[tuple[GameState, int]]:
    """Every (state, seat the game waits for) of one random play-out."""
    game = get_game(game_id)
    assert game is not None
    state, rng, seen = game.start(players, options or {}, seed), Rng(seed), []
    while not state.is_over():
        seat = state.waiting_for()[0]
        seen.append((state.clone(), seat))
        state.apply_trusted(seat, state.sample_action(seat, rng))
    return seen


@pytest.mark.parametrize("players", [2, 3, 5])
def test_random_and_balanced_splits_follow_the_constraints(players: int) -> None:
    rng = random.Random(players)
    splits = 0
    for state, seat in positions("sundae_split", players, players):
        legal = legal_of(state, seat)
        if legal["kind"] != "constructed":
            continue
        view: dict[str, Any] = state.view(seat)
        for action in (
            random_split(legal, rng),
            balanced_split(legal, lambda card: float(CARD_BY_ID[card].points or 1)),
            RandomEngine(1).choose("sundae_split", view, legal),
            SplitEngine(1).choose("sundae_split", view, legal),
        ):
            state.check_action(seat, action)
            splits += 1
        sizes = [
            len(pile["face_up"]) + len(pile["face_down"]) for pile in balanced_split(legal, lambda _: 1.0)["piles"]
        ]
        assert max(sizes) - min(sizes) <= 1
    assert splits > 0


def test_split_engine_chooses_an_open_pile() -> None:
    engine = SplitEngine(2)
    for state, seat in positions("sundae_split", 3, 9):
        legal = legal_of(state, seat)
        action = engine.choose("sundae_split", state.view(seat), legal)
        state.check_action(seat, action)


EVERY_GAME = [
    ("icecream", 2, {"first_player_flavour": "green", "turn_limit": 30}),
    ("sundae_split", 3, {}),
    ("rockem_sockem", 2, {"mode": "realtime"}),
    ("freeze_factory", 3, {"starting_hand": 2, "fulfil_any_line": True}),
    ("robots_love_ice_cream", 2, {"ice_cream_social": True}),
]
"""A game of each kind, with options a view does not (all) show: the match's, which LocalLevel is given."""


@pytest.mark.parametrize(("game", "players", "options"), EVERY_GAME)
def test_local_ai_plays_a_legal_move_from_each_seat_view(game: str, players: int, options: dict[str, Any]) -> None:
    """The level's move from a state the engine rebuilds from the seat's view, the match's players and options."""
    local = LocalLevel("easy", seed=3, time_cap=0.05)
    for state, seat in positions(game, players, 4, options)[:60:6]:
        action = local.choose(game, canon(state.view(seat)), seat, players, options)
        assert action is not None, f"{game}: the view did not rebuild"
        state.check_action(seat, action)


@pytest.mark.parametrize(("game", "players", "options"), EVERY_GAME)
def test_local_ai_plays_from_the_match_json(game: str, players: int, options: dict[str, Any]) -> None:
    """The match JSON a seat gets holds its view and the match's players and (resolved) options: enough to rebuild."""
    local, rules = LocalLevel("easy", seed=4, time_cap=0.05), get_game(game)
    assert rules is not None
    for state, seat in positions(game, players, 7, options)[:40:8]:
        match = {"game": game, "players": players, "options": state.options, "view": canon(state.view(seat))}
        action = local.choose_in_match(match, seat)
        assert action is not None
        state.check_action(seat, action)


@pytest.mark.parametrize(("game", "players"), [(game, players) for game, players, _ in EVERY_GAME])
def test_local_ai_rebuilds_from_the_view_alone_with_the_default_options(game: str, players: int) -> None:
    """The engine plug-in sees only (game, view, legal): the player count is found from the view."""
    engine = LocalAI(level="easy", seed=5, time_cap=0.05)
    for state, seat in positions(game, players, 6)[:30:5]:
        assert engine.local.choose(game, canon(state.view(seat)), seat) is not None
        state.check_action(seat, engine.choose(game, canon(state.view(seat)), legal_of(state, seat)))


def test_local_ai_plays_random_from_a_view_no_position_shows_and_says_how_to_install_the_ai(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state, seat = positions("rockem_sockem", 2, 1)[2]
    view = canon(state.view(seat))
    view["corners"][0]["face_down"] += 1  # a sixth Fight Card
    assert LocalLevel("random", seed=1, time_cap=None).choose("rockem_sockem", view, seat, 2, {}) is None
    state.check_action(seat, LocalAI(level="random").choose("rockem_sockem", view, legal_of(state, seat)))
    with pytest.raises(EngineError, match="unknown level"):
        LocalAI(level="grandmaster")

    def missing(name: str) -> Any:
        raise ModuleNotFoundError(f"No module named {name.split('.')[0]!r}")

    monkeypatch.setattr(importlib, "import_module", missing)
    with pytest.raises(EngineError, match="pip install /path/to/parlour"):
        LocalAI()
