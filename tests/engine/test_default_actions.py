"""Turn timers: each game's default action for a seat whose time ran out, on known positions.

Each test quotes the rulebook sentence that makes the default legal (the rulebooks say nothing of
timeouts, so the choice itself is the game's `timeout-default-action` assumption, checked to be in
the catalog). The conformance suite checks the default of every waited-for seat at every step of
its playouts; these tests pin what the default is.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import Game, GameState, Rng, all_games, get_game
from engine.freeze_factory.game import MOVE, ROLL, FreezeFactoryState
from engine.icecream.game import IceCreamState
from engine.robots_love_ice_cream import phases
from engine.robots_love_ice_cream.state import RobotsState
from engine.rockem_sockem.game import RockemSockemState
from engine.sundae_split.game import CHOOSE, SPLIT, SundaeSplitState


def start(game_id: str, players: int, options: dict[str, Any] | None = None, seed: str = "timer") -> GameState:
    """A new state of a registered game."""
    game = get_game(game_id)
    assert game is not None
    return game.start(players, options, seed)


def play_default(state: GameState, seat: int) -> dict[str, Any]:
    """Play the seat's default action through the checked path; the action played."""
    action = state.default_action(seat)
    state.play(seat, action)
    return action


@pytest.mark.parametrize("game", all_games(), ids=lambda game: game.info.id)
def test_the_catalog_records_the_default_action(game: Game) -> None:
    """The rulebooks are silent on timeouts, so every game lists its choice as an assumption."""
    ids = [assumption.id for assumption in game.info.assumptions]
    assert "timeout-default-action" in ids


# --- IceCream ---------------------------------------------------------------------------------


def test_icecream_burns_a_point_with_one_scoop_from_the_fuller_cone() -> None:
    """'A single movement point can be spent to move the top scoop of one cone to the top of the other cone.'"""
    state = start("icecream", 2)
    assert isinstance(state, IceCreamState)
    assert play_default(state, 0) == {"type": "move", "from_cone": 0, "scoops": 1}  # 5 and 5 movable: cone 0
    assert state.to_move == 1 and state.points_left == 2
    # 'It is completely legal to move one piece or stack back and forth to burn movement points.'
    assert play_default(state, 1) == {"type": "move", "from_cone": 1, "scoops": 1}
    assert play_default(state, 1) == {"type": "move", "from_cone": 0, "scoops": 1}
    assert state.cones == ["RYGRY", "RGYRGYG"]


# --- Freeze Factory ---------------------------------------------------------------------------


def test_freeze_factory_does_not_roll_then_ends_the_turn() -> None:
    """'You decide whether or not to roll the die'; 'If you do not roll the die, you have exactly 3 movement points'."""
    state = start("freeze_factory", 3)
    assert isinstance(state, FreezeFactoryState) and state.phase == ROLL
    board = list(state.board)
    assert play_default(state, 0) == {"type": "no_roll"}
    assert (state.phase, state.points_left) == (MOVE, 3)
    assert play_default(state, 0) == {"type": "end_turn"}
    assert (state.active, state.phase, state.board) == (1, ROLL, board)


def test_freeze_factory_default_is_legal_while_another_seat_may_call_freeze() -> None:
    """'If another player, during their turn, forms a ... line ... call out loudly FREEZE!': the turn goes on."""
    rng = Rng.from_seed("claims")
    for game_seed in range(200):
        state = start("freeze_factory", 4, seed=f"claims-{game_seed}")
        assert isinstance(state, FreezeFactoryState)
        while not state.is_over() and state.turn < 60:
            claimants = [seat for seat in range(4) if seat != state.active and state.claimable(seat)]
            if claimants:
                active = state.active
                assert state.waiting_for() == (active,)
                assert state.default_action(active)["type"] in ("no_roll", "end_turn")
                play_default(state, active)
                return
            state.play(state.active, state.sample_action(state.active, rng))
    pytest.fail("no seeded game reached a FREEZE! claim window")


