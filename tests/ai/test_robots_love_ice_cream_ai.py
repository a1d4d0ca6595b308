"""Robots Love Ice Cream AI: legal, repeatable answers everywhere, decisions from the seat's own view only, a
score that orders positions, and AI teams that succeed where random ones never do."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ai.greedy import GreedyAgent
from ai.ismcts import IsmctsAgent
from ai.knowledge import knowledge_for
from ai.knowledge.robots_love_ice_cream import (
    LOSS_DIST,
    RobotsLoveIceCreamKnowledge,
    policy_action,
    ranked_attacks,
    set_sizes,
    settled_action,
    success_chance,
)
from ai.levels import choose
from ai.random_agent import RandomAgent
from engine import get_game
from engine.protocol import action_text
from engine.rng import Rng
from engine.robots_love_ice_cream.schema import ICE_CREAM_TYPES
from engine.robots_love_ice_cream.sets import attack_slots, cards_needed
from engine.robots_love_ice_cream.state import RobotsState
from lab.ai_team import main as team_main
from lab.ai_team import measure
from tests.ai.test_agents import without_rng
from tests.engine import test_robots_love_ice_cream_helpers as helpers

GAME = "robots_love_ice_cream"
KNOWLEDGE = RobotsLoveIceCreamKnowledge()
VARIANTS: list[dict[str, Any]] = [
    {"harder_robots": True},
    {"weaponized_sprinkletonium": True},
    {"all_red_spinstons": True},
    {"ice_cream_social": True},
    {"attack_twice": True},
    {"boost_limit": True},
]
ALL_VARIANTS = {name: value for variant in VARIANTS for name, value in variant.items()}
OPTION_SETS: list[dict[str, Any]] = [
    {},
    *VARIANTS,
    ALL_VARIANTS,
    {"open_hands": True, "stop_when_lost": True},
    {"solo_planets": "3"},
]
OPTION_IDS = ["-".join(f"{k}={v}" for k, v in options.items()) or "plain" for options in OPTION_SETS]


def new_game(players: int, options: dict[str, Any], seed: str | int) -> RobotsState:
    """A fresh Robots Love Ice Cream game."""
    game = get_game(GAME)
    assert game is not None
    state = game.start(players, options, seed)
    assert isinstance(state, RobotsState)
    return state


def mixed_positions(players: int, options: dict[str, Any], seed: int) -> Iterator[RobotsState]:
    """Every position of a seeded game whose moves are, at random, the team policy's or random ones."""
    state = new_game(players, options, f"mixed:{seed}")
    rng = Rng.from_seed(f"mixed:{players}:{seed}")
    while not state.is_over():
        yield state
        (seat,) = state.acting_seats()
        action = policy_action(state, seat) if rng.below(2) else state.sample_action(seat, rng)
        state.apply_trusted(seat, action)


def searched(state: RobotsState, seat: int) -> bool:
    """True when the seat's decision is searched (it has no settled action and more than one candidate)."""
    if settled_action(state, seat) is not None:
        return False
    return len(KNOWLEDGE.candidates(state, seat, Rng(0), 8)) > 1


def test_the_game_has_its_knowledge() -> None:
    assert isinstance(knowledge_for(GAME), RobotsLoveIceCreamKnowledge)


# --- legal everywhere -------------------------------------------------------------------------
@pytest.mark.parametrize("options", OPTION_SETS, ids=OPTION_IDS)
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_the_policy_and_the_candidates_are_legal_actions(players: int, options: dict[str, Any]) -> None:
    positions = 0
    for state in mixed_positions(players, options, seed=players):
        (seat,) = state.acting_seats()
        legal = {action_text(action) for action in state.legal_actions(seat)}
        before = state.to_json()
        assert action_text(policy_action(state, seat)) in legal
        candidates = KNOWLEDGE.candidates(state, seat, Rng(0), 8)
        assert candidates and {action_text(action) for action in candidates} <= legal
        assert len({KNOWLEDGE.key(action) for action in candidates}) == len(candidates)
        settled = settled_action(state, seat)
        assert settled is None or action_text(settled) in legal
        assert state.to_json() == before, "choosing must not change the state"
        positions += 1
    assert positions > 20 * players


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_every_column_that_can_be_attacked_keeps_a_candidate_attack(players: int) -> None:
    checked = 0
    for state in mixed_positions(players, ALL_VARIANTS, seed=10 + players):
        (seat,) = state.acting_seats()
        if state.step != "act":
            continue
        legal = {(a["column"], a["upgrade"]) for a in state.legal_actions(seat) if a["type"] == "attack"}
        ours = {(a["column"], a["upgrade"]) for _, a in ranked_attacks(state, seat, 2)}
        assert ours == legal
        checked += bool(legal)
    assert checked > 3


