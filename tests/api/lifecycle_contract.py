"""The contract scenario of the match lifecycle: resign, leave, rematch and unlisted matches.

`tests/api/test_openapi.py` runs it with the other scenarios, so every status these operations
document is produced and every answer checked against openapi.yaml.
"""

from __future__ import annotations

from typing import Any

import pytest

from api.app import create_app
from model.settings import Settings
from tests.api.conftest import bearer
from tests.api.openapi_support import ContractClient

UNREACHABLE_REDIS = "unix:///nonexistent-parlour-test/redis.sock"
LIFECYCLE = ("resign", "leave", "rematch")


def created(contract: ContractClient, **request: Any) -> tuple[str, dict[int, str], dict[str, Any]]:
    """A match created through the contract: its URL, its seat tokens and the answer."""
    body = contract.post("/v1/matches", json={"game": "icecream", "players": 2, **request}, expect=201).json
    return f"/v1/matches/{body['id']}", {seat["seat"]: seat["token"] for seat in body["tokens"]}, body


def scenario_lifecycle(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every status of resign, leave and rematch, and an unlisted match, checked against the document."""
    url, tokens, _ = created(contract, unlisted=True)
    _, stranger, _ = created(contract)
    listed = contract.get("/v1/matches", expect=200, request_valid=True).json["items"]
    assert url.rsplit("/", 1)[1] not in [item["id"] for item in listed]
    for what in LIFECYCLE:
        contract.post(f"{url}/{what}", expect=401, request_valid=False)
        contract.post(f"{url}/{what}", headers=bearer(stranger[0]), expect=403, request_valid=True)
        contract.post(f"{url}/{what}?seat=x", headers=bearer(tokens[0]), expect=400, request_valid=False)
        contract.post(f"/v1/matches/nope/{what}", headers=bearer(tokens[0]), expect=404, request_valid=True)
    assert contract.post(f"{url}/leave", headers=bearer(tokens[0]), expect=409).json["code"] == "match-started"
    assert contract.post(f"{url}/rematch", headers=bearer(tokens[0]), expect=409).json["code"] == "match-not-over"
    resigned = contract.post(f"{url}/resign", headers=bearer(tokens[1]), expect=200, request_valid=True).json
    assert resigned["result"]["reason"] == "seat 1 resigned" and resigned["unlisted"] is True
    assert contract.post(f"{url}/resign", headers=bearer(tokens[0]), expect=409).json["code"] == "match-over"
    contract.get(f"{url}/log", expect=200, request_valid=True)
    contract.get(f"{url}/replay/1", expect=200, request_valid=True)
    offer = contract.post(f"{url}/rematch", headers=bearer(tokens[1]), expect=200, request_valid=True).json
    assert offer["rematch"]["waiting_for"] == [0]
    contract.get(url, headers=bearer(tokens[0]), expect=200, request_valid=True)
    started = contract.post(f"{url}/rematch", headers=bearer(tokens[0]), expect=200, request_valid=True).json
    assert started["rematch"]["match"] is not None and started["rematch"]["token"]

    waiting, seats, _ = created(contract, open_seats=[1])
    left = contract.post(f"{waiting}/leave", headers=bearer(seats[0]), expect=200, request_valid=True).json
    assert left["open_seats"] == [0, 1]
    robots, crew, _ = created(contract, game="robots_love_ice_cream", players=2)
    handed = contract.post(f"{robots}/resign", headers=bearer(crew[0]), expect=200, request_valid=True).json
    assert handed["seats"][0]["level"] == "easy"
    contract.get(f"{robots}/log", expect=200, request_valid=True)

    down_app = create_app(Settings(redis_url=UNREACHABLE_REDIS, cors_origins=["*"]))
    down = ContractClient(down_app, down_app.test_client(), contract.document, contract.seen)
    for what in LIFECYCLE:
        down.post(f"/v1/matches/abc/{what}", headers=bearer("abc.0.secret"), expect=503)

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    broken_app = create_app(Settings(redis_url=UNREACHABLE_REDIS, cors_origins=["*"]))
    broken = ContractClient(broken_app, broken_app.test_client(), contract.document, contract.seen)
    with monkeypatch.context() as patch:
        patch.setattr(broken_app.services.store, "load", boom)
        for what in LIFECYCLE:
            broken.post(f"/v1/matches/abc/{what}", headers=bearer("abc.0.secret"), expect=500)
