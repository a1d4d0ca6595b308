"""Parlour against boardgame.io, its peer, in one run: moves/s, move p50/p95 and CPU per move for every row.

    .venv/bin/python -m loadtests.versus_peer [--runs 3] [--seconds 30] [--users 50] [--games icecream ...]
    .venv/bin/python -m loadtests.versus_peer --baseline [...]   # the older comparison (loadtests.benchmark)

Rows, each a median over `--runs` Locust runs of `--seconds` with `--users` users, every user creating a
match with all its seats and playing random legal moves to the end with no think time:

* IceCream on Parlour over HTTP (loadtests/locustfile.py's users: `IceCreamPlayer` holding no stream, and
  `IceCreamStreamPlayer` following each seat's match stream, one request a move), and over its WebSocket
  (`GET /v1/socket`, loadtests/peer_users.py), one gunicorn API as `make run` configures it (its limits on,
  set out of reach by loadtests/limits.py) on an embedded Redis;
* IceCream on boardgame.io 0.50.2 (loadtests/peer, one Node process) with its in-memory storage and with its
  FlatFile storage, driven over socket.io as its own client drives it (loadtests/peer_users.py);
* the other four games on Parlour, over HTTP (with and without the streams) and over the WebSocket.

A move is one action: its time runs from sending it until the mover has the answer. CPU per move is the
server's (the gunicorn processes, and Redis, for Parlour; the Node process for boardgame.io) and the load
generator's (Locust, which shares the cores): a reader sees whether the generator starved one side.
Each run starts from an empty store (Redis flushed; a new boardgame.io process, FlatFile in a new
folder), and the rows' order rotates from run to run. Everything it starts, it stops.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import redis
import websocket

from loadtests import benchmark
from loadtests.benchmark import (
    LOCUST_GRACE,
    ROOT,
    Target,
    add_locust_options,
    children_cpu_seconds,
    cpu_seconds,
    describe_workers,
    free_port,
    interrupt,
    parse_locust_options,
    wait_healthy,
    web_command,
)
from loadtests.limits import LOAD_TEST_LIMITS
from loadtests.peer_check import Disagreement, check_games
from loadtests.peer_node import start_server
from ops.embedded_redis import EmbeddedRedis
from ops.supervisor import Child, Settings, Supervisor, start_owned_redis

HTTP_USERS = ROOT / "loadtests" / "locustfile.py"
SOCKET_USERS = ROOT / "loadtests" / "peer_users.py"
GAMES = ("icecream", "sundae_split", "freeze_factory", "rockem_sockem", "robots_love_ice_cream")
HTTP_PLAYERS = {
    "icecream": "IceCreamPlayer",
    "sundae_split": "SundaeSplitPlayer",
    "freeze_factory": "FreezeFactoryPlayer",
    "rockem_sockem": "RockemSockemPlayer",
    "robots_love_ice_cream": "RobotsLoveIceCreamPlayer",
}
STREAM_PLAYERS = {game: name.replace("Player", "StreamPlayer") for game, name in HTTP_PLAYERS.items()}
"""The HTTP users that follow each seat's match stream and act on its events' legal actions: one request a move."""
SOCKET_PLAYERS = {
    "icecream": "IceCreamSocketPlayer",
    "sundae_split": "SundaeSplitSocketPlayer",
    "freeze_factory": "FreezeFactorySocketPlayer",
    "rockem_sockem": "RockemSockemSocketPlayer",
    "robots_love_ice_cream": "RobotsLoveIceCreamSocketPlayer",
}
HTTP_MOVE = ("POST", "/v1/matches/[id]/actions")  # the Locust row of a move over HTTP
SOCKET_MOVE = ("WS", "move")
SOCKET_IO_MOVE = ("SIO", "move")


@dataclass(frozen=True)
class Row:
    """One line of the table: a game on a server over a transport, played by one Locust user class."""

    game: str
    label: str
    server: str  # "parlour", or a boardgame.io storage: "memory", "flatfile"
    users_file: Path
    user_class: str
    move_row: tuple[str, str]  # the Locust statistics row (type, name) that counts moves

    @property
    def name(self) -> str:
        """`icecream Parlour HTTP`."""
        return f"{self.game} {self.label}"


@dataclass(frozen=True)
class Sample:
    """One Locust run of one row, per move."""

    moves_per_second: float
    p50_ms: float
    p95_ms: float
    moves: int
    requests_per_move: float  # every request and message Locust counted (creating matches included), per move
    failures: int
    server_us: float
    redis_us: float
    locust_us: float


def rows_for(games: Sequence[str]) -> list[Row]:
    """The table's rows: each game's HTTP, HTTP + stream and WebSocket rows, and IceCream's two boardgame.io rows."""
    rows: list[Row] = []
    for game in games:
        rows.append(Row(game, "Parlour HTTP", "parlour", HTTP_USERS, HTTP_PLAYERS[game], HTTP_MOVE))
        rows.append(Row(game, "Parlour HTTP + stream", "parlour", HTTP_USERS, STREAM_PLAYERS[game], HTTP_MOVE))
        rows.append(Row(game, "Parlour WebSocket", "parlour", SOCKET_USERS, SOCKET_PLAYERS[game], SOCKET_MOVE))
        if game == "icecream":
            for storage, label in (("memory", "boardgame.io in memory"), ("flatfile", "boardgame.io FlatFile")):
                rows.append(Row(game, label, storage, SOCKET_USERS, "BoardgameIoPlayer", SOCKET_IO_MOVE))
    return rows


