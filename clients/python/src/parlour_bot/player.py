"""One match's seats, played in a thread of their own: woken by the bot's events, each turn played with the
client's `play_turn` (the version rule, simultaneous seats), the engine given its time budget. A move costs one
request: the legal actions come with the `your-turn` event and with the answer to the seat's previous action
(and the view, for an engine that wants it, with that answer too). On the bot's WebSocket (`channel`, when
the runner has one open) the action goes as a message on it instead of a POST."""

from __future__ import annotations

import json
import logging
import queue
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx
from parlour_client import Action, Client, LegalActions, Match, ProblemError

from parlour_bot.channel import BotChannel, SocketClosed
from parlour_bot.engines import Engine, RandomEngine, call_hook
from parlour_bot.state import StateDir

log = logging.getLogger("parlour_bot")

DEADLINE_MARGIN = 1.5
"""Seconds kept free before a turn timer runs out: for the action's round trip."""
RETRY_AFTER_FAILURE = 2.0
"""Seconds before a seat whose turn failed on a busy or unreachable server is tried again."""
NOT_NOW = frozenset({"stale-version", "not-your-turn", "match-over", "match-not-active", "match-not-started"})
"""Refusals that only say the turn went by: not the bot's mistake."""


@dataclass
class Tally:
    """What the bot did, for the log and `parlour-bot check`: moves, refusals and the engine's troubles."""

    moves: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    engine_errors: int = 0
    over_budget: int = 0
    turn_failures: int = 0
    crashes: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, name: str, code: str | None = None) -> None:
        """Count one thing (a refusal by its code)."""
        with self.lock:
            if name == "refused":
                self.refused[code or "?"] += 1
            else:
                setattr(self, name, getattr(self, name) + 1)


@dataclass
class Seats:
    """What the player needs from its runner: the client, the engine, its budget, the state and the tally, and
    the bot's socket while the runner has one open (None: actions go by POST)."""

    client: Client
    engine: Engine
    move_budget: float
    state: StateDir
    tally: Tally
    channel: BotChannel | None = None


