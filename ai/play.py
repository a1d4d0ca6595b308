"""Who acts next, the one play-out loop and the AI's seed: shared by local play, the benchmarks and the searchers.

A seat the game does not wait for but that has a legal action now (a FREEZE! claim) acts first,
the lowest such seat first. Otherwise:

* In a game being played (`next_actor`, `play_out`) a seeded draw picks one of the seats the game
  waits for: where several must act at once (Rock'em Sock'em) no order is the right one, and a draw
  from the match's own seed plays the same way every time. Each of those seats has an action (the
  conformance suite checks it), so the draw does not look at their actions.
* In a search tree (`next_mover`) one seat moves per node and nothing is drawn: a claimer is asked
  once and may PASS (only the tree's bookkeeping: it is not asked again until the next real
  action, and a claim does not move the turn order on); else the seat waited for after the seat
  that last moved in turn moves, cyclically, lowest first. Rock'em rounds ask seat 0 then seat 1
  (so the tree's seat 1 sees seat 0's keep, the usual sequentialization of a simultaneous step);
  realtime Rock'em alternates the two racers.

`ai_seed` is the seed of one AI move on the server (`workers.jobs`) and in local play alike, so a
tournament played either way with the same seed plays the same moves.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.protocol import has_action
from engine.rng import Rng

if TYPE_CHECKING:
    from engine.protocol import Action, GameState

PASS = "pass"
"""The tree-only action of a seat that lets a claim window go by."""

Mover = Callable[["GameState", int, int], "Action"]
"""A seat's player in `play_out`: (state, seat, step) to its action; the step is the match's version."""


def ai_seed(match_seed: str, seat: int, version: int, level: str) -> str:
    """The search seed of a move: fixed per match, seat, version and level, unguessable without the match seed."""
    return hashlib.sha256(f"parlour-ai:{match_seed}:{seat}:{version}:{level}".encode()).hexdigest()


def claimer(state: GameState, waiting: tuple[int, ...], passed: frozenset[int] = frozenset()) -> int | None:
    """The lowest seat not in `waiting` nor `passed` that has an action now (a FREEZE! claim); None if none."""
    for seat in state.acting_seats():
        if seat not in waiting and seat not in passed and has_action(state, seat):
            return seat
    return None


def next_actor(state: GameState, order: Rng) -> int | None:
    """The seat that acts next in a game being played: a claimer first, else a draw with `order` among the seats
    waited for; None when nobody can act (the game is over)."""
    waiting = state.waiting_for()
    seat = claimer(state, waiting)
    if seat is not None:
        return seat
    return order.choice(waiting) if waiting else None


def next_mover(state: GameState, last: int | None, passed: frozenset[int]) -> tuple[int | None, bool]:
    """The seat that moves at a search node and whether it is an optional claim; None once over.

    `last`: the seat that last moved in turn (None at the root); `passed`: the claimers that let the
    window go by since the last real action.
    """
    if state.is_over():
        return None, False
    waiting = state.waiting_for()
    seat = claimer(state, waiting, passed)
    if seat is not None:
        return seat, True
    later = [seat for seat in waiting if last is None or seat > last]
    return (later[0] if later else waiting[0]), False


def play_out(state: GameState, mover: Mover, seed: str, max_actions: int) -> bool:
    """Play the mover's actions through the checked path until the game is over (True) or `max_actions` were played.

    Who acts is `next_actor` with an order drawn from `seed`; the mover gets the step (the version).
    """
    order = Rng.from_seed(f"order:{seed}")
    for step in range(max_actions):
        seat = next_actor(state, order)
        if seat is None:
            break
        state.play(seat, mover(state, seat, step))
    return state.is_over()
