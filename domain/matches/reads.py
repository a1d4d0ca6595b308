"""The read path's answers, built once per (match, version, viewer) in each process.

A stored version of a match never changes (every write is a new version), so what one viewer sees
of it, and what one seat may do at it, can be built once and kept: polling clients, spectators and
this process's event streams share them, and reading a kept answer does no engine work (no state
parsed, no view, no legal actions, no JSON written).
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable

from domain.matches import commands
from engine import GameState
from model import codec as jsoncodec
from model.match import MatchRecord
from model.tokens import Credential

READS_KEPT = 512
"""Answers a process keeps, the least recently read forgotten first (a few KB each)."""
Key = tuple[str, int, int | None, str]
"""(match id, version, viewer or seat, what was read)."""
StateOf = Callable[[], GameState]
"""The record's engine state, parsed when first asked for (a kept answer needs none)."""


def state_of(record: MatchRecord) -> StateOf:
    """The record's engine state, parsed at most once, and only if an answer must be built."""
    return functools.cache(lambda: commands.engine_state(record))


class Reads:
    """The JSON answers of recent reads, kept per (match, version, viewer, kind)."""

    def __init__(self, size: int = READS_KEPT) -> None:
        self.size = size
        self._kept: OrderedDict[Key, str] = OrderedDict()
        self._lock = threading.Lock()

    def match(
        self, record: MatchRecord, viewer: int | None, token: Credential | None = None, state: StateOf | None = None
    ) -> str:
        """The match as the viewer sees it (`commands.match_json`), as JSON text.

        `token`, the viewer's checked token, adds its rematch token: kept per viewer all the same, since a seat
        has one token at a time, and none changes once the match is over (no seat is left or resigned then).
        `state`: the record's state when the caller shares it (`state_of`).
        """
        state = state or state_of(record)
        return self._answer(
            (record.id, record.version, viewer, "match"),
            lambda: commands.match_json(record, state(), viewer, token),
        )

    def legal_actions(self, record: MatchRecord, seat: int, state: StateOf | None = None) -> str:
        """What the seat may do at this version (`commands.legal_actions_json`), as JSON text."""
        state = state or state_of(record)
        return self._answer(
            (record.id, record.version, seat, "legal-actions"),
            lambda: commands.legal_actions_json(record, state(), seat),
        )

    def seat_match(self, record: MatchRecord, seat: int, token: Credential | None = None) -> str:
        """The match as the seat sees it with its legal actions (`commands.seat_match_json`), as JSON text: both
        parts kept, so a seat's read and its stream's event at one version work them out once."""
        state = state_of(record)
        match = self.match(record, seat, token, state)
        return f'{match[:-1]},"legal_actions":{self.legal_actions(record, seat, state)}}}'

    def _answer(self, key: Key, build: Callable[[], object]) -> str:
        """The kept answer, or a new one built (a JSON value) and kept."""
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None:
                self._kept.move_to_end(key)
                return kept
        text = jsoncodec.dumps(build())
        with self._lock:
            self._kept[key] = text
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return text
