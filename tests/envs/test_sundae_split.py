"""Sundae Split's environment: the split decomposed into one token per card reaches every legal split, and only those.

Over seeded playouts for 2 to 5 players, at every split: random walks of the mask complete splits the engine
accepts; every split the engine samples has a token path the mask offers, ending in the same split; where the
splits are few enough to list (a small hand), the splits the mask reaches are exactly those `check_action` accepts
among all placements of the cards; with the real hand, the mask's token paths are exactly as many as the rules allow.
"""

from __future__ import annotations

import itertools
import math
import random
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from engine.errors import IllegalAction
from engine.protocol import Action
from engine.rng import Rng
from engine.sundae_split.cards import MAX_PILE, MIN_PILE, ROUND_SIZES
from engine.sundae_split.game import SPLIT, SundaeSplitState
from parlour_envs import sundae_split_v0
from parlour_envs.games.sundae_split import KIND_OF, SundaeSplitEncoding

PLAYERS = (2, 3, 4, 5)
PLAYOUTS = 2
WALKS = 10
"""Random walks of the mask at each split."""
SAMPLES = 30
"""Splits drawn with `sample_action` at each split."""


def key(action: Action) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """A split as what it means: each pile's face-up and face-down cards as sets (their order is no choice)."""
    return tuple((frozenset(pile["face_up"]), frozenset(pile["face_down"])) for pile in action["piles"])


def splits(players: int) -> Iterator[tuple[SundaeSplitEncoding, SundaeSplitState]]:
    """Every split decision of seeded random playouts, before its first token."""
    env = sundae_split_v0.raw_env(players=players)
    encoding = env.encoding
    assert isinstance(encoding, SundaeSplitEncoding)
    for seed in range(PLAYOUTS):
        env.reset(seed=seed)
        rng = random.Random(seed)
        while not env.terminations[env.agent_selection]:
            state = env._state()
            assert isinstance(state, SundaeSplitState)
            if state.phase == SPLIT and not env.chosen:
                yield encoding, state
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(rng.choice(np.flatnonzero(mask).tolist()))


def walk(encoding: SundaeSplitEncoding, state: SundaeSplitState, rng: random.Random) -> tuple[tuple[int, ...], Action]:
    """One random walk of the mask from the split's first token to the split it completes."""
    chosen: tuple[int, ...] = ()
    while True:
        offered = encoding.choices(state, state.splitter, chosen)
        assert offered, f"the mask offers nothing after {chosen}"
        token = rng.choice(sorted(offered))
        chosen = (*chosen, token)
        if offered[token] is not None:
            return chosen, offered[token]  # type: ignore[return-value]


def every_split(encoding: SundaeSplitEncoding, state: SundaeSplitState, chosen: tuple[int, ...] = ()) -> Iterator[Any]:
    """Every split reached by walking every branch of the mask."""
    for token, choice in encoding.choices(state, state.splitter, chosen).items():
        if choice is None:
            yield from every_split(encoding, state, (*chosen, token))
        else:
            yield choice


@pytest.mark.parametrize("players", PLAYERS)
def test_random_walks_of_the_mask_complete_splits_the_engine_accepts(players: int) -> None:
    rng = random.Random(players)
    checked = 0
    for encoding, state in splits(players):
        for _ in range(WALKS):
            tokens, action = walk(encoding, state, rng)
            state.check_action(state.splitter, action)
            assert len(tokens) == len(state.hand) == encoding.max_tokens()
            assert encoding.encode(state, state.splitter, action) == tokens
            checked += 1
    assert checked >= PLAYOUTS * WALKS


@pytest.mark.parametrize("players", PLAYERS)
def test_every_sampled_split_has_a_token_path_to_itself(players: int) -> None:
    sampler = Rng.from_seed(f"sundae-{players}")
    checked = 0
    for encoding, state in splits(players):
        for _ in range(SAMPLES):
            drawn = state.sample_action(state.splitter, sampler)
            tokens = encoding.encode(state, state.splitter, drawn)
            for depth, token in enumerate(tokens):
                offered = encoding.choices(state, state.splitter, tokens[:depth])
                assert token in offered, (drawn, tokens[:depth], token)
                assert (offered[token] is None) == (depth < len(tokens) - 1)
            completed = offered[tokens[-1]]
            assert completed is not None and key(completed) == key(drawn)  # type: ignore[arg-type]
            checked += 1
    assert checked >= PLAYOUTS * SAMPLES


