"""The load test's yardsticks: bare Flask + Redis apps doing one compare-and-set per write.

`/counters` does what Parlour's hot path does minus the game and its JSON: read a key's version, and
apply a change only if the client's `expected_version` is still current (WATCH/MULTI/EXEC).
`/documents` does the same with a realistic 5 KB JSON state, as any app that keeps one would: read
and parse it, answer it whole, and on a write parse, modify, compare-and-set and answer it (the
standard library's JSON and Flask's `jsonify`). Served by the benchmark as
`gunicorn loadtests.baseline_app:app`, with REDIS_URL in the environment.
"""

from __future__ import annotations

import json
import os
import secrets
from typing import Any

import redis
from flask import Flask, Response, jsonify, request

TTL_SECONDS = 3600


def counter_key(counter_id: str) -> str:
    """The hash that holds one counter's version."""
    return f"baseline:counter:{counter_id}"


def document_key(document_id: str) -> str:
    """The hash that holds one document's version and JSON text."""
    return f"baseline:document:{document_id}"


def new_document() -> dict[str, Any]:
    """A game-like state of about 5 KB of JSON: seats, a board, hands, a deck and a short history."""
    return {
        "version": 0,
        "seats": [{"seat": n, "name": f"player {n}", "score": 0, "hand": list(range(n, n + 8))} for n in range(4)],
        "board": [[(row * 7 + column) % 13 for column in range(7)] for row in range(7)],
        "deck": [{"id": n, "colour": ("red", "blue", "green")[n % 3], "value": n % 10} for n in range(64)],
        "history": [{"version": n, "seat": n % 4, "move": {"from": n % 7, "to": (n + 3) % 7}} for n in range(30)],
        "phase": "play",
        "to_act": [0],
    }


def play_on(document: dict[str, Any]) -> None:
    """One move's change: the next seat scores, a card goes round the deck, the history keeps its last 30."""
    version = document["version"] = document["version"] + 1
    seat = version % len(document["seats"])
    document["seats"][seat]["score"] += 1
    document["deck"].append(document["deck"].pop(0))
    document["history"] = [*document["history"][1:], {"version": version, "seat": seat, "move": {"from": 1, "to": 2}}]
    document["to_act"] = [(seat + 1) % len(document["seats"])]


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

    @app.post("/documents")
    def create_document() -> tuple[Response, int]:
        """A new document at version 0."""
        document_id = secrets.token_urlsafe(12)
        client.hset(document_key(document_id), mapping={"version": 0, "state": json.dumps(new_document())})
        client.expire(document_key(document_id), TTL_SECONDS)
        return jsonify({"id": document_id, "version": 0}), 201

    @app.get("/documents/<document_id>")
    def get_document(document_id: str) -> tuple[Response, int]:
        """The whole document, read and parsed."""
        text = client.hget(document_key(document_id), "state")
        if text is None:
            return jsonify({"code": "not-found"}), 404
        return jsonify({"id": document_id, "state": json.loads(text)}), 200

    @app.post("/documents/<document_id>/moves")
    def move_document(document_id: str) -> tuple[Response, int]:
        """Parse, change and store the document if `expected_version` is current; answer it whole. 409 otherwise."""
        body: Any = request.get_json(silent=True) or {}
        expected = body.get("expected_version")
        if not isinstance(expected, int):
            return jsonify({"code": "invalid-request"}), 400
        return compare_and_move(client, document_key(document_id), document_id, expected)

    return app


def compare_and_move(client: redis.Redis, key: str, document_id: str, expected: int) -> tuple[Response, int]:
    """WATCH the document, check its version, change it and MULTI/EXEC it back."""
    with client.pipeline() as pipe:
        try:
            pipe.watch(key)  # type: ignore[no-untyped-call]
            current, text = pipe.hmget(key, ["version", "state"])
            if current is None or text is None:
                return jsonify({"code": "not-found"}), 404
            if int(current) != expected:
                return jsonify({"code": "stale-version", "current_version": int(current)}), 409
            document = json.loads(text)
            play_on(document)
            pipe.multi()
            pipe.hset(key, mapping={"version": expected + 1, "state": json.dumps(document)})
            pipe.expire(key, TTL_SECONDS)
            pipe.execute()
        except redis.WatchError:
            return jsonify({"code": "stale-version"}), 409
    return jsonify({"id": document_id, "state": document}), 200


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
