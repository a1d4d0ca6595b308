"""Robots Love Ice Cream: the store, the equip phase, every Boost card and the variants that touch them.

Rulebook sentences are quoted from /work/shared/rules/robots-love-ice-cream.txt; a Boost the rulebook
does not print is checked against its data.json text (each such card is a catalog assumption).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import IllegalAction
from engine.robots_love_ice_cream import phases
from engine.robots_love_ice_cream.data import DATA
from engine.robots_love_ice_cream.effects import ROBOT_ABILITIES, RobotPhase
from engine.robots_love_ice_cream.state import RobotsState
from tests.engine.test_robots_love_ice_cream_helpers import attack, attacks_listed, planet, start, table, turn

SPECIALS = ("rapid_pop_special", "funday_special", "single_serve_special", "boomsicle_special")


def covers(*boosts: str) -> None:
    """Mark the Boost cards the calling test checks (read back from this file by the last test)."""
    assert set(boosts) <= set(DATA.boosts)


def store(players: int = 2, sprinkles: list[int] | None = None, options: dict[str, bool] | None = None) -> RobotsState:
    """A position at the start of a store phase, with this Sprinkletonium and the default Boost deck order."""
    state = table(players, options)
    state.columns, state.track_levels = [], [0, 0, 0]
    state.sprinkles = list(sprinkles or [10] * players)
    state.supply = 40 - sum(state.sprinkles)
    phases.start_store(state)
    return state


def set_row(state: RobotsState, *boosts: str) -> None:
    """Put these Boosts face up (taking them out of the deck)."""
    state.boost_discard += state.store_row
    state.boost_deck = [b for b in state.boost_deck if b not in boosts]
    state.boost_discard = [b for b in state.boost_discard if b not in boosts]
    state.store_row = list(boosts)


# --- 3. The Store Phase -------------------------------------------------------------------------


def test_three_boosts_face_up_at_the_start_of_the_store() -> None:
    """'At the start of the store phase, 3 Boost cards are drawn and placed face up in a row.'"""
    state = table(2)
    deck = list(state.boost_deck)
    state.columns, state.sprinkles = [], [3, 3]
    phases.start_store(state)
    assert state.phase == phases.STORE and state.store_row == deck[-1:-4:-1]


def test_buying_order_least_sprinkletonium_first_ties_counter_clockwise_from_the_first_player() -> None:
    """'Buying takes place in order of the player having the least Sprinkletonium to the player having the most. In
    case of a tie, the player sitting closest to the first player in counter-clockwise order goes first.'"""
    state = table(4)
    state.first_player, state.sprinkles = 1, [2, 2, 1, 2]
    assert phases.buying_order(state) == [2, 1, 0, 3]
    state.first_player = 3
    assert phases.buying_order(state) == [2, 3, 1, 0]


def test_line_cutter_buys_first() -> None:
    covers("line_cutter")
    state = table(3)
    state.first_player, state.sprinkles = 0, [1, 5, 3]
    state.effects[1] = ["line_cutter"]
    assert phases.buying_order(state) == [1, 0, 2]


def test_buy_pay_replace_and_buy_again() -> None:
    """'Purchase 1 card from the face up cards'; 'After a card is purchased, a new Boost card is drawn to replace the
    purchased Boost card. Players may purchase more than one card if able.'"""
    state = store(2, [0, 9])
    assert state.acting_seats() == (1,)  # seat 0 has no Sprinkletonium and is skipped
    set_row(state, "power_pack", "bigger_tires", "chocolate_shell")
    next_card = state.boost_deck[-1]
    state.play(1, {"type": "buy_boost", "boost": "bigger_tires"})
    assert state.store_row == ["power_pack", next_card, "chocolate_shell"]
    assert state.sprinkles[1] == 5 and state.supply == 40 - 5 and state.spares[1] == ["bigger_tires"]
    assert state.acting_seats() == (1,)
    state.play(1, {"type": "buy_boost", "boost": "chocolate_shell"})
    assert state.spares[1] == ["bigger_tires", "chocolate_shell"] and state.sprinkles[1] == 2
    with pytest.raises(IllegalAction, match="costs 5 Sprinkletonium"):
        state.play(1, {"type": "buy_boost", "boost": "power_pack"})