def socket_missing(url: str) -> str | None:
    """Why Parlour's `GET /v1/socket` cannot be used, or None when it upgrades."""
    try:
        connection = websocket.create_connection(url.replace("http", "ws", 1) + "/v1/socket", timeout=10)
    except (OSError, websocket.WebSocketException) as error:
        return f"GET /v1/socket does not upgrade on this checkout ({error})"
    connection.close()
    return None


def defined(row: Row) -> bool:
    """True when the row's users file defines its user class (a row whose users have not landed is absent)."""
    return f"class {row.user_class}(" in row.users_file.read_text(encoding="utf-8")


def locust_command(row: Row, host: str, args: argparse.Namespace, csv_prefix: Path) -> list[str]:
    """The headless Locust command line of one run of one row."""
    return [
        sys.executable, "-m", "locust",
        "-f", str(row.users_file),
        "--headless",
        "-u", str(args.users),
        "-r", str(args.spawn_rate),
        "-t", f"{args.seconds}s",
        "--stop-timeout", "5",
        "--host", host,
        "--csv", str(csv_prefix),
        "--only-summary",
        row.user_class,
    ]  # fmt: skip


def run_locust(row: Row, host: str, args: argparse.Namespace, csv_prefix: Path) -> Path:
    """Run Locust once; the path of its statistics CSV."""
    log_path = csv_prefix.with_suffix(".log")
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            locust_command(row, host, args, csv_prefix),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            process_group=0,  # Ctrl-C reaches only this script, which stops Locust itself
        )
        try:
            process.wait(timeout=args.seconds + LOCUST_GRACE)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"Locust overran its time limit; see {log_path}") from None
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    if process.returncode not in (0, 1):  # 1: some request failed, which the statistics count
        raise RuntimeError(f"Locust exited with code {process.returncode}; see {log_path}")
    return Path(f"{csv_prefix}_stats.csv")


def read_sample(stats_csv: Path, move_row: tuple[str, str], cpu: tuple[float, float, float]) -> Sample:
    """The move row's rate and percentiles, the run's requests and failures, and the CPU seconds, per move."""
    with stats_csv.open(newline="") as handle:
        rows = {(row["Type"], row["Name"]): row for row in csv.DictReader(handle)}
    total = rows.get(("", "Aggregated"))
    move = rows.get(move_row)
    if total is None or move is None or int(move["Request Count"]) == 0:
        raise RuntimeError(f"no move was made (no {' '.join(move_row)} row in {stats_csv})")
    moves = int(move["Request Count"])
    per = 1e6 / moves
    return Sample(
        moves_per_second=float(move["Requests/s"]),
        p50_ms=float(move["50%"]),
        p95_ms=float(move["95%"]),
        moves=moves,
        requests_per_move=int(total["Request Count"]) / moves,
        failures=int(total["Failure Count"]),
        server_us=cpu[0] * per,
        redis_us=cpu[1] * per,
        locust_us=cpu[2] * per,
    )


