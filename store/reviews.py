"""The review store: a finished match's review, and which job computes it.

Key names (beside the match's own, in its hash slot; see `store/matches.py`):

* `parlour:match:{<id>}:review`      string: the review (JSON), stored once; it never changes
* `parlour:match:{<id>}:review-job`  string: the id of the job computing the review, claimed before the job
  is queued, so however many ask, one job computes it

Neither outlives its match: each is written with the match's remaining lifetime at most (one script reads
the match's TTL and writes), and reading the review sets its expiry (and its claim's, if longer) to the
match's again, which a later change of the finished match (a rematch offer) may have moved. A review whose
match is gone is never read: the read deletes it and its claim. The scripts are `store/lua/reviews/*.lua`.
"""

from __future__ import annotations

from typing import cast

import redis

from store.connection import lua_script
from store.matches import match_key


def review_key(match_id: str) -> str:
    """The string holding a match's review."""
    return f"{match_key(match_id)}:review"


def review_job_key(match_id: str) -> str:
    """Which job computes a match's review."""
    return f"{match_key(match_id)}:review-job"


class ReviewStore:
    """Reads and writes matches' reviews in Redis, on the match store's client (its replies decoded as UTF-8)."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self._keep = lua_script(client, "reviews", "keep")
        self._read = lua_script(client, "reviews", "read")
        self._claim = lua_script(client, "reviews", "claim")

    def keep(self, match_id: str, review: str) -> bool:
        """Store the review (JSON text) for as long as its match lives; False when the match is gone."""
        return bool(self._keep(keys=[match_key(match_id), review_key(match_id)], args=[review]))

    def read(self, match_id: str) -> str | None:
        """The stored review (JSON text), or None if there is none (or its match is gone)."""
        keys = [match_key(match_id), review_key(match_id), review_job_key(match_id)]
        return cast("str | None", self._read(keys=keys))  # the match store's client decodes replies

    def job(self, match_id: str) -> str | None:
        """The id of the job given the match's review, if any."""
        return cast("str | None", self.client.get(review_job_key(match_id)))

    def claim_job(self, match_id: str, job_id: str, replacing: str | None, ttl: int) -> bool:
        """Give the review to this job if no job has it, or in place of `replacing` (an ended job); for `ttl` s at
        most, never past the match. False when another job has it, or the match is gone."""
        keys = [match_key(match_id), review_job_key(match_id)]
        return bool(self._claim(keys=keys, args=[job_id, replacing or "", ttl]))