def test_flush_for_one_sprinkletonium() -> None:
    """'Pay 1 Sprinkletonium to discard the face up Boost cards and draw 3 new Boost cards'."""
    state = store(2, [4, 4])
    row, top = list(state.store_row), state.boost_deck[-3:][::-1]
    buyer = state.acting_seats()[0]
    state.play(buyer, {"type": "flush_store"})
    assert state.store_row == top and state.boost_discard[-3:] == row and state.sprinkles[buyer] == 3


def test_the_store_closes_and_the_leftovers_are_discarded() -> None:
    """'After all players have had a chance to purchase Boosts, remaining Boost cards are sent to the discard pile.'"""
    state = store(2, [3, 3])
    row = list(state.store_row)
    for _ in range(2):
        state.play(state.acting_seats()[0], {"type": "stop_buying"})
    assert state.store_row == [] and state.boost_discard[-3:] == row
    assert state.planet == 2  # no upgrades to equip: the next planet


def test_variant_f_one_purchase_per_store_phase_and_flush_only_before() -> None:
    """Variant F: 'During each store phase, players may only purchase 1 Boost card. You may still use a Sprinkletonium
    to flush the cards before purchasing.'"""
    state = store(2, [0, 12], {"boost_limit": True})
    set_row(state, "chocolate_shell", "sprinkle_vault", "line_cutter")
    assert {"type": "flush_store"} in state.legal_actions(1)
    state.play(1, {"type": "buy_boost", "boost": "sprinkle_vault"})
    # nothing left to do: the store closes (seat 1 has upgrades to equip now)
    assert state.phase == phases.EQUIP and state.acting_seats() == (1,)
    state = store(2, [0, 12], {"boost_limit": True})
    state.store_row = ["chocolate_shell", "power_pack", "line_cutter"]
    state.play(1, {"type": "buy_boost", "boost": "power_pack"})
    assert state.phase == phases.EQUIP


def test_variant_f_refuses_a_second_purchase_with_the_rule() -> None:
    state = store(2, [0, 12], {"boost_limit": True})
    set_row(state, "chocolate_shell", "sprinkle_vault", "line_cutter")
    state.bought = 1
    with pytest.raises(IllegalAction, match="only purchase 1 Boost"):
        state.play(1, {"type": "buy_boost", "boost": "line_cutter"})
    with pytest.raises(IllegalAction, match="before purchasing"):
        state.play(1, {"type": "flush_store"})


def test_remains_in_play_effects_go_in_front_of_the_player() -> None:
    """'Boost cards include permanent truck upgrades and beneficial effect cards that either resolve immediately or
    remain in play for later use.'"""
    state = store(2, [0, 9])
    set_row(state, "free_sample", "extra_scoop", "yoink")
    state.play(1, {"type": "buy_boost", "boost": "free_sample"})
    assert state.effects[1] == ["free_sample"] and state.spares[1] == []


# --- 4. The Equip Phase ------------------------------------------------------------------------


def test_equip_at_most_two_upgrades_and_save_the_rest() -> None:
    """'players may choose to equip their truck with a maximum of two upgrades'; 'Unused upgrades in a player's
    inventory may be saved for use during future equip phases.'"""
    state = table(2)
    state.first_player = 1
    state.spares[1] = ["bigger_tires", "chocolate_shell", "power_pack"]
    phases.start_equip(state)
    assert state.acting_seats() == (1,)
    choices = [a["upgrades"] for a in state.legal_actions(1)]
    assert max(len(c) for c in choices) == 2 and len(choices) == 1 + 3 + 3
    with pytest.raises(IllegalAction, match="at most 2"):
        state.clone().play(1, {"type": "equip_upgrades", "upgrades": ["bigger_tires", "chocolate_shell", "power_pack"]})
    state.play(1, {"type": "equip_upgrades", "upgrades": ["bigger_tires", "power_pack"]})
    assert state.equipped[1] == ["bigger_tires", "power_pack"] and state.spares[1] == ["chocolate_shell"]
    # the next equip phase may swap them
    phases.start_equip(state)
    state.play(state.acting_seats()[0], {"type": "equip_upgrades", "upgrades": ["chocolate_shell"]})
    assert state.equipped[1] == ["chocolate_shell"] and state.spares[1] == ["bigger_tires", "power_pack"]


