"""Measure an AI team in a co-operative game: `python -m lab.ai_team --players 2 --level hard --games 200`.

Every seat is played by the same level, each from its own view (`ai.levels.level_move` with a seed per
step), and the team succeeds when the game's result says so (Robots Love Ice Cream: at least 10 of
the 13 Ice Cream tokens saved). Prints the successes, the success rate with its 95% Wilson interval,
the mean tokens saved, and the seconds per move (over every seat's moves). A run split with
`--first-game` and `--dump` is reported whole with `--merge`. `--level` takes a level
(`random`, `easy`, `medium`, `hard`) or `greedy` (the one-ply baseline of ai/greedy). A benchmark
that prints figures, not a test: nothing here is timed against a limit.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from ai.intervals import wilson
from ai.levels import level_move
from ai.play import play_out
from engine import get_game
from engine.protocol import Action, GameState
from lab.ai_strength import player

GAME = "robots_love_ice_cream"
MAX_ACTIONS = 5000
"""Actions after which a team game is given up as an error (a Robots Love Ice Cream game takes a few hundred)."""


class TeamTallyJson(TypedDict):
    """A tally as `--dump` writes it and `--merge` reads it back."""

    successes: int
    games: int
    saved: list[int]
    seconds_per_move: list[float]


@dataclass
class TeamTally:
    """The results of a series of team games."""

    successes: int = 0
    games: int = 0
    saved: list[int] = field(default_factory=list)
    seconds_per_move: list[float] = field(default_factory=list)

    def wilson(self) -> tuple[float, float]:
        """The 95% Wilson score interval of the success rate."""
        return wilson(self.successes, self.games)

    def to_json(self) -> TeamTallyJson:
        """The tally as JSON, to merge the parts of a split run."""
        return {
            "successes": self.successes,
            "games": self.games,
            "saved": self.saved,
            "seconds_per_move": self.seconds_per_move,
        }

    def add(self, data: TeamTallyJson) -> None:
        """Add a part written by `to_json`."""
        self.successes += int(data["successes"])
        self.games += int(data["games"])
        self.saved += [int(n) for n in data["saved"]]
        self.seconds_per_move += [float(t) for t in data["seconds_per_move"]]


def play_team_game(state: GameState, level: str, seed: str, tally: TeamTally) -> None:
    """Play one game to its end with every seat played by the level; add the team's result."""
    team_player = player(level)

    def move(state: GameState, seat: int, step: int) -> Action:
        started = time.perf_counter()
        action = level_move(team_player, state, seat, f"{seed}:{step}")
        tally.seconds_per_move.append(time.perf_counter() - started)
        return action

    if not play_out(state, move, seed, MAX_ACTIONS):
        raise RuntimeError(f"team game {seed} did not end within {MAX_ACTIONS} actions")
    result = state.result()
    assert result is not None and result.team_success is not None
    tally.games += 1
    tally.successes += bool(result.team_success)
    tally.saved.append(int(state.view(None)["saved"]))


def measure(
    players: int,
    level: str,
    games: int,
    options: dict[str, object],
    first_game: int = 0,
    progress: int = 0,
    game_id: str = GAME,
) -> TeamTally:
    """Play `games` team games (game i is seeded `team:<game>:<players>:<i>`), a report line every `progress`."""
    game = get_game(game_id)
    if game is None:
        raise SystemExit(f"unknown game {game_id!r}")
    if not game.info.cooperative:
        raise SystemExit(f"{game_id} is not co-operative: measure it with lab.ai_strength")
    tally = TeamTally()
    for index in range(first_game, first_game + games):
        state = game.start(players, options, f"team:{game_id}:{players}:{index}")
        play_team_game(state, level, f"team:{index}", tally)
        if progress and tally.games % progress == 0:
            print(report(tally, f"after game {index}"), file=sys.stderr, flush=True)
    return tally


def report(tally: TeamTally, label: str) -> str:
    """One line of figures."""
    low, high = tally.wilson()
    moves = sorted(tally.seconds_per_move)
    median = statistics.median(moves) if moves else 0.0
    p90 = moves[int(0.9 * (len(moves) - 1))] if moves else 0.0
    mean = statistics.fmean(moves) if moves else 0.0
    saved = statistics.fmean(tally.saved) if tally.saved else 0.0
    return (
        f"{label}: team success {tally.successes} of {tally.games}; "
        f"rate {tally.successes / max(1, tally.games):.1%} (95% CI {low:.1%}-{high:.1%}); "
        f"tokens saved mean {saved:.2f}; "
        f"seconds per move: median {median:.3f}, p90 {p90:.3f}, mean {mean:.3f}, max {moves[-1] if moves else 0:.3f} "
        f"({len(moves)} moves)"
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Parse options, play, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--game", default=GAME)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--level", default="hard", help="a level, or greedy")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--first-game", type=int, default=0, help="the index of the first game (to split a run)")
    parser.add_argument("--options", default="{}", help="match options as JSON, e.g. '{\"attack_twice\": true}'")
    parser.add_argument("--progress", type=int, default=0, help="print the tally to stderr every N games")
    parser.add_argument("--dump", default=None, help="also write the tally as JSON to this file")
    parser.add_argument("--merge", nargs="+", default=None, help="print the report of tallies written by --dump")
    args = parser.parse_args(argv)
    if args.merge:
        merged = TeamTally()
        for path in args.merge:
            with open(path, encoding="utf-8") as file:
                merged.add(json.load(file))
        print(report(merged, f"{args.game} {args.players}p {args.level} (merged {len(args.merge)} parts)"), flush=True)
        return
    options = json.loads(args.options)
    tally = measure(args.players, args.level, args.games, options, args.first_game, args.progress, args.game)
    shown = f" {json.dumps(options, sort_keys=True)}" if options else ""
    print(report(tally, f"{args.game} {args.players}p {args.level}{shown}"), flush=True)
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as file:
            json.dump(tally.to_json(), file)


if __name__ == "__main__":
    main()
