"""Robots Love Ice Cream: what a front end needs (issue 18, item 6): the cards in the catalog, views naming
them by id, one direction for levels, action names that say what they do, and which actions end the turn.

Rulebook sentences are quoted from /work/shared/rules/robots-love-ice-cream.txt.
"""

from __future__ import annotations

import re

import pytest

from engine import IllegalAction, Rng
from engine.robots_love_ice_cream import phases
from engine.robots_love_ice_cream.actions import STEP_TYPES, TURN_ENDERS
from engine.robots_love_ice_cream.data import DATA
from engine.robots_love_ice_cream.effects import ROBOT_ABILITIES, RobotPhase
from engine.robots_love_ice_cream.game import INFO
from engine.robots_love_ice_cream.state import RobotsState
from tests.engine.test_robots_love_ice_cream_helpers import attack, planet, start, table, turn

CARDS = {card["id"]: card for card in INFO.to_json()["cards"]}


# --- the cards in the catalog --------------------------------------------------------------------


def test_the_catalog_lists_every_card_with_its_title_type_and_text() -> None:
    """'Each boost card shows a title, a description, a boost type, and a price in Sprinkletonium.' 'Each robot card
    shows: Defense Value ... Sprinkletonium Reward ... Robot Name ... Attack Description'."""
    assert set(CARDS) == {*DATA.ice_cream, "sprinkletonium", *DATA.spinstons, *DATA.robots, *DATA.boosts}
    for boost in DATA.boosts.values():
        card = CARDS[boost.id]
        assert (card["title"], card["type"], card["price"], card["text"]) == (
            boost.title,
            boost.type,
            boost.price,
            boost.text,
        )
    for robot in [*DATA.spinstons.values(), *DATA.robots.values()]:
        card = CARDS[robot.id]
        assert (card["title"], card["defense"], card["reward"], card["text"]) == (
            robot.name,
            robot.defense,
            robot.reward,
            robot.text,
        )
    assert CARDS["brain_freeze"]["type"] == "wild" and CARDS["funday"]["type"] == "matching"
    assert CARDS["sprinkletonium"]["type"] == "wild"  # Variant B: 'behaves identically to a Brain Freeze card'


def test_printed_cards_stay_exactly_as_printed() -> None:
    """The rulebook's example cards: 'Power Pack (Truck Upgrade, price 5): Add 1 to any attack value against a robot
    with a defense of 3 or more. Works with any Weaponized Ice Cream type.' 'Free Sample (Game Effect, price 3): Take
    one random Weaponized Ice Cream card from any player. Effect may only be used once per planet.' 'Spinston has a
    defense value of 4 and a Sprinkletonium reward of 3. Its attack description reads: move an Ice Cream token up one
    level.'"""
    power_pack, free_sample, spinston = CARDS["power_pack"], CARDS["free_sample"], CARDS["blue_spinston"]
    assert (power_pack["type"], power_pack["price"], power_pack["assumed"]) == ("upgrade", 5, False)
    assert power_pack["text"] == (
        "Add 1 to any attack value against a robot with a defense of 3 or more. "
        "Works with any Weaponized Ice Cream type."
    )
    assert (free_sample["type"], free_sample["price"], free_sample["assumed"]) == ("effect", 3, False)
    assert free_sample["text"] == (
        "Take one random Weaponized Ice Cream card from any player. Effect may only be used once per planet."
    )
    assert (spinston["defense"], spinston["reward"], spinston["assumed"]) == (4, 3, False)
    assert spinston["text"] == "Move an Ice Cream token up one level."
    assert CARDS["lil_chip"]["defense"] == 1  # 'Lil Chip (defense 1)'


def test_every_invented_card_is_an_assumption_with_a_reason() -> None:
    """NOTES.md: an unknown value is put 'in that game's data, mark[ed] as an assumption with a one-line reason'."""
    reasons = {assumption.id: assumption.reason for assumption in INFO.assumptions}
    for card in CARDS.values():
        key = f"{card['deck']}:{card['id']}"
        assert card["assumed"] == (key in reasons), key
        assert not card["assumed"] or "\n" not in reasons[key]


