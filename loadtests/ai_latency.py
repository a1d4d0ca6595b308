"""AI move latency through the API: from the change that queues an AI turn to the AI's move applied.

    .venv/bin/python -m loadtests.ai_latency [--runs 3] [--moves 30] [--levels random,easy,medium,hard]

Starts the whole service (`python -m ops.supervisor`: embedded Redis, API, AI workers) on a free port
and a temporary data folder, plays one unmeasured match so the workers are up, then, per game and
level, plays matches whose seats are all AI at that level. Each log entry's latency is its commit
time minus the commit time of the change before it (the change that queued its job), both stamped by
the server, so polling adds nothing. Prints p50 and p95 per run and their medians over `--runs`
runs, and each level's median p50 as a ratio to `random`'s (the queue and worker overhead alone),
measured in the same run; where a relayed `random` move commits within the millisecond its stamps
share (median 0), the ratio is to the first level above 0, marked `base`. Not a test: nothing is
asserted. Rock'em Sock'em's rounds are simultaneous, so its figure for the second seat of a step
counts from the first seat's move rather than from the step's start.

With `--against human` seat 0 is a human this script plays (a seeded random legal action as soon
as it may act) and only the AI's answers to it are measured: each from the human's move that queued
the AI's job to the AI's move committed, so at `random` (a search of microseconds) the figure is the
per-move overhead of the job path: listeners, queue, worker, loading, committing. All-AI matches
(the default) are played by one job per run of turns, so they show the cost of a move inside a job.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from loadtests.limits import LOAD_TEST_LIMITS
from workers.__main__ import WARMED_UP

GAMES: list[tuple[str, int, dict[str, Any]]] = [
    ("icecream", 2, {}),
    ("sundae_split", 2, {}),
    ("freeze_factory", 2, {"turn_limit": 40}),
    ("rockem_sockem", 2, {"mode": "rounds"}),
    ("robots_love_ice_cream", 2, {}),
]
MATCH_TIMEOUT = 600.0
POLL = 0.02
"""Seconds between the scripted human's looks at whether it may act."""


@dataclass
class Service:
    """The service under measurement (`process`: None for one this run did not start)."""

    process: subprocess.Popen[bytes] | None
    base: str
    data_dir: Path | None = None

    @property
    def redis_url(self) -> str:
        """The URL of the embedded Redis of a service this run started."""
        assert self.data_dir is not None, "only a service this run started has a known Redis"
        return f"unix://{self.data_dir / 'redis' / 'redis.sock'}"

    def call(self, path: str, body: Mapping[str, Any] | None = None, token: str | None = None) -> dict[str, Any]:
        """GET, or POST a JSON body, with a bearer token if given; the JSON answer."""
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(self.base + path, data=data, headers=headers)
        with urllib.request.urlopen(request, timeout=30) as response:
            return dict(json.loads(response.read()))


def start_service(data_dir: Path, workers: int, warm_up: bool, limits: Mapping[str, str] = LOAD_TEST_LIMITS) -> Service:
    """`python -m ops.supervisor` on a free port with `workers` AI workers; returns once the API and the workers are up.

    `limits`: environment variables for its rate limits and quotas (by default out of a load test's reach).
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(limits)
    env.update(
        PORT=str(port),
        PARLOUR_DATA_DIR=str(data_dir),
        PARLOUR_AI_WORKERS=str(workers),
        PARLOUR_AI_WARM_UP=str(int(warm_up)),
    )
    log_path = data_dir / "service.log"
    log = log_path.open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "ops.supervisor"], env=env, stdout=log, stderr=subprocess.STDOUT, process_group=0
    )
    service = Service(process, f"http://127.0.0.1:{port}", data_dir)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            service.call("/v1/health")
        except OSError:
            time.sleep(0.2)
            continue
        if not warm_up or log_path.read_bytes().count(WARMED_UP.encode()) >= workers:
            if workers:  # one unmeasured match, so the first measured move does not wait for the workers to start
                move_latencies(service, *GAMES[0], level="random", moves=4)
            return service
        time.sleep(0.5)
    raise RuntimeError(f"the service did not start (see {log_path})")


@contextmanager
def running_service(
    workers: int, warm_up: bool, prefix: str, limits: Mapping[str, str] = LOAD_TEST_LIMITS
) -> Iterator[Service]:
    """The whole service on a temporary data folder for the block; stopped after, its workers and Redis with it."""
    with tempfile.TemporaryDirectory(prefix=prefix) as folder:
        service = start_service(Path(folder), workers, warm_up, limits)
        process = service.process
        assert process is not None
        try:
            yield service
        finally:
            os.killpg(process.pid, signal.SIGTERM)  # the service stops its workers and Redis
            process.wait(timeout=60)


def stamp(text: str) -> float:
    """A server timestamp in seconds."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def move_latencies(
    service: Service, game: str, players: int, options: dict[str, Any], level: str, moves: int
) -> list[float]:
    """Seconds from each change to the AI move it queued, over the first `moves` moves of one AI match."""
    seats = [{"type": "ai", "level": level}] * players
    created = service.call("/v1/matches", {"game": game, "players": players, "options": options, "seats": seats})
    match = service.call(f"/v1/matches/{created['id']}")
    deadline = time.monotonic() + MATCH_TIMEOUT
    while match["status"] != "finished" and match["version"] < moves and time.monotonic() < deadline:
        time.sleep(0.2)
        match = service.call(f"/v1/matches/{created['id']}")
    entries = service.call(f"/v1/matches/{created['id']}/log?limit={min(moves, 500)}")["entries"][:moves]
    times = [stamp(match["created_at"])] + [stamp(entry["at"]) for entry in entries]
    return [after - before for before, after in itertools.pairwise(times)]


