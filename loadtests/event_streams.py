"""How many event streams the API holds while actions keep their usual latency.

    .venv/bin/python -m loadtests.event_streams [--streams 0,10,100,500,1000,2000] [--runs 3]
        [--actions 200] [--matches 10] [--processes 2] [--worker-class gevent|gthread] [--threads 4]

Starts an embedded Redis and the API's gunicorn on a loopback port, with `--processes` worker
processes (by default as many as the service runs; `--processes 1` shows what one process holds). For each
run and each stream count N (0 first: the baseline, measured in the same run), it creates
`--matches` Freeze Factory matches for 2, opens N public event streams spread over them (held by a
separate asyncio process), waits until every stream has its first event, then plays `--actions`
actions round robin over the matches from one client (legal actions, then the timed POST), so
each action is an event for N / matches streams. It prints the POST latency's p50 and p95
(medians over the runs), their ratio to the baseline, how many events the streams received
against how many they should have, the memory a held stream takes (the growth of the API
workers' resident set from the run's baseline to when all N streams are held, divided by N), and
the CPU time per action of the API's processes and of the stream holder while the actions were
played (the holder shares the cores: what it takes, the server cannot have).
Everything it starts, it stops.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loadtests.benchmark import cpu_seconds, free_port
from loadtests.limits import LOAD_TEST_LIMITS
from ops.embedded_redis import start_embedded_redis
from ops.supervisor import DEFAULT_WORKERS, WORKER_CLASSES, Child, Supervisor, gunicorn_command

HOST = "127.0.0.1"
STARTUP_TIMEOUT = 60.0
READY_TIMEOUT = 60.0  # seconds every stream of a step may take to get its first event, or the server starved
SETTLE = 1.0  # seconds the streams get to receive the last events before they are counted
CONNECT_CONCURRENCY = 100  # streams opened at once by the holder
MATCHES = "/v1/matches"


# --- the client that plays ------------------------------------------------------------------------
def call(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    """One JSON request; the decoded answer (an HTTP error raises)."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{base}{path}", data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


@dataclass
class Table:
    """A match the player holds every seat of, and its last known state."""

    id: str
    tokens: dict[int, str]
    state: dict[str, Any]


def create_tables(base: str, count: int, seed: int) -> list[Table]:
    """`count` fresh Freeze Factory matches for 2, every seat held."""
    tables = []
    for n in range(count):
        created = call(base, "POST", MATCHES, {"game": "freeze_factory", "players": 2, "seed": f"ev-{seed}-{n}"})
        tokens = {seat["seat"]: seat["token"] for seat in created["tokens"]}
        tables.append(Table(created["id"], tokens, call(base, "GET", f"{MATCHES}/{created['id']}")))
    return tables


def play_one(base: str, table: Table, rng: random.Random) -> float | None:
    """One random legal action of the seat whose turn it is; the POST's latency in seconds."""
    if table.state["status"] != "active":
        return None
    seat = table.state["waiting_for"][0]
    path = f"{MATCHES}/{table.id}"
    legal = call(base, "GET", f"{path}/legal-actions", token=table.tokens[seat])
    if not legal["actions"]:
        return None
    body = {"action": rng.choice(legal["actions"]), "expected_version": legal["version"]}
    started = time.perf_counter()
    table.state = call(base, "POST", f"{path}/actions", body, token=table.tokens[seat])
    return time.perf_counter() - started


def play(base: str, tables: list[Table], actions: int, seed: int) -> list[float]:
    """`actions` timed actions, round robin over the tables."""
    rng = random.Random(seed)
    latencies: list[float] = []
    turn = 0
    while len(latencies) < actions and turn < actions * 3:
        latency = play_one(base, tables[turn % len(tables)], rng)
        if latency is not None:
            latencies.append(latency)
        turn += 1
    return latencies


# --- the process that holds the streams -----------------------------------------------------------
async def hold_stream(
    port: int, match_id: str, counts: dict[str, int], lasts: dict[str, list[int]], gate: asyncio.Semaphore
) -> None:
    """Open one public event stream and count its events until cancelled; note the last version it saw."""
    async with gate:
        reader, writer = await asyncio.open_connection(HOST, port)
        request = f"GET {MATCHES}/{match_id}/events HTTP/1.1\r\nHost: {HOST}\r\nAccept: text/event-stream\r\n\r\n"
        writer.write(request.encode())
        status = await reader.readline()
    if b" 200 " not in status:
        counts["failed"] += 1
        writer.close()
        return
    first, last = True, -1
    try:
        while line := await reader.readline():
            if line.startswith(b"id: "):
                last = int(line[4:])
            elif line.startswith(b"event: match"):
                counts["events"] += 1
                if first:
                    counts["ready"] += 1
                    first = False
    finally:
        counts["closed"] += 1
        lasts.setdefault(match_id, []).append(last)
        writer.close()


