"""The engines parlour-bot ships: RandomEngine and SplitEngine build splits the rules accept, SplitEngine's piles
are even, LocalAI plays the AI levels' moves from a seat's view (and says how to install them when it cannot)."""

from __future__ import annotations

import importlib
import random
from typing import Any, cast

import pytest
from parlour_bot.engines import EngineError, LocalAI, RandomEngine, SplitEngine
from parlour_bot.splits import balanced_split, random_split
from parlour_client import LegalActions

from engine.protocol import GameState
from engine.registry import get_game
from engine.rng import Rng
from engine.sundae_split.cards import CARD_BY_ID


def legal_of(state: GameState, seat: int) -> LegalActions:
    """What `GET .../legal-actions` answers for the seat (its version aside)."""
    space = state.action_space(seat)
    legal = {"version": 0, "seat": seat, "may_act": True, **space}
    if space["kind"] == "enumerated":
        legal["actions"] = state.legal_actions(seat)
    return cast(LegalActions, legal)


def positions(game_id: str, players: int, seed: int) -> list[tuple[GameState, int]]:
    """Every (state, acting seat) of one random play-out."""
    game = get_game(game_id)
    assert game is not None
    state, rng, seen = game.start(players, {}, seed), Rng(seed), []
    while not state.is_over():
        seat = state.acting_seats()[0]
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


@pytest.mark.parametrize(("game", "players"), [("icecream", 2), ("sundae_split", 3)])
def test_local_ai_plays_a_legal_move_from_each_seat_view(game: str, players: int) -> None:
    engine = LocalAI(level="easy", seed=3, time_cap=0.05)
    for state, seat in positions(game, players, 4)[::5]:
        action = engine.choose(game, state.view(seat), legal_of(state, seat))
        state.check_action(seat, action)


def test_local_ai_plays_random_in_a_game_it_cannot_rebuild_and_says_how_to_install_the_ai(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state, seat = positions("rockem_sockem", 2, 1)[0]
    state.check_action(seat, LocalAI(level="random").choose("rockem_sockem", state.view(seat), legal_of(state, seat)))
    with pytest.raises(EngineError, match="unknown level"):
        LocalAI(level="grandmaster")

    def missing(name: str) -> Any:
        raise ModuleNotFoundError(f"No module named {name.split('.')[0]!r}")

    monkeypatch.setattr(importlib, "import_module", missing)
    with pytest.raises(EngineError, match="pip install /path/to/parlour"):
        LocalAI()