def test_solo_equips_three_and_expanded_capacity_adds_one() -> None:
    """Solo: 'solo players may equip their truck with up to 3 truck upgrades rather than 2.'"""
    covers("expanded_capacity")
    assert table(1).upgrade_slots(0) == 3
    state = table(2)
    state.effects[0] = ["expanded_capacity"]
    assert state.upgrade_slots(0) == 3 and state.upgrade_slots(1) == 2
    state.spares[0] = ["bigger_tires", "chocolate_shell", "power_pack"]
    state.first_player = 0
    phases.start_equip(state)
    state.play(0, {"type": "equip_upgrades", "upgrades": ["bigger_tires", "chocolate_shell", "power_pack"]})
    assert len(state.equipped[0]) == 3


def test_remains_in_play_effects_are_unlimited() -> None:
    """'While upgrades are limited to two per truck, players may use an unlimited number of "remains in play" effect
    cards'."""
    state = store(2, [0, 30])
    for boost in ("free_sample", "team_player", "sprinkle_rain", "deflector_shield"):
        set_row(state, boost, "extra_scoop", "yoink")
        state.play(1, {"type": "buy_boost", "boost": boost})
    assert len(state.effects[1]) == 4 and state.phase == phases.STORE


def test_the_first_player_card_passes_clockwise_after_the_equip_phase() -> None:
    """'After completing the equip phase, pass the first player card clockwise to the next player.'"""
    state = table(3)
    state.first_player = 2
    state.spares[0] = ["power_pack"]
    phases.start_equip(state)
    state.play(0, {"type": "equip_upgrades", "upgrades": ["power_pack"]})
    assert state.first_player == 0 and state.planet == 2 and state.acting_seats() == (0,)


def test_solo_removes_the_multiplayer_boosts() -> None:
    """Solo: 'Remove the following Boost effect cards from the deck before play: Ice Cream Party, Free Sample, Yoink!!,
    Line Cutter, Expanded Capacity, Team Player'."""
    state = start(1)
    removed = {"ice_cream_party", "free_sample", "yoink", "line_cutter", "expanded_capacity", "team_player"}
    assert set(state.boost_deck) == set(DATA.boosts) - removed


# --- Variant D: Ice Cream Social -----------------------------------------------------------------


def test_ice_cream_social_shares_face_up_cards_after_equipping() -> None:
    """Variant D: 'After all players have loaded their truck upgrades, an Ice Cream Social occurs wherein a number of
    Weaponized Ice Cream cards equal to the number of players are drawn and placed face-up. The group then decides which
    card goes to each player.'"""
    state = table(3, {"ice_cream_social": True})
    state.first_player = 1
    state.ice_deck += ["funday", "rapid_pop", "boomsicle"]
    phases.start_equip(state)
    assert (
        state.phase == phases.SOCIAL
        and state.acting_seats() == (1,)
        and state.social == ["boomsicle", "funday", "rapid_pop"]
    )
    shares = state.legal_actions(1)
    assert len(shares) == 6 + 1 and shares[-1] == {"type": "share_social_randomly"}
    state.play(1, {"type": "share_social_cards", "cards": ["rapid_pop", "boomsicle", "funday"]})
    assert state.hands == [["rapid_pop"], ["boomsicle"], ["funday"]] and state.social == []
    assert state.first_player == 2 and state.planet == 2


def test_ice_cream_social_random_distribution() -> None:
    """'If no agreement can be reached ... all of the Ice Cream Social cards are shuffled and randomly distributed'."""
    dealt = set()
    for seed in range(12):
        state = table(2, {"ice_cream_social": True}, seed=f"social-{seed}")
        state.ice_deck += ["funday", "rapid_pop"]
        phases.start_equip(state)
        state.play(state.first_player, {"type": "share_social_randomly"})
        dealt.add((state.hands[0][0], state.hands[1][0]))
    assert dealt == {("funday", "rapid_pop"), ("rapid_pop", "funday")}


# --- Variant B: Weaponized Sprinkletonium --------------------------------------------------------


