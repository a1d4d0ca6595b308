"""When to try a request again and how long to wait: 429 per `Retry-After`, 502/503/504 and lost connections
with capped, jittered exponential backoff, a bounded number of attempts."""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass, field

import httpx

BUSY = frozenset({502, 503, 504})
"""Statuses that say "not now" from a server restarting or a proxy in front of it."""


@dataclass(frozen=True)
class RetryPolicy:
    """How the client retries. `attempts` counts every try, the first included."""

    attempts: int = 6
    backoff: float = 0.5
    """Seconds of the first backoff; each next one doubles, up to `cap`, drawn at random below that (full jitter)."""
    cap: float = 20.0
    max_retry_after: float = 120.0
    """The longest `Retry-After` waited out; a longer one is raised as it is."""
    rng: random.Random = field(default_factory=random.Random, compare=False)

    def backoff_wait(self, attempt: int) -> float:
        """Seconds to wait after the `attempt`-th failure (0 for the first): uniform below the capped exponential."""
        return self.rng.uniform(0, min(self.cap, self.backoff * 2**attempt))


def retry_after(response: httpx.Response) -> float | None:
    """The answer's `Retry-After` in seconds (delta-seconds or an HTTP date), None when absent or unreadable."""
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
