"""Parlour against a bare Flask + Redis baseline, under the same gunicorn settings and Locust load.

    .venv/bin/python -m loadtests.benchmark [--runs 3] [--users 50] [--spawn-rate 10] [--seconds 30]

Starts an embedded Redis in a temporary folder, the API twice (with its rate limiter, and with
`PARLOUR_LIMITS=0`) and `loadtests/baseline_app.py` under gunicorn on free loopback ports (its bare
counters, and its 5 KB JSON documents as a second baseline), runs
Locust headless against each in turn (rotating which goes first), and prints requests/s, p50, p95
and failures as medians over the runs, with the Parlour/baseline ratio and the limiter's cost
(Parlour against Parlour without limits). Since Locust shares the cores with the servers, it also
prints the CPU time each request cost the server (its gunicorn processes), Redis and Locust itself,
in microseconds: what each server does per request, whatever share of the cores it was left. A
load test is no honest client (50 users from one address at full speed), so both APIs get limits
and quotas it cannot reach: the limiter does all its work (its counters, its headers) and refuses
nothing. Everything it starts, it stops; every Locust run has a time limit.
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType

import redis

from loadtests.limits import LOAD_TEST_LIMITS
from ops.embedded_redis import EmbeddedRedis
from ops.supervisor import Child, Settings, Supervisor, gunicorn_command, start_owned_redis

ROOT = Path(__file__).resolve().parent.parent
LOCUSTFILE = ROOT / "loadtests" / "locustfile.py"
HOST = "127.0.0.1"  # loopback only
STARTUP_TIMEOUT = 60.0
LOCUST_GRACE = 60.0  # seconds a Locust run may take beyond its own time limit


@dataclass(frozen=True)
class Target:
    """One server under test: its name, WSGI app, Locust user class and health path."""

    name: str
    app: str
    user_class: str
    health_path: str
    port: int
    env: tuple[tuple[str, str], ...] = ()

    @property
    def url(self) -> str:
        """Its base URL on loopback."""
        return f"http://{HOST}:{self.port}"


@dataclass(frozen=True)
class Sample:
    """The aggregated numbers of one Locust run."""

    requests_per_second: float
    p50_ms: float
    p95_ms: float
    requests: int
    failures: int
    server_us: float = 0.0  # CPU microseconds per request: the server's gunicorn processes
    redis_us: float = 0.0  # ... Redis
    locust_us: float = 0.0  # ... the load generator


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of a process and every live process below it."""
    tick = os.sysconf("SC_CLK_TCK")
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:  # it exited meanwhile
        return 0.0
    return (int(fields[11]) + int(fields[12])) / tick + sum(cpu_seconds(int(child)) for child in children)


def children_cpu_seconds() -> float:
    """User and system CPU seconds of this process's children that have exited and been waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def with_cpu(sample: Sample, server: float, redis_cpu: float, locust: float) -> Sample:
    """The sample with the CPU seconds its run cost, per request."""
    per = 1e6 / max(1, sample.requests)
    return replace(sample, server_us=server * per, redis_us=redis_cpu * per, locust_us=locust * per)


def free_port() -> int:
    """A TCP port on loopback that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def web_command(target: Target, settings: Settings) -> list[str]:
    """The gunicorn command of one server, with the service's settings (worker class included) and its own env."""
    own_env = ["env", *(f"{name}={value}" for name, value in target.env)] if target.env else []
    return own_env + gunicorn_command(
        target.app,
        HOST,
        target.port,
        settings.workers,
        settings.threads,
        settings.worker_class,
        settings.connections,
    )


def describe_workers(settings: Settings) -> str:
    """How the servers run, for the heading: `gevent, 2 workers` or `gthread, 2 workers x 4 threads`."""
    threads = f" x {settings.threads} threads" if settings.worker_class == "gthread" else ""
    return f"{settings.worker_class}, {settings.workers} workers{threads}"


def wait_healthy(targets: Sequence[Target], supervisor: Supervisor, timeout: float = STARTUP_TIMEOUT) -> None:
    """Wait until every target's health path answers 200; fail if a server dies or time runs out."""
    deadline = time.monotonic() + timeout
    pending = list(targets)
    while pending:
        dead = supervisor.dead_child()
        if dead is not None:
            raise RuntimeError(f"{dead[0]} exited with code {dead[1]} while starting")
        if time.monotonic() > deadline:
            raise RuntimeError(f"not healthy within {timeout:.0f} s: {', '.join(t.name for t in pending)}")
        pending = [target for target in pending if not answers(target.url + target.health_path)]
        time.sleep(0.2)


def answers(url: str) -> bool:
    """True when a GET of `url` answers 200."""
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def locust_command(target: Target, args: argparse.Namespace, csv_prefix: Path) -> list[str]:
    """The headless Locust command line for one run against one target."""
    return [
        sys.executable, "-m", "locust",
        "-f", str(LOCUSTFILE),
        "--headless",
        "-u", str(args.users),
        "-r", str(args.spawn_rate),
        "-t", f"{args.seconds}s",
        "--stop-timeout", "5",
        "--host", target.url,
        "--csv", str(csv_prefix),
        "--only-summary",
        target.user_class,
    ]  # fmt: skip