def test_weaponized_sprinkletonium_is_a_brain_freeze_in_hand() -> None:
    """Variant B: 'When paying 1 Sprinkletonium to refill the hand, the player may additionally weaponize 1
    Sprinkletonium by pulling 1 of their own Sprinkletonium into their hand rather than drawing a 7th ... card. The
    weaponized Sprinkletonium behaves identically to a Brain Freeze card.'"""
    state = table(2, {"weaponized_sprinkletonium": True})
    planet(state, ("blue_spinston", ["pewboty"]))
    turn(state, 0, ["funday", "funday"])
    state.sprinkles[0], state.supply = 2, 38
    assert {"type": "refill_hand", "weaponize": True} in state.legal_actions(0)
    state.play(0, {"type": "refill_hand", "weaponize": True})
    assert len(state.hands[0]) == 6 and state.weaponized[0] == 1 and state.sprinkles[0] == 0
    assert state.supply == 39
    turn(state, 0, ["funday", "funday"])
    assert attack(0, ["funday", "funday", "sprinkletonium"]) in attacks_listed(state, 0)
    state.play(0, attack(0, ["funday", "funday", "sprinkletonium"]))
    assert state.weaponized[0] == 0 and state.supply == 40 - state.sprinkles[0]


def test_weaponizing_needs_the_variant_and_two_sprinkletonium() -> None:
    state = table(2)
    planet(state, ("blue_spinston", ["pewboty"]))
    turn(state, 0, ["funday"])
    state.sprinkles[0] = 2
    with pytest.raises(IllegalAction, match="Variant B"):
        state.play(0, {"type": "refill_hand", "weaponize": True})
    state = table(2, {"weaponized_sprinkletonium": True})
    planet(state, ("blue_spinston", ["pewboty"]))
    turn(state, 0, ["funday"])
    state.sprinkles[0] = 1
    assert {"type": "refill_hand", "weaponize": True} not in state.legal_actions(0)


# --- every Boost card ---------------------------------------------------------------------------


def test_power_pack_adds_one_against_defense_three_or_more() -> None:
    """Power Pack: 'Add 1 to any attack value against a robot with a defense of 3 or more. Works with any Weaponized Ice
    Cream type.'"""
    covers("power_pack")
    state = table(2)
    planet(state, ("blue_spinston", []), ("green_spinston", ["scrambles"]), ("red_spinston", ["pewboty"]))
    state.equipped[0] = ["power_pack"]
    turn(state, 0, ["boomsicle"] * 4)
    sizes = {a["column"]: len(a["cards"]) for a in attacks_listed(state, 0)}
    assert sizes == {0: 3, 1: 2, 2: 2}


@pytest.mark.parametrize("special", SPECIALS)
def test_each_special_adds_one_to_its_own_ice_cream(special: str) -> None:
    """Rapid Pop Special / Funday Special (data): add 1 to the attack value of a set of that type."""
    ice_cream = DATA.boosts[special].ability.params["ice_cream"]
    other = "funday" if ice_cream != "funday" else "rapid_pop"
    state = table(2)
    planet(state, ("blue_spinston", []))
    state.equipped[0] = [special]
    turn(state, 0, [ice_cream] * 4 + [other] * 4)
    assert attack(0, [ice_cream] * 3) in attacks_listed(state, 0)
    assert attack(0, [other] * 4) in attacks_listed(state, 0) and attack(0, [other] * 3) not in attacks_listed(state, 0)


def test_an_attack_fires_at_least_one_card() -> None:
    """Assumption exact-set: 'max(1, defense - bonus)' cards: a bonus never makes an attack free."""
    state = table(2)
    planet(state, ("blue_spinston", ["lil_chip"]))
    state.equipped[0] = ["funday_special"]
    turn(state, 0, ["funday"])
    assert attacks_listed(state, 0) == [attack(0, ["funday"])]


def test_hit_em_quick_gives_a_second_attack_on_a_small_robot() -> None:
    """Hit Em Quick (data): once per turn, after your attack, a second attack against a defense of 2 or less."""
    covers("hit_em_quick")
    state = table(2)
    planet(state, ("blue_spinston", ["scrambles"]), ("green_spinston", ["pewboty"]), ("red_spinston", ["lil_chip"]))
    state.equipped[0] = ["hit_em_quick"]
    turn(state, 0, ["rapid_pop"] * 6)
    assert all(a["upgrade"] is None for a in attacks_listed(state, 0))
    state.play(0, attack(2, ["rapid_pop"]))
    assert attacks_listed(state, 0) == [attack(0, ["rapid_pop"] * 2, "hit_em_quick")]
    with pytest.raises(IllegalAction, match="does not allow"):
        state.clone().play(0, attack(1, ["rapid_pop"] * 3, "hit_em_quick"))
    with pytest.raises(IllegalAction, match="second attack needs an upgrade"):
        state.clone().play(0, attack(0, ["rapid_pop"] * 2))
    state.play(0, attack(0, ["rapid_pop"] * 2, "hit_em_quick"))
    assert attacks_listed(state, 0) == [] and state.extras == ["hit_em_quick"]


