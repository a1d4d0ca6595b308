"""The contract scenario of the bots listing, a bot's public history and ratings, and the leaderboard.

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


def scenario_ladder(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two bots play a match; the listing, the history, the profile's ratings and the leaderboard are checked."""
    from tests.api.test_openapi import WINNING_LINE

    bots = [contract.post("/v1/bots", json={"name": name}, expect=201).json for name in ("ladder-a", "ladder-b")]
    for bot in bots:
        contract.call("PATCH", f"/v1/bots/{bot['id']}", json={"policy": "anyone"}, headers=bearer(bot["token"]))
    seats = [{"type": "bot", "bot": bot["id"]} for bot in bots]
    body = contract.post("/v1/matches", json={"game": "icecream", "players": 2, "seats": seats}, expect=201).json
    for version, (seat, action) in enumerate(WINNING_LINE):
        contract.post(
            f"/v1/matches/{body['id']}/actions",
            json={"action": action, "expected_version": version},
            headers=bearer(bots[seat]["token"]),
            expect=200,
        )
    first, second = bots
    listed = contract.get("/v1/bots?q=LADDER&limit=1", expect=200, request_valid=True).json
    assert [item["name"] for item in listed["items"]] == ["ladder-a"] and listed["next_cursor"] is not None
    contract.get(f"/v1/bots?limit=1&cursor={listed['next_cursor']}", expect=200, request_valid=True)
    contract.get("/v1/bots?limit=0", expect=400, request_valid=False)

    matches = f"/v1/bots/{first['id']}/matches"
    [item] = contract.get(f"{matches}?status=finished", expect=200, request_valid=True).json["items"]
    assert item["result"]["winners"] == [0]
    contract.get(f"{matches}?status=all&limit=1", expect=200, request_valid=True)
    contract.get(f"{matches}?status=running", expect=200, request_valid=True)
    contract.get(f"{matches}?status=playing", headers=bearer(first["token"]), expect=200, request_valid=True)
    contract.get(f"{matches}?status=all&cursor=nope", expect=400, request_valid=True)
    contract.get("/v1/bots/nobody/matches?status=all", expect=404, request_valid=True)

    profile = contract.get(f"/v1/bots/{first['id']}", expect=200, request_valid=True).json
    assert [rating["game"] for rating in profile["ratings"]] == ["icecream"]
    ratings = f"/v1/bots/{second['id']}/ratings"
    assert len(contract.get(f"{ratings}?game=icecream", expect=200, request_valid=True).json["items"]) == 1
    contract.get(ratings, expect=400, request_valid=False)
    contract.get(f"{ratings}?game=robots_love_ice_cream", expect=404, request_valid=True)
    contract.get("/v1/bots/nobody/ratings?game=icecream", expect=404, request_valid=True)

    board = contract.get("/v1/games/icecream/leaderboard?limit=2", expect=200, request_valid=True).json
    contract.get(f"/v1/games/icecream/leaderboard?cursor={board['next_cursor']}", expect=200, request_valid=True)
    contract.get("/v1/games/icecream/leaderboard?cursor=x", expect=400, request_valid=False)
    contract.get("/v1/games/robots_love_ice_cream/leaderboard", expect=404, request_valid=True)

    app = create_app(Settings(redis_url=UNREACHABLE_REDIS, cors_origins=["*"]))
    down = ContractClient(app, app.test_client(), contract.document, contract.seen)
    paths = ["/v1/bots", "/v1/bots/abc/matches?status=all", "/v1/bots/abc/ratings?game=icecream"]
    paths.append("/v1/games/icecream/leaderboard")
    for path in paths:
        down.get(path, expect=503)

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    with monkeypatch.context() as patch:
        patch.setattr(app.services.store.bots, "load", boom)
        patch.setattr(app.services.ladder, "leaderboard", boom)
        patch.setattr("store.bot_directory.BotDirectory.page", boom)
        for path in paths:
            down.get(path, expect=500)
