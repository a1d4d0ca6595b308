"""Golden transcripts: for each game, a scripted sequence of HTTP requests with a fixed seed, and its answers.

Recorded before the layers of issue 33 are moved, so that a move which changes what the API answers fails here:
the answers are compared whole, with match ids, tokens and times normalised. A deliberate change of an answer
regenerates them (and says so in its commit):

    .venv/bin/python -m tests.api.test_transcripts

The script per game: create a match whose seats are all the creator's (so its seed may be chosen), read it as
the public and as each seat, ask the random level (whose move depends only on the match's seed) for a hint and
run its job on an RQ worker in this process, then up to `MOVES` times read the acting seat's legal actions and
play the first (or the constructed example), reading the match after each; then the whole log as the public and
as seat 0, the event stream's first event as seat 0 and a long-poll as the public, a stale action, and, once
finished, the export. A second, unseeded match with an open seat
is joined and left (its answers carry no dealt card while it waits).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from rq.serializers import JSONSerializer

from tests.api.conftest import bearer
from workers import context
from workers.worker import PromptWorker

FOLDER = Path(__file__).parent / "transcripts"
MOVES = 60
GAMES: dict[str, dict[str, Any]] = {
    "icecream": {"players": 2, "options": {"turn_limit": 6}},
    "rockem_sockem": {"players": 2, "options": {}},
    "freeze_factory": {"players": 3, "options": {"turn_limit": 3}},
    "sundae_split": {"players": 3, "options": {}},
    "robots_love_ice_cream": {"players": 2, "options": {"stop_when_lost": True}},
}
RECORDING = "PARLOUR_RECORD_TRANSCRIPTS"
"""Set to 1 (as `main` does) to write the transcripts instead of comparing with them."""
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")


class Transcript:
    """The requests sent and the answers got, normalised as they are recorded."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        self.names: dict[str, str] = {}
        self.entries: list[dict[str, Any]] = []

    def name(self, secret: str, kind: str) -> str:
        """A stable stand-in for an id or token: its kind and the order it was first seen in."""
        if secret not in self.names:
            self.names[secret] = f"<{kind}{sum(n.startswith(f'<{kind}') for n in self.names.values())}>"
        return self.names[secret]

    def normalised(self, text: str) -> str:
        """The text with every known id and token replaced, and times blanked."""
        for secret in sorted(self.names, key=len, reverse=True):
            text = text.replace(secret, self.names[secret])
        return TIME.sub("<time>", text)

    def keep(self, request: str, answer: Any) -> None:
        """Record an answer got otherwise than by `send`."""
        self.entries.append(json.loads(self.normalised(json.dumps({"request": request, "answer": answer}))))

    def send(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        keep: tuple[str, ...] = (),
        new_id: str | None = None,
    ) -> Any:
        """Send one request; record it and its answer (status, JSON; only the `keep` fields when given); the answer.

        With `new_id`, the answer's `id` is a new id of that kind, given its stand-in before the answer is recorded."""
        headers = bearer(token) if token else {}
        response = self.client.open(path, method=method, json=body, headers=headers)
        answer: Any = response.get_json(silent=True)  # any JSON, or None for an empty body
        if new_id:
            self.name(answer["id"], new_id)
        kept = {field: answer[field] for field in keep} if keep else answer
        entry = {"request": [method, path, body, bool(token)], "status": response.status_code, "answer": kept}
        self.entries.append(json.loads(self.normalised(json.dumps(entry))))
        return answer

    def first_event(self, path: str, token: str) -> None:
        """Record the first event of a stream (its `retry` line and its first `match` event), then close it."""
        response = self.client.get(path, headers={**bearer(token), "Last-Event-ID": "2"}, buffered=False)
        text = ""
        for chunk in response.response:
            text += chunk.decode() if isinstance(chunk, bytes) else chunk
            if "event: match" in text and text.endswith("\n\n"):
                break
        response.close()
        self.keep(f"GET {path} (first event)", text)


def run_jobs(monkeypatch: pytest.MonkeyPatch, redis_url: str) -> None:
    """Run every queued job on an RQ worker in this process (its services on the test Redis), until none is left."""
    monkeypatch.setenv("REDIS_URL", redis_url)
    context.context.cache_clear()
    connection = redis.Redis.from_url(redis_url)
    queues = list(context.context().jobs.queues.values())
    # PromptWorker: RQ's SimpleWorker, but its command listener stops at once (RQ's may hold the test a minute).
    PromptWorker(queues, connection=connection, serializer=JSONSerializer).work(burst=True)
    context.context.cache_clear()