def test_oh_fuuuuuuudge_gives_a_second_attack_with_funday() -> None:
    """Oh Fuuuuuuudge (data): once per turn, after your attack, a second attack with a Funday set."""
    covers("oh_fuuuuuuudge")
    state = table(2)
    planet(state, ("blue_spinston", ["lil_chip"]), ("green_spinston", ["scrambles"]))
    state.equipped[0] = ["oh_fuuuuuuudge"]
    turn(state, 0, ["rapid_pop", "funday", "funday"])
    state.play(0, attack(0, ["rapid_pop"]))
    assert attacks_listed(state, 0) == [attack(1, ["funday", "funday"], "oh_fuuuuuuudge")]
    state.play(0, attack(1, ["funday", "funday"], "oh_fuuuuuuudge"))
    assert attacks_listed(state, 0) == []


def test_specials_cannot_boost_second_attacks_from_hit_em_quick_or_oh_fuuuuuuudge() -> None:
    """'Rapid Pop Special and Sunday Special upgrades cannot be used to boost the second attack using either Hit Em
    Quick and Oh Fuuuuuuudge upgrades.'"""
    state = table(2)
    planet(state, ("blue_spinston", ["lil_chip", "scrambles"]), ("green_spinston", ["pewboty"]))
    state.equipped[0] = ["oh_fuuuuuuudge", "funday_special"]
    turn(state, 0, ["funday"] * 6)
    assert attack(0, ["funday"]) in attacks_listed(state, 0)  # the first attack is boosted: 1 card for defense 2
    state.play(0, attack(0, ["funday"]))
    # the second is not: Pewboty (defense 3) needs all 3 cards
    assert attack(1, ["funday"] * 3, "oh_fuuuuuuudge") in attacks_listed(state, 0)
    assert attack(1, ["funday"] * 2, "oh_fuuuuuuudge") not in attacks_listed(state, 0)
    # Power Pack is not named by that rule: it still boosts the second attack
    state.equipped[0] = ["oh_fuuuuuuudge", "power_pack"]
    assert attack(1, ["funday"] * 2, "oh_fuuuuuuudge") in attacks_listed(state, 0)


def test_bigger_tires_draws_one_more() -> None:
    covers("bigger_tires")
    state = table(2)
    planet(state, ("blue_spinston", ["pewboty"]))
    state.equipped[1] = ["bigger_tires"]
    state.queue = [1, 0]
    phases.begin_turn(state)
    assert len(state.drawn) == 3 and all(len(a["cards"]) == 1 for a in state.legal_actions(1))


def test_cone_launcher_keeps_one_more() -> None:
    covers("cone_launcher")
    state = table(2)
    planet(state, ("blue_spinston", ["pewboty"]))
    state.equipped[1] = ["cone_launcher"]
    state.queue = [1, 0]
    phases.begin_turn(state)
    assert state.step == phases.ACT and len(state.hands[1]) == 2  # keeps both drawn cards
    state.equipped[1] = ["cone_launcher", "bigger_tires"]
    state.queue = [1, 0]
    phases.begin_turn(state)
    assert len(state.drawn) == 3 and all(len(a["cards"]) == 2 for a in state.legal_actions(1))


def test_chocolate_shell_guards_the_hand_against_robots() -> None:
    covers("chocolate_shell")
    state = table(2)
    state.hands = [["funday"], ["funday"]]
    state.equipped[0] = ["chocolate_shell"]
    ROBOT_ABILITIES["discard_random"](state, RobotPhase(), 0, 1, {"who": "all", "count": 1})
    assert state.hands == [["funday"], []]


def test_sprinkle_vault_guards_sprinkletonium_against_robots() -> None:
    covers("sprinkle_vault")
    state = table(2)
    state.sprinkles, state.supply = [2, 2], 36
    state.equipped[1] = ["sprinkle_vault"]
    ROBOT_ABILITIES["lose_sprinkletonium"](state, RobotPhase(), 0, 1, {"who": "all", "count": 1})
    assert state.sprinkles == [1, 2]


