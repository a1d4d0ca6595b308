"""Rock'em Sock'em's environments: both modes, the AEC and the parallel env, tokens, hidden keeps, turn order."""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from engine.errors import InvalidOptions
from engine.protocol import action_text
from engine.rng import Rng
from engine.rockem_sockem.components import DICE, FACES, KEEP_SETS
from engine.rockem_sockem.game import FLIP, RACE
from parlour_envs.encoding import observation
from parlour_envs.games.rockem_sockem import FLIP_TOKEN, MAX_ACTIONS, NOOP_TOKEN, TurnTakingState
from parlour_envs.rockem_sockem_v0 import env, parallel_env, raw_env, raw_parallel_env

MODES = ("rounds", "realtime")
SEEDS = range(4)


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    """PettingZoo's tests warn that a Dict observation 'probably should be' a Box: classic environments use Dicts."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def rockem(e: raw_env | raw_parallel_env) -> TurnTakingState:
    state = e._state()
    assert isinstance(state, TurnTakingState)
    return state


def masked(rng: random.Random, mask: np.ndarray[Any, Any]) -> int:
    return int(rng.choice(np.flatnonzero(mask).tolist()))


def aec_decisions(e: raw_env, seed: int) -> Iterator[tuple[TurnTakingState, int]]:
    """A seeded random AEC episode: (state, seat) before each token."""
    e.reset(seed=seed)
    rng = random.Random(seed)
    while not (e.terminations[e.agent_selection] or e.truncations[e.agent_selection]):
        seat = e.possible_agents.index(e.agent_selection)
        yield rockem(e), seat
        e.step(masked(rng, e.observe(e.agent_selection)["action_mask"]))


def parallel_steps(p: raw_parallel_env, seed: int) -> Iterator[dict[str, Any]]:
    """A seeded random parallel episode: the observations before each step."""
    observations, _ = p.reset(seed=seed)
    rng = random.Random(seed)
    while p.agents:
        yield observations
        actions = {agent: masked(rng, observations[agent]["action_mask"]) for agent in p.agents}
        observations, *_ = p.step(actions)


@pytest.mark.parametrize("mode", MODES)
def test_pettingzoo_api_and_seed_tests_pass_in_both_modes(mode: str) -> None:
    api_test(env(mode=mode), num_cycles=200, verbose_progress=False)
    seed_test(lambda: env(mode=mode), num_cycles=200)
    parallel_api_test(parallel_env(mode=mode), num_cycles=400)
    parallel_seed_test(lambda: parallel_env(mode=mode))


@pytest.mark.parametrize("mode", MODES)
def test_every_legal_action_is_one_token_and_every_token_is_used(mode: str) -> None:
    e = raw_env(mode=mode)
    offered: set[int] = set()
    for seed in SEEDS:
        for state, seat in aec_decisions(e, seed):
            choices = e.encoding.choices(state, seat, ())
            legal = state.legal_actions(seat)
            assert sorted(action_text(a) for a in choices.values()) == sorted(action_text(a) for a in legal)  # type: ignore[arg-type]
            for action in legal:
                (token,) = e.encoding.encode(state, seat, action)
                assert choices[token] == action
            offered |= set(choices)
    assert offered == set(range(e.encoding.num_actions)) - {NOOP_TOKEN}, "the AEC env offers every token but NO-OP"


@pytest.mark.parametrize("mode", MODES)
def test_the_parallel_env_offers_each_seat_its_legal_actions_or_the_noop_alone(mode: str) -> None:
    p = raw_parallel_env(mode=mode)
    for seed in SEEDS:
        for observations in parallel_steps(p, seed):
            state = rockem(p)
            for seat, agent in enumerate(p.possible_agents):
                mask = observations[agent]["action_mask"]
                legal = state.legal_actions(seat)
                if legal:
                    assert sorted(np.flatnonzero(mask)) == sorted(p.encoding.encode(state, seat, a)[0] for a in legal)
                else:
                    assert np.flatnonzero(mask).tolist() == [NOOP_TOKEN]
            if state.phase == RACE:
                assert all(observations[a]["action_mask"][NOOP_TOKEN] == 0 for a in p.agents), "both racers roll"
            else:
                assert observations[p.possible_agents[state.flipper]]["action_mask"][FLIP_TOKEN] == 1
        assert rockem(p).is_over()


def test_the_other_seats_pending_keep_never_changes_my_observation() -> None:
    """Rounds mode, AEC: whichever keep seat 0 sends, seat 1 (to answer next) observes the same thing."""
    e = raw_env(mode="rounds")
    rng = Rng.from_seed("keeps")
    compared = 0
    for seed in SEEDS[:2]:
        for step, (state, seat) in enumerate(aec_decisions(e, seed)):
            if seat != 0 or state.phase != RACE or state.corners[0].dice is None or step % 3:
                continue
            seen = set()
            for keep in KEEP_SETS:
                answered = state.clone()
                answered.apply_trusted(0, {"type": "roll", "keep": list(keep)})
                assert answered.acting_seats() == (1,) and e.encoding.next_seat(answered, frozenset()) == 1
                seen.add(observation(e.encoding, answered.view(1), 1, ()).tobytes())
                guessed = answered.determinize(1, rng)  # the keep redrawn, as seat 1 may imagine it
                assert observation(e.encoding, guessed.view(1), 1, ()).tobytes() in seen
                compared += 1
            assert len(seen) == 1
    assert compared > 0


def test_in_the_parallel_env_no_seat_sees_the_others_choice_before_it_chooses() -> None:
    """Rounds mode: both keeps are sent in one step, so no observation ever shows a keep waiting."""
    p = raw_parallel_env(mode="rounds")
    for seed in SEEDS:
        for observations in parallel_steps(p, seed):
            for seat, agent in enumerate(p.possible_agents):
                view = p.infos[agent]["view"]
                assert view["answered"] == [False, False] and view["my_keep"] is None
                assert np.array_equal(observations[agent]["observation"], observation(p.encoding, view, seat, ()))


@pytest.mark.parametrize("mode", MODES)
def test_the_tensor_shows_each_seats_dice_and_cards_from_its_own_side(mode: str) -> None:
    e = raw_env(mode=mode)
    offsets, faces = e.encoding.offsets, len(FACES)
    checked = 0
    for state, _ in aec_decisions(e, 3):
        for seat in (0, 1):
            view = state.view(seat)
            tensor = e.encoding.observe(view, seat)
            assert e.observation_spaces["player_0"]["observation"].contains(observation(e.encoding, view, seat, ()))
            for corner, name in ((seat, "my"), (1 - seat, "other")):
                shown = view["corners"][corner]
                dice = np.asarray(tensor[offsets[f"{name}_dice"] : offsets[f"{name}_dice"] + DICE * faces]).reshape(
                    DICE, faces
                )
                if shown["dice"] is None:
                    assert not dice.any()
                else:
                    assert [FACES[i] for i in dice.argmax(axis=1)] == shown["dice"] and dice.sum() == DICE
                cards = tensor[offsets[f"{name}_cards"] : offsets[f"{name}_cards"] + 3]
                assert list(cards) == pytest.approx(
                    [shown["hits_shown"] / 3, shown["misses_shown"] / 2, shown["face_down"] / 5]
                )
            assert tensor[offsets["i_flip"]] == (state.flipper == seat)
            assert tensor[offsets["realtime"]] == (mode == "realtime")
            checked += 1
    assert checked > 20


def test_realtime_racers_roll_in_turn_the_flippers_opponent_first() -> None:
    e = raw_env(mode="realtime")
    rng = Rng.from_seed("realtime")
    for seed in SEEDS:
        previous: tuple[int, int] | None = None  # (round, seat) of the last roll
        for state, seat in aec_decisions(e, seed):
            assert e.encoding.next_seat(state.determinize(seat, rng), frozenset()) == seat, "the turn survives a copy"
            if state.phase == FLIP:
                assert seat == state.flipper
                continue
            if previous is None or previous[0] != state.round:
                assert seat == 1 - state.flipper
            else:
                assert seat != previous[1]
            previous = (state.round, seat)


def test_parallel_realtime_a_roll_after_the_grab_is_void() -> None:
    """Both racers keep three blocks on the icon side: the flipper's opponent rolls first; if it grabs the coin,
    the flipper's roll comes too late and is not played."""
    grabbed = 0
    for seed in range(40):
        p = raw_parallel_env(mode="realtime")
        p.reset(seed=seed)
        state = rockem(p)
        state.phase, state.coin = RACE, "icon"
        for corner in state.corners:
            corner.dice = [1, 1, 1, 2]  # red block x3, blue uppercut
        p._offer()
        keep_three = 1 + 0b0111
        p.step(dict.fromkeys(p.agents, keep_three))
        opponent = 1 - 0  # seat 0 flipped round 1
        if state.last_round is not None and state.last_round["grabbed_by"] == opponent:
            assert state.corners[0].dice == [1, 1, 1, 2] and p.actions_played == 1
            grabbed += 1
        else:
            assert p.actions_played == 2
    assert grabbed > 0


