"""A small seeded random number generator whose whole state is one integer.

The state lives inside each game state, so chance is part of (game, options, seed, actions)
and a clone or a JSON round-trip carries it along. SplitMix64 is used because its state is a
single 64-bit word: cheap to copy for search, trivial to serialise.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def seed_to_state(seed: str | int) -> int:
    """Turn any seed (text or integer) into a 64-bit starting state."""
    # Domain-separated so the published SHA-256 commitment to the seed says nothing about it.
    digest = hashlib.sha256(b"parlour-rng:" + str(seed).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


class Rng:
    """SplitMix64: deterministic, serialisable, and cheap to clone."""

    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        self.state = state & _MASK

    @classmethod
    def from_seed(cls, seed: str | int) -> Rng:
        """A generator started from a seed of any form."""
        return cls(seed_to_state(seed))

    def clone(self) -> Rng:
        """An independent copy that will produce the same numbers."""
        return Rng(self.state)

    def next_u64(self) -> int:
        """The next 64-bit output."""
        self.state = (self.state + _GOLDEN) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), without modulo bias."""
        if not 0 < n <= 1 << 64:
            # Above 2**64 the rejection limit below would be 0 and the loop would never end.
            raise ValueError("n must be between 1 and 2**64")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            value = self.next_u64()
            if value < limit:
                return value % n

    def choice(self, items: Sequence[T]) -> T:
        """One element of a non-empty sequence, uniformly."""
        return items[self.below(len(items))]

    def choice_many(self, items: Sequence[T], k: int) -> list[T]:
        """k distinct elements, uniformly (a partial Fisher-Yates)."""
        pool = list(items)
        for i in range(k):
            j = i + self.below(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle in place (Fisher-Yates)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