class MatchPlayer(threading.Thread):
    """Plays the bot's seats of one match whenever woken, until the match is over."""

    def __init__(self, seats: Seats, match_id: str, game: str) -> None:
        super().__init__(name=f"match-{match_id}", daemon=True)
        self.ctx = seats
        self.match_id = match_id
        self.game = game
        self.seats: set[int] = set()
        self.deadlines: dict[int, float | None] = {}
        self.fallback = RandomEngine(random.randrange(2**32))
        self._wakes: queue.SimpleQueue[bool] = queue.SimpleQueue()
        self._over = threading.Event()
        self.started_hook = False
        self.known: dict[int, LegalActions] = {}
        """Each seat's legal actions as last told (an event's, or the answer to its action): no read for them."""
        self.seen: dict[int, Match] = {}
        """Each seat's view of the match as the answer to its last action gave it (the engine's view, unread)."""
        self._known_lock = threading.Lock()

    def wake(self, seat: int | None = None, deadline: str | None = None, legal: LegalActions | None = None) -> None:
        """Ask the player to look at its seats again (`seat` joins them; `deadline` is its turn timer's; `legal`
        its legal actions, as the `your-turn` event carries them: none makes the player read them)."""
        if seat is not None:
            self.seats.add(seat)
            self.deadlines[seat] = parse_deadline(deadline)
            self.tell(seat, legal)
        self._wakes.put(True)

    def tell(self, seat: int, legal: LegalActions | None) -> None:
        """Keep the seat's legal actions unless newer ones are known (events and answers may cross); None
        forgets them, so the next look reads them."""
        with self._known_lock:
            known = self.known.get(seat)
            if legal is None:
                self.known.pop(seat, None)
            elif known is None or legal["version"] >= known["version"]:
                self.known[seat] = legal

    def finish(self) -> None:
        """The match is over: stop playing it."""
        self._over.set()
        self._wakes.put(False)

    def run(self) -> None:
        try:
            self.hook("on_start")
            while not self._over.is_set():
                self._wakes.get()
                while not self._wakes.empty():
                    self._wakes.get()  # one look serves every wake queued meanwhile
                if self._over.is_set():
                    return
                for seat in sorted(self.seats):
                    self.play_seat(seat)
        except Exception:  # a player must never take the runner down
            log.exception("match %s: the player stopped", self.match_id)
            self.ctx.tally.add("crashes")

    def hook(self, name: str, *args: Any) -> None:
        """Call the engine's `on_start(match)`, once, when it has one."""
        if name == "on_start" and (self.started_hook or not hasattr(self.ctx.engine, "on_start")):
            return
        self.started_hook = True
        try:
            call_hook(self.ctx.engine, name, self.ctx.client.match(self.match_id, seat=min(self.seats, default=None)))
        except Exception:
            log.exception("match %s: the engine's %s failed", self.match_id, name)
            self.ctx.tally.add("engine_errors")

    def play_seat(self, seat: int) -> None:
        """Play the seat's turns while it may act (a turn may be several actions)."""
        client, fallback_next = self.ctx.client, False
        with self._known_lock:
            legal: LegalActions | None = self.known.pop(seat, None)
        while not self._over.is_set():
            chosen: list[tuple[LegalActions, Action]] = []

            def choose(
                legal: LegalActions, fallback: bool = fallback_next, chosen: list[tuple[LegalActions, Action]] = chosen
            ) -> Action:
                action = self.fallback.choose(self.game, None, legal) if fallback else self.decide(seat, legal)
                chosen.append((legal, action))
                return action

            channel = self.ctx.channel
            try:
                if channel is not None:
                    played = channel.play_match_turn(
                        self.match_id, choose, seat=seat, game=self.game, legal=legal, client=client
                    )
                else:
                    played = client.play_turn(self.match_id, None, choose, seat=seat, game=self.game, legal=legal)
            except ProblemError as error:
                if error.code in NOT_NOW:
                    return
                self.ctx.tally.add("refused", error.code)
                if error.code == "illegal-action" and not fallback_next:
                    log.error(
                        "match %s seat %s: the engine's action was refused: %s", self.match_id, seat, error.detail
                    )
                    fallback_next = True  # play this turn with a random legal action instead
                    legal = chosen[-1][0] if chosen else None  # still the seat's: a refusal changes nothing
                    continue
                log.warning("match %s seat %s: the turn failed: %s; trying again shortly", self.match_id, seat, error)
                self.retry_later()
                return
            except (httpx.TransportError, httpx.StreamError, SocketClosed) as error:
                log.warning(
                    "match %s seat %s: the server is unreachable (%s); trying again shortly", self.match_id, seat, error
                )
                self.retry_later()
                return
            if played is None:
                if legal is not None and not legal["may_act"]:  # an event older than this is no reason to read
                    self.tell(seat, legal)
                return
            used, action = chosen[-1]
            version = used["version"]
            legal = played.get("legal_actions")  # the seat's next choices: no read for them
            self.seen[seat] = played
            self.ctx.state.record_move(self.match_id, seat, version, action)
            self.ctx.tally.add("moves")
            fallback_next = False
            log.debug("match %s seat %s v%s: %s", self.match_id, seat, version, json.dumps(action))

    def retry_later(self) -> None:
        """Wake again after a pause (a busy or restarting server): no turn is left to its event alone."""
        self.ctx.tally.add("turn_failures")
        timer = threading.Timer(RETRY_AFTER_FAILURE, self.wake)
        timer.daemon = True
        timer.start()

    def decide(self, seat: int, legal: LegalActions) -> Action:
        """The engine's action within its budget; a random legal one when it fails or runs out of time."""
        engine = self.ctx.engine
        in_match = getattr(engine, "choose_in_match", None)
        match: dict[str, Any] | None = None
        if in_match is not None or getattr(engine, "wants_view", True):
            seen = self.seen.get(seat)
            # The answer to the seat's last action shows the match at the version it decides on: no read then.
            fresh = seen is not None and seen["version"] == legal["version"]
            match = dict(seen if fresh and seen is not None else self.ctx.client.match(self.match_id, seat=seat))
        view = match["view"] if match is not None else None
        budget = self.ctx.move_budget
        deadline = self.deadlines.get(seat)
        if deadline is not None:
            budget = max(0.1, min(budget, deadline - time.time() - DEADLINE_MARGIN))
        answer: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()

        def think() -> None:
            try:
                if in_match is not None and match is not None:
                    answer.put((True, in_match(match, legal)))
                else:
                    answer.put((True, engine.choose(self.game, view, legal)))
            except BaseException as error:
                answer.put((False, error))

        threading.Thread(target=think, name=f"engine-{self.match_id}", daemon=True).start()
        try:
            ok, value = answer.get(timeout=budget)
        except queue.Empty:
            log.warning(
                "match %s seat %s: the engine took over %.1f s; playing a random legal action",
                self.match_id,
                seat,
                budget,
            )
            self.ctx.tally.add("over_budget")
            return self.fallback.choose(self.game, view, legal)
        if not ok:
            log.error(
                "match %s seat %s: the engine failed: %r; playing a random legal action", self.match_id, seat, value
            )
            self.ctx.tally.add("engine_errors")
            return self.fallback.choose(self.game, view, legal)
        if not isinstance(value, dict):
            log.error("match %s seat %s: the engine answered %r, not an action object", self.match_id, seat, value)
            self.ctx.tally.add("engine_errors")
            return self.fallback.choose(self.game, view, legal)
        return value


def parse_deadline(deadline: str | None) -> float | None:
    """A turn timer's deadline as a Unix time (None without one)."""
    if not deadline:
        return None
    try:
        return datetime.fromisoformat(deadline).timestamp()
    except ValueError:
        return None
