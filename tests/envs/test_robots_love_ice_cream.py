"""Robots Love Ice Cream's environment: every legal action has exactly one token path, with every variant.

Seeded playouts walk every branch of the mask at each decision and compare the completed actions with
`legal_actions`; hand-set tables reach what random play rarely does (Boost choices with a target, card or column, a
bought Yoink!!, extra attacks, sets of two sizes, large equips, the Ice Cream Social); PettingZoo's own tests run for
1 to 4 players.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator
from typing import Any, cast

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from engine.protocol import Action, action_text
from engine.robots_love_ice_cream import GAME, RobotsState
from engine.robots_love_ice_cream.table import ACT, EQUIP, SOCIAL, STORE
from parlour_envs import robots_love_ice_cream_v0
from parlour_envs.encoding import Encoding
from parlour_envs.games.robots_love_ice_cream import DONE, NAMES, RobotsLoveIceCreamEncoding

VARIANTS: list[dict[str, Any]] = [
    {},
    {"weaponized_sprinkletonium": True, "ice_cream_social": True, "attack_twice": True, "open_hands": True},
    {"harder_robots": True, "all_red_spinstons": True, "boost_limit": True, "solo_planets": "3"},
]


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    """PettingZoo warns that a Dict observation 'probably should be' a Box: classic environments use Dicts."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def completions(encoding: Encoding, state: RobotsState, seat: int, chosen: tuple[int, ...] = ()) -> Iterator[Action]:
    """Every action reached by walking every branch of the mask from `chosen`."""
    for token, choice in encoding.choices(state, seat, chosen).items():
        if choice is None:
            yield from completions(encoding, state, seat, (*chosen, token))
        else:
            yield choice  # type: ignore[misc]


def assert_exact(encoding: Encoding, state: RobotsState, seat: int) -> list[Action]:
    """The mask's paths complete exactly the legal actions, once each; their tokens are prefix-free and short."""
    legal = state.legal_actions(seat)
    reached = [action_text(action) for action in completions(encoding, state, seat)]
    assert len(set(reached)) == len(reached)
    assert set(reached) == {action_text(action) for action in legal}
    paths = [encoding.encode(state, seat, action) for action in legal]
    for path in paths:
        assert 1 <= len(path) <= encoding.max_tokens()
        assert not any(other != path and other[: len(path)] == path for other in paths), path
    return legal


def table(players: int, **options: Any) -> tuple[RobotsLoveIceCreamEncoding, RobotsState]:
    """A new game whose first seat is at the act step of its first turn."""
    resolved = GAME.info.options.resolve(options)
    state = cast(RobotsState, GAME.new_state(players, resolved, 5))
    seat = state.acting_seats()[0]
    while state.step != ACT:
        state.apply_trusted(seat, state.legal_actions(seat)[0])
    return RobotsLoveIceCreamEncoding(players, resolved), state


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_mask_walks_complete_exactly_the_legal_actions_in_seeded_playouts(players: int) -> None:
    kinds: set[str] = set()
    for number, options in enumerate(VARIANTS):
        env = robots_love_ice_cream_v0.raw_env(players=players, **options)
        env.reset(seed=number)
        rng = random.Random(number)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            state, seat = env._state(), env.possible_agents.index(env.agent_selection)
            if not env.chosen:
                kinds.update(action["type"] for action in assert_exact(env.encoding, state, seat))  # type: ignore[arg-type]
            mask = env.observe(env.agent_selection)["action_mask"]
            token = rng.choice(np.flatnonzero(mask).tolist())
            completed = env._offered[token]
            if isinstance(completed, dict):  # a random walk of the mask completes only actions the engine accepts
                state.clone().play(seat, completed)
            env.step(token)
        assert len(set(env.rewards.values())) == 1, "the team shares one reward"
        assert set(env._cumulative_rewards.values()) == {state.rewards()[0]}
    assert {"keep_drawn", "attack", "end_turn", "buy_boost", "stop_buying", "equip_upgrades"} <= kinds


def test_boost_choices_with_a_target_a_card_or_a_column_have_one_path_each() -> None:
    encoding, state = table(3, weaponized_sprinkletonium=True)
    seat = state.acting_seats()[0]
    state.effects[seat] = ["beam_jammer", "cherry_bomb", "free_sample", "sprinkle_rain", "sticky_syrup", "team_player"]
    state.weaponized[seat] = 1
    state.sprinkles[seat] = 3
    state.hands[seat] = sorted(["brain_freeze", "funday", "funday", "rapid_pop"])
    legal = assert_exact(encoding, state, seat)
    gifts = [action for action in legal if action.get("boost") == "team_player"]
    assert len(gifts) == 2 * 4  # two other seats, four kinds of card (a weaponized Sprinkletonium among them)
    gift = {"type": "use_boost_in_play", "boost": "team_player", "target": (seat + 2) % 3, "card": "sprinkletonium"}
    assert [NAMES[token] for token in encoding.encode(state, seat, gift)] == [
        "use_boost_in_play",
        "boost team_player",
        "seat +2 (counted clockwise from the chooser)",
        "card sprinkletonium",
    ]
    assert any(action.get("boost") == "cherry_bomb" for action in legal) == any(
        state.target(column) is not None and state.target(column)[1].defense <= 2  # type: ignore[index]
        for column in range(len(state.columns))
    )