def test_the_fast_set_size_is_the_engines() -> None:
    checked = 0
    for players in (1, 2, 4):
        for state in mixed_positions(players, ALL_VARIANTS, seed=20 + players):
            if not state.columns:
                continue
            for seat in range(players):
                for upgrade in (None, *attack_slots(state, seat)):
                    for defense in range(1, 6):
                        engine = [cards_needed(state, seat, defense, kind, upgrade) for kind in ICE_CREAM_TYPES]
                        assert set_sizes(state, seat, defense, upgrade) == engine
                        checked += 1
    assert checked > 1000


@pytest.mark.parametrize("options", [{}, ALL_VARIANTS, {"open_hands": True}, {"solo_planets": "3"}], ids=str)
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_the_levels_answer_legal_actions(players: int, options: dict[str, Any]) -> None:
    searches = 0
    for step, state in enumerate(mixed_positions(players, options, seed=30 + players)):
        (seat,) = state.acting_seats()
        if searched(state, seat) and searches < 3:
            searches += 1
            state.clone().play(seat, choose(state, seat, "hard", seed=step, time_cap=0.05))
        if step % 3:
            continue
        for level in ("random", "easy"):
            state.clone().play(seat, choose(state, seat, level, seed=step))
        state.clone().play(seat, IsmctsAgent(knowledge_for).choose(state, seat, 12, step))
    assert searches


# --- seeded, and from the seat's own view -------------------------------------------------------
@pytest.mark.parametrize("players", [1, 3])
def test_same_seed_same_decision(players: int) -> None:
    checked = 0
    for seed in (40, 41, 42):
        for state in mixed_positions(players, {}, seed=seed):
            (seat,) = state.acting_seats()
            if not searched(state, seat):
                continue
            first = choose(state.clone(), seat, "easy", seed="same")
            assert choose(state.clone(), seat, "easy", seed="same") == first
            checked += 1
    assert checked >= 8


@pytest.mark.parametrize(
    ("players", "options"),
    [(1, {}), (2, {}), (3, {"weaponized_sprinkletonium": True}), (4, ALL_VARIANTS), (3, {"open_hands": True})],
    ids=["solo", "2p", "3p-B", "4p-all-variants", "3p-open-hands"],
)
def test_hidden_parts_do_not_change_the_decision(players: int, options: dict[str, Any]) -> None:
    agents = {"easy": None, "random": RandomAgent(), "greedy": GreedyAgent()}
    differs = searches = 0
    for step, state in enumerate(mixed_positions(players, options, seed=50 + players)):
        (seat,) = state.acting_seats()
        if step % 4:
            continue
        other_world = state.determinize(seat, Rng.from_seed(f"world:{step}"))
        differs += without_rng(other_world) != without_rng(state)
        searches += searched(state, seat)
        for name, agent in agents.items():
            if agent is None:
                assert choose(other_world, seat, name, seed=step) == choose(state, seat, name, seed=step)
            else:
                assert agent.choose(other_world, seat, 0, step) == agent.choose(state, seat, 0, step)
    assert differs and searches, "no position had a hidden part to change or a decision to search"


