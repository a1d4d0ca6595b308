"""Print IceCream's opening value per turn limit, and the value without a limit.

    python -m ai.solve_icecream --max-limit 40

Part 1 solves every limit L = 1..N by plain backward induction (no assumption). Part 2 proves
the value without a limit: from turn T0 on every turn acts like T0 or T0 + 1 (checked on the
exact reachable sets, see `reach_period`), the values there settle after h turns, so every
limit L >= T0 + h has the same opening value as the game without a limit.
"""

from __future__ import annotations

import argparse
import time

from ai.icecream_solver import (
    Value,
    opening_score,
    reach_period,
    settled_horizon,
    solve,
    solve_unlimited,
    win_settles,
)


def describe(value: Value) -> str:
    """'win at turn 15' and so on, for seat 0."""
    return value.outcome if value.turn is None else f"{value.outcome} at turn {value.turn}"


def finite_limits(max_limit: int) -> None:
    """One line per limit: the opening value for seat 0 and the seconds taken."""
    for limit in range(1, max_limit + 1):
        start = time.perf_counter()
        value = Value.from_score(opening_score(solve(limit)))
        print(f"L={limit:3d}  seat 0 (yellow, first): {describe(value):16s} {time.perf_counter() - start:6.2f} s")


def unlimited(max_points: int) -> None:
    """The stationarity proof and the value without a limit."""
    start = time.perf_counter()
    period_from, win_from = reach_period(max_points), win_settles()
    if period_from is None:
        print(f"reachable sets not periodic by {max_points} points: no verdict")
        return
    t0 = max(period_from, win_from)
    print(f"reachable sets period 2 from p={period_from}, winning reach fixed from p={win_from}: T0={t0}")
    horizon, values = settled_horizon(t0)
    safe_wins = [sum(v > 0 for v in values[t]) for t in (t0, t0 + 1)]
    print(f"values from turn T0 settle after h={horizon} turn(s); mover wins in {safe_wins} arrangements")
    value = Value.from_score(opening_score(solve_unlimited(t0, horizon)))
    print(f"without a limit: seat 0 {describe(value)}; every limit L >= {t0 + horizon} gives the same")
    print(f"proof took {time.perf_counter() - start:.1f} s")


def main() -> None:
    """Parse the arguments and print."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-limit", type=int, default=30, help="solve turn limits 1..N directly")
    parser.add_argument("--max-points", type=int, default=80, help="give up the periodicity search here")
    args = parser.parse_args()
    finite_limits(args.max_limit)
    unlimited(args.max_points)


if __name__ == "__main__":
    main()
