"""A full Redis (maxmemory reached, noeviction), on a small real server started here: every write is a
503 `store-full`, nothing stored is lost, evicted or half-written, reads go on, and freeing memory
brings everything back."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
import redis
from flask.testing import FlaskClient

from api.app import create_app
from api.current import ParlourApp
from model.bot import SeatNotice
from model.settings import Settings
from ops.embedded_redis import DEFAULT_MAXMEMORY, EmbeddedRedis, start_embedded_redis
from store.connection import is_store_full
from tests.api.conftest import EVENTS_HEARTBEAT, IN_PROCESS_LIMITS, Match, bearer, create_match

SMALL = "4mb"
FILLER = "test:filler:"
MOVE = {"type": "move", "from_cone": 0, "scoops": 1}


@pytest.fixture(scope="module")
def small_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """A redis-server of its own, capped at a few megabytes."""
    server = start_embedded_redis(Path(tmp_path_factory.mktemp("small-redis")), persistent=False, maxmemory=SMALL)
    yield server
    server.stop()


@pytest.fixture
def full_app(small_redis: EmbeddedRedis) -> Iterator[ParlourApp]:
    """The API on the small Redis, flushed first."""
    redis.Redis.from_url(small_redis.url).flushall()
    redis.Redis.from_url(small_redis.url).config_set("maxmemory", SMALL)
    settings = Settings(
        redis_url=small_redis.url, cors_origins=["*"], events_heartbeat=EVENTS_HEARTBEAT, limits=IN_PROCESS_LIMITS
    )
    app = create_app(settings)
    app.testing = True
    yield app
    app.services.changes.stop()


def fill(url: str) -> int:
    """Write junk until Redis refuses for want of memory; how many keys it took.

    Used memory wobbles as client buffers come and go, so the cap is then set a little below what is
    used: the store stays full for the test, however small the next write.
    """
    client = redis.Redis.from_url(url)
    count = 0
    while True:
        pipe = client.pipeline(transaction=False)
        for n in range(50):
            pipe.set(f"{FILLER}{count + n}", b"x" * 2000)
        try:
            pipe.execute()
        except redis.exceptions.OutOfMemoryError:
            break
        count += 50
    used = int(client.info("memory")["used_memory"])
    client.config_set("maxmemory", used - 256 * 1024)
    return count


def free(url: str) -> None:
    """Delete the junk and put the cap back."""
    client = redis.Redis.from_url(url)
    for key in client.scan_iter(f"{FILLER}*", count=1000):
        client.delete(key)
    client.config_set("maxmemory", SMALL)


def dump(url: str) -> dict[str, Any]:
    """Every non-junk key with its value (hashes, lists, sets, streams), to compare before and after."""
    client = redis.Redis.from_url(url)  # raw bytes: RQ keeps its jobs' data compressed
    values: dict[str, Any] = {}
    for raw in client.scan_iter(count=1000):
        key = raw.decode()
        if key.startswith(FILLER) or key.startswith("parlour:limit:"):
            continue
        kind = cast("bytes", client.type(key)).decode()  # a client without decode_responses answers bytes
        read = {
            "hash": client.hgetall,
            "list": lambda k: client.lrange(k, 0, -1),
            "set": lambda k: sorted(client.smembers(k)),
            "zset": lambda k: client.zrange(k, 0, -1, withscores=True),
            "stream": lambda k: client.xrange(k),
            "string": client.get,
        }[kind]
        values[key] = read(key)
    return values


def assert_store_full(response: Any) -> None:
    """A 503 `store-full` problem with Retry-After."""
    assert response.status_code == 503, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == "store-full"
    assert int(response.headers["Retry-After"]) > 0


def matches_to_keep(client: FlaskClient) -> tuple[Match, Match, dict[str, Any], Match]:
    """A match part-played, one with an open seat, a bot and a match it plays in."""
    played = create_match(client, seed="kept", assistance="allowed")  # its hint reaches the store
    client.post(played.url("/actions"), json={"action": MOVE, "expected_version": 0}, headers=bearer(played.tokens[0]))
    lobby = create_match(client, open_seats=[1])
    bot = client.post("/v1/bots", json={"name": "kept"}).get_json()
    policy = client.patch(f"/v1/bots/{bot['id']}", json={"policy": "anyone"}, headers=bearer(bot["token"]))
    assert policy.status_code == 200, policy.get_json()  # it sits down at once: the match runs
    with_bot = create_match(client, seats=[{"type": "human"}, {"type": "bot", "bot": bot["id"]}])
    return played, lobby, bot, with_bot


def test_a_full_store_refuses_writes_with_503_and_changes_nothing(
    full_app: ParlourApp, small_redis: EmbeddedRedis
) -> None:
    client = full_app.test_client()
    played, lobby, bot, with_bot = matches_to_keep(client)
    views = {
        m.id: client.get(m.url(), headers=bearer(next(iter(m.tokens.values())))).get_json() for m in (played, lobby)
    }
    logs = {m.id: client.get(m.url("/log")).get_json() for m in (played, lobby, with_bot)}
    before = dump(small_redis.url)
    assert fill(small_redis.url) > 0

    assert_store_full(client.post("/v1/matches", json={"game": "icecream", "players": 2}))
    move = {"action": {"type": "move", "from_cone": 0, "scoops": 1}, "expected_version": 1}
    assert_store_full(client.post(played.url("/actions"), json=move, headers=bearer(played.tokens[1])))
    assert_store_full(client.post(played.url("/actions"), json={"action": MOVE}, headers=bearer(played.tokens[1])))
    assert_store_full(client.post(lobby.url("/join"), json={}))
    assert_store_full(client.post(with_bot.url("/actions"), json={"action": MOVE}, headers=bearer(with_bot.tokens[0])))
    assert_store_full(client.post("/v1/bots", json={"name": "newcomer"}))
    tournament = {"game": "rockem_sockem", "entrants": [{"type": "ai", "level": "random"}] * 2, "seed": "full"}
    assert_store_full(client.post("/v1/tournaments", json=tournament))
    assert_store_full(client.post(played.url("/ai-move"), json={}, headers=bearer(played.tokens[1])))

    # Reads keep working, and show exactly what was stored.
    for m in (played, lobby):
        assert client.get(m.url(), headers=bearer(next(iter(m.tokens.values())))).get_json() == views[m.id]
    for m in (played, lobby, with_bot):
        assert client.get(m.url("/log")).get_json() == logs[m.id]
    assert client.get(played.url("/legal-actions"), headers=bearer(played.tokens[1])).status_code == 200
    assert client.get("/v1/matches?limit=10").status_code == 200
    assert client.get(f"/v1/bots/{bot['id']}").status_code == 200
    polled = client.get(f"/v1/bots/{bot['id']}/events?after=0&wait=0", headers=bearer(bot["token"]))
    assert polled.status_code == 200 and polled.get_json()["events"][0]["event"] == "match-started"
    stream = client.get(played.url("/events"), buffered=False)
    assert stream.status_code == 200
    chunks = cast("Iterable[bytes]", stream.response)  # a streamed body, read as the server wrote it
    assert "event: match" in "".join(chunk.decode() for chunk, _ in zip(chunks, range(2), strict=False))
    stream.close()
    assert dump(small_redis.url) == before  # nothing lost, evicted or half-written

    free(small_redis.url)
    assert client.post("/v1/matches", json={"game": "icecream", "players": 2}).status_code == 201
    assert client.post(played.url("/actions"), json=move, headers=bearer(played.tokens[1])).status_code == 200
    assert client.post(lobby.url("/join"), json={}).status_code == 200
    assert client.post("/v1/bots", json={"name": "newcomer"}).status_code == 201


def test_the_commit_and_announce_scripts_refuse_before_their_first_write(
    full_app: ParlourApp, small_redis: EmbeddedRedis
) -> None:
    client = full_app.test_client()
    played, _, bot, with_bot = matches_to_keep(client)
    store = full_app.services.store
    record = store.load(played.id)
    assert record is not None
    before = dump(small_redis.url)
    fill(small_redis.url)
    with pytest.raises(redis.RedisError) as refused:
        store.commit(record, record.version, {"version": record.version + 1, "seat": 1, "action": MOVE, "at": "now"})
    assert is_store_full(refused.value)
    notice = SeatNotice(bot["id"], with_bot.id, 1, 9, True, False, "{}", "{}", json.dumps({"over": True}))
    with pytest.raises(redis.RedisError) as refused:
        store.bots.announce(notice)
    assert is_store_full(refused.value)
    assert dump(small_redis.url) == before
    free(small_redis.url)


def test_the_embedded_redis_is_capped_without_eviction(redis_url: str) -> None:
    config = redis.Redis.from_url(redis_url, decode_responses=True).config_get("maxmemory*")
    assert config["maxmemory-policy"] == "noeviction"
    maxmemory = config["maxmemory"]
    assert maxmemory is not None
    assert DEFAULT_MAXMEMORY == "1gb" and int(maxmemory) == 1024**3


def test_the_cap_is_configurable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLOUR_REDIS_MAXMEMORY", "16mb")
    server = start_embedded_redis(tmp_path, persistent=False)
    try:
        maxmemory = redis.Redis.from_url(server.url).config_get("maxmemory")["maxmemory"]
        assert maxmemory is not None and int(maxmemory) == 16 * 1024**2
    finally:
        server.stop()