def median(samples: Sequence[Sample]) -> Sample:
    """Each figure's median over the runs."""

    def middle(field: str) -> float:
        return float(statistics.median(getattr(sample, field) for sample in samples))

    return Sample(
        moves_per_second=middle("moves_per_second"),
        p50_ms=middle("p50_ms"),
        p95_ms=middle("p95_ms"),
        moves=round(middle("moves")),
        requests_per_move=middle("requests_per_move"),
        failures=round(middle("failures")),
        server_us=middle("server_us"),
        redis_us=middle("redis_us"),
        locust_us=middle("locust_us"),
    )


HEADING = (
    f"{'':<42}{'moves/s':>9}{'p50 ms':>8}{'p95 ms':>8}{'req/move':>9}{'failures':>9}{'moves':>8}"
    f"{'server us':>10}{'redis us':>9}{'locust us':>10}"
)


def line(name: str, m: Sample) -> str:
    """One row of the table."""
    return (
        f"{name:<42}{m.moves_per_second:>9.0f}{m.p50_ms:>8.0f}{m.p95_ms:>8.0f}{m.requests_per_move:>9.2f}"
        f"{m.failures:>9.0f}{m.moves:>8.0f}{m.server_us:>10.0f}{m.redis_us:>9.0f}{m.locust_us:>10.0f}"
    )


def ratio(numerator: float, denominator: float) -> str:
    """numerator/denominator to two places, or n/a."""
    return f"{numerator / denominator:.2f}" if denominator else "n/a"


def report(rows: Sequence[Row], results: dict[Row, list[Sample]], absent: dict[Row, str]) -> str:
    """The table of medians, then the issue's three comparisons on IceCream."""
    lines = [HEADING]
    medians = {row: median(samples) for row, samples in results.items() if samples}
    for row in rows:
        if row in medians:
            lines.append(line(row.name, medians[row]))
        else:
            lines.append(f"{row.name:<42}  absent: {absent.get(row, 'no run finished')}")
    by_label = {row.label: medians.get(row) for row in rows if row.game == "icecream"}
    ws = by_label.get("Parlour WebSocket")
    memory, flatfile = by_label.get("boardgame.io in memory"), by_label.get("boardgame.io FlatFile")
    for label in ("Parlour HTTP", "Parlour HTTP + stream"):
        http = by_label.get(label)
        if http and flatfile:
            lines.append(
                f"IceCream: {label} / boardgame.io FlatFile, moves/s: "
                f"{ratio(http.moves_per_second, flatfile.moves_per_second)} (goal, at one request per move: at least 1)"
            )
    if ws and memory:
        lines.append(
            f"IceCream: Parlour WebSocket / boardgame.io in memory, moves/s: "
            f"{ratio(ws.moves_per_second, memory.moves_per_second)} (goal: at least 0.5); "
            f"server CPU per move (Redis included): {ratio(ws.server_us + ws.redis_us, memory.server_us)} "
            "(goal: at most 2)"
        )
    return "\n".join(lines)


def run_line(row: Row, run: int, s: Sample) -> str:
    """One run's figures, printed as it finishes."""
    return (
        f"  run {run} {row.name:<40} {s.moves_per_second:7.0f} moves/s  p50 {s.p50_ms:3.0f} ms  p95 {s.p95_ms:4.0f} ms"
        f"  {s.requests_per_move:.2f} req/move  failures {s.failures}  CPU us/move: server {s.server_us:.0f},"
        f" redis {s.redis_us:.0f}, locust {s.locust_us:.0f}"
    )


