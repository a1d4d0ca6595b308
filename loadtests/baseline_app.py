"""The load test's yardstick: a bare Flask + Redis app doing one compare-and-set per write.

It does what Parlour's hot path does minus the game: read a key's version, and apply a change only
if the client's `expected_version` is still current (WATCH/MULTI/EXEC). Served by the benchmark
as `gunicorn loadtests.baseline_app:app`, with REDIS_URL in the environment.
"""

from __future__ import annotations

import os
import secrets
from typing import Any

import redis
from flask import Flask, Response, jsonify, request

TTL_SECONDS = 3600


def counter_key(counter_id: str) -> str:
    """The hash that holds one counter's version."""
    return f"baseline:counter:{counter_id}"


def create_baseline_app(redis_url: str) -> Flask:
    """The baseline app on the Redis at `redis_url`."""
    app = Flask(__name__)
    client = redis.Redis.from_url(redis_url)

    @app.get("/health")
    def health() -> Response:
        """200 when Redis answers."""
        client.ping()
        return jsonify({"status": "ok", "redis": "ok"})

    @app.post("/counters")
    def create_counter() -> tuple[Response, int]:
        """A new counter at version 0."""
        counter_id = secrets.token_urlsafe(12)
        client.hset(counter_key(counter_id), "version", 0)
        client.expire(counter_key(counter_id), TTL_SECONDS)
        return jsonify({"id": counter_id, "version": 0}), 201

    @app.get("/counters/<counter_id>")
    def get_counter(counter_id: str) -> tuple[Response, int]:
        """The counter's version."""
        version = client.hget(counter_key(counter_id), "version")
        if version is None:
            return jsonify({"code": "not-found"}), 404
        return jsonify({"id": counter_id, "version": int(version)}), 200

    @app.post("/counters/<counter_id>/increment")
    def increment(counter_id: str) -> tuple[Response, int]:
        """Bump the version if `expected_version` is current; 409 otherwise."""
        body: Any = request.get_json(silent=True) or {}
        expected = body.get("expected_version")
        if not isinstance(expected, int):
            return jsonify({"code": "invalid-request"}), 400
        return compare_and_increment(client, counter_key(counter_id), expected)

    return app


def compare_and_increment(client: redis.Redis, key: str, expected: int) -> tuple[Response, int]:
    """WATCH the key, check its version, and MULTI/EXEC the increment."""
    with client.pipeline() as pipe:
        try:
            pipe.watch(key)  # type: ignore[no-untyped-call]
            current = pipe.hget(key, "version")
            if current is None:
                return jsonify({"code": "not-found"}), 404
            if int(current) != expected:
                return jsonify({"code": "stale-version", "current_version": int(current)}), 409
            pipe.multi()
            pipe.hset(key, "version", expected + 1)
            pipe.expire(key, TTL_SECONDS)
            pipe.execute()
        except redis.WatchError:
            return jsonify({"code": "stale-version"}), 409
    return jsonify({"version": expected + 1}), 200


app = create_baseline_app(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