def test_views_name_cards_by_id_and_every_id_is_in_the_catalog() -> None:
    state = start(2, {"weaponized_sprinkletonium": True}, seed="ids")
    rng = Rng.from_seed("ids")
    named: set[str] = set()
    while not state.is_over():
        view = state.view(None if state.planet % 2 else 0)
        for column in view["columns"]:
            assert column["spinston"] is None or isinstance(column["spinston"], str)
            named |= {robot for robot in (column["spinston"], *column["robots"]) if robot}
        named |= {*view["store_row"], *view["robot_discard"], *view["ice_cream_discard"], *view["boost_discard"]}
        named |= {card for seat in view["seats"] for card in (*(seat["hand"] or []), *seat["equipped"])}
        seat = state.acting_seats()[0]
        state.play(seat, state.sample_action(seat, rng))
    assert named <= set(CARDS) and {"power_pack", "lil_chip", "funday"} & named


def test_events_name_cards_by_title_in_words() -> None:
    """What the last action set off is for people: titles, no Python lists or ids."""
    state = start(3, {"ice_cream_social": True}, seed="events")
    rng = Rng.from_seed("events")
    while not state.is_over():
        for event in state.view(None)["events"]:
            assert not re.search(r"[\[\]']|None|_", event), event
        seat = state.acting_seats()[0]
        state.play(seat, state.sample_action(seat, rng))


# --- one direction for levels -------------------------------------------------------------------


def test_levels_count_down_from_the_top_on_the_planet_and_on_the_track() -> None:
    """'Place Ice Cream victory tokens ... onto the card at the bottom of the Spinston Beam Track': level 3, the last
    of `track_levels`; 'Move an Ice Cream token up one level': to level 2. On the planet, 'The lowest row (4th level)'
    is the last of `robots` and the Spinston atop is level 0, as above the track is."""
    state = table(4)
    planet(state, ("blue_spinston", ["lil_chip", None, None, "pewboty"]), fourth=True)
    seen = state.view(None)
    assert seen["track_levels"] == [0, 0, 1] and seen["above_track"] == 0
    column = seen["columns"][0]
    assert column["robots"][0] == "lil_chip" and column["robots"][3] == "pewboty" and column["target_level"] == 4
    params = DATA.spinstons["blue_spinston"].ability.params
    ROBOT_ABILITIES["advance_ice_cream"](state, RobotPhase(), 0, 0, params)
    assert state.view(None)["track_levels"] == [0, 1, 0]
    for _ in range(2):
        ROBOT_ABILITIES["advance_ice_cream"](state, RobotPhase(), 0, 0, params)
    assert state.view(None)["track_levels"] == [0, 0, 0] and state.view(None)["above_track"] == 1


# --- action names and the end of the turn ----------------------------------------------------------


def test_each_boost_action_says_which_use_it_is() -> None:
    """Using a Boost in play on your turn and resolving the Boost just bought are two actions: neither is taken in
    the other's step. 'Any play immediately effects are resolved at the time of purchase.'"""
    assert "use_boost_in_play" in STEP_TYPES[phases.ACT] and "resolve_bought_boost" not in STEP_TYPES[phases.ACT]
    assert "resolve_bought_boost" in STEP_TYPES[phases.STORE] and "use_boost_in_play" not in STEP_TYPES[phases.STORE]
    state = table(3)
    planet(state, ("blue_spinston", ["pewboty"]))
    state.effects[0] = ["free_sample"]
    state.hands[2] = ["funday"]
    turn(state, 0, [])
    with pytest.raises(IllegalAction, match="you may send: attack, use_boost_in_play, refill_hand, end_turn"):
        state.play(0, {"type": "resolve_bought_boost", "boost": "free_sample", "target": 2})
    state.play(0, {"type": "use_boost_in_play", "boost": "free_sample", "target": 2})


