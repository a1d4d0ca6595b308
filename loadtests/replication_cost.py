"""What Sentinel and `PARLOUR_REDIS_WAIT_REPLICAS` cost a move, measured in one run against one Redis.

    .venv/bin/python -m loadtests.replication_cost [--runs 3] [--seconds 20] [--users 50]

Setups, each serving the same gunicorn API (as `make run` configures it, limits on and out of reach) to the
same Locust users (IceCream over HTTP with no stream, and over the WebSocket; loadtests/versus_peer.py's rows):

* `one Redis`: a standalone redis-server on TCP with no replica (`REDIS_URL`), the same binary and persistence
  (AOF, `appendfsync everysec`) as the others: the baseline;
* `primary + replica, REDIS_URL`: the primary of a primary, a replica and three sentinels
  (loadtests/chaos/cluster.py), reached by its address: what replication itself costs the primary;
* `Sentinel, WAIT 0`: the same, the primary found through the sentinels (`PARLOUR_REDIS_SENTINELS`);
* `Sentinel, WAIT 1`: and every acknowledged change waiting for the replica (`PARLOUR_REDIS_WAIT_REPLICAS=1`).

Each run starts from an empty store, the API started afresh, and the setups' order rotates from run to run.
It prints each run, then the medians with each setup's ratio to the baseline. Everything it starts, it stops.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import redis

from loadtests.benchmark import (
    ROOT,
    Target,
    add_locust_options,
    children_cpu_seconds,
    cpu_seconds,
    free_port,
    interrupt,
    parse_locust_options,
    wait_healthy,
    web_command,
)
from loadtests.chaos.cluster import HOST, Cluster, Node, wait_until
from loadtests.limits import LOAD_TEST_LIMITS
from loadtests.versus_peer import (
    HTTP_MOVE,
    HTTP_USERS,
    SOCKET_MOVE,
    SOCKET_USERS,
    Row,
    Sample,
    line,
    median,
    read_sample,
    run_locust,
)
from ops.supervisor import Child, Settings, Supervisor

ROWS = (
    Row("icecream", "HTTP", "parlour", HTTP_USERS, "IceCreamPlayer", HTTP_MOVE),
    Row("icecream", "WebSocket", "parlour", SOCKET_USERS, "IceCreamSocketPlayer", SOCKET_MOVE),
)
BASELINE = "one Redis"


@dataclass(frozen=True)
class Setup:
    """How the API reaches Redis: its environment, and the redis-server whose CPU counts."""

    name: str
    env: dict[str, str]
    redis_node: Node


def setups(alone: Node, cluster: Cluster) -> list[Setup]:
    """The four setups, the baseline first."""
    primary = cluster.data[0]
    sentinels = ",".join(f"{HOST}:{node.port}" for node in cluster.sentinels)
    via_sentinel = {"PARLOUR_REDIS_SENTINELS": sentinels, "PARLOUR_REDIS_SENTINEL_MASTER": "parlour"}
    return [
        Setup(BASELINE, {"REDIS_URL": f"redis://{HOST}:{alone.port}/0"}, alone),
        Setup("primary + replica, REDIS_URL", {"REDIS_URL": f"redis://{HOST}:{primary.port}/0"}, primary),
        Setup("Sentinel, WAIT 0", {**via_sentinel, "PARLOUR_REDIS_WAIT_REPLICAS": "0"}, primary),
        Setup("Sentinel, WAIT 1", {**via_sentinel, "PARLOUR_REDIS_WAIT_REPLICAS": "1"}, primary),
    ]


def standalone(base: Path, cluster: Cluster) -> Node:
    """A redis-server with no replica, configured as the cluster's data nodes are (but `min-replicas-to-write`)."""
    node = Node("alone", "redis", free_port(), base / "alone.log", cluster.redis_command)
    (cluster.base / node.name).mkdir(parents=True, exist_ok=True)  # its --dir, beside the cluster's nodes
    command = node.command

    def without_replicas(started: Node) -> list[str]:
        args = command(started)
        at = args.index("--min-replicas-to-write")
        return args[:at] + args[at + 4 :]  # no --min-replicas-to-write 1 --min-replicas-max-lag 10

    node.command = without_replicas
    return node


def answers_ping(port: int) -> bool:
    """True when the Redis on `port` answers PING."""
    try:
        return bool(redis.Redis(HOST, port, socket_timeout=1.0).ping())
    except (redis.RedisError, OSError):
        return False


