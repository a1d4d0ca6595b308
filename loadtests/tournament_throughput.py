"""Tournament throughput: matches per minute per game at the `easy` level, on the server's workers and in process.

    .venv/bin/python -m loadtests.tournament_throughput [--runs 3] [--workers 2] [--games rockem_sockem:2 ...]

Starts the whole service (`python -m ops.supervisor`: embedded Redis, the API, `--workers` AI
workers and the timer worker) on a free port with a temporary data folder. For each game (and
player count) it runs `--runs` round-robin tournaments between `easy` entrants (4 for two-player
matches, one more than the players otherwise; seats rotated; 8 matches at once), each with a fresh
seed, of 2 games per pairing, or 6 for the games whose 2 last about 2 s (`GAMES_PER_PAIRING`; the
same for every game with `--games-per-pairing`), and measures the matches finished per minute from the tournament's
server-stamped creation to its end. It prints the median over the runs (with min and max), and
the same tournaments played in this process by `tournaments.local` (one core, no server), each
right after its server run, and the ratio of the medians, server / in process. Not a test: nothing
is asserted.

With `--ceiling` it also plays, after each run, the same tournament in two processes at once and
prints the median of their summed rate over one process's: how far two cores take in-process play
on this machine, about the most two workers can make of it. Where two vCPUs share a physical core
it is well under 2, and so is every server figure.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from dataclasses import dataclass

from domain.tournaments.setup import PlanRequest, build_plan
from loadtests.ai_latency import Service, running_service, stamp
from tournaments.local import run

GAMES = (
    "rockem_sockem:2",
    "sundae_split:2",
    "sundae_split:5",
    "icecream:2",
    "freeze_factory:2",
    "freeze_factory:4",
    "robots_love_ice_cream:2",
)
WAIT = 1800.0
DEFAULT_GAMES_PER_PAIRING = 2
GAMES_PER_PAIRING = {"sundae_split:2": 6, "robots_love_ice_cream:2": 6}
"""Where 2 games per pairing (12 matches) make a tournament of about 2 s on one core: too short a sample on a shared
machine, whose speed moves by 10 to 20% from second to second, and mostly the first and last matches."""


@dataclass(frozen=True)
class Measured:
    """Matches per minute of one game over several runs, and in process."""

    game: str
    players: int
    matches: int
    server: list[float]
    local: list[float]
    both: list[float]  # two in-process tournaments at once, their rates summed (empty without --ceiling)


def request_for(game: str, players: int, seed: str, games: int) -> PlanRequest:
    """A round robin between `easy` entrants, `games` games per pairing."""
    entrants = 4 if players == 2 else players + 1
    return {
        "game": game,
        "players": players,
        "entrants": [{"type": "ai", "level": "easy"}] * entrants,
        "games_per_pairing": games,
        "seed": seed,
        "parallel": 8,
    }


def server_rate(service: Service, request: PlanRequest) -> tuple[float, int]:
    """Matches per minute of one tournament on the server, and how many it played."""
    body = service.call("/v1/tournaments", request)
    deadline = time.monotonic() + WAIT
    while body["status"] != "finished":
        if time.monotonic() > deadline:
            raise RuntimeError(f"tournament {body['id']} did not finish in {WAIT} s")
        time.sleep(0.25)
        body = service.call(body["url"])
    seconds = stamp(body["finished_at"]) - stamp(body["created_at"])
    return 60 * body["progress"]["done"] / seconds, body["progress"]["done"]


def local_rate(request: PlanRequest) -> float:
    """Matches per minute of the same tournament played in this process."""
    plan = build_plan(request.copy())
    started = time.perf_counter()
    _, outcomes = run(plan)
    return 60 * len(outcomes) / (time.perf_counter() - started)


def two_at_once_rate(request: PlanRequest) -> float:
    """Matches per minute of the same tournament played twice at once, in two processes, summed."""
    with multiprocessing.get_context("spawn").Pool(2) as pool:  # each times its own play, not its start
        return sum(pool.map(local_rate, [request, request]))


def measure(service: Service, game: str, players: int, runs: int, games: int, ceiling: bool = False) -> Measured:
    """`runs` tournaments of one game on the server, each followed by the same tournament in process
    (and with `ceiling`, by two in process at once)."""
    rates: list[float] = []
    locals_: list[float] = []
    both: list[float] = []
    matches = 0
    for index in range(runs):
        request = request_for(game, players, f"throughput-{game}-{players}-{index}", games)
        rate, matches = server_rate(service, request)
        rates.append(rate)
        locals_.append(local_rate(request))
        line = f"  {game} {players}p run {index + 1}: server {rate:.1f}, in process {locals_[-1]:.1f}"
        if ceiling:
            both.append(two_at_once_rate(request))
            line += f", two in process at once {both[-1]:.1f}"
        print(f"{line} matches/min", file=sys.stderr, flush=True)
    return Measured(game, players, matches, rates, locals_, both)


def report(rows: list[Measured], workers: int, runs: int) -> str:
    """The table of figures."""
    ceiling = all(row.both for row in rows)
    lines = [
        f"Tournament throughput, easy level, {workers} AI workers, median of {runs} runs (matches per minute)",
        f"{'game':<24}{'players':>8}{'matches':>9}{'server':>9}{'min':>8}{'max':>8}{'in process':>12}{'ratio':>7}"
        + (f"{'ceiling':>9}" if ceiling else ""),
    ]
    for row in rows:
        server, local = statistics.median(row.server), statistics.median(row.local)
        lines.append(
            f"{row.game:<24}{row.players:>8}{row.matches:>9}{server:>9.1f}"
            f"{min(row.server):>8.1f}{max(row.server):>8.1f}{local:>12.1f}{server / local:>7.2f}"
            + (f"{statistics.median(row.both) / local:>9.2f}" if ceiling else "")
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Start the service, measure each game, print the table, stop the service."""
    parser = argparse.ArgumentParser(prog="python -m loadtests.tournament_throughput", description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="tournaments per game (default 3)")
    parser.add_argument("--workers", type=int, default=2, help="AI workers the service starts (default 2)")
    parser.add_argument("--games", nargs="+", default=list(GAMES), metavar="GAME:PLAYERS")
    parser.add_argument("--games-per-pairing", type=int, help="for every game (default: GAMES_PER_PAIRING, else 2)")
    parser.add_argument("--ceiling", action="store_true", help="also play two in-process tournaments at once")
    args = parser.parse_args(argv)
    with running_service(args.workers, warm_up=False, prefix="parlour-throughput-") as service:
        rows = []
        for entry in args.games:
            game, _, players = entry.partition(":")
            games = args.games_per_pairing or GAMES_PER_PAIRING.get(entry, DEFAULT_GAMES_PER_PAIRING)
            rows.append(measure(service, game, int(players or 2), args.runs, games, args.ceiling))
    print(report(rows, args.workers, args.runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