async def hold(port: int, match_ids: list[str], streams: int) -> None:
    """Hold `streams` streams over the matches; print `ready` once each has its first event, counts at exit."""
    counts = {"ready": 0, "events": 0, "failed": 0, "closed": 0}
    lasts: dict[str, list[int]] = {}
    gate = asyncio.Semaphore(CONNECT_CONCURRENCY)
    tasks = [
        asyncio.create_task(hold_stream(port, match_ids[n % len(match_ids)], counts, lasts, gate))
        for n in range(streams)
    ]
    while counts["ready"] + counts["failed"] < streams:
        await asyncio.sleep(0.05)
    print(json.dumps({"ready": counts["ready"], "failed": counts["failed"]}), flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps({**counts, "lasts": lasts}), flush=True)


class Holder:
    """The stream-holding process for one step."""

    def __init__(self, port: int, match_ids: list[str], streams: int) -> None:
        argv = [sys.executable, "-m", "loadtests.event_streams", "--hold", str(port), str(streams), *match_ids]
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)

    def wait_ready(self) -> dict[str, int] | None:
        """The holder's first line once every stream got its first event (or failed); None if the server starved."""
        assert self.process.stdout is not None
        readable, _, _ = select.select([self.process.stdout], [], [], READY_TIMEOUT)
        if not readable:
            self.process.kill()
            self.process.wait()
            return None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the stream holder died before its streams were ready")
        return dict(json.loads(line))

    def stop(self) -> dict[str, Any]:
        """Stop holding; the counts of the whole step, and the last version each stream saw (per match)."""
        self.process.send_signal(signal.SIGTERM)
        out, _ = self.process.communicate(timeout=60)
        return dict(json.loads(out.strip().splitlines()[-1]))


# --- the measurement ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """One measurement: N streams held while the actions were played."""

    streams: int
    p50_ms: float
    p95_ms: float
    events: int
    expected_events: int
    failed: int
    behind: int  # streams whose last event was not their match's last version
    rss_bytes: int  # the API worker's resident set while the streams were held
    server_ms: float = 0.0  # CPU milliseconds per action: the API's processes, while the actions were played
    holder_ms: float = 0.0  # ... the stream holder


def worker_rss(master_pid: int) -> int:
    """The resident set in bytes of the gunicorn master's worker processes (its children)."""
    children = Path(f"/proc/{master_pid}/task/{master_pid}/children").read_text().split()
    total = 0
    for pid in children:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) * 1024
    return total


def percentile(values: list[float], fraction: float) -> float:
    """The value below which `fraction` of the values lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def measure(base: str, port: int, master_pid: int, streams: int, args: argparse.Namespace, seed: int) -> Step:
    """Hold `streams` streams over fresh matches while one client plays `args.actions` actions."""
    tables = create_tables(base, args.matches, seed)
    holder = Holder(port, [table.id for table in tables], streams) if streams else None
    ready = holder.wait_ready() if holder else {"ready": 0, "failed": 0}
    if holder is not None and ready is None:  # the held streams took every worker: nothing else is served
        return Step(streams, math.inf, math.inf, 0, 0, streams, streams, 0)
    rss = worker_rss(master_pid)
    holder_pid = holder.process.pid if holder else None
    before = cpu_seconds(master_pid), cpu_seconds(holder_pid) if holder_pid else 0.0
    try:
        latencies = play(base, tables, args.actions, seed)
        time.sleep(SETTLE)
        server_cpu = cpu_seconds(master_pid) - before[0]
        holder_cpu = (cpu_seconds(holder_pid) if holder_pid else 0.0) - before[1]
    finally:
        counts: dict[str, Any] = holder.stop() if holder else {"events": 0, "failed": 0, "ready": 0, "lasts": {}}
    per_table = [t.state["version"] for t in tables]
    final = {table.id: table.state["version"] for table in tables}
    behind = sum(last < final[match] for match, lasts in counts["lasts"].items() for last in lasts)
    # Each stream gets its first event, then at most one per action on its match (coalesced if they were close).
    expected = sum(per_table[n % len(tables)] + 1 for n in range(streams))
    latencies_ms = [1000 * latency for latency in latencies]
    return Step(
        streams,
        percentile(latencies_ms, 0.5),
        percentile(latencies_ms, 0.95),
        counts["events"],
        expected,
        ready["failed"] if ready else streams,
        behind,
        rss,
        1000 * server_cpu / max(1, len(latencies)),
        1000 * holder_cpu / max(1, len(latencies)),
    )


def summarize(steps: list[Step], runs: int) -> dict[int, dict[str, float]]:
    """Medians over the runs, per stream count; each ratio is to the baseline of its own run."""
    per_run = len(steps) // runs
    baselines = [steps[run * per_run] for run in range(runs)]  # 0 streams comes first in each run
    table: dict[int, dict[str, float]] = {}
    for count in sorted({step.streams for step in steps}):
        mine = [(step, baselines[index // per_run]) for index, step in enumerate(steps) if step.streams == count]
        table[count] = {
            "p50": statistics.median(step.p50_ms for step, _ in mine),
            "p95": statistics.median(step.p95_ms for step, _ in mine),
            "p50x": statistics.median(step.p50_ms / base.p50_ms for step, base in mine),
            "p95x": statistics.median(step.p95_ms / base.p95_ms for step, base in mine),
            "delivered": sum(step.events for step, _ in mine) / max(1, sum(step.expected_events for step, _ in mine)),
            "failed": sum(step.failed for step, _ in mine),
            "behind": sum(step.behind for step, _ in mine),
            "server_ms": statistics.median(step.server_ms for step, _ in mine),
            "holder_ms": statistics.median(step.holder_ms for step, _ in mine),
            "kb_per_stream": statistics.median(
                (step.rss_bytes - base.rss_bytes) / 1024 / max(1, step.streams) for step, base in mine
            ),
        }
    return table


def report(table: dict[int, dict[str, float]], args: argparse.Namespace) -> None:
    """Print the figures: medians over the runs, and the median ratio to the same run's baseline (0 streams)."""
    threads = f" x {args.threads} threads" if args.worker_class == "gthread" else ""
    processes = f"{args.processes} worker process" + ("es" if args.processes > 1 else "")
    print(
        f"\ngunicorn {args.worker_class}, {processes}{threads}; {args.matches} Freeze Factory matches; "
        f"{args.actions} actions per step; medians of {args.runs} runs"
    )
    print(
        f"{'streams':>8} {'p50 ms':>8} {'p95 ms':>8} {'p50 x':>7} {'p95 x':>7} {'events':>8} {'failed':>7}"
        f" {'behind':>7} {'KB/stream':>10} {'server CPU ms/action':>21} {'holder CPU ms/action':>21}"
    )
    for count, row in table.items():
        p50x, p95x = row["p50x"], row["p95x"]
        delivered = f"{100 * row['delivered']:.0f}%" if count else "-"
        if math.isinf(row["p50"]):
            print(f"{count:>8}  starved: the streams were not all served within {READY_TIMEOUT:.0f} s")
            continue
        print(
            f"{count:>8} {row['p50']:>8.1f} {row['p95']:>8.1f} {p50x:>7.2f} {p95x:>7.2f} {delivered:>8} "
            f"{int(row['failed']):>7} {int(row['behind']):>7} {row['kb_per_stream'] if count else math.nan:>10.1f}"
            f" {row['server_ms']:>21.2f} {row['holder_ms']:>21.2f}"
        )


