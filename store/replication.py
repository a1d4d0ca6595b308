"""Acknowledged means replicated, when asked: a change is confirmed only once N replicas hold it (Redis `WAIT`).

`WAIT` counts the replicas that hold every write its own connection made, and a request's writes travel on
any of the pool's connections. Replication is one ordered stream, though: a replica that holds a write holds
every write the primary took before it. So `confirm` writes a marker (`INCR parlour:replication-mark`) and then
waits on that same connection, one round trip: once N replicas hold the marker, they hold every change the
request stored before it, on whichever connection.

With `PARLOUR_REDIS_WAIT_REPLICAS` unset (0) `confirm` does nothing: a change is acknowledged once the primary
has it, and a failover to a replica that had not yet received it loses it.
"""

from __future__ import annotations

import redis

from model.refusals import NotReplicated
from store.connection import REDIS_SOCKET_TIMEOUT, redis_client

MARK_KEY = "parlour:replication-mark"
"""The counter `confirm` increments: a write that every replica must receive after the request's own."""


class Replication:
    """Waits, after a change is stored, until `replicas` replicas hold it, `timeout_ms` at most."""

    @classmethod
    def from_url(cls, url: str, replicas: int, timeout_ms: int) -> Replication:
        """On the Redis at `url`; its commands may wait `timeout_ms` for the replicas, beyond the usual timeout."""
        client = redis_client(url, socket_timeout=REDIS_SOCKET_TIMEOUT + timeout_ms / 1000) if replicas else None
        return cls(client, replicas, timeout_ms)

    def __init__(self, client: redis.Redis | None, replicas: int, timeout_ms: int) -> None:
        self.client = client
        self.replicas = replicas
        self.timeout_ms = timeout_ms

    def confirm(self) -> None:
        """Return once `replicas` replicas hold every change stored before this call; `NotReplicated` if they do not
        confirm within `timeout_ms`."""
        if self.client is None or self.replicas <= 0:
            return
        pipe = self.client.pipeline(transaction=False)
        pipe.incr(MARK_KEY)
        pipe.execute_command("WAIT", self.replicas, self.timeout_ms)  # type: ignore[no-untyped-call]  # untyped in redis-py
        _, confirmed = pipe.execute()  # a primary refusing the marker (NOREPLICAS) raises as when it is away
        if int(confirmed) < self.replicas:
            raise NotReplicated(
                f"the change was stored, but {confirmed} of the {self.replicas} replicas asked for confirmed it within "
                f"{self.timeout_ms} ms, so it is not acknowledged: read it again before retrying (or retry with the "
                "same Idempotency-Key): the next read shows all of it, or, after a failover, none"
            )