def test_sprinkle_scoop_collects_one_more() -> None:
    covers("sprinkle_scoop")
    state = table(2)
    planet(state, ("blue_spinston", ["lil_chip"]))
    state.equipped[0] = ["sprinkle_scoop"]
    turn(state, 0, ["funday"])
    state.play(0, attack(0, ["funday"]))
    assert state.sprinkles[0] == DATA.robots["lil_chip"].reward + 1


def test_freezer_chest_refills_one_higher() -> None:
    covers("freezer_chest")
    state = table(2)
    planet(state, ("blue_spinston", ["pewboty"]))
    state.equipped[0] = ["freezer_chest"]
    turn(state, 0, ["funday"] * 7)
    state.sprinkles[0] = 1
    state.play(0, {"type": "refill_hand", "weaponize": False})
    assert len(state.hands[0]) == 8


def test_refill_station_refills_free_once_per_planet() -> None:
    covers("refill_station")
    state = table(2)
    planet(state, ("blue_spinston", ["pewboty"]))
    state.equipped[0] = ["refill_station"]
    turn(state, 0, ["funday"])
    assert {"type": "refill_hand", "weaponize": False} in state.legal_actions(0)
    state.play(0, {"type": "refill_hand", "weaponize": False})
    assert len(state.hands[0]) == 7 and state.sprinkles[0] == 0 and state.used == ["refill_station"]
    turn(state, 0, ["funday"])
    assert {"type": "refill_hand", "weaponize": False} not in state.legal_actions(0)


def test_deflector_shield_turns_one_move_off_the_track_down_per_planet() -> None:
    """Deflector Shield (data assumption): 'the first time a Spinston would move an Ice Cream token above the track,
    the token moves down one level instead.' A move within the track is not deflected."""
    covers("deflector_shield")
    state = table(2)
    planet(state, ("blue_spinston", []), ("green_spinston", []))
    state.effects[1] = ["deflector_shield"]
    params = DATA.spinstons["blue_spinston"].ability.params
    ROBOT_ABILITIES["advance_ice_cream"](state, RobotPhase(), 0, 0, params)
    assert state.track_levels == [0, 1, 1] and state.used == []
    state.track_levels = [2, 0, 0]
    ROBOT_ABILITIES["advance_ice_cream"](state, RobotPhase(), 0, 0, params)
    assert state.track_levels == [1, 1, 0] and state.above == 0 and state.used == ["deflector_shield"]
    state.track_levels = [2, 0, 0]
    ROBOT_ABILITIES["advance_ice_cream"](state, RobotPhase(), 1, 0, params)
    assert state.track_levels == [1, 0, 0] and state.above == 1  # once per planet


def test_free_sample_takes_a_random_card_once_per_planet() -> None:
    """Free Sample: 'Take one random Weaponized Ice Cream card from any player. Effect may only be used once per
    planet.'"""
    covers("free_sample")
    state = table(3)
    planet(state, ("blue_spinston", ["pewboty"]))
    state.effects[0] = ["free_sample"]
    state.hands[2] = ["boomsicle"]
    turn(state, 0, [])
    uses = [a for a in state.legal_actions(0) if a["type"] == "use_boost_in_play"]
    assert uses == [{"type": "use_boost_in_play", "boost": "free_sample", "target": 2}]
    state.play(0, uses[0])
    assert state.hands[0] == ["boomsicle"] and state.hands[2] == []
    state.hands[1] = ["funday"]
    with pytest.raises(IllegalAction, match="once per planet"):
        state.play(0, {"type": "use_boost_in_play", "boost": "free_sample", "target": 1})
    state.planet = 1
    phases.prepare_planet(state)
    assert "free_sample" not in state.used


def test_team_player_gives_a_card() -> None:
    covers("team_player")
    state = table(2)
    planet(state, ("blue_spinston", ["pewboty"]))
    state.effects[0] = ["team_player"]
    turn(state, 0, ["funday", "rapid_pop"])
    state.play(0, {"type": "use_boost_in_play", "boost": "team_player", "target": 1, "card": "rapid_pop"})
    assert state.hands == [["funday"], ["rapid_pop"]]


def test_sprinkle_rain_draws_two() -> None:
    covers("sprinkle_rain")
    state = table(2)
    planet(state, ("blue_spinston", ["pewboty"]))
    state.effects[0] = ["sprinkle_rain"]
    turn(state, 0, [])
    state.play(0, {"type": "use_boost_in_play", "boost": "sprinkle_rain"})
    assert len(state.hands[0]) == 2


