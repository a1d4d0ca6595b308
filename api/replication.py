"""Acknowledged means replicated, when asked (`PARLOUR_REDIS_WAIT_REPLICAS`): a write's answer waits for the replicas.

Every request that may store a change (POST, PUT, PATCH, DELETE) and succeeded (2xx) is answered only once the
replicas asked for hold what it stored (`store.replication`); when they do not confirm in time, the answer is
503 `replication-timeout` with Retry-After instead, and the client reads before it retries. A replayed answer to
an Idempotency-Key waits too: the change it acknowledges may be the one whose first answer was that 503.
"""

from __future__ import annotations

import redis
from flask import Response, current_app, request

from api.current import services
from model.refusals import NotReplicated

WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def replicated(response: Response) -> Response:
    """`after_request`: a successful write's answer once its change is replicated; else the 503 that says why."""
    if request.method not in WRITES or response.status_code >= 300:
        return response
    try:
        services().replication.confirm()
    except (NotReplicated, redis.RedisError) as error:
        return current_app.handle_user_exception(error)  # type: ignore[return-value]  # the problem+json answer
    return response