def run_locust(target: Target, args: argparse.Namespace, csv_prefix: Path) -> Sample:
    """Run Locust once against `target` and read its aggregated statistics."""
    log_path = csv_prefix.with_suffix(".log")
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            locust_command(target, args, csv_prefix),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            process_group=0,  # Ctrl-C reaches only the benchmark, which stops Locust itself
        )
        try:
            process.wait(timeout=args.seconds + LOCUST_GRACE)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise RuntimeError(f"Locust overran its time limit; see {log_path}") from None
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    # Locust exits 1 when any request failed; the failures are in the statistics.
    if process.returncode not in (0, 1):
        raise RuntimeError(f"Locust exited with code {process.returncode}; see {log_path}")
    return read_aggregate(Path(f"{csv_prefix}_stats.csv"))


def read_aggregate(stats_csv: Path) -> Sample:
    """The 'Aggregated' row of a Locust stats CSV file."""
    with stats_csv.open(newline="") as handle:
        for row in csv.DictReader(handle):
            if row["Name"] == "Aggregated":
                return Sample(
                    requests_per_second=float(row["Requests/s"]),
                    p50_ms=float(row["50%"]),
                    p95_ms=float(row["95%"]),
                    requests=int(row["Request Count"]),
                    failures=int(row["Failure Count"]),
                )
    raise RuntimeError(f"no Aggregated row in {stats_csv}")


def median_sample(samples: Sequence[Sample]) -> Sample:
    """Each number's median over the runs."""
    return Sample(
        requests_per_second=statistics.median(s.requests_per_second for s in samples),
        p50_ms=statistics.median(s.p50_ms for s in samples),
        p95_ms=statistics.median(s.p95_ms for s in samples),
        requests=round(statistics.median(s.requests for s in samples)),
        failures=round(statistics.median(s.failures for s in samples)),
        server_us=statistics.median(s.server_us for s in samples),
        redis_us=statistics.median(s.redis_us for s in samples),
        locust_us=statistics.median(s.locust_us for s in samples),
    )


def ratio(numerator: float, denominator: float) -> str:
    """numerator/denominator to two places, or n/a."""
    return f"{numerator / denominator:.2f}" if denominator else "n/a"


def report(
    results: dict[str, list[Sample]], parlour: str, baselines: Sequence[str], unlimited: str | None = None
) -> str:
    """The table of medians, Parlour's ratio to each baseline and, given `unlimited`, the limiter's cost."""
    lines = [
        f"{'':<24}{'req/s':>10}{'p50 ms':>10}{'p95 ms':>10}{'failures':>10}{'requests':>10}"
        f"{'server us':>11}{'redis us':>10}{'locust us':>11}"
    ]
    medians = {name: median_sample(samples) for name, samples in results.items()}
    for name, m in medians.items():
        numbers = f"{m.requests_per_second:>10.1f}{m.p50_ms:>10.0f}{m.p95_ms:>10.0f}{m.failures:>10}{m.requests:>10}"
        cpu = f"{m.server_us:>11.0f}{m.redis_us:>10.0f}{m.locust_us:>11.0f}"
        lines.append(f"{name:<24}{numbers}{cpu}")
    p = medians[parlour]
    for baseline in baselines:
        b = medians[baseline]
        lines.append(
            f"{f'Parlour/{baseline}':<24}{ratio(p.requests_per_second, b.requests_per_second):>10}"
            f"{ratio(p.p50_ms, b.p50_ms):>10}{ratio(p.p95_ms, b.p95_ms):>10}{'':>20}"
            f"{ratio(p.server_us, b.server_us):>11}{ratio(p.redis_us, b.redis_us):>10}"
            f"{ratio(p.locust_us, b.locust_us):>11}"
        )
    if unlimited is not None:
        u = medians[unlimited]
        lines.append(
            f"{'limits/no limits':<24}{ratio(p.requests_per_second, u.requests_per_second):>10}"
            f"{ratio(p.p50_ms, u.p50_ms):>10}{ratio(p.p95_ms, u.p95_ms):>10}"
        )
    return "\n".join(lines)


def run_sample_line(name: str, run: int, sample: Sample) -> str:
    """One run's numbers, printed as it finishes."""
    return (
        f"  run {run} {name:<13} {sample.requests_per_second:8.1f} req/s  p50 {sample.p50_ms:4.0f} ms  "
        f"p95 {sample.p95_ms:4.0f} ms  failures {sample.failures}/{sample.requests}  "
        f"CPU us/request: server {sample.server_us:.0f}, redis {sample.redis_us:.0f}, locust {sample.locust_us:.0f}"
    )