def test_cherry_bomb_destroys_a_small_lowest_robot() -> None:
    covers("cherry_bomb")
    state = table(2)
    planet(state, ("blue_spinston", ["scrambles"]), ("green_spinston", ["pewboty"]), ("red_spinston", []))
    state.effects[0] = ["cherry_bomb"]
    turn(state, 0, [])
    uses = [a for a in state.legal_actions(0) if a["type"] == "use_boost_in_play"]
    assert uses == [{"type": "use_boost_in_play", "boost": "cherry_bomb", "column": 0}]
    state.play(0, uses[0])
    assert state.columns[0].robots() == [] and state.sprinkles[0] == DATA.robots["scrambles"].reward
    assert state.attacks == 0  # not an attack


def test_beam_jammer_lowers_the_highest_token_two_levels() -> None:
    """Beam Jammer (data assumption): 'move the highest Ice Cream token (even one above the track) two levels down, at
    most to the bottom.'"""
    covers("beam_jammer")
    state = table(2)
    planet(state, ("blue_spinston", ["pewboty"]), ("green_spinston", []))
    state.track_levels, state.above = [0, 1, 0], 1
    state.effects[0] = ["beam_jammer"]
    turn(state, 0, [])
    state.play(0, {"type": "use_boost_in_play", "boost": "beam_jammer"})
    assert state.above == 0 and state.track_levels == [0, 2, 0]
    state.track_levels, state.used = [1, 1, 0], []
    state.play(0, {"type": "use_boost_in_play", "boost": "beam_jammer"})
    assert state.track_levels == [0, 1, 1]  # one token, from the top to the bottom
    state.track_levels, state.used = [0, 1, 1], []
    state.play(0, {"type": "use_boost_in_play", "boost": "beam_jammer"})
    assert state.track_levels == [0, 0, 2]  # at most to the bottom
    state.used = []
    assert not [a for a in state.legal_actions(0) if a["type"] == "use_boost_in_play"]


def test_sticky_syrup_stops_a_column_until_the_planet_ends() -> None:
    """Sticky Syrup (data assumption): 'choose a column: its robots (Spinston included) skip their abilities until the
    planet ends.'"""
    covers("sticky_syrup")
    state = table(2)
    planet(state, ("blue_spinston", ["scrambles"]), ("green_spinston", []))
    state.effects[0] = ["sticky_syrup"]
    state.hands = [["funday"], ["funday"]]
    turn(state, 0, ["funday"])
    state.play(0, {"type": "use_boost_in_play", "boost": "sticky_syrup", "column": 0})
    state.round = 1
    phases.robot_phase(state)
    assert state.hands == [["funday"], ["funday"]] and state.track_levels == [1, 1, 0] and state.jammed == [0]
    state.queue = []
    phases.robot_phase(state)  # round 2: still stuck; only the green Spinston moves a token
    assert "Scrambles (column 0) is stuck in Sticky Syrup" in state.events
    state.planet = 1
    phases.prepare_planet(state)
    assert state.jammed == []


# --- each beam Boost saves a token on its own ------------------------------------------------------
# A planet of one Spinston that the team can reach only in round 3. Without help its token is gone
# after round 2: the Spinston moves it up in rounds 1 and 2 ('Move an Ice Cream token up one level.')
# and the beam moves it up twice ('The man holding the crate and the remaining Ice Cream tokens move
# together up the track.'), so it is above the track, no token remains on the track and no 3rd player
# phase begins ('If any Ice Cream tokens remain on the track, a new player phase begins'). Each Boost
# below keeps it on the track until round 3, where destroying the Spinston claims it ('If a Spinston
# was destroyed, the player additionally claims 1 Ice Cream token from the Spinston Beam Track.').


def tokens_saved_by_a_round_3_kill(effects: list[str], use: dict[str, object] | None = None, use_round: int = 0) -> int:
    """Play the planet through the checked path: seat 1 holds `effects` and plays `use` in round `use_round`; seat 0
    fires four Fundays at the Spinston in round 3 if that round comes; the tokens the team saved."""
    state = table(2, seed="lone-spinston")
    planet(state, ("blue_spinston", []))
    state.effects[1] = list(effects)
    state.round = 1
    turn(state, 0, [])
    while state.phase == phases.PLAYER and state.planet == 1:
        seat = state.acting_seats()[0]
        if state.step != phases.ACT:
            state.play(seat, state.legal_actions(seat)[0])  # decline the draw up, keep the first choice
            continue
        if seat == 1 and state.round == use_round and use is not None:
            state.play(1, use)
        if seat == 0 and state.round == 3:
            state.hands[0] = ["funday"] * 4
            state.play(0, attack(0, ["funday"] * 4))
        state.play(seat, {"type": "end_turn"})
    return sum(state.tokens)


