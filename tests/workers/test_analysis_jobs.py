"""Analysis jobs on real `python -m workers` processes: progress streamed live as the search deepens, then its
end; a search that fails ends its stream with `failed`; an analysis gives way to a live match's AI turn.

Every wait is on an event (a stream's next event, a job's status), never on a sleep.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from api.current import ParlourApp
from domain.matches.analysis import MAX_ITERATIONS, MAX_MILLISECONDS, PositionJson
from engine import get_game
from engine.rng import Rng
from store.analysis import AnalysisStore
from tests.workers.conftest import StartWorker
from workers.analysis import analyse_position
from workers.context import context

Event = tuple[str, Any, str | None]


def sundae_position(seed: str) -> dict[str, Any]:
    """A 3-player Sundae Split position a few moves in, as its acting seat's view (searched, not solved)."""
    game = get_game("sundae_split")
    assert game is not None
    state = game.start(3, None, seed)
    rng = Rng.from_seed(seed)
    for _ in range(2):
        seat = state.acting_seats()[0]
        state.play(seat, state.sample_action(seat, rng))
    seat = state.acting_seats()[0]
    return {"game": "sundae_split", "players": 3, "seat": seat, "view": state.view(seat)}


def read_events(response: TestResponse) -> Iterator[Event]:
    """The events of a stream as they come: (event, data, id); heartbeats and `retry` skipped."""
    text = ""
    for chunk in response.response:
        text += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in text:
            block, text = text.split("\n\n", 1)
            fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and line[0] != ":")
            if "event" in fields:
                yield fields["event"], json.loads(fields["data"]), fields.get("id")


def follow(
    client: FlaskClient, url: str, headers: dict[str, str] | None = None
) -> tuple[TestResponse, Iterator[Event]]:
    """Open a job's stream: the response (close it) and its events."""
    response = client.get(url, headers=headers or {}, buffered=False)
    assert response.status_code == 200, response.get_json()
    return response, read_events(response)


def until_end(events: Iterator[Event]) -> list[Event]:
    """Every event up to and with `done` or `failed`."""
    seen = []
    for event in events:
        seen.append(event)
        if event[0] in ("done", "failed"):
            return seen
    raise AssertionError(f"the stream closed without its end: {seen}")


def test_progress_is_streamed_live_as_the_search_deepens_then_done(
    client: FlaskClient, start_worker: StartWorker
) -> None:
    asked = client.post("/v1/analysis", json={**sundae_position("live"), "budget": {"milliseconds": 1500}})
    assert asked.status_code == 202, asked.get_json()
    job = asked.get_json()
    response, events = follow(client, job["events_url"])  # open before any worker runs: every report is live
    try:
        start_worker("w1")
        seen = until_end(events)
    finally:
        response.close()
    progress = [event for event in seen if event[0] == "progress"]
    name, done, _ = seen[-1]
    assert name == "done" and progress, seen
    numbers = [int(event[2] or 0) for event in progress]
    assert numbers == sorted(set(numbers)) and numbers[0] >= 1
    iterations = [event[1]["iterations"] for event in progress]
    assert iterations == sorted(iterations)
    final = done["result"]["analysis"]
    assert done["status"] == "finished" and done["id"] == job["id"] and done["scope"] == "position"
    assert final["iterations"] >= iterations[-1] and final["exact"] is False and final["moves"]
    read = client.get(job["url"]).get_json()
    assert {**read, "ended_at": None} == {**done, "ended_at": None}  # RQ may record its end just after the answer


def test_a_search_that_fails_ends_its_stream_with_failed(
    app: ParlourApp, client: FlaskClient, start_worker: StartWorker
) -> None:
    position: PositionJson = {"game": "icecream", "state": {"not": "a state"}, "seat": 0, "full_information": False}
    jobs = app.services.jobs
    analyses = AnalysisStore(app.services.store.client)
    job_id = jobs.enqueue_analysis(
        [dict(position), 10, 1.0],
        {"kind": "analysis", "scope": "position", "game": "icecream", "seat": 0, "step": None, "budget": {}},
        1.0,
        lambda job_id: analyses.claim("test", job_id, None, 60),
    )
    assert job_id is not None
    response, events = follow(client, f"/v1/jobs/{job_id}/events")
    try:
        start_worker("w1")
        seen = until_end(events)
    finally:
        response.close()
    assert [event[0] for event in seen] == ["failed"]
    failed = seen[0][1]
    assert failed["status"] == "failed" and failed["result"] is None
    assert failed["error"]["code"] == "analysis-failed"


def test_an_analysis_gives_way_to_a_live_match_s_ai_turn(
    app: ParlourApp, monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    """With a live turn waiting, the search ends with its answer so far, short of its iterations (as a hint does)."""
    sent = sundae_position("give-way")
    game = get_game("sundae_split")
    assert game is not None
    state = game.state_from_view(sent["view"], sent["seat"], 3, None, Rng.from_seed("give-way"))
    position: PositionJson = {
        "game": "sundae_split",
        "state": state.to_json(),
        "seat": sent["seat"],
        "full_information": False,
    }
    app.services.jobs.enqueue_turn("turn-live-1-0-a", "live", 1, 0, None, tournament=False)  # no worker takes it
    monkeypatch.setenv("REDIS_URL", redis_url)
    context.cache_clear()
    try:
        answer = analyse_position(position, MAX_ITERATIONS, MAX_MILLISECONDS / 1000)
    finally:
        context.cache_clear()
    assert "analysis" in answer, answer
    analysis = answer["analysis"]
    assert analysis["moves"] and 1 <= analysis["iterations"] < MAX_ITERATIONS
