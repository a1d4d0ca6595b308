"""The contract scenario of a finished match's review: asked for, computed by its job, read, refused, limited.

`tests/api/test_openapi.py` runs it with the other scenarios, so every status these operations
document is produced and every answer checked against openapi.yaml.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from api.app import create_app
from model.settings import Settings
from tests.api.conftest import EVENTS_HEARTBEAT, IN_PROCESS_LIMITS, bearer
from tests.api.openapi_support import ContractClient
from tests.api.test_transcripts import run_jobs

UNREACHABLE_REDIS = "unix:///nonexistent-parlour-test/redis.sock"


def finished(contract: ContractClient, seed: str) -> str:
    """A two-turn IceCream match played to its end with the first legal action; its URL."""
    request = {"game": "icecream", "players": 2, "seed": seed, "options": {"turn_limit": 2}}
    body = contract.post("/v1/matches", json=request, expect=201).json
    url, tokens = f"/v1/matches/{body['id']}", {seat["seat"]: seat["token"] for seat in body["tokens"]}
    while (match := contract.get(url, expect=200).json)["status"] == "active":
        seat = match["to_act"][0]
        legal = contract.get(f"{url}/legal-actions", headers=bearer(tokens[seat]), expect=200).json
        move = {"action": legal["actions"][0], "expected_version": legal["version"]}
        contract.post(f"{url}/actions", json=move, headers=bearer(tokens[seat]), expect=200)
    return url


def scenario_reviews(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ask for a review (202), read it before (404) and after its job (200, 304), ask again (200); refusals."""
    url = finished(contract, "contract-review")
    review = f"{url}/review"
    not_ready = contract.get(review, expect=404, request_valid=True).json
    assert not_ready["code"] == "review-not-ready" and not_ready["job_status"] == "none"
    queued = contract.post(review, expect=202, request_valid=True).json
    assert queued["url"] == review and contract.get(review, expect=404).json["job_status"] == "queued"
    run_jobs(monkeypatch, contract.app.services.settings.redis_url)
    stored = contract.get(review, expect=200, request_valid=True)
    contract.get(review, headers={"If-None-Match": stored.response.headers["ETag"]}, expect=304, request_valid=True)
    assert contract.post(review, expect=200).json == stored.json
    contract.post("/v1/matches/no-such-match/review", expect=404)
    running = contract.post("/v1/matches", json={"game": "icecream", "players": 2}, expect=201).json
    for ask in (contract.post, contract.get):
        assert ask(f"/v1/matches/{running['id']}/review", expect=409).json["code"] == "match-not-over"
    # Limited per address: asks as creations, reads as replays.
    settings = Settings(
        redis_url=contract.app.services.settings.redis_url,
        cors_origins=["*"],
        events_heartbeat=EVENTS_HEARTBEAT,
        limits=replace(IN_PROCESS_LIMITS, reviews="1/minute", replays="1/minute"),
    )
    app = create_app(settings)
    limited = ContractClient(app, app.test_client(), contract.document, contract.seen)
    me: dict[str, Any] = {"environ_base": {"REMOTE_ADDR": "10.1.0.9"}}
    limited.post(review, expect=200, **me)
    limited.post(review, expect=429, **me)
    limited.get(review, expect=200, **me)
    limited.get(review, expect=429, **me)
    app.services.changes.stop()
    # The store away (503), and a failure anywhere (500).
    down_app = create_app(Settings(redis_url=UNREACHABLE_REDIS, cors_origins=["*"]))
    down = ContractClient(down_app, down_app.test_client(), contract.document, contract.seen)
    for ask in (down.post, down.get):
        ask("/v1/matches/abc/review", expect=503)

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    with monkeypatch.context() as patch:
        patch.setattr(down_app.services.store, "load", boom)
        for ask in (down.post, down.get):
            ask("/v1/matches/abc/review", expect=500)