def test_without_a_boost_the_lone_spinstons_token_is_lost_before_round_3() -> None:
    assert tokens_saved_by_a_round_3_kill([]) == 0


def test_deflector_shield_alone_saves_the_token() -> None:
    """The Spinston's round-2 move would take the token off the top: deflected, it is back at the top for round 3."""
    assert tokens_saved_by_a_round_3_kill(["deflector_shield"]) == 1


def test_beam_jammer_alone_saves_the_token() -> None:
    """Used in round 2, it takes the token from the top to the bottom; the move and the beam bring it back up."""
    use: dict[str, object] = {"type": "use_boost_in_play", "boost": "beam_jammer"}
    assert tokens_saved_by_a_round_3_kill(["beam_jammer"], use, use_round=2) == 1


def test_sticky_syrup_alone_saves_the_token() -> None:
    """Used in round 1, the Spinston moves nothing on this planet: only the beam moves the token, up twice."""
    use = {"type": "use_boost_in_play", "boost": "sticky_syrup", "column": 0}
    assert tokens_saved_by_a_round_3_kill(["sticky_syrup"], use, use_round=1) == 1


def immediate(boost: str, players: int = 2) -> RobotsState:
    """Seat 1 buys an immediate Boost in a fresh store."""
    state = store(players, [0] * (players - 1) + [9])
    set_row(state, boost, "chocolate_shell", "sprinkle_vault")
    state.play(players - 1, {"type": "buy_boost", "boost": boost})
    return state


def test_ice_cream_party_everyone_draws_two() -> None:
    covers("ice_cream_party")
    state = immediate("ice_cream_party", 3)
    assert [len(hand) for hand in state.hands] == [2, 2, 2] and state.boost_discard[-1] == "ice_cream_party"


def test_extra_scoop_draws_three() -> None:
    covers("extra_scoop")
    state = immediate("extra_scoop")
    assert [len(hand) for hand in state.hands] == [0, 3] and "extra_scoop" in state.boost_discard


def test_brain_freeze_delivery_takes_one_from_the_discard_pile() -> None:
    covers("brain_freeze_delivery")
    state = store(2, [0, 9])
    state.ice_discard = ["brain_freeze", "funday"]
    set_row(state, "brain_freeze_delivery", "chocolate_shell", "sprinkle_vault")
    state.play(1, {"type": "buy_boost", "boost": "brain_freeze_delivery"})
    assert state.hands[1] == ["brain_freeze"] and state.ice_discard == ["funday"]


def test_yoink_takes_a_spare_upgrade_after_a_choice() -> None:
    covers("yoink")
    state = store(3, [0, 0, 9])
    state.spares[0] = ["power_pack"]
    state.equipped[1] = ["bigger_tires"]
    set_row(state, "yoink", "chocolate_shell", "sprinkle_vault")
    state.play(2, {"type": "buy_boost", "boost": "yoink"})
    assert state.pending == "yoink"
    assert state.legal_actions(2) == [
        {"type": "resolve_bought_boost", "boost": "yoink", "target": 0, "upgrade": "power_pack"}
    ]
    with pytest.raises(IllegalAction, match="first resolve Yoink"):
        state.clone().play(2, {"type": "stop_buying"})
    state.play(2, state.legal_actions(2)[0])
    assert state.spares == [[], [], ["power_pack"]] and state.pending is None and state.boost_discard[-1] == "yoink"


def test_yoink_with_nothing_to_take_is_discarded() -> None:
    state = immediate("yoink")
    assert state.pending is None and state.boost_discard[-1] == "yoink"


def test_every_boost_card_is_tested() -> None:
    """Each of the 27 Boost cards has a test of its effect in this file (a covers(...) call, or SPECIALS)."""
    source = Path(__file__).read_text()
    covered = {boost for call in re.findall(r"covers\(([^)]*)\)", source) for boost in re.findall(r'"(\w+)"', call)}
    assert set(DATA.boosts) == covered | set(SPECIALS)