class Bench:
    """The servers of one benchmark: Parlour's API on an embedded Redis, and boardgame.io started per run."""

    def __init__(self, args: argparse.Namespace, out: Path, workdir: Path) -> None:
        self.args, self.out, self.workdir = args, out, workdir
        self.settings = Settings.from_env(os.environ)
        self.parlour = Target("Parlour", "ops.wsgi:app", "", "/v1/health", free_port())
        self.log = (out / "servers.log").open("wb")
        self.supervisor = Supervisor(
            [Child("Parlour", web_command(self.parlour, self.settings))], env={}, output=self.log
        )
        self.redis: EmbeddedRedis | None = None

    def start(self) -> None:
        """Start Redis and the API, and wait until it answers."""
        self.redis = start_owned_redis(self.workdir / "redis")
        self.supervisor.env = {**os.environ, **LOAD_TEST_LIMITS, "REDIS_URL": self.redis.url}
        self.supervisor.watch("redis", self.redis.process)
        self.supervisor.start()
        wait_healthy([self.parlour], self.supervisor)

    def stop(self) -> None:
        """Stop everything started."""
        self.supervisor.stop()
        if self.redis is not None:
            self.redis.stop()
        self.log.close()

    def measure(self, row: Row, run: int) -> Sample:
        """One Locust run of `row` from an empty store; its sample."""
        prefix = self.out / f"{row.name.lower().replace(' ', '-').replace('.', '')}-run{run}"
        if row.server == "parlour":
            assert self.redis is not None
            redis.Redis.from_url(self.redis.url).flushall()
            pids = self.supervisor.processes["Parlour"].pid, self.redis.process.pid
            before = cpu_seconds(pids[0]), cpu_seconds(pids[1]), children_cpu_seconds()
            stats = run_locust(row, self.parlour.url, self.args, prefix)
            after = cpu_seconds(pids[0]), cpu_seconds(pids[1]), children_cpu_seconds()
            dead = self.supervisor.dead_child()
            if dead is not None:
                raise RuntimeError(f"{dead[0]} exited with code {dead[1]} during the benchmark")
        else:
            folder = Path(tempfile.mkdtemp(prefix="flatfile-", dir=self.workdir))
            server = start_server(row.server, folder, self.log)
            try:
                before = cpu_seconds(server.process.pid), 0.0, children_cpu_seconds()
                stats = run_locust(row, server.url, self.args, prefix)
                after = cpu_seconds(server.process.pid), 0.0, children_cpu_seconds()
                if server.process.poll() is not None:
                    raise RuntimeError(f"boardgame.io ({row.server}) exited with code {server.process.returncode}")
            finally:
                server.stop()
                shutil.rmtree(folder, ignore_errors=True)
        cpu = after[0] - before[0], after[1] - before[1], after[2] - before[2]
        return read_sample(stats, row.move_row, cpu)


CHECKED_GAMES = range(1, 21)  # seeded games played on both IceCreams before measuring (loadtests.peer_check)


def versus(args: argparse.Namespace) -> int:
    """Check the peer's IceCream, start the servers, run every row `--runs` times (rotating the order), print the
    table, stop everything."""
    games, moves = check_games(CHECKED_GAMES)  # installs the peer's packages when needed
    print(f"boardgame.io's IceCream agrees with Parlour's on every step of {games} seeded games ({moves} moves)")
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="parlour-versus-"))
    bench = Bench(args, out, workdir)
    rows = rows_for(args.games)
    results: dict[Row, list[Sample]] = {row: [] for row in rows}
    absent: dict[Row, str] = {}
    try:
        bench.start()
        missing = socket_missing(bench.parlour.url)
        if missing:
            absent.update({row: missing for row in rows if row.move_row == SOCKET_MOVE})
        absent.update({row: f"{row.users_file.name} has no {row.user_class}" for row in rows if not defined(row)})
        print(
            f"Parlour: gunicorn {describe_workers(bench.settings)}, limits on (out of reach); boardgame.io 0.50.2, "
            f"one Node process. Locust {args.users} users, spawn {args.spawn_rate}/s, {args.seconds} s, "
            f"{args.runs} runs; CSV and logs in {out}",
            flush=True,
        )
        measured = [row for row in rows if row not in absent]
        for run in range(1, args.runs + 1):
            shift = (run - 1) % len(measured)
            for row in measured[shift:] + measured[:shift]:
                try:
                    sample = bench.measure(row, run)
                except RuntimeError as error:
                    absent[row] = str(error)
                    print(f"  run {run} {row.name:<40} failed: {error}", flush=True)
                    continue
                results[row].append(sample)
                print(run_line(row, run, sample), flush=True)
        print(report(rows, results, absent), flush=True)
        return 0
    finally:
        bench.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    add_locust_options(parser, "per row")
    parser.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES), help="the games (default all)")
    return parse_locust_options(parser, argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: `python -m loadtests.versus_peer`; with --baseline, loadtests.benchmark with the other options."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if "--baseline" in arguments:
        arguments.remove("--baseline")
        return benchmark.main(arguments)
    args = parse_args(arguments)
    signal.signal(signal.SIGTERM, interrupt)
    os.chdir(ROOT)  # gunicorn imports the app, and Locust the users, from the repository root
    try:
        return versus(args)
    except KeyboardInterrupt:
        print("benchmark interrupted; servers stopped", file=sys.stderr)
        return 130
    except (RuntimeError, Disagreement) as error:
        print(f"benchmark failed: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
