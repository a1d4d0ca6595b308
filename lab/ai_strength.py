"""Measure a level's strength: `python -m lab.ai_strength --game icecream --level hard --games 200`.

Plays the level against an opponent (a level, or `greedy`: the one-ply baseline of ai/greedy)
with seats rotated (the level takes each seat in turn; every other seat plays the opponent), and
prints wins, draws, losses, the win rate with its 95% Wilson interval, and the level's seconds
per move. Who acts is `ai.play`'s rule: a seat that may act out of turn (Freeze Factory's FREEZE!)
is asked after every action and claims what its agent chooses; where several seats must act at
once (Rock'em Sock'em) a seeded draw picks which one acts first. A benchmark that prints figures,
not a test: nothing here is timed against a limit.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ai.intervals import wilson
from ai.ismcts import IsmctsAgent
from ai.knowledge import knowledge_for
from ai.levels import Level, level_move, level_named
from ai.play import play_out
from engine import get_game
from engine.protocol import Action, GameState

MAX_ACTIONS = 5000
"""Actions after which a game is stopped (Freeze Factory has no end while nobody empties a hand)."""
OPPONENTS = ("greedy", "determinized")
"""Players that are not levels (for measuring only): the greedy baseline, and the package-based
determinized MCTS (`ai.baseline.search.MctsAgent`) with the hard level's budget and cap."""


@dataclass
class Tally:
    """Results of the measured level over a series of games."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    unfinished: int = 0
    seconds_per_move: list[float] = field(default_factory=list)

    @property
    def games(self) -> int:
        """Games played."""
        return self.wins + self.draws + self.losses

    def wilson(self) -> tuple[float, float]:
        """The 95% Wilson score interval of the win rate."""
        return wilson(self.wins, self.games)


def player(name: str, budget: int | None = None) -> Level:
    """A level by name, or one of OPPONENTS (imported only when asked for); `budget` overrides the level's."""
    if name == "greedy":
        from ai.greedy import GreedyAgent

        found = Level("greedy", GreedyAgent(), 0)
    elif name == "determinized":
        from ai.baseline.search import MctsAgent

        hard = level_named("hard")
        found = Level("determinized", MctsAgent(), hard.budget, hard.time_cap)
    else:
        found = level_named(name)
    return found if budget is None else replace(found, budget=budget)


def play_game(
    state: GameState, players: Sequence[Level], seed: str, tally: Tally, measured: int, max_actions: int = MAX_ACTIONS
) -> None:
    """Play one game to its end, each seat with its player; add the measured seat's result.

    A game still running after `max_actions` actions counts as a draw, and as unfinished.
    """

    def move(state: GameState, seat: int, step: int) -> Action:
        started = time.perf_counter()
        action = level_move(players[seat], state, seat, f"{seed}:{step}")
        if seat == measured:
            tally.seconds_per_move.append(time.perf_counter() - started)
        return action

    if not play_out(state, move, seed, max_actions):
        tally.draws += 1
        tally.unfinished += 1
        return
    result = state.result()
    assert result is not None
    if measured in result.winners and len(result.winners) < state.players:
        tally.wins += 1
    elif measured in result.winners:
        tally.draws += 1
    else:
        tally.losses += 1


def measure(
    game_id: str,
    players: int,
    level: str,
    opponent: str,
    games: int,
    options: dict[str, object],
    budget: int | None = None,
    first_game: int = 0,
    progress: int = 0,
    exploration: float | None = None,
) -> Tally:
    """Play `games` games with the measured seat rotating through every seat (a report line every `progress` games)."""
    game = get_game(game_id)
    if game is None:
        raise SystemExit(f"unknown game {game_id!r}")
    measured_player, opponent_player = player(level, budget), player(opponent)
    if exploration is not None:
        measured_player = replace(measured_player, agent=IsmctsAgent(knowledge_for, exploration=exploration))
    tally = Tally()
    for index in range(first_game, first_game + games):
        measured = index % players
        seats = [measured_player if seat == measured else opponent_player for seat in range(players)]
        state = game.start(players, options, f"strength:{game_id}:{index}")
        play_game(state, seats, f"strength:{index}", tally, measured)
        if progress and tally.games % progress == 0:
            print(report(tally, f"after game {index}"), file=sys.stderr, flush=True)
    return tally


def report(tally: Tally, label: str) -> str:
    """One line of figures."""
    low, high = tally.wilson()
    moves = sorted(tally.seconds_per_move)
    median = statistics.median(moves) if moves else 0.0
    p90 = moves[int(0.9 * (len(moves) - 1))] if moves else 0.0
    mean = statistics.fmean(moves) if moves else 0.0
    return (
        f"{label}: {tally.wins}W {tally.draws}D {tally.losses}L of {tally.games}"
        f"{f' ({tally.unfinished} unfinished)' if tally.unfinished else ''}; "
        f"win rate {tally.wins / max(1, tally.games):.1%} (95% CI {low:.1%}-{high:.1%}); "
        f"seconds per move: median {median:.3f}, p90 {p90:.3f}, mean {mean:.3f}, max {moves[-1] if moves else 0:.3f}"
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Parse options, play, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--game", default="icecream")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--level", default="hard")
    parser.add_argument("--opponent", default="random", help=f"a level or one of {', '.join(OPPONENTS)}")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--first-game", type=int, default=0, help="the index of the first game (to split a run)")
    parser.add_argument("--budget", type=int, default=None, help="override the measured level's budget")
    parser.add_argument("--turn-limit", type=int, default=None, help="the game's turn_limit option, if it has one")
    parser.add_argument("--mode", default=None, help="Rock'em Sock'em's mode option")
    parser.add_argument("--progress", type=int, default=0, help="print the tally to stderr every N games")
    parser.add_argument("--exploration", type=float, default=None, help="the measured ISMCTS's UCB1 constant")
    args = parser.parse_args(argv)
    options: dict[str, object] = {} if args.turn_limit is None else {"turn_limit": args.turn_limit}
    if args.mode is not None:
        options["mode"] = args.mode
    tally = measure(
        args.game,
        args.players,
        args.level,
        args.opponent,
        args.games,
        options,
        args.budget,
        args.first_game,
        args.progress,
        args.exploration,
    )
    settings = "".join(f" {name}={value}" for name, value in options.items())
    budget = "" if args.budget is None else f"@{args.budget}"
    exploration = "" if args.exploration is None else f" (c={args.exploration})"
    label = f"{args.game} {args.players}p{settings} {args.level}{budget}{exploration} vs {args.opponent}"
    print(report(tally, label), flush=True)


if __name__ == "__main__":
    main()
