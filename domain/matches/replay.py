"""A finished match, step by step: the state after its first `step` log entries, rebuilt from the seed.

A step may be a resignation (no action): the state stays as it was, and at the last step the
result is the match's (`result_of`), a resignation's or a give-up's.

Only a match that is over is replayed: its seed is revealed and its whole log is public, so any
seat's view of any step is public too; a match still running would give away what its seats may
not see yet (the next cards come from the seed).

A match that is over never changes, so each process keeps the last few it replayed: their log and
the state every SNAPSHOT_EVERY steps. A step then costs at most that many plays from the snapshot
before it, not the whole match again (a random four-player Freeze Factory match runs to 2,000 moves,
about 0.2 s to replay in full).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TypedDict

from domain.matches.commands import game_of, is_move, moves_of, result_of
from engine import Game, GameState
from engine.protocol import View
from model.match import LogEntry, MatchRecord, ResultJson, result_json
from model.refusals import Conflict, NotFound
from store.matches import MatchStore

SNAPSHOT_EVERY = 32
"""Steps between the states kept of a replayed match."""
KEPT_MATCHES = 32
"""Replayed matches each process keeps (a few hundred KB at most)."""


@dataclass(frozen=True)
class Replayed:
    """A match that is over, replayed once: its log entries and its state (JSON text) every SNAPSHOT_EVERY steps."""

    entries: list[LogEntry]
    snapshots: list[str]


class ReplayCache:
    """The last KEPT_MATCHES matches replayed in this process, by id and version (a match over never changes)."""

    def __init__(self, size: int = KEPT_MATCHES) -> None:
        self.size = size
        self.kept: OrderedDict[tuple[str, int], Replayed] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, store: MatchStore, record: MatchRecord, game: Game) -> Replayed:
        """The match replayed: kept, or replayed now (the engine's checked path) and kept."""
        key = (record.id, record.version)
        with self.lock:
            if key in self.kept:
                self.kept.move_to_end(key)
                return self.kept[key]
        replayed = replay_whole(store, record, game)
        with self.lock:
            self.kept[key] = replayed
            while len(self.kept) > self.size:
                self.kept.popitem(last=False)
        return replayed


CACHE = ReplayCache()


def replay_whole(store: MatchStore, record: MatchRecord, game: Game) -> Replayed:
    """Replay the whole log from the seed, keeping the state every SNAPSHOT_EVERY steps."""
    entries = store.log_page(record.id, 0, max(record.version, 1), record.version).entries
    state = game.start(record.players, record.options, record.seed)
    snapshots = [json.dumps(state.to_json())]
    for step, entry in enumerate(entries, start=1):
        if is_move(entry):
            state.play(entry["seat"], entry["action"])
        if step % SNAPSHOT_EVERY == 0:
            snapshots.append(json.dumps(state.to_json()))
    return Replayed(entries, snapshots)


def state_at(game: Game, replayed: Replayed, step: int) -> GameState:
    """The state after `step` entries: the snapshot before it, played on."""
    base = step // SNAPSHOT_EVERY
    state = game.state_from_json(json.loads(replayed.snapshots[base]))
    for seat, action in moves_of(replayed.entries[base * SNAPSHOT_EVERY : step]):
        state.play(seat, action)
    return state


class ReplayJson(TypedDict):
    """A match that is over, after its first `step` log entries, as one viewer saw it (`replay_json`)."""

    id: str
    game: str
    step: int
    steps: int
    viewer: int | None
    entry: LogEntry | None  # the log entry of this step (None at step 0)
    to_act: list[int]
    result: ResultJson | None
    view: View
    seed: str
    seed_commitment: str


def replay_json(store: MatchStore, record: MatchRecord, step: int, viewer: int | None) -> ReplayJson:
    """The match after its first `step` actions as `viewer` (a seat, or None for the public) saw it."""
    if not record.ended:
        raise Conflict("match-not-over", "a match is replayed once it is over (its seed is still secret)")
    if viewer is not None and viewer >= record.players:
        raise NotFound(f"the match has no seat {viewer}")
    game = game_of(record)
    replayed = CACHE.get(store, record, game)
    entries = replayed.entries
    if step > len(entries):
        raise NotFound(f"the match has {len(entries)} steps; there is no step {step}")
    state = state_at(game, replayed, step)
    # A resignation or give-up ends the match at its last step, outside the rules the state follows.
    result = result_of(record, state) if step == len(entries) else state.result()
    return {
        "id": record.id,
        "game": record.game,
        "step": step,
        "steps": len(entries),
        "viewer": viewer,
        "entry": entries[step - 1] if step else None,
        "to_act": [] if result else list(state.acting_seats()),
        "result": result_json(result) if result else None,
        "view": state.view(viewer),
        "seed": record.seed,
        "seed_commitment": record.seed_commitment,
    }
