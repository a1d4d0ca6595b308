"""A small tournament runs to its end on real RQ workers and the real Redis, over the API."""

from __future__ import annotations

from typing import Any

import redis
from flask.testing import FlaskClient

from model.settings import Settings
from store.tournaments import TournamentStore
from tests.workers.conftest import StartWorker
from tests.workers.test_ai_seats import assert_log_is_a_game, wait_for

ENTRANTS = [{"type": "ai", "level": "random"}, {"type": "ai", "level": "easy"}, {"type": "ai", "level": "random"}]


def finished_tournament(client: FlaskClient, url: str) -> dict[str, Any] | None:
    """The tournament once it is finished, else None."""
    body = client.get(url).get_json()
    return body if body["status"] == "finished" else None


def test_a_round_robin_between_random_and_easy_runs_to_its_end_on_workers(
    client: FlaskClient, start_worker: StartWorker, settings: Settings
) -> None:
    start_worker("tournament-1")
    start_worker("tournament-2")
    request = {"game": "rockem_sockem", "entrants": ENTRANTS, "seed": "workers", "parallel": 4}
    created = client.post("/v1/tournaments", json=request)
    assert created.status_code == 201, created.get_json()
    url = created.headers["Location"]
    body = wait_for(lambda: finished_tournament(client, url), "the tournament to finish", timeout=300)
    assert body["progress"] == {"done": 6, "total": 6, "running": 0, "round": 1, "rounds": 1}
    assert sum(row["played"] for row in body["standings"]) == 12  # 6 matches, 2 entrants each, counted once
    assert {row["name"] for row in body["standings"]} == {"random", "easy", "random #2"}
    assert body["standings"][0]["name"] == "easy"  # easy beats random at Rock'em Sock'em nearly always
    assert body["ratings"][0]["name"] == "easy"
    for rating in body["ratings"]:
        low, high = rating["interval"]
        assert low < rating["mu"] < high and rating["rating"] < low
    for row in body["crosstable"]:
        assert sum(cell["matches"] for cell in row["against"]) == 4
    assert body["seed"] == "workers"
    for match in body["matches"]:
        assert match["status"] == "finished"
        assert_log_is_a_game(client, match["match"])
        seats = client.get(f"/v1/matches/{match['match']}").get_json()["seats"]
        assert [seat["name"] for seat in seats] == [body["entrants"][entrant]["name"] for entrant in match["seats"]]


def test_a_swiss_tournament_of_sundae_split_pairs_rounds_on_workers(
    client: FlaskClient, start_worker: StartWorker, settings: Settings
) -> None:
    start_worker("swiss-1")
    entrants = [{"type": "ai", "level": level} for level in ("random", "easy", "random", "easy", "random")]
    request = {"game": "sundae_split", "players": 2, "format": "swiss", "rounds": 2, "games_per_pairing": 1}
    created = client.post("/v1/tournaments", json={**request, "entrants": entrants, "seed": "swiss"})
    assert created.status_code == 201, created.get_json()
    body = wait_for(lambda: finished_tournament(client, created.headers["Location"]), "Swiss to finish", timeout=300)
    rounds = [match["round"] for match in body["matches"]]
    assert rounds == [1, 1, 2, 2]  # 5 entrants: two pairs a round and a bye
    pairs = [frozenset(match["seats"]) for match in body["matches"]]
    assert len(set(pairs)) == 4  # no repeated pairing
    byes = [entrant for match in body["matches"] for entrant in match["byes"]]
    assert len(byes) == 2 and len(set(byes)) == 2
    store = TournamentStore(redis.Redis.from_url(settings.redis_url, decode_responses=True), 60)
    assert store.running() == []
