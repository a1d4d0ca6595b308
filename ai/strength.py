"""Measure a level's strength: `python -m ai.strength --game icecream --level hard --games 200`.

Plays the level against an opponent level with seats rotated (the level takes each seat in turn;
every other seat plays the opponent), and prints wins, draws, losses and the win rate with its
95% Wilson interval. A benchmark that prints figures, not a test: nothing here is timed.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ai.levels import choose
from engine import get_game
from engine.protocol import GameState

Z95 = 1.959964


@dataclass
class Tally:
    """Results of the measured level over a series of games."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    seconds_per_move: list[float] = field(default_factory=list)

    @property
    def games(self) -> int:
        """Games played."""
        return self.wins + self.draws + self.losses

    def wilson(self) -> tuple[float, float]:
        """The 95% Wilson score interval of the win rate."""
        n = self.games
        if n == 0:
            return 0.0, 1.0
        p = self.wins / n
        centre = (p + Z95 * Z95 / (2 * n)) / (1 + Z95 * Z95 / n)
        half = Z95 * math.sqrt(p * (1 - p) / n + Z95 * Z95 / (4 * n * n)) / (1 + Z95 * Z95 / n)
        return max(0.0, centre - half), min(1.0, centre + half)


def play_game(state: GameState, levels: Sequence[str], seed: str, tally: Tally, measured: int) -> None:
    """Play one game to its end, each seat at its level; add the measured seat's result."""
    step = 0
    while not state.is_over():
        seat = state.waiting_for()[0]
        started = time.perf_counter()
        action = choose(state, seat, levels[seat], seed=f"{seed}:{step}")
        if seat == measured:
            tally.seconds_per_move.append(time.perf_counter() - started)
        state.play(seat, action)
        step += 1
    result = state.result()
    assert result is not None
    if measured in result.winners and len(result.winners) < state.players:
        tally.wins += 1
    elif measured in result.winners:
        tally.draws += 1
    else:
        tally.losses += 1


def measure(game_id: str, players: int, level: str, opponent: str, games: int, options: dict[str, object]) -> Tally:
    """Play `games` games with the measured seat rotating through every seat."""
    game = get_game(game_id)
    if game is None:
        raise SystemExit(f"unknown game {game_id!r}")
    tally = Tally()
    for index in range(games):
        measured = index % players
        levels = [level if seat == measured else opponent for seat in range(players)]
        state = game.start(players, options, f"strength:{game_id}:{index}")
        play_game(state, levels, f"strength:{index}", tally, measured)
    return tally


def report(tally: Tally, label: str) -> str:
    """One line of figures."""
    low, high = tally.wilson()
    moves = sorted(tally.seconds_per_move)
    median = moves[len(moves) // 2] if moves else 0.0
    return (
        f"{label}: {tally.wins}W {tally.draws}D {tally.losses}L of {tally.games}; "
        f"win rate {tally.wins / max(1, tally.games):.1%} (95% CI {low:.1%}-{high:.1%}); "
        f"median {median * 1000:.1f} ms per move"
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Parse options, play, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--game", default="icecream")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--level", default="hard")
    parser.add_argument("--opponent", default="random")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--turn-limit", type=int, default=None, help="the game's turn_limit option, if it has one")
    args = parser.parse_args(argv)
    options: dict[str, object] = {} if args.turn_limit is None else {"turn_limit": args.turn_limit}
    tally = measure(args.game, args.players, args.level, args.opponent, args.games, options)
    print(report(tally, f"{args.game} {args.players}p {args.level} vs {args.opponent}"))


if __name__ == "__main__":
    main()
