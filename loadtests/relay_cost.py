"""A worker's CPU per AI move on the relay path, against the same moves played in process.

    .venv/bin/python -m loadtests.relay_cost [--game robots_love_ice_cream] [--players 2] [--level easy]
        [--matches 8] [--runs 3]

Starts an embedded Redis of its own (not persistent) and, in this process, the services a worker
builds. Per run it creates `--matches` all-AI matches with chosen seeds (as any client may for AI
seats), plays each through the job a worker runs (`workers.jobs.play_ai_turn`, called inline: the
relay plays the match's turns one after another, each checked and committed with compare-and-set,
the quick ones in runs, the next move searched while Redis stores the last), then plays the same
seeds in process with
`tournaments.local.play_levels` (the same moves: the AI's seeds are the server's). It prints the
CPU milliseconds per move of each (this process only: Redis runs apart), their medians over the
runs and the ratio server path / in process: what the worker spends on a move beyond its search.
Not a test: nothing is asserted. Only for games whose seats act one at a time (a simultaneous
game's order of play differs between the two).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from flask.testing import FlaskClient

from api.app import create_app
from domain.matches.commands import engine_state, load_match
from engine import get_game
from loadtests.limits import LOAD_TEST_LIMITS
from ops.embedded_redis import start_embedded_redis
from tournaments.local import play_levels
from workers import jobs
from workers.context import context


def served_cpu(client: FlaskClient, game: str, players: int, level: str, seeds: list[str]) -> tuple[float, int]:
    """CPU seconds to play the matches through the worker's job, and the moves played."""
    store = context().store
    moves = 0
    started = time.process_time()
    for seed in seeds:
        body = {"game": game, "players": players, "seats": [{"type": "ai", "level": level}] * players, "seed": seed}
        record = load_match(store, client.post("/v1/matches", json=body).get_json()["id"])
        while not record.ended:
            seat = engine_state(record).waiting_for()[0]
            moves += jobs.play_ai_turn(record.id, seat, record.version)["moves"]
            record = load_match(store, record.id)
    return time.process_time() - started, moves


def local_cpu(game: str, players: int, level: str, seeds: list[str]) -> float:
    """CPU seconds to play the same matches in process."""
    rules = get_game(game)
    assert rules is not None, f"no game {game}"
    started = time.process_time()
    for seed in seeds:
        play_levels(rules.start(players, {}, seed), [level] * players, seed)
    return time.process_time() - started


def main(argv: list[str] | None = None) -> int:
    """Measure, print the table."""
    parser = argparse.ArgumentParser(prog="python -m loadtests.relay_cost", description=__doc__)
    parser.add_argument("--game", default="robots_love_ice_cream")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--level", default="easy")
    parser.add_argument("--matches", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="parlour-relay-") as folder:
        redis_server = start_embedded_redis(Path(folder), persistent=False)
        os.environ.update({**LOAD_TEST_LIMITS, "REDIS_URL": redis_server.url})  # read as the services are built
        try:
            client = create_app().test_client()  # creates matches as a client does; nothing runs their RQ jobs
            served_cpu(client, args.game, args.players, args.level, ["warm-up"])  # tables and scripts loaded
            rows = []
            for run in range(args.runs):
                seeds = [f"relay-cost-{run}-{index}" for index in range(args.matches)]
                served, moves = served_cpu(client, args.game, args.players, args.level, seeds)
                local = local_cpu(args.game, args.players, args.level, seeds)
                rows.append((1000 * served / moves, 1000 * local / moves, moves))
                print(
                    f"  run {run + 1}: {rows[-1][0]:.3f} / {rows[-1][1]:.3f} ms a move, {moves} moves", file=sys.stderr
                )
        finally:
            redis_server.stop()
    served_ms, local_ms = statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)
    print(f"{args.game} ({args.players} players), {args.level}, {args.matches} matches a run, medians of {args.runs}")
    ratio = served_ms / local_ms
    print(f"CPU a move: the worker's relay path {served_ms:.3f} ms, in process {local_ms:.3f} ms, ratio {ratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