# --- the score ------------------------------------------------------------------------------------
def between_planets(players: int, seed: int = 0) -> RobotsState:
    """The first store phase of a game the team policy plays."""
    state = new_game(players, {}, f"store:{seed}")
    while state.phase != "store":
        (seat,) = state.acting_seats()
        state.apply_trusted(seat, policy_action(state, seat))
    return state


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_the_score_orders_positions(players: int) -> None:
    state = between_planets(players)
    state.tokens[0] = sum(state.tokens) - 1 + state.captured
    state.tokens[1:] = [0] * (players - 1)
    state.captured = 1  # the same tokens have left the track: one more captured is one less saved
    base = success_chance(state)
    assert 0.0 < base < 1.0
    worse, lost, better, richer, poorer = (state.clone() for _ in range(5))
    worse.captured, worse.tokens[0] = 2, worse.tokens[0] - 1
    lost.captured = 4
    better.captured, better.tokens[0] = 0, better.tokens[0] + 1
    richer.sprinkles = [s + 6 for s in richer.sprinkles]
    poorer.hands = [hand[:2] for hand in poorer.hands]
    assert success_chance(lost) == 0.0
    assert success_chance(worse) < base < success_chance(better)
    assert success_chance(poorer) < base <= success_chance(richer)
    assert KNOWLEDGE.evaluate(worse) == [2 * success_chance(worse) - 1] * players


def test_a_later_planet_with_the_same_losses_is_closer_to_success() -> None:
    early, late = between_planets(2), between_planets(2)
    early.captured = late.captured = 2
    late.planet = 4
    late.tokens[0] += 6
    assert success_chance(late) > success_chance(early)


def test_the_score_is_the_result_once_the_game_is_over() -> None:
    state = new_game(2, {}, "over")
    while not state.is_over():
        (seat,) = state.acting_seats()
        state.apply_trusted(seat, policy_action(state, seat))
    assert state.outcome is not None
    assert KNOWLEDGE.evaluate(state) == state.rewards()


def test_the_loss_tables_are_distributions() -> None:
    for table in LOSS_DIST.values():
        assert [len(planet) for planet in table] == [3, 3, 4, 4, 4]
        for planet in table:
            assert sum(planet) == pytest.approx(1.0, abs=0.002)


# --- teams ---------------------------------------------------------------------------------------
def test_the_policy_lowers_a_token_about_to_leave_and_sticks_a_spinston_early() -> None:
    """Beam Jammer when a token is at the top in round 2 (it would leave at the beam's move); Sticky Syrup in round 1
    on the live Spinston with the most robots below it (it keeps that token on the track until round 3)."""
    state = helpers.table(2)
    helpers.planet(state, ("blue_spinston", []), ("green_spinston", ["pewboty", "lil_chip"]))
    state.effects[0] = ["beam_jammer", "sticky_syrup"]
    helpers.turn(state, 0, [])
    state.round = 1
    assert policy_action(state, 0) == {"type": "use_boost_in_play", "boost": "sticky_syrup", "column": 1}
    state.used, state.round, state.track_levels = ["sticky_syrup"], 2, [1, 0, 0]
    assert policy_action(state, 0) == {"type": "use_boost_in_play", "boost": "beam_jammer"}
    state.track_levels = [0, 1, 0]
    assert policy_action(state, 0) == {"type": "end_turn"}  # no token leaves at this beam move: keep it


def test_an_easy_team_succeeds_where_a_random_team_does_not() -> None:
    easy = measure(2, "easy", 8, {})
    random = measure(2, "random", 8, {})
    assert (easy.games, random.games) == (8, 8)
    assert random.successes == 0
    assert easy.successes >= 3


def test_the_team_benchmark_prints_the_rate_and_interval(capsys: pytest.CaptureFixture[str]) -> None:
    team_main(["--players", "1", "--level", "random", "--games", "2"])
    out = capsys.readouterr().out
    assert "robots_love_ice_cream 1p random: team success 0 of 2" in out
    assert "95% CI" in out and "seconds per move" in out


def test_a_split_run_merges_into_the_whole(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    team_main(["--players", "2", "--level", "random", "--games", "2", "--dump", str(first)])
    team_main(["--players", "2", "--level", "random", "--games", "1", "--first-game", "2", "--dump", str(second)])
    capsys.readouterr()
    team_main(["--players", "2", "--level", "random", "--merge", str(first), str(second)])
    merged = capsys.readouterr().out
    team_main(["--players", "2", "--level", "random", "--games", "3"])
    whole = capsys.readouterr().out
    assert "team success 0 of 3" in merged
    assert merged.split("tokens saved")[1].split(";")[0] == whole.split("tokens saved")[1].split(";")[0]
