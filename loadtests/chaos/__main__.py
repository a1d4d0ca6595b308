"""The chaos soak: Parlour on a Redis primary, a replica and three sentinels, under a real mix of traffic, while
processes are killed at random; then every acknowledged move is checked.

    .venv/bin/python -m loadtests.chaos --minutes 10 --seed 1 [--kills 20] [--failovers 3]

See docs/how-to/run-the-chaos-soak.md: what it starts, what it kills, what it checks and prints.
Exits 1 when a check fails. Every process runs on 127.0.0.1, in a process group of its own, and is
ended at the end, also when the command is interrupted (Ctrl-C, SIGTERM) or fails.
"""

from __future__ import annotations

import argparse
import functools
import random
import shutil
import signal
import statistics
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import TypeVar

from loadtests.chaos import checks
from loadtests.chaos.balancer import Balancer, Record
from loadtests.chaos.checks import Check, Reader
from loadtests.chaos.clients import Context, Traffic
from loadtests.chaos.cluster import Cluster, api_healthy, tail
from loadtests.chaos.faults import Chaos, Fault, plan

SETTLE_TIMEOUT = 180.0
"""Seconds the processes may take to be all up and agreed after the last fault."""


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The command's options."""
    parser = argparse.ArgumentParser(prog="python -m loadtests.chaos", description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="how long the traffic runs")
    parser.add_argument("--seed", default="1", help="seeds the traffic and the choice of faults")
    parser.add_argument("--kills", type=int, default=20, help="processes killed in all, failovers included")
    parser.add_argument("--failovers", type=int, default=3, help="kills of the Redis primary among them")
    parser.add_argument("--apis", type=int, default=3, help="API processes")
    parser.add_argument("--ai-workers", type=int, default=2, help="AI workers")
    parser.add_argument("--people", type=int, default=6, help="people playing at once")
    parser.add_argument("--sleepers", type=int, default=2, help="seats sleeping through 1 s turn timers")
    parser.add_argument("--streams", type=int, default=3, help="event streams followed at once")
    parser.add_argument("--hint-rate", type=float, default=3.0, help="hints asked a second")
    parser.add_argument("--games-per-pairing", type=int, default=2, help="of the bots' tournaments")
    parser.add_argument(
        "--no-wait-replicas", action="store_true", help="PARLOUR_REDIS_WAIT_REPLICAS=0 (acknowledged before replicated)"
    )
    parser.add_argument("--dir", type=Path, default=None, help="keep the processes' logs and data here")
    args = parser.parse_args(argv)
    if args.failovers > args.kills:
        parser.error("--failovers counts among --kills")
    return args


def stop_on_sigterm(signum: int, frame: FrameType | None) -> None:
    """SIGTERM ends the soak as Ctrl-C does: the `finally` below stops every process."""
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    """Run the soak; 1 if a check failed."""
    args = parse(argv)
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    base = args.dir or Path(tempfile.mkdtemp(prefix="parlour-chaos-"))
    cluster = Cluster(base, args.apis, args.ai_workers, 0 if args.no_wait_replicas else 1)
    record = Record()
    context = Context(
        Balancer([n.port for n in cluster.parlour if n.kind == "api"], record), record, threading.Event(), args.seed
    )
    chaos = Chaos(cluster, context, random.Random(f"{args.seed}/faults"))
    traffic = Traffic(context, args.people, args.sleepers, args.streams, args.hint_rate, args.games_per_pairing)
    results: list[Check] = []
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"chaos soak {started}: {' '.join(sys.argv[1:]) or '(defaults)'}; logs in {base}", flush=True)
    try:
        cluster.start()
        print(f"started: {describe(cluster)}", flush=True)
        traffic.start()
        chaos.run(plan(chaos.rng, args.kills, args.failovers), args.minutes * 60)
        print("traffic stops; settling", flush=True)
        stuck_clients = traffic.stop()
        if traffic.bots is not None:
            traffic.bots.cancel_running()
        settle(chaos)
        results = final_checks(Reader(context.balancer), record, chaos, args, stuck_clients)
    except BaseException as error:
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        results.append(Check("the soak ran to its end", False, detail))
        if not isinstance(error, KeyboardInterrupt):
            traceback.print_exc()
    finally:
        context.stop.set()
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the stopping short
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        left = cluster.stop()
    results.append(
        Check(
            "no process is left over (every process group of the soak is empty)",
            not left,
            "; ".join(f"pid {pid} group {group}: {command}" for pid, group, command in left),
        )
    )
    print_figures(record, chaos)
    failed = print_checks(results)
    if failed:
        for node in cluster.nodes():
            print(f"--- {node.name} log (end)\n{tail(node.log, 1500)}")
    elif args.dir is None:
        shutil.rmtree(base, ignore_errors=True)
    return 1 if failed else 0


