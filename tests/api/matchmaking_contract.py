"""The contract scenario of matchmaking: entering pools, reading, long-polling and cancelling tickets, the listing.

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

UNREACHABLE_REDIS = "unix:///nonexistent-parlour-test/redis.sock"
POOL = {"game": "icecream", "players": 2}


def scenario_matchmaking(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot and people enter pools, are paired, read, long-poll and cancel their tickets; every refusal is provoked."""
    contract.get("/v1/matchmaking", expect=200, request_valid=True)
    bot = contract.post("/v1/bots", json={"name": "pooled"}, expect=201).json
    other_bot = contract.post("/v1/bots", json={"name": "pooled-2"}, expect=201).json
    as_bot, as_other = bearer(bot["token"]), bearer(other_bot["token"])
    waiting = contract.post("/v1/matchmaking", json={**POOL, "rated": True}, headers=as_bot, expect=201).json
    contract.post("/v1/matchmaking", json={**POOL, "rated": True}, headers=as_bot, expect=200, request_valid=True)
    url = f"/v1/matchmaking/{waiting['id']}"
    contract.get(f"{url}?wait=0", headers=as_bot, expect=200, request_valid=True)
    person = {**POOL, "rated": True, "name": "Pat", "rating_window": 10}
    matched = contract.post("/v1/matchmaking", json=person, expect=201, request_valid=True).json
    assert matched["status"] == "matched" and matched["seat_token"]
    mine = f"/v1/matchmaking/{matched['id']}"
    contract.get(mine, headers=bearer(matched["token"]), expect=200, request_valid=True)
    contract.get(url, headers=as_bot, expect=200, request_valid=True)
    contract.post(f"{url}/cancel", headers=as_bot, expect=409, request_valid=True)

    lone = contract.post("/v1/matchmaking", json={**POOL, "name": "Lou"}, expect=201, request_valid=True).json
    lone_url = f"/v1/matchmaking/{lone['id']}"
    contract.post(f"{lone_url}/cancel", headers=bearer(lone["token"]), expect=200, request_valid=True)

    contract.get(url, expect=401, request_valid=False)
    contract.get(url, headers=as_other, expect=403)
    contract.get(f"{url}?wait=99", headers=as_bot, expect=400, request_valid=False)
    contract.get("/v1/matchmaking/icecream-2u-0123456789abcdef", headers=as_bot, expect=404, request_valid=True)
    contract.post(f"{lone_url}/cancel", expect=401, request_valid=False)
    contract.post(f"{lone_url}/cancel", headers=as_bot, expect=403)
    contract.post("/v1/matchmaking/nothing/cancel", headers=as_bot, expect=404, request_valid=True)
    contract.post("/v1/matchmaking", json={"game": "icecream", "players": 3, "name": "Al"}, expect=400)
    contract.post("/v1/matchmaking", json={**POOL, "bogus": 1}, expect=400, request_valid=False)
    contract.post("/v1/matchmaking", json=POOL, headers=bearer(lone["token"]), expect=401, request_valid=True)
    taken = contract.post("/v1/matchmaking", json={**POOL, "name": "Pooled"}, expect=409, request_valid=True)
    assert taken.json["code"] == "name-taken"
    contract.post("/v1/matchmaking", data="x" * 70_000, content_type="application/json", expect=413)

    redis_url = contract.app.services.settings.redis_url
    one = "1/minute"
    rates = replace(IN_PROCESS_LIMITS, matchmaking=one, long_polls=one, pages=one, tickets=1)
    settings = Settings(redis_url=redis_url, cors_origins=["*"], events_heartbeat=EVENTS_HEARTBEAT, limits=rates)
    app = create_app(settings)
    limited = ContractClient(app, app.test_client(), contract.document, contract.seen)
    me: dict[str, Any] = {"environ_base": {"REMOTE_ADDR": "10.3.0.1"}}
    held = limited.post("/v1/matchmaking", json={**POOL, "name": "Kim"}, expect=201, **me).json
    limited.post("/v1/matchmaking", json={**POOL, "name": "Kim"}, expect=429, request_valid=True, **me)
    held_url, as_held = f"/v1/matchmaking/{held['id']}", bearer(held["token"])
    limited.get(f"{held_url}?wait=0", headers=as_held, expect=200, **me)
    limited.get(f"{held_url}?wait=0", headers=as_held, expect=429, request_valid=True, **me)
    limited.post(f"{held_url}/cancel", headers=as_held, expect=200, **me)
    limited.post(f"{held_url}/cancel", headers=as_held, expect=429, request_valid=True, **me)
    limited.get("/v1/matchmaking", expect=200, **me)
    limited.get("/v1/matchmaking", expect=429, request_valid=True, **me)
    capped_app = create_app(replace(settings, limits=replace(IN_PROCESS_LIMITS, tickets=1)))
    capped = ContractClient(capped_app, capped_app.test_client(), contract.document, contract.seen)
    crowd = {"game": "sundae_split", "players": 5, "name": "Q"}
    capped.post("/v1/matchmaking", json=crowd, expect=201, **me)
    refused = capped.post("/v1/matchmaking", json=crowd, expect=429, request_valid=True, **me)
    assert refused.json["code"] == "quota-exceeded" and refused.json["resource"] == "tickets"
    for started in (app, capped_app):
        started.services.changes.stop()

    down_app = create_app(Settings(redis_url=UNREACHABLE_REDIS, cors_origins=["*"]))
    down = ContractClient(down_app, down_app.test_client(), contract.document, contract.seen)
    down.get("/v1/matchmaking", expect=503)
    down.post("/v1/matchmaking", json={**POOL, "name": "Dee"}, expect=503)
    down.get(url, headers=as_bot, expect=503)
    down.post(f"{url}/cancel", headers=as_bot, expect=503)

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    tickets = contract.app.services.matchmaking.tickets
    with monkeypatch.context() as patch:
        patch.setattr(tickets, "waiting_counts", boom)
        patch.setattr(tickets, "enter", boom)
        patch.setattr(tickets, "cancel", boom)
        contract.get("/v1/matchmaking", expect=500)
        contract.post("/v1/matchmaking", json={**POOL, "name": "Boo"}, expect=500)
        contract.post(f"{lone_url}/cancel", headers=bearer(lone["token"]), expect=500)
        patch.setattr(tickets, "load", boom)
        contract.get(url, headers=as_bot, expect=500)
