"""Measure the AI levels' ratings: `python -m lab.level_ratings --write` (every competitive game and player count).

The ladder rates bots against the AI levels, which stand still as its anchors; this command measures
where they stand instead of assuming it. For each competitive game it plays the game's levels against
each other, in rounds, until every level's rating is known to within `--sigma` or the game's
`--minutes` run out, or more games cannot narrow a level (all its pairs are foregone):

* at two players, every pair of distinct levels, seats swapped each time, until the pair has played
  MIN_PAIR_GAMES and its result is foregone (the ratings give the favourite FOREGONE or more); these
  games also give each level's win rate against `random` (wins, draws counted apart, with a 95%
  Wilson interval);
* at each larger player count the game allows, one game a round whose seats are levels drawn (seeded)
  from the game's levels (distinct while there are enough), so every level meets every other at every table size.

Every result updates the levels' ratings with the ladder's own model (openskill's Plackett-Luce,
`domain.ladder.ratings.MODEL`; tied seats share one place), all
levels starting at the model's default, mu 25 and sigma 25/3, so a measured level reads on the
same scale as a bot's rating. Games are played with `lab.ai_strength.play_game`'s rules (who acts:
`ai.play.play_out`; a move's seed from the game and step), on `--workers` processes, and counted in
their order, so a run is reproducible except where a level's time cap cut a search short.

Every game played is appended to `lab/level_ratings_games.jsonl`, with the version of the game's rules it was
played under, and counted first by the next run under the same rules, so runs add up; games played under
earlier rules stay in the file but count no more. `--write` stores the figures in `ai/level_ratings.json` with
the date and the command; the catalog and the ladder's anchors read that file (`ai.level_ratings`).
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import shlex
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from openskill.models import PlackettLuceRating

from ai.intervals import wilson
from ai.level_ratings import RATINGS_FILE
from ai.levels import level_named, levels_for
from ai.play import play_out
from domain.ladder.ratings import MODEL
from engine import all_games, get_game
from engine.protocol import Action, GameState

RESULTS = Path(__file__).with_name("level_ratings_games.jsonl")
"""Every game measured so far, one JSON line each: a run counts them first, so runs add up."""
MAX_ACTIONS = 5000
"""Actions after which a game stops and counts as a draw of every seat (as in lab.ai_strength)."""


@dataclass(frozen=True)
class Table:
    """One game to play: its seats' levels and its seed."""

    game: str
    levels: tuple[str, ...]
    seed: str


@dataclass(frozen=True)
class Played:
    """A game's outcome: every seat's place (1 = first; tied seats share one), whether it finished, its moves."""

    table: Table
    places: tuple[int, ...]
    finished: bool
    moves: int
    seconds: float


def play(table: Table) -> Played:
    """Play one game to the end with each seat's level; the places (an unfinished game: everyone tied)."""
    game = get_game(table.game)
    assert game is not None
    state = game.start(len(table.levels), {}, table.seed)
    seats = [level_named(name) for name in table.levels]
    moves = 0
    started = time.perf_counter()

    def move(state_now: GameState, seat: int, step: int) -> Action:
        nonlocal moves
        moves += 1
        level = seats[seat]
        return level.agent.choose(state_now, seat, level.budget, f"{table.seed}:{step}", time_cap=level.time_cap)

    finished = play_out(state, move, table.seed, MAX_ACTIONS)
    result = state.result()
    if not finished or result is None:
        return Played(table, tuple(1 for _ in table.levels), False, moves, time.perf_counter() - started)
    group = {seat: index + 1 for index, seats_tied in enumerate(result.ranking) for seat in seats_tied}
    places = tuple(group[seat] for seat in range(len(table.levels)))
    return Played(table, places, True, moves, time.perf_counter() - started)


