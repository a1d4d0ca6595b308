"""Play a tournament in this process: the engine and `ai.levels`, no server, no Redis.

Matches are played one after another with the same plan, schedule and match seeds the server
would use, and each move's search seed is the server's (`ai.play.ai_seed`). Only built-in AI levels
can enter (a bot needs the server). Who acts is `ai.play.next_actor`: seats that may act out of turn
(a FREEZE! claim) act first; where several seats must act at once (Rock'em Sock'em) a seeded draw
picks which one acts first, as in `lab.ai_strength`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict

from ai.levels import choose
from ai.play import ai_seed, play_out
from domain.tournaments.plan import next_slots
from domain.tournaments.standings import Report, report
from engine import get_game
from engine.protocol import Action, GameState
from model.tournament import NumberedEntrantJson, Outcome, Plan, Slot

MAX_ACTIONS = 5000
"""Actions after which a local match is stopped and counted void (no game needs that many with a turn limit)."""

Progress = Callable[[int, int], None]
"""Called after each match with (matches done, matches in all)."""


class LocalProgress(TypedDict):
    """Matches played (void ones included), in all, and void."""

    done: int
    total: int
    void: int


class LocalResult(Report):
    """A tournament played in this process, in the API's form: its plan, progress, standings, crosstable, ratings."""

    game: str
    players: int
    format: str
    cooperative: bool
    seed: str
    entrants: list[NumberedEntrantJson]
    progress: LocalProgress


def play_match(plan: Plan, slot: Slot) -> Outcome:
    """Play one planned match to its end with each seat's AI level."""
    game = get_game(plan.game)
    assert game is not None, f"unknown game {plan.game}"
    seed = plan.match_seed(slot.index)
    state = game.start(plan.players, plan.options, seed)
    levels = [plan.entrants[entrant].level for entrant in slot.seats]
    if not play_levels(state, levels, seed):
        return Outcome(slot.index, [], void=True)
    result = state.result()
    assert result is not None
    return Outcome(slot.index, [list(group) for group in result.ranking], result.team_success)


def play_levels(state: GameState, levels: list[str | None], seed: str) -> bool:
    """Play until the game is over (True) or MAX_ACTIONS actions were played (False), each seat with its level."""

    def move(state: GameState, seat: int, version: int) -> Action:
        level = levels[seat]
        assert level is not None, "only AI levels play locally"
        return choose(state, seat, level, ai_seed(seed, seat, version, level))

    return play_out(state, move, seed, MAX_ACTIONS)


def run(plan: Plan, progress: Progress | None = None) -> tuple[list[Slot], dict[int, Outcome]]:
    """Play the whole tournament; every slot and its outcome."""
    slots: list[Slot] = []
    outcomes: dict[int, Outcome] = {}
    total = plan.total_matches()
    while True:
        new = next_slots(plan, slots, outcomes)
        if not new:
            return slots, outcomes
        slots.extend(new)
        for slot in new:
            outcomes[slot.index] = play_match(plan, slot)
            if progress is not None:
                progress(len(outcomes), total)


def result_json(plan: Plan, slots: list[Slot], outcomes: dict[int, Outcome]) -> LocalResult:
    """The tournament's result in the API's form (with a count of void matches, which the API lists by status)."""
    counted = sum(1 for outcome in outcomes.values() if not outcome.void)
    return {
        "game": plan.game,
        "players": plan.players,
        "format": plan.format,
        "cooperative": plan.cooperative,
        "seed": plan.seed,
        "entrants": plan.numbered_entrants(),
        "progress": {"done": len(outcomes), "total": plan.total_matches(), "void": len(outcomes) - counted},
        **report(plan, slots, outcomes),
    }
