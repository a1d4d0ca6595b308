"""engine/rng.py: SplitMix64 outputs, determinism, ranges, shuffles and clones."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.rng import Rng, seed_to_state


def test_splitmix64_reference_outputs() -> None:
    """The published SplitMix64 sequences for states 0 and 1234567."""
    zero = Rng(0)
    assert [zero.next_u64() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    assert Rng(1234567).next_u64() == 6457827717110365317


def test_state_is_one_64_bit_word() -> None:
    assert Rng(-1).state == (1 << 64) - 1
    assert Rng(1 << 64).state == 0
    assert 0 <= seed_to_state("anything") < 1 << 64


def test_same_seed_same_numbers() -> None:
    first, second = Rng.from_seed("table-7"), Rng.from_seed("table-7")
    assert [first.next_u64() for _ in range(50)] == [second.next_u64() for _ in range(50)]


def test_different_seeds_differ() -> None:
    seeds: list[str | int] = ["a", "b", "", 0, 1, "table-7", "table-8"]
    states = {seed_to_state(seed) for seed in seeds}
    assert len(states) == 7


def test_int_and_text_seeds_are_the_same_seed() -> None:
    """Seeds are read through str(), so 42 and "42" start the same game."""
    assert seed_to_state(42) == seed_to_state("42")


@pytest.mark.parametrize("n", [1, 2, 3, 6, 7, 1000, (1 << 63) + 1, 1 << 64])
def test_below_stays_in_range(n: int) -> None:
    rng = Rng.from_seed(f"range-{n}")
    assert all(0 <= rng.below(n) < n for _ in range(500))


def test_below_one_is_zero() -> None:
    rng = Rng(5)
    assert {rng.below(1) for _ in range(20)} == {0}


@pytest.mark.parametrize("n", [0, -1, (1 << 64) + 1, 1 << 65])
def test_below_refuses_impossible_ranges(n: int) -> None:
    with pytest.raises(ValueError):
        Rng(0).below(n)


def test_below_is_roughly_uniform() -> None:
    """60,000 draws of a die from a fixed seed: every face within 3% of 10,000 (deterministic, not flaky)."""
    rng = Rng.from_seed("die")
    counts = Counter(rng.below(6) for _ in range(60_000))
    assert set(counts) == set(range(6))
    assert all(9_700 <= count <= 10_300 for count in counts.values()), counts


def test_below_has_no_modulo_bias_near_two_to_the_64() -> None:
    """With n = 3 * 2**62, plain `% n` would land in the lowest third half of the time, not a third."""
    rng = Rng.from_seed("bias")
    n = 3 << 62
    low = sum(rng.below(n) < 1 << 62 for _ in range(6_000))
    assert 1_850 < low < 2_150


def test_choice() -> None:
    rng = Rng.from_seed("choice")
    items = ["cone", "scoop", "pile"]
    picks = Counter(rng.choice(items) for _ in range(3_000))
    assert set(picks) == set(items) and min(picks.values()) > 900
    with pytest.raises(ValueError):
        rng.choice([])


def test_shuffle_is_a_permutation() -> None:
    rng = Rng.from_seed("shuffle")
    for size in (0, 1, 2, 5, 52):
        items = list(range(size))
        rng.shuffle(items)
        assert sorted(items) == list(range(size))


def test_shuffle_reaches_every_order_evenly() -> None:
    rng = Rng.from_seed("orders")
    orders: Counter[tuple[str, ...]] = Counter()
    for _ in range(6_000):
        items = ["R", "Y", "G"]
        rng.shuffle(items)
        orders[tuple(items)] += 1
    assert len(orders) == 6 and all(850 <= count <= 1_150 for count in orders.values()), orders


def test_shuffle_is_deterministic() -> None:
    first, second = list(range(20)), list(range(20))
    Rng.from_seed("deck").shuffle(first)
    Rng.from_seed("deck").shuffle(second)
    assert first == second != list(range(20))


def test_clone_is_independent() -> None:
    rng = Rng.from_seed("clone")
    rng.next_u64()
    copy = rng.clone()
    assert copy.state == rng.state and copy is not rng
    ahead = [copy.next_u64() for _ in range(5)]
    assert copy.state != rng.state, "advancing the clone leaves the original where it was"
    assert [rng.next_u64() for _ in range(5)] == ahead
    assert copy.state == rng.state
