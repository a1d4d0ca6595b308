"""Play a tournament in this process: the engine and `ai.levels`, no server, no Redis.

Matches are played one after another with the same plan, schedule and match seeds the server
would use. Only built-in AI levels can enter (a bot needs the server). Seats that may act out of
turn (a FREEZE! claim) act first; where several seats must act at once (Rock'em Sock'em) a seeded
draw picks which one acts first, as in `ai.strength`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from ai.levels import choose
from engine import get_game
from engine.protocol import GameState
from engine.rng import Rng
from tournaments.plan import Outcome, Plan, Slot, next_slots

MAX_ACTIONS = 5000
"""Actions after which a local match is stopped and counted void (no game needs that many with a turn limit)."""

Progress = Callable[[int, int], None]
"""Called after each match with (matches done, matches in all)."""


def play_match(plan: Plan, slot: Slot) -> Outcome:
    """Play one planned match to its end with each seat's AI level."""
    game = get_game(plan.game)
    assert game is not None, f"unknown game {plan.game}"
    seed = plan.match_seed(slot.index)
    state = game.start(plan.players, plan.options, seed)
    levels = [plan.entrants[entrant].level for entrant in slot.seats]
    if not play_out(state, levels, seed):
        return Outcome(slot.index, [], void=True)
    result = state.result()
    assert result is not None
    return Outcome(slot.index, [list(group) for group in result.ranking], result.team_success)


def play_out(state: GameState, levels: list[str | None], seed: str) -> bool:
    """Play until the game is over (True) or MAX_ACTIONS actions were played (False)."""
    order = Rng.from_seed(f"order:{seed}")
    for step in range(MAX_ACTIONS):
        if state.is_over():
            return True
        waiting = state.waiting_for()
        claimers = [s for s in state.acting_seats() if s not in waiting and state.legal_actions(s)]
        seat = claimers[0] if claimers else order.choice(list(waiting))
        level = levels[seat]
        assert level is not None, "only AI levels play locally"
        state.play(seat, choose(state, seat, level, ai_seed(seed, seat, step, level)))
    return state.is_over()


def ai_seed(match_seed: str, seat: int, version: int, level: str) -> str:
    """A move's search seed, as the server's AI workers draw it (`workers.jobs.ai_seed`)."""
    return hashlib.sha256(f"parlour-ai:{match_seed}:{seat}:{version}:{level}".encode()).hexdigest()


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