def record(client: FlaskClient, game: str, monkeypatch: pytest.MonkeyPatch, redis_url: str) -> list[dict[str, Any]]:
    """Play the script for `game`; its transcript."""
    setup = GAMES[game]
    script = Transcript(client)
    body = {"game": game, "players": setup["players"], "options": setup["options"], "seed": f"transcript-{game}"}
    body["assistance"] = "allowed"  # the seats are all people: hints are forbidden unless allowed
    created = client.post("/v1/matches", json=body).get_json()
    script.name(created["id"], "match")
    script.name(created["owner_token"], "owner")
    tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
    for token in tokens.values():
        script.name(token, "token")
    url = f"/v1/matches/{created['id']}"
    script.entries.append(json.loads(script.normalised(json.dumps({"request": "create", "answer": created}))))
    script.send("GET", url)
    for token in tokens.values():
        script.send("GET", url, token=token)
        script.send("GET", f"{url}/legal-actions", token=token)
    first = script.send("GET", url)
    asking = (first["waiting_for"] or first["to_act"])[0]
    job = script.send("POST", f"{url}/ai-move", {"level": "random"}, tokens[asking], new_id="job")
    run_jobs(monkeypatch, redis_url)
    script.send("GET", f"/v1/jobs/{job['id']}", token=tokens[asking], keep=("id", "status", "result", "error"))
    for _ in range(MOVES):
        match = script.send("GET", url)
        if match["status"] != "active":
            break
        seat = (match["waiting_for"] or match["to_act"])[0]  # a seat the game waits on acts (not a mere claim)
        legal = script.send("GET", f"{url}/legal-actions", token=tokens[seat])
        action = legal["actions"][0] if legal["kind"] == "enumerated" else legal["example"]
        script.send("POST", f"{url}/actions", {"action": action, "expected_version": legal["version"]}, tokens[seat])
    script.send("GET", f"{url}/log?limit=500")
    script.send("GET", f"{url}/log?limit=500", token=tokens[0])
    script.first_event(f"{url}/events", tokens[0])
    version = script.send("GET", url)["version"]
    script.send("GET", f"{url}?wait=1&after={version - 1}")
    script.send("POST", f"{url}/actions", {"action": {"type": "nothing"}, "expected_version": version - 1}, tokens[0])
    if script.send("GET", url)["status"] == "finished":
        script.send("GET", f"{url}/export")
    waiting = client.post("/v1/matches", json={**body, "seed": None, "open_seats": [1]}).get_json()
    script.name(waiting["id"], "match")
    script.name(waiting["owner_token"], "owner")
    joined = client.post(f"/v1/matches/{waiting['id']}/join", json={"name": "joiner"}).get_json()
    script.name(joined["token"], "token")
    script.entries.append(json.loads(script.normalised(json.dumps({"request": "join", "answer": joined}))))
    unseeded = ("status", "version", "viewer", "seats", "seed")  # not what the deal made
    for seat_token in (joined["token"], None):
        answer = script.send("GET", f"/v1/matches/{waiting['id']}", token=seat_token, keep=unseeded)
        if answer["status"] == "waiting":
            assert answer["view"] == client.get(f"/v1/matches/{waiting['id']}").get_json()["view"]
    return script.entries


def transcript_file(game: str) -> Path:
    """Where a game's golden transcript is kept."""
    return FOLDER / f"{game}.json"


@pytest.mark.parametrize("game", list(GAMES))
def test_the_api_answers_as_its_golden_transcript(
    client: FlaskClient, game: str, monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    played = record(client, game, monkeypatch, redis_url)
    if os.environ.get(RECORDING) == "1":
        FOLDER.mkdir(exist_ok=True)
        transcript_file(game).write_text("[\n" + ",\n".join(json.dumps(entry) for entry in played) + "\n]\n")
        return
    kept = json.loads(transcript_file(game).read_text())
    for step, (want, got) in enumerate(zip(kept, played, strict=False)):
        assert got == want, f"{game}: answer {step} differs from tests/api/transcripts/{game}.json ({__doc__})"
    assert len(played) == len(kept)


def main() -> None:
    """Record every game's transcript again, through the test fixtures (they start the Redis)."""
    os.environ[RECORDING] = "1"
    raise SystemExit(pytest.main([__file__, "-q", "-p", "no:cacheprovider", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
