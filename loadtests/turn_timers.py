"""Turn-timer precision: how late after its deadline a timed-out seat's default action lands.

    .venv/bin/python -m loadtests.turn_timers [--matches 40] [--seconds 2] [--burst 200]

Starts the whole service (`python -m ops.supervisor`: embedded Redis, API, the timer worker) with
PARLOUR_AI_WORKERS=0 on a free port and a temporary data folder, so the timers fire without any AI
worker. It creates `--matches` IceCream matches with `turn_timer: {seconds}`, one every 0.25 s so
the deadlines fall at every fraction of a second, and lets seat 0 run out of time in each. Then
`--burst` matches created at once, whose deadlines all fall within about a second. Each lateness
is the timeout's log time minus the deadline the match view showed, both stamped by the server,
so polling adds nothing. Prints min, p50, p95 and max per phase. Not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import time

from loadtests.ai_latency import Service, percentile, running_service, stamp

WAIT = 120.0


def create_timed(service: Service, seconds: int) -> tuple[str, str]:
    """A timed IceCream match nobody plays: its id and seat 0's deadline."""
    created = service.call("/v1/matches", {"game": "icecream", "players": 2, "turn_timer": {"seconds": seconds}})
    match = service.call(f"/v1/matches/{created['id']}")
    return created["id"], match["deadlines"][0]["at"]


def lateness(service: Service, matches: list[tuple[str, str]]) -> list[float]:
    """Seconds from each deadline to its timeout's commit, once every match has one."""
    late: dict[str, float] = {}
    limit = time.monotonic() + WAIT
    while len(late) < len(matches) and time.monotonic() < limit:
        for match_id, deadline in matches:
            if match_id not in late:
                entries = service.call(f"/v1/matches/{match_id}/log")["entries"]
                if entries and entries[0].get("timeout"):
                    late[match_id] = stamp(entries[0]["at"]) - stamp(deadline)
        time.sleep(0.2)
    if len(late) < len(matches):
        raise RuntimeError(f"{len(matches) - len(late)} of {len(matches)} timers did not fire within {WAIT:.0f} s")
    return list(late.values())


def report(phase: str, values: list[float]) -> None:
    """One line of figures, in seconds."""
    print(
        f"{phase:<28} n={len(values):<4} min {min(values):6.3f}  p50 {statistics.median(values):6.3f}  "
        f"p95 {percentile(values, 0.95):6.3f}  max {max(values):6.3f} s",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    """Measure and print the lateness of timeouts, spread out and in a burst."""
    parser = argparse.ArgumentParser(prog="python -m loadtests.turn_timers", description=__doc__)
    parser.add_argument("--matches", type=int, default=40, help="matches created 0.25 s apart")
    parser.add_argument("--seconds", type=int, default=2, help="the turn timer of each match")
    parser.add_argument("--burst", type=int, default=200, help="matches created at once (0: none)")
    args = parser.parse_args(argv)
    with running_service(workers=0, warm_up=False, prefix="parlour-timers-") as service:
        spread = []
        for _ in range(args.matches):
            spread.append(create_timed(service, args.seconds))
            time.sleep(0.25)
        report(f"spread ({args.matches} x 0.25 s)", lateness(service, spread))
        if args.burst:
            burst = [create_timed(service, args.seconds) for _ in range(args.burst)]
            report(f"burst ({args.burst} at once)", lateness(service, burst))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
