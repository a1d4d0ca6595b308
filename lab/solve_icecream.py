"""Solve IceCream: the opening value per turn limit, the value without a limit, and the stored table.

    python -m lab.solve_icecream --max-limit 40     # print values (below)
    python -m lab.solve_icecream --build            # write ai/tables/icecream_solution.bin (~4 min)
    python -m lab.solve_icecream --check            # read it back and spot-check it against the solver
    python -m lab.solve_icecream --bench-load       # its load time in fresh processes against solving

Part 1 solves every limit L = 1..N by plain backward induction (no assumption). Part 2 proves
the value without a limit: from turn T0 on every turn acts like T0 or T0 + 1 (checked on the
exact reachable sets, see `reach_period`), the values there settle after h turns, so every
limit L >= T0 + h has the same opening value as the game without a limit.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ai import icecream_table
from ai.icecream_solver import (
    Value,
    opening_score,
    reach_period,
    settled_horizon,
    solve,
    solve_unlimited,
    win_settles,
)
from ai.icecream_table import DEFAULT_PATH, LAST_STORED_TURN, TableError, depth, solve_fresh


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


def build(path: Path) -> None:
    """Solve the table and write it."""
    started = time.perf_counter()
    table = icecream_table.build(lambda step: print(f"{time.perf_counter() - started:7.1f} s  {step}", flush=True))
    size = icecream_table.write(table, path)
    print(f"wrote {path}: {size:,} bytes, periodic from d={table.periodic_from}, {time.perf_counter() - started:.0f} s")


def check(path: Path, samples: int) -> int:
    """Read the table and recompute `samples` random entries of it (plus the periodic ones); 0 if all agree."""
    try:
        table = icecream_table.read(path)
    except TableError as error:
        print(error, file=sys.stderr)
        return 1
    d0 = table.periodic_from
    cells = [(t, d) for t in (LAST_STORED_TURN - 1, LAST_STORED_TURN) for d in (d0 + 1, d0 + 2)]
    stored = [(t, d) for t in range(1, LAST_STORED_TURN + 1) for d in range(depth(t, d0))]
    cells += random.Random(0).sample(stored, min(samples, len(stored)))
    started = time.perf_counter()
    wrong = icecream_table.mismatches(table, cells)
    print(f"{path}: read, {len(cells)} tables recomputed in {time.perf_counter() - started:.1f} s, {len(wrong)} differ")
    if wrong:
        print(f"differ: {wrong}; {icecream_table.REBUILD}", file=sys.stderr)
    return 1 if wrong else 0


def probe() -> None:
    """In a fresh process: `load_solutions()` and the first move without a limit, as JSON seconds."""
    from ai.perfect import load_solutions, solution_for
    from engine import get_game
    from engine.icecream import IceCreamState

    loaded = load_solutions()
    game = get_game("icecream")
    assert game is not None
    state = game.start(2, {"turn_limit": 0}, 0)
    assert isinstance(state, IceCreamState)
    started = time.perf_counter()
    solution_for(0).best_action(state)
    print(json.dumps({"load": loaded, "first_move": time.perf_counter() - started}))


def bench_load(runs: int) -> None:
    """Median load time over fresh processes, against solving without a limit in this one."""
    loads, moves, processes = [], [], []
    for _ in range(runs):
        started = time.perf_counter()
        command = [sys.executable, "-m", "lab.solve_icecream", "--probe"]
        answer = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
        processes.append(time.perf_counter() - started)
        loads.append(answer["load"])
        moves.append(answer["first_move"])
    load = statistics.median(loads)
    spread = f"min {min(loads) * 1000:.0f}, max {max(loads) * 1000:.0f}"
    print(f"load_solutions(): median {load * 1000:.0f} ms over {runs} fresh processes ({spread})")
    print(f"first perfect move at the opening without a limit: median {statistics.median(moves) * 1000:.0f} ms")
    print(f"whole process (interpreter, imports, load, move): median {statistics.median(processes):.2f} s")
    started = time.perf_counter()
    solve_fresh(0)
    solving = time.perf_counter() - started
    print(f"solving without a limit from scratch: {solving:.1f} s, {solving / load:.0f}x the load")


def main() -> None:
    """Parse the arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-limit", type=int, default=30, help="solve turn limits 1..N directly")
    parser.add_argument("--max-points", type=int, default=80, help="give up the periodicity search here")
    parser.add_argument("--build", action="store_true", help="solve and write the stored table")
    parser.add_argument("--check", action="store_true", help="read the stored table and spot-check it")
    parser.add_argument("--samples", type=int, default=12, help="random tables --check recomputes")
    parser.add_argument("--bench-load", action="store_true", help="time loading the table against solving")
    parser.add_argument("--runs", type=int, default=7, help="fresh processes --bench-load times")
    parser.add_argument("--path", type=Path, default=DEFAULT_PATH, help="the table file")
    parser.add_argument("--probe", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        probe()
    elif args.build:
        build(args.path)
    elif args.check:
        raise SystemExit(check(args.path, args.samples))
    elif args.bench_load:
        bench_load(args.runs)
    else:
        finite_limits(args.max_limit)
        unlimited(args.max_points)


if __name__ == "__main__":
    main()