PLAYERS = {
    "icecream": "IceCreamPlayer",
    "sundae_split": "SundaeSplitPlayer",
    "freeze_factory": "FreezeFactoryPlayer",
    "rockem_sockem": "RockemSockemPlayer",
    "robots_love_ice_cream": "RobotsLoveIceCreamPlayer",
}  # game id -> Locust user class


def benchmark(args: argparse.Namespace) -> int:
    """Start Redis and both servers, run the Locust rounds, print the table, stop everything."""
    settings = Settings.from_env(os.environ)
    targets = [
        Target("Parlour", "ops.wsgi:app", PLAYERS[args.game], "/v1/health", free_port()),
        Target("no limits", "ops.wsgi:app", PLAYERS[args.game], "/v1/health", free_port(), (("PARLOUR_LIMITS", "0"),)),
        Target("baseline", "loadtests.baseline_app:app", "BaselineUser", "/health", free_port()),
        Target("baseline 5 KB", "loadtests.baseline_app:app", "DocumentBaselineUser", "/health", free_port()),
    ]
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="parlour-bench-"))
    embedded: EmbeddedRedis | None = None
    server_log = (out / "servers.log").open("wb")
    supervisor = Supervisor(
        [Child(t.name, web_command(t, settings)) for t in targets],
        env={},
        output=server_log,
    )
    try:
        embedded = start_owned_redis(workdir / "redis")
        supervisor.env = {**os.environ, **LOAD_TEST_LIMITS, "REDIS_URL": embedded.url}
        supervisor.watch("redis", embedded.process)
        supervisor.start()
        wait_healthy(targets, supervisor)
        print(
            f"{args.game}: gunicorn {describe_workers(settings)}; "
            f"Locust {args.users} users, spawn {args.spawn_rate}/s, {args.seconds} s; {args.runs} runs; "
            f"logs and CSV in {out}",
            flush=True,
        )
        results: dict[str, list[Sample]] = {t.name: [] for t in targets}
        for run in range(1, args.runs + 1):
            shift = (run - 1) % len(targets)
            for target in targets[shift:] + targets[:shift]:
                redis.Redis.from_url(embedded.url).flushall()
                server_pid, redis_pid = supervisor.processes[target.name].pid, embedded.process.pid
                before = cpu_seconds(server_pid), cpu_seconds(redis_pid), children_cpu_seconds()
                sample = run_locust(target, args, out / f"{target.name.lower()}-run{run}")
                after = cpu_seconds(server_pid), cpu_seconds(redis_pid), children_cpu_seconds()
                sample = with_cpu(sample, *(end - start for start, end in zip(before, after, strict=True)))
                results[target.name].append(sample)
                print(run_sample_line(target.name, run, sample), flush=True)
                dead = supervisor.dead_child()
                if dead is not None:
                    raise RuntimeError(f"{dead[0]} exited with code {dead[1]} during the benchmark")
        print(report(results, targets[0].name, [targets[2].name, targets[3].name], targets[1].name), flush=True)
        return 0
    finally:
        supervisor.stop()
        if embedded is not None:
            embedded.stop()
        server_log.close()
        shutil.rmtree(workdir, ignore_errors=True)


def add_locust_options(parser: argparse.ArgumentParser, runs: str, seconds: int = 30) -> None:
    """The options of every benchmark that runs Locust: `--runs` (of `runs`), `--users`, `--spawn-rate`,
    `--seconds` (of one run) and `--out`."""
    parser.add_argument("--runs", type=int, default=3, help=f"Locust runs {runs} (default 3)")
    parser.add_argument("--users", type=int, default=50, help="concurrent Locust users (default 50)")
    parser.add_argument("--spawn-rate", type=float, default=10, help="users started per second (default 10)")
    parser.add_argument("--seconds", type=int, default=seconds, help=f"length of one Locust run (default {seconds})")
    parser.add_argument("--out", default=str(ROOT / "loadtests" / "results"), help="folder for CSV files and logs")


def parse_locust_options(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """The options parsed, refused unless the counts and times are positive."""
    args = parser.parse_args(argv)
    if args.runs < 1 or args.users < 1 or args.seconds < 1 or args.spawn_rate <= 0:
        parser.error("--runs, --users, --seconds and --spawn-rate must be positive")
    return args


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--game", choices=sorted(PLAYERS), default="icecream", help="the game Parlour's users play")
    add_locust_options(parser, "per server")
    return parse_locust_options(parser, argv)


def interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGTERM handler: unwind like Ctrl-C, so that everything started gets stopped."""
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: `python -m loadtests.benchmark` or `python loadtests/benchmark.py`."""
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, interrupt)
    os.chdir(ROOT)  # gunicorn imports the apps from the repository root
    try:
        return benchmark(args)
    except KeyboardInterrupt:
        print("benchmark interrupted; servers stopped", file=sys.stderr)
        return 130
    except RuntimeError as error:
        print(f"benchmark failed: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
