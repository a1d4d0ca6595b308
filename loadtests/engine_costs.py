"""What the engine costs a request, per game: microseconds per call of the five calls the API makes.

    .venv/bin/python -m loadtests.engine_costs [--runs 5] [--states 40] [--games icecream:2 ...]

For each game, seeded random play-outs give `--states` states spread over whole matches (from
the start to the last move). Each run times, over all of them, the calls a request makes:
`state_from_json` (the stored state read back), `to_json` (the state to store), `view` (every
seat's and the public's, per view), `action_space` (the legal actions of a seat that may act),
and `play` (the checked path on a copy; the copy's own cost, measured apart, is subtracted). The
baseline in the same run is what any JSON-carrying app pays for the same state: `json.loads` of
its stored text, and `json.dumps` of it. Prints the median of the runs per call and the ratio of
`state_from_json` to `json.loads` and of `to_json` + `json.dumps` to `json.dumps` alone. Not a
test: nothing is asserted. Issue 16 asks for these figures, to cut the calls where they dominate.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import engine.games  # noqa: F401  (registers the games)
from engine import GameState, get_game, has_action
from engine.rng import Rng

GAMES = (
    "icecream:2",
    "sundae_split:2",
    "sundae_split:5",
    "freeze_factory:2",
    "freeze_factory:4",
    "rockem_sockem:2",
    "robots_love_ice_cream:2",
    "robots_love_ice_cream:4",
)
CALLS = ("json.loads", "state_from_json", "json.dumps", "to_json", "view", "action_space", "play")


@dataclass(frozen=True)
class Sample:
    """One state of a match, with what the calls need: its stored text and a seat that may act."""

    state: GameState
    stored: dict[str, Any]
    text: str
    seat: int | None
    action: dict[str, Any] | None


def samples(game_id: str, players: int, count: int) -> list[Sample]:
    """`count` states spread over seeded random matches, each with a random legal action of an acting seat."""
    game = get_game(game_id)
    assert game is not None, game_id
    found: list[Sample] = []
    match = 0
    while len(found) < count:
        rng = Rng.from_seed(f"engine-costs:{game_id}:{players}:{match}")
        state = game.start(players, None, f"engine-costs-{match}")
        match += 1
        while len(found) < count:
            seats = [seat for seat in state.acting_seats() if has_action(state, seat)]
            seat = seats[rng.below(len(seats))] if seats else None
            action = state.sample_action(seat, rng) if seat is not None else None
            stored = state.to_json()
            found.append(Sample(state.clone(), stored, json.dumps(stored), seat, action))
            if seat is None or action is None:
                break
            state.apply_trusted(seat, action)
    return found


def per_call(work: Callable[[Sample], object], states: list[Sample], calls_per_state: int = 1) -> float:
    """Microseconds per call of `work` over all the states."""
    started = time.perf_counter()
    for sample in states:
        work(sample)
    return 1e6 * (time.perf_counter() - started) / (len(states) * calls_per_state)


def one_run(game_id: str, states: list[Sample]) -> dict[str, float]:
    """Every call's cost, once, over the states."""
    game = get_game(game_id)
    assert game is not None
    players = states[0].state.players
    viewers: list[int | None] = [None, *range(players)]
    acting = [sample for sample in states if sample.seat is not None and sample.action is not None]
    costs = {
        "json.loads": per_call(lambda s: json.loads(s.text), states),
        "state_from_json": per_call(lambda s: game.state_from_json(s.stored), states),
        "json.dumps": per_call(lambda s: json.dumps(s.stored), states),
        "to_json": per_call(lambda s: s.state.to_json(), states),
        "view": per_call(lambda s: [s.state.view(viewer) for viewer in viewers], states, len(viewers)),
        "action_space": per_call(lambda s: s.state.action_space(s.seat), acting),  # type: ignore[arg-type]
    }
    copying = per_call(lambda s: s.state.clone(), acting)
    playing = per_call(lambda s: s.state.clone().play(s.seat, s.action), acting)  # type: ignore[arg-type]
    costs["play"] = max(playing - copying, 0.0)
    return costs


def report(rows: dict[str, dict[str, list[float]]], runs: int) -> str:
    """The table of medians, and the ratios to the JSON baseline."""
    header = f"{'game':26}" + "".join(f"{call:>16}" for call in CALLS) + f"{'read x':>9}{'write x':>9}"
    lines = [f"Engine calls, microseconds per call, median of {runs} runs", header]
    for name, costs in rows.items():
        median = {call: statistics.median(values) for call, values in costs.items()}
        read = median["state_from_json"] / median["json.loads"]
        write = (median["to_json"] + median["json.dumps"]) / median["json.dumps"]
        cells = "".join(f"{median[call]:16.1f}" for call in CALLS)
        lines.append(f"{name:26}{cells}{read:9.2f}{write:9.2f}")
    lines.append("read x: state_from_json / json.loads of the stored text;")
    lines.append("write x: (to_json + json.dumps) / json.dumps")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Measure every game's calls and print the table."""
    parser = argparse.ArgumentParser(prog="python -m loadtests.engine_costs", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--states", type=int, default=40, help="states per game, spread over whole matches")
    parser.add_argument("--games", nargs="+", default=list(GAMES), metavar="GAME:PLAYERS")
    args = parser.parse_args(argv)
    rows: dict[str, dict[str, list[float]]] = {}
    prepared = {}
    for spec in args.games:
        game_id, players = spec.split(":")
        prepared[spec] = (game_id, samples(game_id, int(players), args.states))
        rows[spec] = {call: [] for call in CALLS}
    for _ in range(args.runs):  # runs interleave the games, so a slow moment of the machine is shared
        for spec, (game_id, states) in prepared.items():
            for call, cost in one_run(game_id, states).items():
                rows[spec][call].append(cost)
    print(report(rows, args.runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