@dataclass
class Versus:
    """A level's two-player results against `random`."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    def json(self) -> dict[str, object]:
        games = self.wins + self.draws + self.losses
        low, high = wilson(self.wins, games)
        return {
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "win_rate": round(self.wins / games, 3) if games else None,
            "interval95": [round(low, 3), round(high, 3)],
        }


@dataclass
class GameRatings:
    """The running ratings of one game's levels, and what was played."""

    game: str
    levels: list[str]
    mu: dict[str, float] = field(default_factory=dict)
    sigma: dict[str, float] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)
    versus_random: dict[str, Versus] = field(default_factory=dict)
    tables: dict[int, int] = field(default_factory=dict)  # player count -> games played
    unfinished: int = 0
    seconds: float = 0.0
    foregone: list[str] = field(default_factory=list)  # levels every pair of which is foregone (`unplayed`)

    def __post_init__(self) -> None:
        for level in self.levels:
            self.mu[level], self.sigma[level], self.games[level] = MODEL.mu, MODEL.sigma, 0
            if level != "random":
                self.versus_random[level] = Versus()

    def count(self, played: Played) -> None:
        """Rate one game's result (a level in two seats rates as two teams of the same rating, then averages)."""
        levels = played.table.levels
        teams = [[MODEL.rating(mu=self.mu[level], sigma=self.sigma[level])] for level in levels]
        rated = MODEL.rate(teams, ranks=[float(place) for place in played.places])
        moved: dict[str, list[tuple[float, float]]] = {}
        for level, team in zip(levels, rated, strict=True):
            moved.setdefault(level, []).append((team[0].mu, team[0].sigma))
        for level, ratings in moved.items():
            self.mu[level] = sum(mu for mu, _ in ratings) / len(ratings)
            self.sigma[level] = min(sigma for _, sigma in ratings)
            self.games[level] += 1
        self.tables[len(levels)] = self.tables.get(len(levels), 0) + 1
        self.unfinished += not played.finished
        self.seconds += played.seconds
        if len(levels) == 2 and "random" in levels and levels[0] != levels[1]:
            level_seat = 1 - levels.index("random")
            versus = self.versus_random[levels[level_seat]]
            mine, theirs = played.places[level_seat], played.places[1 - level_seat]
            if mine < theirs:
                versus.wins += 1
            elif mine == theirs:
                versus.draws += 1
            else:
                versus.losses += 1

    def model_rating(self, level: str) -> PlackettLuceRating:
        """The level's current rating as the model takes it."""
        return MODEL.rating(mu=self.mu[level], sigma=self.sigma[level])

    def unsettled(self, target: float) -> list[str]:
        """The levels more games would still narrow: sigma above `target`, and some pair with them not foregone.
        (A level that wins or loses every game it plays, as `random` and `perfect` in IceCream, is known only to
        be above or below the rest: no more games narrow it.)"""
        return [level for level in self.levels if self.sigma[level] > target and level not in self.foregone]

    def json(self, target: float) -> dict[str, object]:
        return {
            "levels": {
                level: {
                    "mu": round(self.mu[level], 2),
                    "sigma": round(self.sigma[level], 2),
                    "games": self.games[level],
                }
                for level in self.levels
            },
            "versus_random": {level: versus.json() for level, versus in self.versus_random.items()},
            "games_by_players": {str(players): count for players, count in sorted(self.tables.items())},
            "unfinished": self.unfinished,
            "target_sigma": target,
            "reached": not self.unsettled(target),
            "foregone": self.foregone,
        }


MIN_PAIR_GAMES = 10
"""Two-player games every pair of levels plays at least (so every level has a record against `random`)."""
FOREGONE = 0.95
"""A pair whose favourite the ratings give at least this chance plays no more once it has MIN_PAIR_GAMES: its
results would hardly move a rating."""


def next_round(game_id: str, ratings: GameRatings, pair_games: dict[tuple[str, str], int], number: int) -> list[Table]:
    """One round's tables, numbered from `number`: each pair of levels at two players whose result is not foregone
    (seats alternating by the pair's games), then one table of drawn levels per larger player count."""
    game = get_game(game_id)
    assert game is not None
    levels = ratings.levels
    draw = random.Random(f"levels:{game_id}:{number}")
    tables: list[Table] = []
    if game.info.min_players <= 2:
        for first, second in combinations(levels, 2):
            played = pair_games.get((first, second), 0)
            odds = MODEL.predict_win([[ratings.model_rating(first)], [ratings.model_rating(second)]])
            if played >= MIN_PAIR_GAMES and max(odds) >= FOREGONE:
                continue
            seats = (first, second) if played % 2 == 0 else (second, first)
            tables.append(Table(game_id, seats, f"levels:{game_id}:{number + len(tables)}"))
    for players in range(max(3, game.info.min_players), game.info.max_players + 1):
        drawn = draw.sample(list(levels), min(players, len(levels)))
        drawn += [draw.choice(levels) for _ in range(players - len(drawn))]
        tables.append(Table(game_id, tuple(drawn), f"levels:{game_id}:{number + len(tables)}"))
    return tables


def unplayed(levels: Sequence[str], tables: Sequence[Table]) -> list[str]:
    """The levels no table of a round seats: every pair with them is foregone, and the game has no larger table."""
    seated = {level for table in tables for level in table.levels}
    return [level for level in levels if level not in seated]


def rules_version(game_id: str) -> int:
    """The version of the game's rules this code plays."""
    game = get_game(game_id)
    assert game is not None, game_id
    return game.info.rules_version