def answer_latencies(
    service: Service, game: str, players: int, options: dict[str, Any], level: str, moves: int
) -> list[float]:
    """Seconds from each of a human's moves to the AI move that answered it, over up to `moves` answers of one match."""
    seats = [{"type": "human"}] + [{"type": "ai", "level": level}] * (players - 1)
    created = service.call("/v1/matches", {"game": game, "players": players, "options": options, "seats": seats})
    match_id, token = created["id"], created["tokens"][0]["token"]
    chooser = random.Random(match_id)
    deadline = time.monotonic() + MATCH_TIMEOUT
    while time.monotonic() < deadline:
        mine = service.call(f"/v1/matches/{match_id}/legal-actions", token=token)
        if mine["version"] >= 2 * moves:
            break
        if not mine["may_act"]:
            if service.call(f"/v1/matches/{match_id}")["status"] != "active":
                break
            time.sleep(POLL)
            continue
        action = chooser.choice(mine["actions"]) if mine["kind"] == "enumerated" else mine["example"]
        body = {"action": action, "expected_version": mine["version"]}
        try:
            service.call(f"/v1/matches/{match_id}/actions", body, token)
        except urllib.error.HTTPError as error:
            if error.code != 409:  # an AI seat moved first (a claim, a simultaneous step): look again
                raise
    entries = service.call(f"/v1/matches/{match_id}/log?limit=500")["entries"]
    pairs = itertools.pairwise(entries)
    return [stamp(ai["at"]) - stamp(human["at"]) for human, ai in pairs if human["seat"] == 0 and ai["seat"] != 0]


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def main(argv: list[str] | None = None) -> int:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(prog="python -m loadtests.ai_latency", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--moves", type=int, default=30, help="AI moves measured per run")
    parser.add_argument("--levels", default="random,easy,medium,hard")
    parser.add_argument("--games", default=",".join(game for game, _, _ in GAMES))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--against", choices=("ai", "human"), default="ai", help="who the measured AI seats play")
    args = parser.parse_args(argv)
    measured = answer_latencies if args.against == "human" else move_latencies
    levels = args.levels.split(",")
    # Only `perfect` needs IceCream's solution; without it the workers take jobs at once.
    with running_service(args.workers, warm_up="perfect" in levels, prefix="parlour-ai-latency-") as service:
        print(f"{'game':22} {'level':7} {'p50 ms (runs)':28} {'p95 ms (runs)':28} {'median p50':>10} {'x base':>8}")
        for game, players, options in GAMES:
            if game not in args.games.split(","):
                continue
            baseline = None
            for level in levels:
                runs = [measured(service, game, players, options, level, args.moves) for _ in range(args.runs)]
                p50s = [1000 * statistics.median(run) for run in runs if run]
                p95s = [1000 * percentile(run, 0.95) for run in runs if run]
                median_p50 = statistics.median(p50s)
                is_base = baseline is None and median_p50 > 0
                baseline = baseline or median_p50 or None  # a run of relayed `random` moves can take under 1 ms
                ratio = "base" if is_base else f"{median_p50 / baseline:.1f}" if baseline else "-"
                print(
                    f"{game:22} {level:7} {' '.join(f'{v:7.0f}' for v in p50s):28} "
                    f"{' '.join(f'{v:7.0f}' for v in p95s):28} {median_p50:10.0f} {ratio:>8}",
                    flush=True,
                )
        print("x base: a level's median p50 over that of its game's first level above 0 ms (stamps are whole ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
