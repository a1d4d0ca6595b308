"""Fixtures for API tests: the app on the real Redis, a client, and small helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from api.current import ParlourApp
from model.settings import LIMIT_NAMES, LimitSettings, Settings

EVENTS_HEARTBEAT = 0.2
"""Seconds between heartbeats on a quiet event stream in tests (15 in service)."""
IN_PROCESS = "100000/second"
IN_PROCESS_RATES: dict[str, Any] = dict.fromkeys(LIMIT_NAMES, IN_PROCESS)  # every rate field: each a `limits` string
IN_PROCESS_LIMITS = replace(LimitSettings(), **IN_PROCESS_RATES)
"""The limiter stays on in every test, but the suite plays whole matches in process, from one address,
thousands of requests a second, faster than any client over a network: its rates are out of reach.
The quotas are the defaults; tests/api/test_limits.py and test_quotas.py set their own."""


@pytest.fixture
def settings(redis_url: str) -> Settings:
    """Settings pointing at the test Redis, with an event-stream heartbeat short enough for tests."""
    return Settings(
        redis_url=redis_url,
        cors_origins=["https://front.example"],
        events_heartbeat=EVENTS_HEARTBEAT,
        limits=IN_PROCESS_LIMITS,
    )


@pytest.fixture
def app(settings: Settings) -> Iterator[ParlourApp]:
    """The API app; its change listener is stopped afterwards."""
    app = create_app(settings)
    app.testing = True
    yield app
    app.services.changes.stop()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A test client of the app."""
    return app.test_client()


def bearer(token: str) -> dict[str, str]:
    """The Authorization header for a seat token."""
    return {"Authorization": f"Bearer {token}"}


@dataclass
class Match:
    """A match created through the API, with its seat tokens."""

    id: str
    tokens: dict[int, str]
    body: dict[str, Any]

    def url(self, suffix: str = "") -> str:
        """The match's URL, plus an optional sub-path."""
        return f"/v1/matches/{self.id}{suffix}"


def create_match(client: FlaskClient, **request: Any) -> Match:
    """POST /v1/matches (IceCream for 2 by default) and keep the tokens."""
    payload = {"game": "icecream", "players": 2, **request}
    response = client.post("/v1/matches", json=payload)
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    return Match(body["id"], {seat["seat"]: seat["token"] for seat in body["tokens"]}, body)


@pytest.fixture
def match(client: FlaskClient) -> Match:
    """A fresh 2-player IceCream match with both seats filled, that allows hints (two people forbid them by
    default: tests/api/test_fair_play.py)."""
    return create_match(client, seed="test-seed", assistance="allowed")


def whole_log(page: Callable[[int], dict[str, Any]]) -> dict[str, Any]:
    """Every page of a log (`page(after)` answers the one after that version) as one answer holding every entry."""
    log = page(0)
    entries = list(log["entries"])
    while log["next_after"] is not None:
        assert log["next"] is not None and log["entries"], log
        log = page(log["next_after"])
        entries += log["entries"]
    return {**log, "entries": entries}


def read_log(client: FlaskClient, match_id: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    """GET /v1/matches/{id}/log page after page, as one answer holding every entry."""

    def page(after: int) -> dict[str, Any]:
        response = client.get(f"/v1/matches/{match_id}/log?after={after}", headers=headers or {})
        assert response.status_code == 200, response.get_json()
        return dict(response.get_json())

    return whole_log(page)
