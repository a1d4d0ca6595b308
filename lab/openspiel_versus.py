"""Parlour's `hard` level against OpenSpiel's searchers: `python -m lab.openspiel_versus --games 20`.

Per game (two players; Robots Love Ice Cream solo, see below) the `hard` level's agent (`IsmctsAgent` with the
game's knowledge) plays OpenSpiel's ISMCTS (`open_spiel.python.algorithms.ismcts`), and in IceCream, a
perfect-information game that ISMCTS refuses, OpenSpiel's MCTS (`open_spiel.python.algorithms.mcts`). Both sides
play the OpenSpiel game of parlour_envs.openspiel (Rock'em Sock'em's turn-based twin, since both searchers take
sequential games only): OpenSpiel's searcher picks tokens, explicit chance nodes included; `hard` is asked for an
engine action at the start of each of its decisions, played as its tokens (offered a FREEZE! window with no
claim, it passes; with a claim it claims, as in Parlour's own play). OpenSpiel's searchers evaluate a leaf
with their own `RandomRolloutEvaluator` (one uniformly random playout of tokens and chance outcomes) and UCT
constant 2 (ISMCTS: the observation string as the node key, as many worlds as simulations).

Two settings, each over `--games` games with the seats swapped every other game:

* equal iterations: both search `--budget` iterations a move (default: hard's own budget, 1500);
* equal time: hard searches until `--seconds` (its time cap; its budget unlimited; it still answers at once
  where its knowledge sees one sensible move), and OpenSpiel's searcher runs as many simulations as its recent
  searches ran in that time (its rate over its moves so far, the newest weighing half; the first search runs 10):
  OpenSpiel's searchers take a number of simulations, not a deadline. The table prints both sides' mean real
  seconds a move, over the moves with more than one legal token.

Robots Love Ice Cream is co-operative: there each searcher plays a solo game (one seat), with the same seeds, and
the row compares the team results (a "win" is a game won by hard's team that the other's team lost, a "loss" the
reverse, a draw both or neither). `--quick` plays 2 games per game and setting with budget 50 and 0.5 s.
Chance and both searchers' random states come from the game number, so a run repeats (up to the timing).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from ai.intervals import wilson
from ai.levels import Level, level_move, level_named
from parlour_envs.encoding import PASS
from parlour_envs.openspiel import ParlourState, load

GAMES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("icecream", "icecream", {"players": 2, "turn_limit": 30}),
    ("rockem_sockem", "rockem_sockem_turn_based", {"players": 2}),
    ("freeze_factory", "freeze_factory", {"players": 2, "turn_limit": 30}),
    ("sundae_split", "sundae_split", {"players": 2}),
    ("robots_love_ice_cream", "robots_love_ice_cream", {"players": 1}),
)
"""Each game: its id, the OpenSpiel name played, and its parameters (a turn limit where the game has no end)."""
UCT_C = 2.0
"""OpenSpiel's searchers' exploration constant (their examples' default)."""
MEASURED = "hard"


@dataclass
class Side:
    """One searcher: how it moves and the seconds it took a move."""

    name: str
    seconds: list[float] = field(default_factory=list)


@dataclass
class Row:
    """One table row: hard's results against one opponent in one setting."""

    game: str
    opponent: str
    setting: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    hard: Side = field(default_factory=lambda: Side(MEASURED))
    other: Side = field(default_factory=lambda: Side("openspiel"))

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


class OpenSpielPlayer:
    """OpenSpiel's ISMCTS or MCTS bot, its simulations fixed or fitted to a time per move."""

    def __init__(self, game: pyspiel.Game, kind: str, simulations: int, seconds: float | None, seed: int) -> None:
        random_state = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(1, random_state)
        self.seconds = seconds
        self.rate: float | None = None  # simulations a second: the last searches' rates, the newest weighing half
        if kind == "mcts":
            self.bot: Any = mcts.MCTSBot(game, UCT_C, simulations, evaluator, random_state=random_state)
        else:
            self.bot = ismcts.ISMCTSBot(
                game, evaluator, UCT_C, simulations, random_state=random_state, use_observation_string=True
            )
        self.kind = kind

    def step(self, state: pyspiel.State) -> int:
        """One token, from a search of its budget (or its fitted share of the time)."""
        simulations = self._simulations()
        started = time.perf_counter()
        action = int(self.bot.step(state))
        elapsed = time.perf_counter() - started
        if self.seconds is not None and len(state.legal_actions()) > 1:
            rate = simulations / max(elapsed, 1e-6)
            self.rate = rate if self.rate is None else (self.rate + rate) / 2
        return action

    def _simulations(self) -> int:
        if self.seconds is None:
            return int(self.bot.max_simulations if self.kind == "mcts" else self.bot._max_simulations)
        simulations = 10 if self.rate is None else max(1, int(self.rate * self.seconds))
        if self.kind == "mcts":
            self.bot.max_simulations = simulations
        else:
            self.bot._max_simulations = simulations
        return simulations


def play(
    name: str,
    params: dict[str, Any],
    hard: Level,
    seats: Sequence[str],
    kind: str,
    setting: tuple[int, float | None],
    number: int,
    row: Row,
) -> list[float]:
    """One game, each seat played by `hard` or by OpenSpiel's `kind`; the returns."""
    game = load(name, **params)
    budget, seconds = setting
    other = OpenSpielPlayer(game, kind, budget, seconds, number)
    chance = np.random.RandomState(10_000 + number)
    state: ParlourState = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(chance.choice(outcomes, p=probabilities)))
            continue
        seat = state.current_player()
        offered = state.node.offered
        if seats[seat] == MEASURED and all(choice is PASS for choice in offered.values()):
            state.apply_action(next(iter(offered)))  # a FREEZE! window offered to a seat with no claim
        elif seats[seat] == MEASURED:
            engine = state.node.running()
            started = time.perf_counter()
            action = level_move(hard, engine, seat, f"openspiel-versus:{number}:{state.move_number()}")
            if len(state.legal_actions()) > 1:
                row.hard.seconds.append(time.perf_counter() - started)
            for token in game.rules.encoding.encode(engine, seat, action):
                state.apply_action(token)
        else:
            started = time.perf_counter()
            token = other.step(state)
            if len(state.legal_actions()) > 1:
                row.other.seconds.append(time.perf_counter() - started)
            state.apply_action(token)
    return [float(value) for value in state.returns()]


