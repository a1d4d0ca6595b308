"""The job path's cost a move: from an AI turn's job queued to its move committed, at the `random` level.

    .venv/bin/python -m loadtests.move_overhead [--runs 3] [--moves 40] [--games icecream,sundae_split]

Starts the whole service (`python -m ops.supervisor`: embedded Redis, API, two AI workers) on a free
port and a temporary data folder. Per game and run, a scripted human plays seat 0 (a seeded random
legal action as soon as it may act) against a `random` AI seat; for each AI answer it reads, from
the service's Redis, when RQ queued the turn's job, when a worker started it, and when the move was
committed (the log entry's stamp, in whole milliseconds: a part may read a little below 0). A
`random` move searches nothing (choosing one legal action takes microseconds, measured here in
process and subtracted), so what is left is the overhead of the job path: queue, worker, reading
the match, checking and committing the move. Prints p50 and p95 of queued -> committed per run and
their medians, the parts (queued -> started -> committed), and as the baseline measured in the same
run the scripted human's own moves: one HTTP request each, from the client's send to its answer.
Not a test: nothing is asserted. Issue 14 asks for p50 at most 5 ms and p95 at most 15 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import urllib.error
from dataclasses import dataclass, field
from typing import cast

import redis
from rq.job import Job
from rq.serializers import JSONSerializer

from ai.levels import choose
from engine import get_game
from loadtests.ai_latency import POLL, Service, percentile, running_service, stamp
from store.matches import ai_turn_key

GAMES = ("icecream", "sundae_split")


@dataclass
class Run:
    """One match's figures, in seconds."""

    queued_to_committed: list[float] = field(default_factory=list)
    queued_to_started: list[float] = field(default_factory=list)
    started_to_committed: list[float] = field(default_factory=list)
    human_requests: list[float] = field(default_factory=list)


def play(service: Service, game: str, moves: int) -> Run:
    """A human against a `random` AI seat; the figures of up to `moves` AI answers."""
    seats = [{"type": "human"}, {"type": "ai", "level": "random"}]
    created = service.call("/v1/matches", {"game": game, "players": 2, "seats": seats})
    match_id, token = created["id"], created["tokens"][0]["token"]
    chooser, run = random.Random(match_id), Run()
    while len(run.human_requests) < moves:
        mine = service.call(f"/v1/matches/{match_id}/legal-actions", token=token)
        if not mine["may_act"]:
            if service.call(f"/v1/matches/{match_id}")["status"] != "active":
                break
            time.sleep(POLL)
            continue
        action = chooser.choice(mine["actions"]) if mine["kind"] == "enumerated" else mine["example"]
        sent = time.perf_counter()
        try:
            service.call(
                f"/v1/matches/{match_id}/actions", {"action": action, "expected_version": mine["version"]}, token
            )
        except urllib.error.HTTPError as error:
            if error.code != 409:
                raise
            continue
        run.human_requests.append(time.perf_counter() - sent)
    time.sleep(1)  # the AI's last answer lands
    read_jobs(service, match_id, run)
    return run


def read_jobs(service: Service, match_id: str, run: Run) -> None:
    """Each AI move's queued, started and committed times, from its turn job and its log entry."""
    connection = redis.Redis.from_url(service.redis_url, decode_responses=False)
    entries = service.call(f"/v1/matches/{match_id}/log?limit=500")["entries"]
    for entry in entries:
        if entry["seat"] != 1:
            continue
        job_id = cast("bytes | None", connection.get(ai_turn_key(match_id, 1, entry["version"] - 1)))  # not decoded
        if job_id is None:
            continue
        job = Job.fetch(job_id.decode(), connection=connection, serializer=JSONSerializer)
        if job.enqueued_at is None or job.started_at is None:
            continue
        committed = stamp(entry["at"])
        run.queued_to_committed.append(committed - job.enqueued_at.timestamp())
        run.queued_to_started.append((job.started_at - job.enqueued_at).total_seconds())
        run.started_to_committed.append(committed - job.started_at.timestamp())


def random_search(game_id: str, samples: int = 200) -> float:
    """Median seconds `random` takes to choose, over positions of a random playout, in this process."""
    game = get_game(game_id)
    assert game is not None
    times: list[float]
    state, times = game.start(2, {}, "search-time"), []
    while len(times) < samples and not state.is_over():
        seat = state.waiting_for()[0]
        started = time.perf_counter()
        action = choose(state, seat, "random", len(times))
        times.append(time.perf_counter() - started)
        state.play(seat, action)
    return statistics.median(times)


def ms(values: list[float], fraction: float) -> float:
    """A percentile in milliseconds."""
    return 1000 * percentile(values, fraction)


def main(argv: list[str] | None = None) -> int:
    """Measure and print."""
    parser = argparse.ArgumentParser(prog="python -m loadtests.move_overhead", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--moves", type=int, default=40, help="AI answers measured per run")
    parser.add_argument("--games", default=",".join(GAMES))
    args = parser.parse_args(argv)
    with running_service(2, warm_up=False, prefix="parlour-move-overhead-") as service:
        for game in args.games.split(","):
            search = random_search(game)
            runs = [play(service, game, args.moves) for _ in range(args.runs)]
            for n, run in enumerate(runs, 1):
                print(
                    f"{game} run {n}: queued->committed p50 {ms(run.queued_to_committed, 0.5):.1f} "
                    f"p95 {ms(run.queued_to_committed, 0.95):.1f} ms (queued->started p50 "
                    f"{ms(run.queued_to_started, 0.5):.1f}, started->committed p50 "
                    f"{ms(run.started_to_committed, 0.5):.1f}); "
                    f"a human's request p50 {ms(run.human_requests, 0.5):.1f} ms",
                    flush=True,
                )
            p50 = statistics.median(ms(run.queued_to_committed, 0.5) for run in runs) - 1000 * search
            p95 = statistics.median(ms(run.queued_to_committed, 0.95) for run in runs) - 1000 * search
            human = statistics.median(ms(run.human_requests, 0.5) for run in runs)
            print(
                f"{game}: per-move overhead (queued -> committed, minus {1000 * search:.3f} ms of search), "
                f"median of {args.runs} runs: p50 {p50:.1f} ms, p95 {p95:.1f} ms; "
                f"a human's move over HTTP p50 {human:.1f} ms; overhead / human {p50 / human:.2f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