# --- Rock'em Sock'em --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["rounds", "realtime"])
def test_rockem_sockem_flips_then_rerolls_every_die(mode: str) -> None:
    """'one player will flip the Match Coin'; 'Both players roll and re-roll all of their dice'."""
    state = start("rockem_sockem", 2, {"mode": mode})
    assert isinstance(state, RockemSockemState)
    assert play_default(state, state.flipper) == {"type": "flip"}
    assert state.waiting_for() == (0, 1)
    assert play_default(state, 0) == {"type": "roll", "keep": []}
    if mode == "rounds":
        assert state.waiting_for() == (1,)  # seat 0's keep is in: only seat 1 is waited for
    assert play_default(state, 1) == {"type": "roll", "keep": []}
    if not state.is_over() and state.phase != "flip":
        assert state.default_action(0) == {"type": "roll", "keep": []}  # dice rolled: still keeps none


# --- Sundae Split -----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_sundae_split_makes_the_example_split_and_takes_the_first_open_pile(players: int) -> None:
    """'There must be one pile per player'; 'each player chooses one of the piles' (no pass in either phase)."""
    state = start("sundae_split", players)
    assert isinstance(state, SundaeSplitState) and state.phase == SPLIT
    splitter = state.splitter
    hand = list(state.hand)
    example = state.action_space(splitter)["example"]  # the split legal-actions shows as its example
    action = play_default(state, splitter)
    assert action == example
    assert sorted(card for pile in action["piles"] for card in pile["face_up"] + pile["face_down"]) == sorted(hand)
    assert state.phase == CHOOSE
    chooser = state.chooser
    assert chooser is not None
    assert play_default(state, chooser) == {"type": "choose", "pile": 0}
    if state.phase == CHOOSE and state.chooser is not None:
        assert play_default(state, state.chooser) == {"type": "choose", "pile": 1}


# --- Robots Love Ice Cream --------------------------------------------------------------------

RLIC_DEFAULTS = {
    (phases.PLAYER, phases.DRAW_UP): "decline_draw_up",
    (phases.PLAYER, phases.KEEP): "keep_drawn",
    (phases.PLAYER, phases.ACT): "end_turn",
    (phases.STORE, ""): "stop_buying",
    (phases.EQUIP, ""): "equip_upgrades",
    (phases.SOCIAL, ""): "share_social_randomly",
}


def rlic_step(state: RobotsState) -> tuple[str, str]:
    """The phase and, in the player phase, the step."""
    return (state.phase, state.step if state.phase == phases.PLAYER else "")


def test_robots_love_ice_cream_passes_wherever_the_step_allows() -> None:
    """'may draw up to 7', 'may choose to spend', '... to purchase', '... to equip', 'randomly distributed'."""
    seen: set[tuple[str, str]] = set()
    rng = Rng.from_seed("rlic-defaults")
    for game_seed in range(6):
        state = start("robots_love_ice_cream", 2, {"ice_cream_social": True}, seed=f"rlic-{game_seed}")
        assert isinstance(state, RobotsState)
        while not state.is_over():
            seat = state.waiting_for()[0]
            expected = (
                "resolve_bought_boost"
                if state.phase == phases.STORE and state.pending
                else RLIC_DEFAULTS[rlic_step(state)]
            )
            default = state.default_action(seat)
            assert default["type"] == expected
            if rlic_step(state) == (phases.EQUIP, ""):
                assert default["upgrades"] == sorted(state.equipped[seat])  # the truck stays as it is
            if rlic_step(state) == (phases.PLAYER, phases.KEEP):
                assert default == state.legal_actions(seat)[0]  # 'choose 1 to discard': the first in card order
            state.clone().play(seat, default)
            seen.add(rlic_step(state))
            state.play(seat, state.sample_action(seat, rng))
    assert {(phases.PLAYER, phases.KEEP), (phases.PLAYER, phases.ACT), (phases.STORE, ""), (phases.EQUIP, "")} <= seen
    assert (phases.SOCIAL, "") in seen


def test_robots_love_ice_cream_ends_when_every_seat_times_out() -> None:
    """With only default actions nobody attacks, the Spinstons capture the tokens, and the game still ends.

    Nobody collects a token or Sprinkletonium, so from the 3rd planet every turn starts with the
    catch-up draw ('Players who have zero Ice Cream tokens and zero Sprinkletonium may draw up to
    7 cards'), which the default declines.
    """
    state = start("robots_love_ice_cream", 3)
    played: list[str] = []
    for _ in range(5_000):
        if state.is_over():
            break
        played.append(play_default(state, state.waiting_for()[0])["type"])
    result = state.result()
    assert result is not None and result.to_json()["team_success"] is False
    assert {"decline_draw_up", "keep_drawn", "end_turn"} <= set(played)
