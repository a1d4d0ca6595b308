"""The domain's refusals: why the match layer will not do what was asked, with a stable code.

Services, workers and the CLI raise and catch these; only `api/problems.py` knows which HTTP status
each one is answered with.
"""

from __future__ import annotations

from typing import Any


class Refusal(Exception):
    """A request the match layer refuses: a stable `code`, a human-readable `detail`, and extra fields."""

    code = "invalid-request"
    retry_after: int | None = None
    """Seconds after which asking again may succeed (the `Retry-After` header), where that is known."""

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class InvalidRequest(Refusal):
    """The body, query or path is malformed; `errors` maps fields to messages."""


class Unauthorized(Refusal):
    """No valid seat, bot or owner token."""

    code = "unauthorized"


class Forbidden(Refusal):
    """A valid token, but for another match, seat or bot."""

    code = "forbidden"


class NotFound(Refusal):
    """No such game, match, bot, tournament, job or route."""

    code = "not-found"


class Conflict(Refusal):
    """The request conflicts with the current state of what it names; `code` says how."""

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail, **extra)
        self.code = code


class StaleVersion(Conflict):
    """`expected_version` is not the match's current version."""

    def __init__(self, current_version: int) -> None:
        super().__init__(
            "stale-version",
            f"the match is at version {current_version}; read it again and retry",
            current_version=current_version,
        )


class IdempotencyKeyReused(Refusal):
    """An Idempotency-Key was sent again with a different request."""

    code = "idempotency-key-reused"


class ServiceUnavailable(Refusal):
    """The store cannot be reached, or cannot take more data."""

    code = "service-unavailable"


class StoreFull(ServiceUnavailable):
    """Redis has reached its memory cap and refuses writes; nothing stored was changed, reads still work."""

    code = "store-full"
    retry_after = 60


class NotReplicated(ServiceUnavailable):
    """The change was stored on the primary, but fewer replicas than `PARLOUR_REDIS_WAIT_REPLICAS` confirmed it in
    time: it is not acknowledged. The next read shows the whole change, or (after a failover) none of it."""

    code = "replication-timeout"
    retry_after = 1


class RateLimited(Refusal):
    """The client sent more requests of this kind than its limit allows in the window."""

    code = "rate-limited"


class QuotaExceeded(Refusal):
    """The client holds as many of something as it may at once; `quota`, `in_use` and `resource` say which."""

    code = "quota-exceeded"
    retry_after = 60  # when something held ends is unknown; a client that retries on 429 waits a minute, not a loop


class RulesChanged(Refusal):
    """The match was stored under an earlier version of its game's rules: it can no longer be shown or played."""

    code = "rules-changed"


class AssistanceForbidden(Forbidden):
    """A seat asked the AI for help (a hint, an analysis) while a match that forbids assistance runs."""

    code = "assistance-forbidden"


class ReviewNotReady(NotFound):
    """A finished match's review is not stored (yet); `job_status` says whether a job computes it."""

    code = "review-not-ready"


class Unprocessable(Refusal):
    """Well-formed, but asking for what cannot be done: a budget over its cap, a state no position of the game has."""

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail, **extra)
        self.code = code
