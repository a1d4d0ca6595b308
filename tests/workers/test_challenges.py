"""Challenges expire on a real timer worker (`python -m workers --timers`): nobody needs to call the API again.

A bot that never answers is never seated and its match is aborted once the challenge time is up; a
tournament waiting for a bot is aborted the same way; an expiry whose job was lost is found by the
timer worker's sweep, and one that fell due while no timer worker ran fires when one starts.
Nothing is left behind. Wall-clock bounds are generous: the scheduler works in whole seconds.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from api.current import ParlourApp
from model.match import now_iso
from model.settings import Settings
from tests.api.conftest import EVENTS_HEARTBEAT, create_match, read_log
from tests.api.test_bots import register
from tests.api.test_challenges import challenges, events, live_seats
from tests.workers.conftest import StartTimerWorker
from tests.workers.test_ai_seats import wait_for

CHALLENGE_SECONDS = 2
WAIT = 40.0
"""Seconds a test waits for an expiry it expects: the challenge time, the sweep's grace, and plenty more."""


@pytest.fixture
def settings(redis_url: str) -> Settings:
    """The API's settings with a short challenge time."""
    return Settings(
        redis_url=redis_url,
        cors_origins=["https://front.example"],
        events_heartbeat=EVENTS_HEARTBEAT,
        challenge_seconds=CHALLENGE_SECONDS,
    )


def against(bot: dict[str, Any]) -> list[dict[str, Any]]:
    """The seats of a match between the bot and a human (the creator)."""
    return [{"type": "bot", "bot": bot["id"]}, {"type": "human", "name": "Ada"}]


def aborted(client: FlaskClient, url: str) -> dict[str, Any] | None:
    """The match or tournament once it is aborted, else None."""
    body: dict[str, Any] = client.get(url).get_json()
    return body if body["status"] == "aborted" else None


def test_a_bot_that_never_accepts_is_never_seated_and_the_match_is_aborted(
    app: ParlourApp,
    client: FlaskClient,
    start_timer_worker: StartTimerWorker,
) -> None:
    start_timer_worker("challenge-timers")
    silent = register(client, "silent", policy=None)
    match = create_match(client, seats=against(silent), turn_timer={"seconds": 1})
    body = wait_for(lambda: aborted(client, match.url()), "the unanswered challenge to expire", timeout=WAIT)
    assert "did not accept" in body["abort_reason"] and body["result"] is None
    assert body["seats"][0]["filled"] is False and body["seats"][0]["challenge"] == "pending"
    assert read_log(client, match.id)["entries"] == [], "no seat ever played or timed out"
    told = events(client, silent)
    assert [e["event"] for e in told] == ["challenge", "challenge-canceled"]
    assert told[1]["data"]["status"] == "expired"
    assert challenges(client, silent)["items"] == [] and live_seats(client, silent)["items"] == []
    assert client.get(f"/v1/bots/{silent['id']}").get_json()["matches_playing"] == 0
    assert app.services.store.challenged_matches() == [], "nothing left behind"


def test_a_tournament_whose_bot_never_answers_is_aborted(
    client: FlaskClient,
    start_timer_worker: StartTimerWorker,
) -> None:
    start_timer_worker("tournament-challenge-timers")
    silent = register(client, "silent", policy=None)
    entrants = [{"type": "ai", "level": "random"}, {"type": "bot", "bot": silent["id"]}]
    created = client.post("/v1/tournaments", json={"game": "sundae_split", "entrants": entrants})
    assert created.status_code == 201 and created.get_json()["status"] == "waiting"
    body = wait_for(lambda: aborted(client, created.headers["Location"]), "the tournament to expire", timeout=WAIT)
    assert "did not accept" in body["abort_reason"] and all(m["match"] is None for m in body["matches"])
    assert [e["event"] for e in events(client, silent)] == ["challenge", "challenge-canceled"]
    assert client.get("/v1/tournaments?status=waiting").get_json()["items"] == []


def test_an_expiry_whose_job_was_lost_is_found_by_the_sweep(
    app: ParlourApp,
    client: FlaskClient,
    start_timer_worker: StartTimerWorker,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    silent = register(client, "silent", policy=None)
    with monkeypatch.context() as patch:
        patch.setattr(app.services.challenges.queue, "schedule_call", lambda *args: False)  # the API died there
        match = create_match(client, seats=against(silent))
    start_timer_worker("sweeping-timers")
    body = wait_for(lambda: aborted(client, match.url()), "the sweep to expire the match", timeout=WAIT)
    assert "did not accept" in body["abort_reason"]
    assert challenges(client, silent)["items"] == []


def test_an_expiry_due_while_no_timer_worker_ran_fires_when_one_starts(
    client: FlaskClient,
    start_timer_worker: StartTimerWorker,
) -> None:
    silent = register(client, "silent", policy=None)
    match = create_match(client, seats=against(silent))
    wait_for(lambda: client.get(match.url()).get_json()["start_by"] < now_iso(), "the challenge time to pass")
    assert client.get(match.url()).get_json()["status"] == "waiting", "nobody aborts it without a timer worker"
    start_timer_worker("late-timers")
    wait_for(lambda: aborted(client, match.url()), "the overdue expiry to fire", timeout=WAIT)
