"""The contract scenario of analysis: a match's, a position's, the job read and followed live.

`tests/api/test_openapi.py` runs it with the other scenarios, so every status these operations
document is produced and every answer (the job's event stream included) checked against openapi.yaml.
The analyses are run by an RQ worker in this process, on the hints' queue only (`run_analyses`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

import pytest
import redis
from rq.serializers import JSONSerializer

from api.app import create_app
from engine import get_game
from model.settings import Settings
from store.analysis import AnalysisStore
from store.jobs import HINT_QUEUE
from tests.api.conftest import EVENTS_HEARTBEAT, IN_PROCESS_LIMITS, bearer
from tests.api.openapi_support import ContractClient
from workers import context
from workers.worker import PromptWorker

UNREACHABLE_REDIS = "unix:///nonexistent-parlour-test/redis.sock"
VERSUS_AI = [{"type": "human"}, {"type": "ai", "level": "random"}]
HUMANS = [{"type": "human"}, {"type": "human"}]


def created(contract: ContractClient, **request: Any) -> tuple[str, dict[int, str]]:
    """An IceCream match created through the contract: its URL and its seat tokens."""
    body = contract.post("/v1/matches", json={"game": "icecream", "players": 2, **request}, expect=201).json
    return f"/v1/matches/{body['id']}", {seat["seat"]: seat["token"] for seat in body["tokens"]}


def run_analyses(monkeypatch: pytest.MonkeyPatch, redis_url: str) -> None:
    """Run every job on the hints' queue on an RQ worker in this process (its services on the test Redis)."""
    monkeypatch.setenv("REDIS_URL", redis_url)
    context.context.cache_clear()
    queue = context.context().jobs.queues[HINT_QUEUE]
    PromptWorker([queue], connection=redis.Redis.from_url(redis_url), serializer=JSONSerializer).work(burst=True)
    context.context.cache_clear()


def contract_at(contract: ContractClient, redis_url: str, **rates: str) -> ContractClient:
    """Another app checked against the same document, its statuses counted (limits as given, else out of reach)."""
    limits = replace(IN_PROCESS_LIMITS, **cast("dict[str, Any]", rates))
    settings = Settings(redis_url=redis_url, cors_origins=["*"], events_heartbeat=EVENTS_HEARTBEAT, limits=limits)
    app = create_app(settings)
    app.testing = True
    return ContractClient(app, app.test_client(), contract.document, contract.seen)


def scenario_analysis(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every status of the analysis operations and of the job's stream, checked against the document."""
    redis_url = contract.app.services.settings.redis_url
    url, tokens = created(contract, seats=VERSUS_AI, seed="analysis")
    _, stranger = created(contract)
    seat = bearer(tokens[0])
    body = {"budget": {"iterations": 20}}
    asked = contract.post(f"{url}/analysis", json=body, headers=seat, expect=202, request_valid=True).json
    assert asked["scope"] == "seat" and asked["pending"] is False
    assert contract.get(asked["url"], headers=seat, expect=200, request_valid=True).json["status"] == "queued"
    contract.get(asked["url"], expect=401)
    contract.get(asked["events_url"], expect=401)
    contract.get(asked["events_url"], headers=bearer(stranger[0]), expect=403)
    contract.get(asked["events_url"], headers={**seat, "Last-Event-ID": "x"}, expect=400, request_valid=False)
    contract.get("/v1/jobs/no-such-job/events", expect=404)
    contract.post(f"{url}/analysis", expect=409, request_valid=True)  # the public: a running match
    contract.post(f"{url}/analysis", headers=bearer(tokens[0] + "x"), expect=401)
    contract.post(f"{url}/analysis", json={"budget": {"iterations": 1, "milliseconds": 1}}, headers=seat, expect=400)
    over = contract.post(f"{url}/analysis", json={"budget": {"iterations": 10**6}}, headers=seat, expect=422)
    assert over.json["cap"] == {"iterations": 3000}
    contract.post("/v1/matches/nope/analysis", headers=seat, expect=404, request_valid=True)
    huge = '{"budget": {"iterations": 5}, "x": [' + "0," * 40_000 + "0]}"
    contract.post(f"{url}/analysis", data=huge, content_type="application/json", headers=seat, expect=413)
    humans, people = created(contract, seats=HUMANS)
    contract.post(f"{humans}/analysis", headers=seat, expect=403, request_valid=True)  # another match's token
    run_analyses(monkeypatch, redis_url)
    stream = contract.get(asked["events_url"], headers=seat, expect=200, request_valid=True)
    assert "event: done" in stream.response.get_data(as_text=True)
    job = contract.get(asked["url"], headers=seat, expect=200).json
    assert job["status"] == "finished" and job["result"]["analysis"]["exact"] is True

    contract.post(f"{humans}/resign", headers=bearer(people[1]), expect=200)
    public = contract.post(f"{humans}/analysis", json={"step": 0}, expect=202, request_valid=True).json
    assert public["scope"] == "public" and public["seat"] == 0
    contract.post(f"{humans}/analysis", json={"step": 99}, expect=404, request_valid=True)

    icecream = get_game("icecream")
    assert icecream is not None
    state = icecream.start(2, None, "contract").to_json()
    position = {"game": "icecream", "players": 2, "seat": 0, "state": state}
    contract.post(
        "/v1/analysis", json=position, expect=202, request_valid=True, environ_base={"REMOTE_ADDR": "10.3.0.1"}
    )
    contract.post("/v1/analysis", json={**position, "seat": 1}, expect=409, request_valid=True)
    contract.post("/v1/analysis", json={**position, "state": None, "view": {}}, expect=422, request_valid=True)
    contract.post("/v1/analysis", json={"game": "icecream", "players": 2}, expect=400, request_valid=False)
    contract.post("/v1/analysis", data=huge, content_type="application/json", expect=413)

    limited = contract_at(contract, redis_url, hints="1/minute", streams="1/minute")
    me: dict[str, Any] = {"environ_base": {"REMOTE_ADDR": "10.3.0.2"}}
    limited.post(f"{humans}/analysis", json={"step": 0}, expect=202, **me)
    limited.post(f"{humans}/analysis", json={"step": 0}, expect=429, **me)
    limited.post("/v1/analysis", json=position, expect=429, **me)
    limited.get("/v1/jobs/no-such-job/events", expect=404, **me)
    limited.get("/v1/jobs/no-such-job/events", expect=429, **me)

    down = contract_at(contract, UNREACHABLE_REDIS)
    down.post("/v1/matches/abc/analysis", headers=bearer("abc.0.secret"), expect=503)
    down.post("/v1/analysis", json=position, expect=503)
    down.get("/v1/jobs/abc/events", expect=503)

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    broken = contract_at(contract, UNREACHABLE_REDIS)
    with monkeypatch.context() as patch:
        patch.setattr(broken.app.services.store, "load", boom)
        patch.setattr(broken.app.services.jobs, "fetch", boom)
        patch.setattr(AnalysisStore, "pending", boom)
        broken.post("/v1/matches/abc/analysis", expect=500)
        broken.post("/v1/analysis", json=position, expect=500)
        broken.get("/v1/jobs/abc/events", expect=500)