def legal_splits(state: SundaeSplitState) -> set[tuple[tuple[frozenset[str], frozenset[str]], ...]]:
    """Brute force: every placement of the cards in piles, with `face_down` of them face down, that `check_action`
    accepts. Placements with another face-down count are left out unchecked: the rules refuse them all, and a mask
    that reached one would differ from this set."""
    players, face_down, legal = state.players, ROUND_SIZES[state.players].face_down, set()
    for piles_of in itertools.product(range(players), repeat=len(state.hand)):
        for hidden in itertools.combinations(range(len(state.hand)), face_down):
            piles: list[dict[str, list[str]]] = [{"face_up": [], "face_down": []} for _ in range(players)]
            for index, (card, pile) in enumerate(zip(state.hand, piles_of, strict=True)):
                piles[pile]["face_down" if index in hidden else "face_up"].append(card)
            action = {"type": SPLIT, "piles": piles}
            try:
                state.check_action(state.splitter, action)
            except IllegalAction:
                continue
            legal.add(key(action))
    return legal


SMALL_HANDS = {2: (6,), 3: (4, 5), 4: (4, 5), 5: (5,)}
"""Hand sizes whose placements (players ** cards, times the face-down choices) are few enough to try them all: the
real draw for 2 players, and for more a cut hand at the edge of the rules (as few cards as face-down cards)."""


@pytest.mark.parametrize("players", PLAYERS)
def test_with_a_small_hand_the_mask_reaches_exactly_the_legal_splits(players: int) -> None:
    encoding, state = next(splits(players))
    drawn = list(state.hand)
    for cards in SMALL_HANDS[players]:
        state.hand = drawn[:cards]
        reached = [key(action) for action in every_split(encoding, state)]
        assert len(set(reached)) == len(reached), "two token paths lead to one split"
        assert set(reached) == legal_splits(state)


def rules_count(cards: int, players: int, face_down: int) -> int:
    """The splits the rules allow: pile sizes in [MIN_PILE, MAX_PILE] adding up, times the face-down cards' choice."""
    sizes = itertools.product(range(MIN_PILE, MAX_PILE + 1), repeat=players)
    placements = sum(math.factorial(cards) // math.prod(map(math.factorial, s)) for s in sizes if sum(s) == cards)
    return placements * math.comb(cards, face_down)


@pytest.mark.parametrize("players", PLAYERS)
def test_with_the_real_hand_the_mask_has_as_many_paths_as_the_rules_have_splits(players: int) -> None:
    encoding, state = next(splits(players))
    counted: dict[tuple[int, tuple[int, ...], int], int] = {}

    def paths(chosen: tuple[int, ...]) -> int:
        sizes = [0] * players
        for token in chosen:
            sizes[encoding.token_pile[token]] += 1
        place = (len(chosen), tuple(sizes), sum(encoding.token_down[t] for t in chosen))
        if place not in counted:  # the mask depends on the piles' sizes and the face-down count only
            offered = encoding.choices(state, state.splitter, chosen)
            counted[place] = sum(1 if done is not None else paths((*chosen, token)) for token, done in offered.items())
        return counted[place]

    size = ROUND_SIZES[players]
    assert paths(()) == rules_count(size.draw, players, size.face_down) > 0


@pytest.mark.parametrize("players", PLAYERS)
def test_tokens_place_the_hand_in_card_order_and_name_each_cards_kind(players: int) -> None:
    encoding, state = next(splits(players))
    tokens, _ = walk(encoding, state, random.Random(1))
    for card, token in zip(sorted(state.hand), tokens, strict=True):
        assert token // (2 * players) == KIND_OF[card]
    take = encoding.encode(state, state.splitter, {"type": "choose", "pile": players - 1})
    assert take == (encoding.num_actions - 1,) and encoding.token_names[take[0]] == f"take pile {players - 1}"
    assert encoding.num_actions == 16 * 2 * players + players


@pytest.mark.parametrize("players", PLAYERS)
def test_the_tensor_stays_in_its_bounds_and_render_reads(players: int) -> None:
    env = sundae_split_v0.raw_env(players=players, render_mode="ansi")
    low, high = env.encoding.bounds()
    env.reset(seed=3)
    rng = random.Random(3)
    while not env.terminations[env.agent_selection]:
        for agent in env.possible_agents:
            tensor = env.observe(agent)["observation"]
            assert np.all(tensor >= low) and np.all(tensor <= high)
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(rng.choice(np.flatnonzero(mask).tolist()))
    text = env.render()
    assert text is not None and "game over" in text and "points" in text


@pytest.mark.parametrize("players", PLAYERS)
def test_pettingzoo_api_and_seed_tests_pass(players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a Dict observation 'probably should be' a Box
        api_test(sundae_split_v0.env(players=players), num_cycles=200, verbose_progress=False)
        seed_test(lambda: sundae_split_v0.env(players=players), num_cycles=200)
