"""Matchmaking's sweep on a real timer worker (`python -m workers --timers`): nobody needs to call the API again.

Two entrants too far apart to pair at entry are paired by the worker once their windows have widened, and a
ticket nobody pairs expires; the test follows each ticket with a long-poll, which answers on the change.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.current import ParlourApp
from model.settings import MatchmakingSettings, Settings
from tests.api.conftest import EVENTS_HEARTBEAT, IN_PROCESS_LIMITS
from tests.api.test_bots import register
from tests.api.test_matchmaking import enter, rate, read
from tests.workers.conftest import StartTimerWorker

WIDEN = 20.0
"""Rating points a window widens by each second, in the worker: a 42-point gap closes in about two seconds."""
TICKET_SECONDS = 10
WAIT = 30.0


@pytest.fixture
def settings(redis_url: str) -> Settings:
    """The API's settings: tickets live a few seconds (the worker reads its own widening from its environment)."""
    return Settings(
        redis_url=redis_url,
        cors_origins=["https://front.example"],
        events_heartbeat=EVENTS_HEARTBEAT,
        limits=IN_PROCESS_LIMITS,
        matchmaking=replace(MatchmakingSettings(), seconds=TICKET_SECONDS),
    )


def follow(client: FlaskClient, ticket: dict[str, Any], token: str) -> dict[str, Any]:
    """Long-poll the ticket until it stops waiting (or WAIT seconds pass); its answer."""
    return read(client, ticket, token, f"?wait={WAIT:g}")


def test_the_worker_pairs_entrants_once_their_windows_widen_and_expires_the_rest(
    app: ParlourApp, client: FlaskClient, start_timer_worker: StartTimerWorker, monkeypatch: pytest.MonkeyPatch
) -> None:
    strong = register(client, "strong", policy=None)
    rate(app, strong, 45.0)  # 42 points above a person
    bot_ticket = enter(client, strong, rated=True)
    person = enter(client, name="Ann", rated=True)
    lonely = enter(client, name="Lou", game="sundae_split", players=5)
    assert person["status"] == "waiting" == lonely["status"]
    monkeypatch.setenv("PARLOUR_MATCHMAKING_WIDEN", str(WIDEN))
    start_timer_worker("matchmaking-timers")
    paired = follow(client, person, person["token"])
    assert paired["status"] == "matched" and paired["seat_token"]
    assert read(client, bot_ticket, strong["token"])["match"] == paired["match"]
    match = client.get(f"/v1/matches/{paired['match']}").get_json()
    assert match["status"] == "active" and {seat["name"] for seat in match["seats"]} == {"strong", "Ann"}
    expired = follow(client, lonely, lonely["token"])
    assert expired["status"] == "expired" and expired["match"] is None