def flags(state: RobotsState, seat: int) -> dict[str, bool]:
    """Each legal action's text and whether legal-actions says it ends the turn."""
    space = state.action_space(seat)
    assert len(space["ends_turn"]) == len(space["actions"])
    return {str(sorted(a.items())): ends for a, ends in zip(space["actions"], space["ends_turn"], strict=True)}


def ends(state: RobotsState, seat: int, action: dict[str, object]) -> bool:
    return flags(state, seat)[str(sorted(action.items()))]


def test_the_turn_ends_with_end_turn_or_a_refill_never_with_an_attack() -> None:
    """A4: 'the active player may choose to spend one of them at the end of their turn to fill their Weaponized Ice
    Cream hand back up to 7 cards': a refill ends the turn; an attack or a Boost use does not."""
    state = table(2)
    planet(state, ("blue_spinston", ["lil_chip"]))
    state.effects[0] = ["sprinkle_rain"]
    turn(state, 0, ["funday", "funday"])
    state.sprinkles[0] = 1
    assert ends(state, 0, {"type": "end_turn"}) and ends(state, 0, {"type": "refill_hand", "weaponize": False})
    assert not ends(state, 0, attack(0, ["funday"]))
    assert not ends(state, 0, {"type": "use_boost_in_play", "boost": "sprinkle_rain"})
    state.play(0, attack(0, ["funday"]))
    assert state.acting_seats() == (0,)  # the attack did not end it
    state.play(0, {"type": "refill_hand", "weaponize": False})
    assert state.acting_seats() == (1,)


@pytest.mark.parametrize(("sprinkles", "ends_after_buying"), [(5, True), (6, False)])
def test_a_buy_ends_the_buying_turn_only_when_nothing_more_is_possible(sprinkles: int, ends_after_buying: bool) -> None:
    """'Players may purchase more than one card if able.' With nothing left after paying 5 for a Power Pack the buyer
    can neither buy nor flush ('Pay 1 Sprinkletonium to discard the face up Boost cards'), whatever card replaces it."""
    state = table(2)
    state.columns = []
    state.sprinkles, state.supply = [0, sprinkles], 40 - sprinkles
    phases.start_store(state)
    state.store_row = ["power_pack", "line_cutter", "yoink"]
    assert ends(state, 1, {"type": "buy_boost", "boost": "power_pack"}) == ends_after_buying
    assert ends(state, 1, {"type": "stop_buying"}) and not ends(state, 1, {"type": "buy_boost", "boost": "line_cutter"})
    state.play(1, {"type": "buy_boost", "boost": "power_pack"})
    assert (state.phase != phases.STORE) == ends_after_buying


def test_under_variant_f_the_one_purchase_ends_the_buying_turn() -> None:
    """Variant F: 'During each store phase, players may only purchase 1 Boost card.'"""
    state = table(2, {"boost_limit": True})
    state.columns = []
    state.sprinkles, state.supply = [0, 20], 20
    phases.start_store(state)
    state.store_row = ["power_pack", "line_cutter", "yoink"]
    assert ends(state, 1, {"type": "buy_boost", "boost": "line_cutter"})
    assert not ends(state, 1, {"type": "flush_store"})


def test_equipping_and_sharing_end_the_seats_part() -> None:
    assert {"equip_upgrades", "share_social_cards", "share_social_randomly", "stop_buying"} <= TURN_ENDERS
    state = table(2)
    state.spares[0] = ["power_pack"]
    phases.start_equip(state)
    assert all(state.action_space(0)["ends_turn"])


# --- the refill size ------------------------------------------------------------------------------


def test_each_seat_shows_the_hand_size_a_refill_fills_to() -> None:
    """'fill their Weaponized Ice Cream hand back up to 7 cards'; solo: 'draw up to 8 cards instead of 7'; Freezer
    Chest (data assumption): 'fill it to 1 more card'."""
    state = table(2)
    state.equipped[1] = ["freezer_chest"]
    assert [seat["refill_to"] for seat in state.view(None)["seats"]] == [7, 8]
    assert start(1).view(0)["seats"][0]["refill_to"] == 8
