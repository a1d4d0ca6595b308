"""Robots Love Ice Cream's card data: the printed values, the assumptions, and the loader refusing bad data."""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any

import pytest

from engine.robots_love_ice_cream.data import DATA, DataError, load
from engine.robots_love_ice_cream.game import INFO
from engine.robots_love_ice_cream.schema import EFFECTS
from tests.engine.test_robots_love_ice_cream_helpers import attack, attacks_listed, planet, table, turn


def raw() -> dict[str, Any]:
    """A fresh copy of the packaged data.json."""
    data: dict[str, Any] = json.loads(resources.files("engine.robots_love_ice_cream").joinpath("data.json").read_text())
    return data


def boost_entry(data: dict[str, Any], boost_id: str) -> dict[str, Any]:
    return next(entry for entry in data["boosts"] if entry["id"] == boost_id)


# --- the printed values -------------------------------------------------------------------------


def test_the_component_list() -> None:
    """'65 Weaponized Ice Cream Cards: 5 Brain Freeze | 15 Single Serve | 15 Rapid Pop | 15 Boomsicle | 15 Funday';
    '60 Robot Cards: 3 Spinston | 3 Spinston 2.0 | 12 Little Chip | 8 Little Chunk | 8 Peaboty | 6 Pewboty | 8 Punk
    Rockit | 6 Scrambles | 6 Ray'; '27 Unique Boost Cards'; '40 Sprinkletonium Cards'; '15 Planet Cards'."""
    assert DATA.ice_cream == {"single_serve": 15, "rapid_pop": 15, "boomsicle": 15, "funday": 15, "brain_freeze": 5}
    models = [spinston.model for spinston in DATA.spinstons.values()]
    assert models.count("spinston") == 3 and models.count("spinston_2") == 3
    counts = {robot_id: robot.count for robot_id, robot in DATA.robots.items()}
    assert counts == {
        "lil_chip": 12,
        "lil_chunk": 8,
        "peaboty": 8,
        "pewboty": 6,
        "punk_rockit": 8,
        "scrambles": 6,
        "ray": 6,
    }
    assert len(DATA.boosts) == 27 and DATA.components["sprinkletonium"] == 40
    assert {key: len(planets) for key, planets in DATA.planets.items()} == {"2": 5, "3": 5, "4": 5}


def test_printed_card_values() -> None:
    """'Spinston has a defense value of 4 and a Sprinkletonium reward of 3. Its attack description reads: move an Ice
    Cream token up one level.' 'Lil Chip (defense 1)'. 'Power Pack (Truck Upgrade, price 5)'; 'Free Sample (Game
    Effect, price 3) ... once per planet.'"""
    for spinston in ("red_spinston", "blue_spinston", "green_spinston"):
        card = DATA.spinstons[spinston]
        assert (card.defense, card.reward, card.ability.effect) == (4, 3, "advance_ice_cream")
    assert DATA.robots["lil_chip"].defense == 1 and DATA.robots["lil_chip"].ability.effect == "hop_right"
    assert DATA.robots["lil_chunk"].ability.effect == "summon"
    assert DATA.robots["scrambles"].ability.params == {"who": "all", "count": 1}
    power_pack, free_sample = DATA.boosts["power_pack"], DATA.boosts["free_sample"]
    assert (power_pack.type, power_pack.price, power_pack.ability.params["min_defense"]) == ("upgrade", 5, 3)
    assert (free_sample.type, free_sample.price, free_sample.once_per_planet) == ("effect", 3, True)


def test_every_name_the_rulebook_shows_is_a_card() -> None:
    """The Boost names in the rulebook: 'Power Pack, Free Sample, Chocolate Shell, Deflector Shield, Voink!!, Funday
    Special, Line Cutter, Bigger Tires, Ice Cream Party, Expanded Capacity and Team Player', and in the Clarifications
    'Rapid Pop Special', 'Hit Em Quick', 'Oh Fuuuuuuudge'."""
    titles = {boost.title for boost in DATA.boosts.values()}
    named = {"Power Pack", "Free Sample", "Chocolate Shell", "Deflector Shield", "Yoink!!", "Funday Special"}
    named |= {"Line Cutter", "Bigger Tires", "Ice Cream Party", "Expanded Capacity", "Team Player"}
    named |= {"Rapid Pop Special", "Hit Em Quick", "Oh Fuuuuuuudge"}
    assert named <= titles


def test_the_planets_bring_thirteen_tokens_and_the_printed_shape() -> None:
    """'Place Ice Cream victory tokens, equal to the number of Spinstons on that planet (either 2 or 3)'; '13 Ice Cream
    Tokens'."""
    for key, planets in DATA.planets.items():
        assert sum(len(p.columns) for p in planets) == 13
        assert all(len(p.columns) in (2, 3) for p in planets)
        assert all(4 not in column.robots for p in planets for column in p.columns) or key == "4"


def test_every_unprinted_value_is_an_assumption_in_the_catalog() -> None:
    """Everything the rulebook does not print is marked as an assumption with a reason, shown in the catalog."""
    ids = {assumption.id for assumption in INFO.assumptions}
    printed = {"power_pack", "free_sample"}
    assert {f"boost:{b}" for b in DATA.boosts if b not in printed} <= ids
    assert not {f"boost:{b}" for b in printed} & ids
    assert {f"robot:{r}" for r in DATA.robots} <= ids
    assert {"robot:red_spinston_2", "planet-layouts", "beam-track", "spinston-token", "first-player"} <= ids
    assert all(a.reason and a.choice for a in INFO.assumptions)
    catalog = INFO.to_json()
    assert len(catalog["assumptions"]) == len(INFO.assumptions)
    assert [o["name"] for o in catalog["options"]][1:7] == [
        "harder_robots",
        "weaponized_sprinkletonium",
        "all_red_spinstons",
        "ice_cream_social",
        "attack_twice",
        "boost_limit",
    ]