def describe(cluster: Cluster) -> str:
    """One line on what runs."""
    primary = cluster.primary()
    kinds = Counter(node.kind for node in cluster.parlour)
    return (
        f"redis primary {primary.name if primary else '?'} + 1 replica, {len(cluster.sentinels)} sentinels, "
        f"{kinds['api']} API processes, {kinds['ai-worker']} AI workers, {kinds['timer']} timer worker "
        f"(PARLOUR_REDIS_WAIT_REPLICAS={cluster.wait_replicas})"
    )


def settle(chaos: Chaos) -> None:
    """Wait until every process runs and answers, and Redis and the sentinels agree."""
    deadline = time.monotonic() + SETTLE_TIMEOUT
    chaos.wait(chaos.cluster.healthy_data, "Redis and the sentinels to settle", deadline)
    for node in chaos.cluster.parlour:
        if node.kind == "api":
            chaos.wait(functools.partial(api_healthy, node.port), f"{node.name} to answer", deadline)


def final_checks(
    reader: Reader, record: Record, chaos: Chaos, args: argparse.Namespace, stuck_clients: list[str]
) -> list[Check]:
    """Every check but the leftover processes' (made after the processes are stopped)."""
    results = []
    found = guarded("every tournament finished or was cancelled", lambda: checks.check_tournaments(reader, record))
    tournament_matches = found[1] if isinstance(found, tuple) else []
    results.append(found[0] if isinstance(found, tuple) else found)
    print("checking: stuck matches", flush=True)
    results.append(
        guarded(
            "no match is stuck",
            lambda: checks.check_not_stuck(reader, checks.read_matches(reader, record, tournament_matches)),
        )
    )
    print("checking: logs", flush=True)
    results.extend(
        guarded_all("every acknowledged action is in its log", lambda: checks.check_acknowledged(reader, record))
    )
    results.extend(guarded_all("the logs", lambda: log_checks(reader, record, tournament_matches)))
    failovers = [f for f in chaos.faults if f.kind == "primary"]
    results.append(
        Check(
            f"every kill of the primary failed over ({sum(1 for f in failovers if f.failover_to)} of {args.failovers})",
            len(failovers) == args.failovers and all(f.failover_to for f in failovers),
        )
    )
    unrecovered = [f"{f.kind} {f.node}: {f.problem}" for f in chaos.faults if f.recovered_after is None or f.problem]
    results.append(
        Check(
            f"the service recovered after every kill ({len(chaos.faults)} kills)",
            not unrecovered and len(chaos.faults) == args.kills,
            "; ".join(unrecovered),
        )
    )
    results.append(
        Check("no process died but those killed", not chaos.unexpected_exits, "; ".join(chaos.unexpected_exits))
    )
    internal = [e for e in record.errors if e.status == 500]
    results.append(
        Check(
            "no 500 (internal error) answered",
            not internal,
            "; ".join(f"{e.api}{e.path} {e.code}" for e in internal[: checks.SHOWN]),
        )
    )
    unavailable = [e for e in record.errors if e.status == 503]
    unexplained = [e for e in unavailable if not e.problem]
    results.append(
        Check(
            f"every 503 was problem+json with Retry-After ({len(unavailable)} answered)",
            not unexplained,
            "; ".join(f"{e.api}{e.path}" for e in unexplained[: checks.SHOWN]),
        )
    )
    anomalies = [*record.anomalies, *(f"client {name} did not stop" for name in stuck_clients)]
    results.append(
        Check("the clients saw nothing that must not happen", not anomalies, "; ".join(anomalies[: checks.SHOWN]))
    )
    return results


