"""What a stored match costs Redis, per game: bytes of its record and its log, mid-game and finished.

    .venv/bin/python -m loadtests.match_memory [--matches 5] [--games icecream:2 ...]

Starts an embedded Redis of its own (not persistent) and the API in process on it, plays
`--matches` seeded random matches of each game through the API (every seat a human seat acting
with a random legal action), and reads `MEMORY USAGE` of each match's keys (the record's hash and
the log's list) halfway through and at the end. Prints the median bytes per game, and as the
baseline the bytes of a bare 5 KB string value in the same Redis. Not a test: nothing is asserted.
Issue 16 asks for these figures (the memory of a held event stream is not measured here yet).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import redis
from flask.testing import FlaskClient

from api.app import create_app
from loadtests.engine_costs import GAMES
from model.settings import LimitSettings, Settings
from ops.embedded_redis import start_embedded_redis
from store.matches import log_key, match_key

BASELINE_BYTES = 5000


def stored_bytes(connection: redis.Redis, match_id: str) -> int:
    """MEMORY USAGE of the match's record hash and log list together."""
    return sum(int(connection.memory_usage(key, samples=0) or 0) for key in (match_key(match_id), log_key(match_id)))


def play(client: FlaskClient, connection: redis.Redis, game: str, players: int, seed: int) -> tuple[int, int]:
    """One random match through the API: its bytes in Redis halfway (by actions) and finished."""
    body = {"game": game, "players": players, "seed": f"memory-{seed}"}
    created = client.post("/v1/matches", json=body).get_json()
    url, tokens = f"/v1/matches/{created['id']}", {t["seat"]: t["token"] for t in created["tokens"]}
    rng = random.Random(seed)
    sizes: list[int] = []
    while (match := client.get(url).get_json())["status"] == "active":
        seat = rng.choice(match["to_act"])
        headers = {"Authorization": f"Bearer {tokens[seat]}"}
        legal = client.get(f"{url}/legal-actions", headers=headers).get_json()
        action = pick(legal, rng)
        if action is None:
            continue
        answer = client.post(
            f"{url}/actions", json={"action": action, "expected_version": legal["version"]}, headers=headers
        )
        assert answer.status_code == 200, answer.get_json()
        sizes.append(stored_bytes(connection, created["id"]))
    return sizes[len(sizes) // 2], stored_bytes(connection, created["id"])


def pick(legal: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A random listed action, or the example of a constructed space; None when the seat has none."""
    if legal["kind"] == "enumerated":
        return rng.choice(legal["actions"]) if legal["actions"] else None
    return dict(legal["example"])


def main(argv: list[str] | None = None) -> int:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(prog="python -m loadtests.match_memory", description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=5, help="matches per game")
    parser.add_argument("--games", nargs="+", default=list(GAMES), metavar="GAME:PLAYERS")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="parlour-memory-") as folder:
        server = start_embedded_redis(Path(folder), persistent=False)
        try:
            connection = redis.Redis.from_url(server.url)
            app = create_app(Settings(redis_url=server.url, limits=replace(LimitSettings(), enabled=False)))
            client = app.test_client()
            connection.set("baseline", "x" * BASELINE_BYTES)
            baseline = int(connection.memory_usage("baseline", samples=0) or 0)
            print("Bytes a stored match takes in Redis (record hash + log list), median of", args.matches, "matches")
            print(f"{'game':26}{'mid-game':>10}{'finished':>10}{'x 5 KB':>8}")
            for spec in args.games:
                game, players = spec.split(":")
                mids, ends = zip(
                    *(play(client, connection, game, int(players), seed) for seed in range(args.matches)), strict=True
                )
                mid, end = statistics.median(mids), statistics.median(ends)
                print(f"{spec:26}{mid:10.0f}{end:10.0f}{end / baseline:8.2f}")
            print(f"baseline: a {BASELINE_BYTES}-byte string value takes {baseline} bytes")
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