class Bench:
    """The Redis servers of the run, and one API restarted per measurement."""

    def __init__(self, args: argparse.Namespace, out: Path, workdir: Path) -> None:
        self.args, self.out = args, out
        self.settings = Settings.from_env(os.environ)
        self.cluster = Cluster(workdir / "cluster", apis=0, ai_workers=0)
        self.cluster.parlour.clear()  # data nodes and sentinels only: the API is this bench's own
        self.alone = standalone(workdir, self.cluster)
        self.log = (out / "replication-servers.log").open("wb")

    def start(self) -> None:
        """Start the standalone Redis, then the primary, its replica and the sentinels."""
        self.alone.start()
        self.cluster.start()
        wait_until(lambda: answers_ping(self.alone.port), "the standalone Redis to answer")

    def stop(self) -> None:
        """Stop every process started."""
        self.alone.kill(signal.SIGTERM)
        self.cluster.stop()
        self.log.close()

    def measure(self, setup: Setup, row: Row, run: int) -> Sample:
        """One Locust run of `row` on a fresh API over `setup`, from an empty store."""
        redis.Redis(HOST, setup.redis_node.port).flushall()
        target = Target("Parlour", "ops.wsgi:app", "", "/v1/health", free_port())
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL" and not k.startswith("PARLOUR_REDIS_")}
        supervisor = Supervisor(
            [Child("Parlour", web_command(target, self.settings))],
            env={**env, **LOAD_TEST_LIMITS, **setup.env},
            output=self.log,
        )
        supervisor.start()
        try:
            wait_healthy([target], supervisor)
            redis_pid = setup.redis_node.process.pid if setup.redis_node.process else 0
            pids = supervisor.processes["Parlour"].pid, redis_pid
            before = cpu_seconds(pids[0]), cpu_seconds(pids[1]), children_cpu_seconds()
            prefix = self.out / f"replication-{setup.name}-{row.label}-run{run}".lower().replace(" ", "-")
            stats = run_locust(row, target.url, self.args, prefix)
            after = cpu_seconds(pids[0]), cpu_seconds(pids[1]), children_cpu_seconds()
            dead = supervisor.dead_child()
            if dead is not None:
                raise RuntimeError(f"{dead[0]} exited with code {dead[1]} during the run")
        finally:
            supervisor.stop()
        return read_sample(stats, row.move_row, (after[0] - before[0], after[1] - before[1], after[2] - before[2]))


def report(all_setups: Sequence[Setup], results: dict[tuple[str, str], list[Sample]]) -> str:
    """Medians of every (setup, row), then each one's moves/s and p95 against the baseline's."""
    lines = []
    for row in ROWS:
        base = results.get((BASELINE, row.label))
        base_median = median(base) if base else None
        for setup in all_setups:
            samples = results.get((setup.name, row.label))
            if not samples:
                lines.append(f"{row.label + ', ' + setup.name:<42}  no run finished")
                continue
            m = median(samples)
            versus = ""
            if base_median is not None and setup.name != BASELINE:
                versus = (
                    f"   moves/s x{m.moves_per_second / base_median.moves_per_second:.2f}, "
                    f"p95 x{m.p95_ms / base_median.p95_ms:.2f} of {BASELINE}"
                )
            lines.append(line(f"{row.label}, {setup.name}", m) + versus)
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: `python -m loadtests.replication_cost`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    add_locust_options(parser, "of every setup and row", seconds=20)
    args = parse_locust_options(parser, argv)
    signal.signal(signal.SIGTERM, interrupt)
    os.chdir(ROOT)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="parlour-replication-") as workdir:
        bench = Bench(args, out, Path(workdir))
        results: dict[tuple[str, str], list[Sample]] = {}
        try:
            bench.start()
            all_setups = setups(bench.alone, bench.cluster)
            print(
                f"IceCream, {args.users} Locust users, {args.seconds} s, {args.runs} runs of each setup and row; "
                f"CSV and logs in {out}",
                flush=True,
            )
            for run in range(1, args.runs + 1):
                shift = (run - 1) % len(all_setups)
                for setup in all_setups[shift:] + all_setups[:shift]:
                    for row in ROWS:
                        sample = bench.measure(setup, row, run)
                        results.setdefault((setup.name, row.label), []).append(sample)
                        print(
                            f"  run {run} {row.label + ', ' + setup.name:<36} {sample.moves_per_second:6.0f} moves/s"
                            f"  p50 {sample.p50_ms:3.0f} ms  p95 {sample.p95_ms:4.0f} ms  failures {sample.failures}"
                            f"  CPU us/move: server {sample.server_us:.0f}, redis {sample.redis_us:.0f}",
                            flush=True,
                        )
            print(report(all_setups, results), flush=True)
            return 0
        except KeyboardInterrupt:
            print("interrupted; servers stopped", file=sys.stderr)
            return 130
        except RuntimeError as error:
            print(f"benchmark failed: {error}", file=sys.stderr)
            return 1
        finally:
            bench.stop()


if __name__ == "__main__":
    raise SystemExit(main())