def log_checks(reader: Reader, record: Record, tournament_matches: list[str]) -> list[Check]:
    """The checks on every log: one entry a version, the timers, the streams; their counts go to the figures."""
    matches = checks.read_matches(reader, record, tournament_matches)
    versions, make_ups = checks.check_versions(matches)
    timers, fired = checks.check_timers(matches)
    record.count("timeouts in the logs", fired)
    record.count("versions made up for downtime (no log entry)", make_ups)
    waits, _ = checks.check_waits(matches)
    return [versions, timers, waits, checks.check_streams(record, matches)]


T = TypeVar("T")


def guarded(name: str, run: Callable[[], T]) -> T | Check:
    """What `run` answers, or a failed check named `name` saying why it could not be made."""
    try:
        return run()
    except Exception as error:
        return Check(name, False, f"could not check: {error!r}")


def guarded_all(name: str, run: Callable[[], Sequence[Check]]) -> list[Check]:
    """The checks `run` makes, or one failed check saying why they could not be made."""
    found = guarded(name, run)
    return [found] if isinstance(found, Check) else list(found)


def print_figures(record: Record, chaos: Chaos) -> None:
    """Print what the soak did and met."""
    print("\nfigures")
    keys = {ack.key for ack in record.acks}
    print(f"  moves acknowledged: {len(keys)} in {len({ack.match for ack in record.acks})} matches")
    kinds = Counter(str(m["kind"]) for m in record.matches.values())
    print(f"  matches created: {len(record.matches)} ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))})")
    for what, n in sorted(record.counts.items()):
        print(f"  {what}: {n}")
    statuses = ", ".join(f"{status or 'none'}: {n}" for status, n in sorted(record.statuses.items()))
    print(f"  answers by status (none: no process answered): {statuses}")
    codes = Counter(f"{e.status} {e.code or '(no code)'}" for e in record.errors if e.status)
    print(f"  5xx by problem code: {', '.join(f'{code}: {n}' for code, n in sorted(codes.items())) or 'none'}")
    failovers = [f for f in chaos.faults if f.kind == "primary" and f.failover_to]
    print(f"  failovers: {len(failovers)}")
    killed = Counter((f.kind, f.signal) for f in chaos.faults)
    print(
        f"  kills: {len(chaos.faults)} ({', '.join(f'{kind} {sig}: {n}' for (kind, sig), n in sorted(killed.items()))})"
    )
    for fault in chaos.faults:
        print(f"    {fault_line(fault)}")
    recoveries = [f.recovered_after for f in chaos.faults if f.recovered_after is not None]
    if recoveries:
        print(f"  time to recover: median {statistics.median(recoveries):.1f} s, worst {max(recoveries):.1f} s")


def fault_line(fault: Fault) -> str:
    recovered = f"recovered in {fault.recovered_after:5.1f} s" if fault.recovered_after is not None else "NOT RECOVERED"
    errors = ", ".join(f"{status or 'no answer'}: {n}" for status, n in sorted(fault.errors.items())) or "none"
    failover = f" -> {fault.failover_to}" if fault.failover_to else ""
    return (
        f"{fault.kind:<9} {fault.node:<12} {fault.signal:<7} {recovered}{failover}; 5xx/unanswered meanwhile: {errors}"
    )


def print_checks(results: list[Check]) -> int:
    print("\nchecks")
    for check in results:
        print(f"  {'ok    ' if check.ok else 'FAILED'} {check.name}{f': {check.detail}' if check.detail else ''}")
    failed = sum(1 for check in results if not check.ok)
    print(f"\n{len(results) - failed} of {len(results)} checks held", flush=True)
    return failed


if __name__ == "__main__":
    raise SystemExit(main())
