"""Greedy against random: `python -m lab.greedy_versus --game sundae_split --players 3 --games 100`.

The greedy agent takes each seat in turn; every other seat plays random. The games are played
by `lab.ai_strength.play_game` (who acts: `ai.play`, claims first), so an out-of-turn FREEZE! claim
is offered after each action and each agent calls one when it has one. Prints wins, draws and
losses of the greedy seat with a 95% Wilson interval, and its time per move.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from engine import get_game
from lab.ai_strength import Tally, play_game, player, report


def versus_random(game_id: str, players: int, games: int, options: dict[str, int | str]) -> Tally:
    """Greedy in each seat in turn against random seats, over seeded games."""
    game = get_game(game_id)
    if game is None:
        raise SystemExit(f"unknown game {game_id!r}")
    greedy, random = player("greedy"), player("random")
    tally = Tally()
    for number in range(games):
        measured = number % players
        seats = [greedy if seat == measured else random for seat in range(players)]
        state = game.start(players, options, f"greedy:{game_id}:{number}")
        play_game(state, seats, f"greedy:{number}", tally, measured)
    return tally


def main(argv: Sequence[str] | None = None) -> None:
    """Parse options, play, print one line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--game", default="icecream")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a game option")
    args = parser.parse_args(argv)
    options: dict[str, int | str] = {}
    for pair in args.option:
        name, _, value = pair.partition("=")
        options[name] = int(value) if value.isdigit() else value
    tally = versus_random(args.game, args.players, args.games, options)
    label = f"{args.game} {args.players}p {options or ''} greedy vs random".replace("  ", " ")
    print(report(tally, label))


if __name__ == "__main__":
    main()
