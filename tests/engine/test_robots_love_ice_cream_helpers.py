"""Robots Love Ice Cream: hand-built positions shared by the rules tests (and a check of the builders).

A position starts from a real seeded start, then the test lays out exactly what it needs: a
planet, hands, Sprinkletonium, Boosts in play, whose turn it is. Cards are named by their data
ids so the tests hold for whatever counts the data gives.
"""

from __future__ import annotations

import json
from typing import Any

from engine import Rng, get_game
from engine.robots_love_ice_cream import phases
from engine.robots_love_ice_cream.game import OPTIONS, RobotsLoveIceCream
from engine.robots_love_ice_cream.planet import Column
from engine.robots_love_ice_cream.state import RobotsState


def registered_game() -> RobotsLoveIceCream:
    """The game object from the registry."""
    game = get_game("robots_love_ice_cream")
    assert isinstance(game, RobotsLoveIceCream)
    return game


GAME = registered_game()


def start(players: int = 2, options: dict[str, Any] | None = None, seed: str | int = "rules") -> RobotsState:
    """A new game through the checked entry point."""
    state = GAME.start(players, options, seed)
    assert isinstance(state, RobotsState)
    return state


def table(players: int = 2, options: dict[str, Any] | None = None, seed: str | int = "table") -> RobotsState:
    """A started game with empty hands, no Boosts and no Sprinkletonium: a blank position to lay out."""
    state = start(players, options, seed)
    state.hands = [[] for _ in range(players)]
    state.weaponized = [0] * players
    state.drawn = []
    state.events = []
    return state


def planet(state: RobotsState, *columns: tuple[str | None, list[str | None]], fourth: bool = False) -> None:
    """Lay out the planet: (Spinston id or None, robots on levels 1, 2, ...) per column; one token per Spinston."""
    state.columns = [
        Column(spinston, [*robots, *([None] * (4 - len(robots)))], fourth and state.players == 4)
        for spinston, robots in columns
    ]
    state.place_tokens(sum(1 for spinston, _ in columns if spinston))


def turn(state: RobotsState, seat: int, hand: list[str] | None = None) -> None:
    """Make it the seat's turn, after its draw step (the act step), with this hand."""
    state.phase, state.step = phases.PLAYER, phases.ACT
    state.queue = [(seat + step) % state.players for step in range(state.players)]
    state.first_player = seat
    state.attacks, state.extras, state.drawn = 0, [], []
    if hand is not None:
        state.hands[seat] = sorted(hand)


def attack(column: int, cards: list[str], upgrade: str | None = None) -> dict[str, Any]:
    """The canonical attack action."""
    return {"type": "attack", "column": column, "cards": sorted(cards), "upgrade": upgrade}


def attacks_listed(state: RobotsState, seat: int) -> list[dict[str, Any]]:
    """The attacks among the seat's legal actions."""
    return [a for a in state.legal_actions(seat) if a["type"] == "attack"]


def play_randomly(state: RobotsState, seed: str) -> list[tuple[int, dict[str, Any]]]:
    """Finish the game with random legal actions through the checked path; the log."""
    rng = Rng.from_seed(seed)
    log = []
    while not state.is_over():
        seat = state.acting_seats()[0]
        action = state.sample_action(seat, rng)
        state.play(seat, action)
        log.append((seat, action))
    return log


def test_builders_make_a_running_position() -> None:
    state = table(3)
    planet(state, ("blue_spinston", ["lil_chip"]), ("green_spinston", []))
    turn(state, 1, ["funday"])
    assert state.acting_seats() == (1,)
    assert state.target(0) == (1, state.robot(0, 1)) and state.target(1) == (0, state.robot(1, 0))
    assert state.track_levels == [0, 0, 2] and state.options == OPTIONS.resolve(None)
    assert {"type": "end_turn"} in state.legal_actions(1)


def test_to_json_is_a_copy_the_state_s_next_moves_do_not_change() -> None:
    state = start(2)
    stored = state.to_json()
    before = json.dumps(stored, sort_keys=True)
    state.hands[0].append("mint")
    state.ice_deck.append("mint")
    state.spares[0].append("upgrade")
    state.queue.reverse()
    assert json.dumps(stored, sort_keys=True) == before