def wait_healthy(base: str, supervisor: Supervisor) -> None:
    """Wait for the API's health check, failing if it dies or takes too long."""
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if supervisor.dead_child() is not None:
            raise RuntimeError("the API exited during startup")
        try:
            urllib.request.urlopen(f"{base}/v1/health", timeout=2).close()
            return
        except (urllib.error.URLError, OSError):
            time.sleep(0.2)
    raise RuntimeError("the API did not become healthy")


def run(args: argparse.Namespace) -> None:
    """Start Redis and the API, measure every step of every run, print the figures, stop everything."""
    counts = sorted({0, *args.streams})
    with tempfile.TemporaryDirectory(prefix="parlour-events-") as folder, open(args.server_log, "wb") as output:
        redis_server = start_embedded_redis(Path(folder), persistent=False)
        port = free_port()
        command = gunicorn_command(
            "ops.wsgi:app", HOST, port, args.processes, args.threads, args.worker_class, args.connections
        )
        env = {**os.environ, **LOAD_TEST_LIMITS, "REDIS_URL": redis_server.url}
        supervisor = Supervisor([Child("api", command)], env=env, output=output)
        try:
            supervisor.start()
            base = f"http://{HOST}:{port}"
            wait_healthy(base, supervisor)
            steps = []
            for run_index in range(args.runs):
                for count in counts:
                    master_pid = supervisor.processes["api"].pid
                    step = measure(base, port, master_pid, count, args, seed=run_index * 1000 + count)
                    print(f"run {run_index + 1}: {step}", file=sys.stderr, flush=True)
                    steps.append(step)
            report(summarize(steps, args.runs), args)
        finally:
            supervisor.stop()
            redis_server.stop()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=lambda text: [int(n) for n in text.split(",")], default=[10, 100, 500, 1000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--actions", type=int, default=200)
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--worker-class", choices=WORKER_CLASSES, default="gevent")
    parser.add_argument(
        "--processes", type=int, default=DEFAULT_WORKERS, help="the API's worker processes (default: the service's)"
    )
    parser.add_argument("--threads", type=int, default=4, help="threads of the gthread worker")
    parser.add_argument("--connections", type=int, default=4000, help="gunicorn --worker-connections")
    parser.add_argument("--server-log", default=os.devnull, help="where the API's output goes")
    return parser.parse_args(argv)


def main() -> None:
    """Entry point: the benchmark, or (`--hold PORT N MATCH...`) the stream holder it starts."""
    if len(sys.argv) > 1 and sys.argv[1] == "--hold":
        asyncio.run(hold(int(sys.argv[2]), sys.argv[4:], int(sys.argv[3])))
        return
    run(parse_args())


if __name__ == "__main__":
    main()