def test_a_bought_yoink_resolves_with_a_seat_and_an_upgrade() -> None:
    encoding, state = table(4)
    seat = state.acting_seats()[0]
    state.phase, state.step, state.queue, state.pending = STORE, "", [seat], "yoink"
    state.spares[(seat + 1) % 4] = ["bigger_tires", "power_pack"]
    state.spares[(seat + 3) % 4] = ["sprinkle_vault"]
    legal = assert_exact(encoding, state, seat)
    assert len(legal) == 3 and {action["type"] for action in legal} == {"resolve_bought_boost"}


def test_extra_attacks_and_sets_of_two_sizes() -> None:
    encoding, state = table(2, all_red_spinstons=True)
    seat = state.acting_seats()[0]
    state.equipped[seat] = ["hit_em_quick", "oh_fuuuuuuudge", "rapid_pop_special"]
    state.columns[1].slots[0] = "lil_chunk"  # defense 2: Hit Em Quick's extra attack may hit it
    state.hands[seat] = sorted(["brain_freeze"] * 3 + ["funday"] * 5 + ["rapid_pop"] * 2)
    regular = assert_exact(encoding, state, seat)
    sizes = {len(action["cards"]) for action in regular if action["type"] == "attack" and action["column"] == 0}
    assert len(sizes) > 1  # Rapid Pop Special makes a Rapid Pop set one card shorter: `done` ends every set
    state.attacks = state.regular_attacks()
    extra = assert_exact(encoding, state, seat)
    assert {action["upgrade"] for action in extra if action["type"] == "attack"} == {"hit_em_quick", "oh_fuuuuuuudge"}
    longest = {"type": "attack", "column": 0, "cards": ["funday"] * 5, "upgrade": "oh_fuuuuuuudge"}
    assert state.target(0)[1].defense == 5  # type: ignore[index]  # Variant C: a Spinston 2.0 with no robot below
    assert any(action_text(action) == action_text(longest) for action in extra)
    tokens = encoding.encode(state, seat, longest)
    assert len(tokens) == encoding.max_tokens() == 9 and tokens[-1] == DONE


def test_keeps_equips_and_the_social() -> None:
    encoding, state = table(1)
    state.equipped[0] = ["bigger_tires", "cone_launcher"]
    state.step, state.drawn = "keep", ["boomsicle", "brain_freeze", "funday", "funday"]
    assert len(assert_exact(encoding, state, 0)) == 3  # keep 3 of 4 cards, two of them alike
    state.phase, state.step, state.queue = EQUIP, "", [0]
    state.spares[0] = ["chocolate_shell", "power_pack", "sprinkle_scoop"]
    assert len(assert_exact(encoding, state, 0)) == 1 + 5 + 10 + 10  # up to 3 of 5 upgrades
    encoding, state = table(4, ice_cream_social=True)
    state.phase, state.step, state.queue = SOCIAL, "", [state.first_player]
    state.social = ["brain_freeze", "funday", "funday"]
    assert len(assert_exact(encoding, state, state.first_player)) == 12 + 1  # 4!/2! ways to share, or at random


def test_observations_stay_in_their_bounds_and_render_reads() -> None:
    env = robots_love_ice_cream_v0.raw_env(players=4, render_mode="ansi", weaponized_sprinkletonium=True)
    low, high = env.encoding.bounds()
    env.reset(seed=11)
    rng = random.Random(11)
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        observed = env.observe(env.agent_selection)
        assert ((observed["observation"] >= low) & (observed["observation"] <= high)).all()
        env.step(rng.choice(np.flatnonzero(observed["action_mask"]).tolist()))
    text = env.render()
    assert text is not None and text.startswith("planet 5") and "seat 3:" in text
    assert sum(section.size for section in env.encoding.layout) + len(NAMES) == env.encoding.observation_size


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_pettingzoo_api_and_seed_tests_pass(players: int) -> None:
    api_test(robots_love_ice_cream_v0.env(players=players), num_cycles=100, verbose_progress=False)
    seed_test(lambda: robots_love_ice_cream_v0.env(players=players, attack_twice=True), num_cycles=100)


def test_options_are_keyword_arguments() -> None:
    env = robots_love_ice_cream_v0.raw_env(players=1, solo_planets="3", boost_limit=True)
    assert env.options["solo_planets"] == "3" and env.options["boost_limit"]
    with pytest.raises(ValueError):
        robots_love_ice_cream_v0.raw_env(players=2, no_such_option=True)
    with pytest.raises(ValueError):
        robots_love_ice_cream_v0.raw_env(players=5)