def test_every_effect_in_the_schema_is_used_by_a_card() -> None:
    used = {b.ability.effect for b in DATA.boosts.values()}
    used |= {r.ability.effect for r in [*DATA.robots.values(), *DATA.spinstons.values()]}
    assert used == set(EFFECTS)


# --- the loader refuses bad data ---------------------------------------------------------------


def broken(change: Any) -> str:
    """The DataError message for the packaged data after `change(data)`."""
    data = raw()
    change(data)
    with pytest.raises(DataError) as refused:
        load(data, "data.json")
    return str(refused.value)


def test_the_packaged_data_loads() -> None:
    assert load(raw()) == DATA


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: boost_entry(d, "power_pack").update(effect="teleport"),
            "data.json: boosts[0] (power_pack): names an unknown effect 'teleport'",
        ),
        (
            lambda d: boost_entry(d, "power_pack")["params"].update(amount="one"),
            "boosts[0] (power_pack): params.amount must be an integer, got 'one'",
        ),
        (
            lambda d: boost_entry(d, "power_pack")["params"].update(colour="red"),
            "boosts[0] (power_pack): effect 'attack_bonus' takes no parameter 'colour'",
        ),
        (lambda d: boost_entry(d, "power_pack").pop("price"), "boosts[0] (power_pack): is missing 'price'"),
        (lambda d: boost_entry(d, "power_pack").update(prize=5), "boosts[0] (power_pack): has an unknown key 'prize'"),
        (lambda d: d["boosts"].pop(), "boosts: lists 26 unique Boost cards, not 27"),
        (lambda d: d["boosts"][1].update(id="power_pack"), "boosts[1] (power_pack): repeats the boost id 'power_pack'"),
        (
            lambda d: boost_entry(d, "extra_scoop").update(effect="destroy_robot", params={"max_defense": 2}),
            "(extra_scoop): effect 'destroy_robot' needs robots on a planet",
        ),
        (
            lambda d: boost_entry(d, "free_sample").pop("once_per_planet"),
            "(free_sample): the effect 'take_random_card' acts once each time: set once_per_planet to true",
        ),
        (
            lambda d: boost_entry(d, "bigger_tires").update(timing="immediate"),
            "(bigger_tires).timing: must be one of ['equipped'], got 'immediate'",
        ),
        (
            lambda d: d["robots"][0].update(count=11),
            "robots: Spinstons and robot counts add up to 59, not 60",
        ),
        (
            lambda d: d["robots"][0].update(ability={"effect": "attack_bonus", "params": {"amount": 1}}),
            "robots[0] (lil_chip).ability: effect 'attack_bonus' is a passive effect; here it must be robot",
        ),
        (
            lambda d: d["robots"][0].update(defense=0),
            "robots[0] (lil_chip).defense: must be at least 1, got 0",
        ),
        (
            lambda d: d["planets"]["2"][0]["columns"][1].update(robots=[1, 4]),
            "planets.2[0] (2p-1).columns[1].robots: the 4th level exists only on 4-player planet cards",
        ),
        (
            lambda d: d["planets"]["3"][0]["columns"][0].update(spinston="purple_spinston"),
            "planets.3[0] (3p-1).columns[0].spinston: must be one of",
        ),
        (
            lambda d: d["planets"]["4"][0]["columns"].pop(),
            "planets.4: shows 12 Spinstons, but each Spinston brings one of the 13 tokens",
        ),
        (
            lambda d: d["ice_cream"][0].update(count=14),
            "ice_cream: counts add up to 64, not 65",
        ),
        (
            lambda d: d["rules"]["variants"]["harder_robots_removed"].update(lil_chip=13),
            "rules.variants.harder_robots_removed.lil_chip: removes 13 but the deck has 12",
        ),
        (
            lambda d: d["rules"]["solo"]["removed_boosts"].append("jet_pack"),
            "rules.solo.removed_boosts[6]: must be one of",
        ),
    ],
)
def test_bad_data_is_refused_naming_the_file_the_entry_and_the_problem(change: Any, message: str) -> None:
    assert message in broken(change)


def test_bad_json_is_refused() -> None:
    with pytest.raises(DataError, match="must be a JSON object"):
        load([], "data.json")


def test_a_corrected_card_list_reusing_effects_needs_no_code_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """The operator's case: a card corrected from the physical game, here Power Pack giving +2 from defense 2."""
    data = raw()
    entry = boost_entry(data, "power_pack")
    entry["params"] = {"amount": 2, "min_defense": 2}
    entry["text"] = "Add 2 to any attack value against a robot with a defense of 2 or more."
    corrected = load(copy.deepcopy(data))
    monkeypatch.setitem(DATA.boosts, "power_pack", corrected.boosts["power_pack"])
    state = table(2)
    planet(state, ("blue_spinston", []), ("green_spinston", ["scrambles"]))
    state.equipped[0] = ["power_pack"]
    turn(state, 0, ["funday"] * 4)
    sizes = {a["column"]: len(a["cards"]) for a in attacks_listed(state, 0)}
    assert sizes == {0: 2, 1: 1}
    state.play(0, attack(1, ["funday"]))