def played_before(results: Path, game_id: str) -> list[Played]:
    """The games of `game_id` an earlier run recorded in `results` under the rules played now, in their order."""
    if not results.exists():
        return []
    found, rules = [], rules_version(game_id)
    for line in results.read_text().splitlines():
        entry = json.loads(line)
        if entry["game"] == game_id and entry["rules_version"] == rules:
            table = Table(game_id, tuple(entry["levels"]), entry["seed"])
            found.append(Played(table, tuple(entry["places"]), entry["finished"], entry["moves"], entry["seconds"]))
    return found


def record(results: Path, played: Played) -> None:
    """Append one game to the results file."""
    entry = {
        "game": played.table.game,
        "rules_version": rules_version(played.table.game),
        "levels": list(played.table.levels),
        "seed": played.table.seed,
        "places": list(played.places),
        "finished": played.finished,
        "moves": played.moves,
        "seconds": round(played.seconds, 3),
    }
    with results.open("a") as out:
        out.write(json.dumps(entry) + "\n")


def measure(game_id: str, target: float, minutes: float, workers: int, results: Path, log: bool) -> GameRatings:
    """Count the games `results` holds, then play the game's levels until every sigma is at most `target` or
    `minutes` run out (a round at a time, `workers` games at once, counted in their order and recorded)."""
    ratings = GameRatings(game_id, levels_for(game_id))
    pair_games: dict[tuple[str, str], int] = {}

    def count(played: Played) -> None:
        ratings.count(played)
        if len(played.table.levels) == 2:
            pair = tuple(sorted(played.table.levels, key=ratings.levels.index))
            pair_games[(pair[0], pair[1])] = pair_games.get((pair[0], pair[1]), 0) + 1

    earlier = played_before(results, game_id)
    for played in earlier:
        count(played)
    number = len(earlier)
    ends = time.monotonic() + 60 * minutes
    with ProcessPoolExecutor(max_workers=workers) as pool:
        while time.monotonic() < ends:
            batch = next_round(game_id, ratings, pair_games, number)
            ratings.foregone = unplayed(ratings.levels, batch)
            if not ratings.unsettled(target):
                break
            number += len(batch)
            for played in pool.map(play, batch):
                count(played)
                record(results, played)
                if log:
                    print(
                        f"{game_id} {'-'.join(played.table.levels)} places {played.places}"
                        f"{'' if played.finished else ' (unfinished)'} {played.moves} moves {played.seconds:.1f}s; "
                        + " ".join(f"{lv} {ratings.mu[lv]:.1f}±{ratings.sigma[lv]:.2f}" for lv in ratings.levels),
                        file=sys.stderr,
                        flush=True,
                    )
    return ratings


def table_text(ratings: GameRatings) -> str:
    """The game's figures as lines of text."""
    lines = [
        f"{ratings.game}: games by players {dict(sorted(ratings.tables.items()))}, unfinished {ratings.unfinished}"
    ]
    for level in ratings.levels:
        versus = ratings.versus_random.get(level)
        vs = "" if versus is None else f"; vs random {versus.wins}W {versus.draws}D {versus.losses}L"
        rating = f"mu {ratings.mu[level]:6.2f} sigma {ratings.sigma[level]:5.2f}"
        lines.append(f"  {level:8} {rating} games {ratings.games[level]:4}{vs}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Parse options, measure every competitive game, print (and with --write store) the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    competitive = [game.info.id for game in all_games() if not game.info.cooperative]
    parser.add_argument("--game", action="append", choices=competitive, help="a game to measure (default: all)")
    parser.add_argument("--sigma", type=float, default=1.0, help="stop once every level's sigma is at most this")
    parser.add_argument("--minutes", type=float, default=30.0, help="the most minutes one game is played for")
    parser.add_argument("--workers", type=int, default=2, help="processes playing games at once")
    parser.add_argument("--write", action="store_true", help=f"store the figures in {RATINGS_FILE.name}")
    parser.add_argument("--log", action="store_true", help="print every game to stderr")
    parser.add_argument(
        "--results", type=Path, default=RESULTS, help="the games played so far, counted first and appended to"
    )
    args = parser.parse_args(argv)
    measured = {}
    for game_id in args.game or competitive:
        ratings = measure(game_id, args.sigma, args.minutes, args.workers, args.results, args.log)
        print(table_text(ratings), flush=True)
        measured[game_id] = ratings.json(args.sigma)
    if args.write:
        stored = json.loads(RATINGS_FILE.read_text()) if RATINGS_FILE.exists() else {"games": {}}
        command = "python -m lab.level_ratings " + shlex.join(argv if argv is not None else sys.argv[1:])
        for game_id, figures in measured.items():
            stored["games"][game_id] = {**figures, "measured": str(datetime.date.today()), "command": command}
        RATINGS_FILE.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
