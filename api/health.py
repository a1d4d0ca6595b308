"""GET /v1/health: is the API up and can it reach Redis?"""

from __future__ import annotations

import redis
from flask import Blueprint, Response, jsonify

from api.current import services

blueprint = Blueprint("health", __name__, url_prefix="/v1")


@blueprint.get("/health")
def health() -> tuple[Response, int]:
    """200 with the Redis status when Redis answers, 503 when it does not."""
    try:
        services().store.ping()
    except redis.RedisError:
        return jsonify({"status": "degraded", "redis": "unavailable"}), 503
    return jsonify({"status": "ok", "redis": "ok"}), 200
