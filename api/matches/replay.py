"""A finished match, step by step: the state after its first `step` log entries, rebuilt from the seed.

Only a match that is over is replayed: its seed is revealed and its whole log is public, so any
seat's view of any step is public too; a match still running would give away what its seats may
not see yet (the next cards come from the seed).
"""

from __future__ import annotations

from typing import Any

from api.matches.service import moves_of
from api.record import MatchRecord
from api.refusals import Conflict, NotFound
from api.store import MatchStore
from engine.registry import get_game


def replay_json(store: MatchStore, record: MatchRecord, step: int, viewer: int | None) -> dict[str, Any]:
    """The match after its first `step` actions as `viewer` (a seat, or None for the public) saw it."""
    if not record.ended:
        raise Conflict("match-not-over", "a match is replayed once it is over (its seed is still secret)")
    if viewer is not None and viewer >= record.players:
        raise NotFound(f"the match has no seat {viewer}")
    entries = store.log_page(record.id, 0, max(record.version, 1), record.version).entries
    if step > len(entries):
        raise NotFound(f"the match has {len(entries)} steps; there is no step {step}")
    game = get_game(record.game)
    assert game is not None, f"stored match of unregistered game {record.game}"
    state = game.replay(record.players, record.options, record.seed, moves_of(entries[:step]))
    result = state.result()
    return {
        "id": record.id,
        "game": record.game,
        "step": step,
        "steps": len(entries),
        "viewer": viewer,
        "entry": entries[step - 1] if step else None,
        "to_act": [] if result else list(state.acting_seats()),
        "result": result.to_json() if result else None,
        "view": state.view(viewer),
        "seed": record.seed,
        "seed_commitment": record.seed_commitment,
    }
