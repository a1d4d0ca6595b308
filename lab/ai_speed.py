"""MCTS speed per game: `python -m lab.ai_speed --runs 5 --iterations 200 [--game icecream]`.

For each game (its smallest player count, default options) it takes two positions, the opening
(the first position where the seat to move has a choice) and a mid-game position (half-way through
a seeded random game, then on to the next choice). A choice is one the search makes: more than one
action, and not one the game's knowledge settles without searching. There it times two searchers:

* `IsmctsAgent`, the information-set search the easy, medium and hard levels play with;
* `MctsAgent`, our per-seat subclass of the `mcts` package's searcher (`PerSeatMCTS`).

It prints the median iterations per CPU second over the runs. For IceCream it also times the
unmodified package's searcher on the same positions and budget, runs interleaved with ours, and
prints the ratio of our package-based searcher to it. A benchmark that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ai.baseline.search import MctsAgent, package_search
from ai.ismcts import IsmctsAgent
from ai.knowledge import knowledge_for
from engine.protocol import Game, GameState, TooManyActions, action_text
from engine.registry import all_games, get_game
from engine.rng import Rng

CANDIDATE_SAMPLES = 8
"""Actions sampled where a game lists too many (the levels' `split_samples`)."""
PACKAGE_GAMES = ("icecream",)
"""Games where the unmodified package's searcher is timed too (its rollouts clone at every step)."""


@dataclass(frozen=True)
class Position:
    """A state to search from and the seat that searches."""

    name: str
    state: GameState
    seat: int


def has_choice(state: GameState, seat: int) -> bool:
    """True if the seat has a choice that the search makes: several actions, none obvious, several candidates."""
    try:
        several = len({action_text(action) for action in state.legal_actions(seat)}) > 1
    except TooManyActions:
        several = True
    if not several:
        return False
    knowledge = knowledge_for(state.game_id)
    if knowledge.obvious(state, seat) is not None:  # settled by the game's knowledge: ISMCTS would not search
        return False
    return len(knowledge.candidates(state, seat, Rng.from_seed("speed"), CANDIDATE_SAMPLES)) > 1


def next_choice(state: GameState, rng: Rng) -> Position | None:
    """Play random actions until the seat waited for has a choice; None if the game ends first."""
    while not state.is_over():
        seat = state.waiting_for()[0]
        if has_choice(state, seat):
            return Position("", state, seat)
        state.apply_trusted(seat, state.sample_action(seat, rng))
    return None


def random_game_length(game: Game, players: int, seed: str) -> int:
    """Actions in a seeded random game (the seats waited for act, lowest first)."""
    state, rng, length = game.start(players, {}, seed), Rng.from_seed(seed), 0
    while not state.is_over():
        seat = state.waiting_for()[0]
        state.apply_trusted(seat, state.sample_action(seat, rng))
        length += 1
    return length


def positions(game: Game, players: int) -> list[Position]:
    """The opening and a mid-game position of the game, each at a choice."""
    seed = f"speed:{game.info.id}"
    opening = next_choice(game.start(players, {}, seed), Rng.from_seed(seed))
    state, rng = game.start(players, {}, seed), Rng.from_seed(seed)
    for _ in range(random_game_length(game, players, seed) // 2):
        seat = state.waiting_for()[0]
        state.apply_trusted(seat, state.sample_action(seat, rng))
    middle = next_choice(state, rng)
    found = []
    for name, position in (("opening", opening), ("mid-game", middle)):
        if position is not None:
            found.append(Position(name, position.state, position.seat))
    return found


def cpu_seconds(search: Callable[[], object]) -> float:
    """CPU time of one search (the machine may be shared, so wall time would mislead)."""
    started = time.process_time()
    search()
    return max(time.process_time() - started, 1e-9)


def ours(position: Position, iterations: int, run: int) -> float:
    """Iterations per CPU second of `MctsAgent` (package-based) from the position."""
    agent = MctsAgent()
    state = position.state.clone()
    return iterations / cpu_seconds(lambda: agent.choose(state, position.seat, iterations, f"speed:{run}"))


def ismcts(position: Position, iterations: int, run: int) -> float:
    """Iterations per CPU second of `IsmctsAgent` (the levels' searcher) from the position, uncapped."""
    agent = IsmctsAgent(knowledge_for)
    state = position.state.clone()
    return iterations / cpu_seconds(lambda: agent.choose(state, position.seat, iterations, f"speed:{run}"))


def package(position: Position, iterations: int, run: int) -> float:
    """Iterations per CPU second of the unmodified package searcher (global `random` seeded per run)."""
    saved = random.getstate()
    random.seed(run)
    try:
        state = position.state.clone()
        return iterations / cpu_seconds(lambda: package_search(state, position.seat, iterations))
    finally:
        random.setstate(saved)


def measure_game(game: Game, runs: int, iterations: int) -> str:
    """One line of figures for a game: medians per position per searcher, and ours / package where timed."""
    players = game.info.min_players
    searchers: dict[str, Callable[[Position, int, int], float]] = {"ISMCTS": ismcts, "package-based": ours}
    if game.info.id in PACKAGE_GAMES:
        searchers["package"] = package
    medians: dict[str, dict[str, float]] = {name: {} for name in searchers}
    for position in positions(game, players):
        rates: dict[str, list[float]] = {name: [] for name in searchers}
        for run in range(runs):  # interleaved, so a busy spell on a shared machine hits every searcher
            for name, measure in searchers.items():
                rates[name].append(measure(position, iterations, run))
        for name in searchers:
            medians[name][position.name] = statistics.median(rates[name])
    parts = [
        f"{name} " + ", ".join(f"{where} {rate:,.0f} it/s" for where, rate in by_position.items())
        for name, by_position in medians.items()
    ]
    if "package" in medians:
        ratios = (f"{where} {rate / medians['package'][where]:.2f}" for where, rate in medians["package-based"].items())
        parts.append("package-based/package " + ", ".join(ratios))
    return f"{game.info.id} ({players}p): " + "; ".join(parts)


def main(argv: Sequence[str] | None = None) -> None:
    """Parse options, measure each game, print a header and one line per game."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="searches per position; the median is printed")
    parser.add_argument("--iterations", type=int, default=200, help="MCTS iterations per search")
    parser.add_argument("--game", default=None, help="one game id (default: every registered game)")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.iterations < 1:
        parser.error("--runs and --iterations must be at least 1")
    if args.game is None:
        games = all_games()
    else:
        game = get_game(args.game)
        if game is None:
            parser.error(f"unknown game {args.game!r}")
        games = [game]
    print(f"MCTS iterations per CPU second, median of {args.runs} searches of {args.iterations} iterations")
    print(f"ISMCTS: {IsmctsAgent(knowledge_for)!r}; package-based: {MctsAgent()!r}")
    for game in games:
        print(measure_game(game, args.runs, args.iterations), flush=True)


if __name__ == "__main__":
    main()