def measure(
    game_id: str, name: str, params: dict[str, Any], kind: str, setting: tuple[int, float | None], games: int
) -> Row:
    """`games` games of hard against OpenSpiel's `kind` in one setting (seats swapped every other game)."""
    budget, seconds = setting
    hard = level_named(MEASURED)
    hard = replace(hard, budget=budget) if seconds is None else replace(hard, budget=10**9, time_cap=seconds)
    if seconds is None:
        hard = replace(hard, time_cap=None)
    label = f"{budget} iterations" if seconds is None else f"{seconds:g} s a move"
    row = Row(game_id, f"OpenSpiel {kind.upper()}", label)
    players = int(params["players"])
    for number in range(games):
        if players == 1:  # co-operative solo: both teams play the same seeds; compare their results
            ours = play(name, params, hard, [MEASURED], kind, setting, number, row)[0]
            theirs = play(name, params, hard, ["openspiel"], kind, setting, number, row)[0]
            outcome = (ours > 0) - (theirs > 0)
        else:
            measured = number % players
            seats = [MEASURED if seat == measured else "openspiel" for seat in range(players)]
            returns = play(name, params, hard, seats, kind, setting, number, row)
            outcome = (returns[measured] > 0) - (returns[measured] < 0)
        row.wins += outcome > 0
        row.draws += outcome == 0
        row.losses += outcome < 0
    return row


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def table(rows: list[Row]) -> str:
    """The rows as a Markdown table."""
    lines = [
        "| game | opponent | setting | games | hard W-D-L | hard win rate (95% CI) | hard s/move | opponent s/move |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        low, high = wilson(row.wins, row.games)
        lines.append(
            f"| {row.game} | {row.opponent} | {row.setting} | {row.games} | "
            f"{row.wins}-{row.draws}-{row.losses} | {row.wins / max(1, row.games):.0%} ({low:.0%}-{high:.0%}) | "
            f"{mean(row.hard.seconds):.2f} | {mean(row.other.seconds):.2f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Parse options, play every game in both settings, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=10, help="games per game and setting")
    parser.add_argument("--budget", type=int, default=None, help="iterations in the equal-iterations setting")
    parser.add_argument("--seconds", type=float, default=None, help="seconds a move in the equal-time setting")
    parser.add_argument("--game", action="append", default=None, help="only these games (repeatable)")
    parser.add_argument("--setting", choices=("iterations", "time", "both"), default="both")
    parser.add_argument("--quick", action="store_true", help="2 games, budget 50, 0.5 s a move")
    args = parser.parse_args(argv)
    hard = level_named(MEASURED)
    games = 2 if args.quick else args.games
    budget = args.budget or (50 if args.quick else hard.budget)
    seconds = args.seconds or (0.5 if args.quick else hard.time_cap or 10.0)
    settings: list[tuple[int, float | None]] = []
    if args.setting in ("iterations", "both"):
        settings.append((budget, None))
    if args.setting in ("time", "both"):
        settings.append((budget, seconds))
    rows: list[Row] = []
    for game_id, name, params in GAMES:
        if args.game and game_id not in args.game:
            continue
        kinds = ["mcts"] if game_id == "icecream" else ["ismcts"]
        for kind in kinds:
            for setting in settings:
                rows.append(measure(game_id, name, params, kind, setting, games))
                print(table(rows[-1:]).splitlines()[-1], flush=True)
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
