"""Greedy against random: `python -m ai.greedy --game sundae_split --players 3 --games 100`.

The greedy agent takes each seat in turn; every other seat plays random. Out-of-turn FREEZE!
claims are offered to every seat after each action, and each agent calls one when it has one.
Prints wins, draws and losses of the greedy seat with a 95% Wilson interval, and its time per move.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

from ai.agent import Agent
from ai.greedy import GreedyAgent
from ai.random_agent import RandomAgent
from ai.strength import Tally, report
from engine import get_game
from engine.protocol import GameState, TooManyActions


def may_claim(state: GameState, seat: int) -> bool:
    """True if a seat not waited for has an out-of-turn action (a FREEZE! claim)."""
    if seat in state.waiting_for():
        return False
    try:
        return bool(state.legal_actions(seat))
    except TooManyActions:
        return True


def next_seat(state: GameState, last: int | None) -> int:
    """A seat with a claim first; else the seat waited for after the last one to act, cyclically.

    Realtime Rock'em waits for both seats at once: taking turns keeps both racing.
    """
    claimers = [seat for seat in state.acting_seats() if may_claim(state, seat)]
    if claimers:
        return claimers[0]
    waiting = state.waiting_for()
    later = [seat for seat in waiting if last is None or seat > last]
    return later[0] if later else waiting[0]


def play_out(state: GameState, agents: Sequence[Agent], seed: str, tally: Tally, measured: int) -> None:
    """Play to the end and add the measured seat's result and its time per move to the tally."""
    step, last = 0, None
    while not state.is_over():
        seat = next_seat(state, last)
        started = time.perf_counter()
        action = agents[seat].choose(state, seat, 0, f"{seed}:{step}")
        if seat == measured:
            tally.seconds_per_move.append(time.perf_counter() - started)
        state.play(seat, action)
        step, last = step + 1, seat
    result = state.result()
    assert result is not None
    if measured in result.winners and len(result.winners) < state.players:
        tally.wins += 1
    elif measured in result.winners:
        tally.draws += 1
    else:
        tally.losses += 1


def versus_random(game_id: str, players: int, games: int, options: dict[str, Any]) -> Tally:
    """Greedy in each seat in turn against random seats, over seeded games."""
    game = get_game(game_id)
    if game is None:
        raise SystemExit(f"unknown game {game_id!r}")
    tally = Tally()
    for number in range(games):
        measured = number % players
        agents: list[Agent] = [GreedyAgent() if seat == measured else RandomAgent() for seat in range(players)]
        state = game.start(players, options, f"greedy:{game_id}:{number}")
        play_out(state, agents, f"greedy:{number}", tally, measured)
    return tally


def main(argv: Sequence[str] | None = None) -> None:
    """Parse options, play, print one line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--game", default="icecream")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a game option")
    args = parser.parse_args(argv)
    options: dict[str, Any] = {}
    for pair in args.option:
        name, _, value = pair.partition("=")
        options[name] = int(value) if value.isdigit() else value
    tally = versus_random(args.game, args.players, args.games, options)
    label = f"{args.game} {args.players}p {options or ''} greedy vs random".replace("  ", " ")
    print(report(tally, label))


if __name__ == "__main__":
    main()