def test_an_illegal_token_ends_the_parallel_episode_like_the_aec_wrapper() -> None:
    p = raw_parallel_env()
    observations, _ = p.reset(seed=0)
    assert np.flatnonzero(observations["player_1"]["action_mask"]).tolist() == [NOOP_TOKEN]
    _, rewards, terminations, truncations, infos = p.step({"player_0": FLIP_TOKEN, "player_1": FLIP_TOKEN})
    assert (
        rewards == {"player_0": 0.0, "player_1": -1.0} and all(terminations.values()) and not any(truncations.values())
    )
    assert "illegal" in infos["player_1"] and p.agents == []


def test_a_seat_that_may_not_act_may_be_left_out_of_the_actions() -> None:
    p = raw_parallel_env()
    p.reset(seed=0)
    p.step({"player_0": FLIP_TOKEN})
    assert rockem(p).phase == RACE and p.actions_played == 1
    with pytest.raises(ValueError, match="may act"):
        p.step({"player_0": 1})


@pytest.mark.parametrize("mode", MODES)
def test_parallel_rewards_and_truncation(mode: str) -> None:
    p = raw_parallel_env(mode=mode)
    assert p.max_actions == MAX_ACTIONS
    observations, _ = p.reset(seed=5)
    rng = random.Random(5)
    rewards: dict[str, float] = {}
    while p.agents:
        actions = {agent: masked(rng, observations[agent]["action_mask"]) for agent in p.agents}
        observations, rewards, terminations, truncations, _ = p.step(actions)
    assert (
        all(terminations.values())
        and list(rewards.values()) == rockem(p).rewards()
        and sorted(rewards.values()) == [-1.0, 1.0]
    )
    short = raw_parallel_env(mode=mode, max_actions=3)
    observations, _ = short.reset(seed=5)
    while short.agents:
        actions = {agent: masked(rng, observations[agent]["action_mask"]) for agent in short.agents}
        observations, rewards, terminations, truncations, _ = short.step(actions)
    assert 3 <= short.actions_played <= 4 and all(truncations.values()) and not any(terminations.values())


@pytest.mark.parametrize("mode", MODES)
def test_a_seeded_parallel_episode_replays_exactly(mode: str) -> None:
    def episode() -> list[bytes]:
        return [
            b"".join(o["observation"].tobytes() + o["action_mask"].tobytes() for o in observations.values())
            for observations in parallel_steps(raw_parallel_env(mode=mode), 11)
        ]

    assert episode() == episode()


def test_mode_is_a_keyword_argument_and_is_checked() -> None:
    assert raw_env(mode="realtime").options["mode"] == raw_parallel_env(mode="realtime").options["mode"] == "realtime"
    with pytest.raises(InvalidOptions):
        raw_env(mode="whenever")


def test_render_draws_the_round() -> None:
    e = raw_env(render_mode="ansi")
    e.reset(seed=2)
    assert "seat 0 to flip" in (e.render() or "")
    e.step(FLIP_TOKEN)
    e.step(1)
    e.step(1)
    text = e.render() or ""
    assert "race on" in text and "[0]" in text and "face down" in text
    p = raw_parallel_env(render_mode="ansi", mode="realtime")
    p.reset(seed=2)
    assert "[realtime mode]" in (p.render() or "")
