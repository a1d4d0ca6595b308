"""Matchmaking when idle: a ticket in each configured pool while the bot has no match and no challenge, joined
again when it expires, cancelled when the bot gets busy or stops. A paired ticket's match comes to the bot
as an ordinary `match-started` event. After a match the bot rests (`matchmaking_rest` seconds) before it
joins again, so two idle bots do not play each other without pause."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable

import httpx
from parlour_client import Client, MatchmakingTicket, ProblemError

from parlour_bot.config import Pool
from parlour_bot.state import StateDir

log = logging.getLogger("parlour_bot")

WAIT = 25.0
"""Seconds a ticket's long-poll waits for a change."""
PAUSE = 2.0
"""Seconds before a failed join or follow is tried again."""


class Matchmaker:
    """The bot's tickets, one per pool at most, each followed by a thread of its own."""

    def __init__(
        self, client: Client, pools: tuple[Pool, ...], state: StateDir, idle: Callable[[], bool], rest: float = 0.0
    ) -> None:
        self.client = client
        self.pools = pools
        self.state = state
        self.idle = idle
        self.rest = rest
        self.busy = False  # the bot had a match or a challenge when last asked
        self.rest_until = 0.0  # time.monotonic() before which an idle bot does not join
        self.waking: threading.Timer | None = None
        self.tickets: dict[Pool, str] = {}
        self.lock = threading.Lock()
        self.enabled = bool(pools)
        self.stopping = threading.Event()

    def update(self) -> None:
        """Join every pool when the bot is idle; cancel every ticket when it is not."""
        if not self.enabled or self.stopping.is_set():
            return
        if not self.idle():
            self.busy = True
            self.cancel_all()
            return
        if self.busy:  # idle again after a match: rest first
            self.busy = False
            self.rest_until = time.monotonic() + self.rest
            if self.rest > 0:
                log.info("matchmaking: resting %g s before joining the pools again", self.rest)
        resting = self.rest_until - time.monotonic()
        if resting > 0:
            self.wake_after(resting)
            return
        for pool in self.pools:
            self.join(pool)

    def wake_after(self, seconds: float) -> None:
        """Look again once the rest is over (one timer at a time)."""
        with self.lock:
            if self.waking is not None:
                self.waking.cancel()
            self.waking = threading.Timer(seconds, self.update)
            self.waking.daemon = True
            self.waking.start()

    def join(self, pool: Pool) -> None:
        """Hold a ticket in `pool` (the waiting one if the server already has it)."""
        with self.lock:
            if pool in self.tickets:
                return
            try:
                ticket = self.client.join_matchmaking(pool.game, pool.players, rated=pool.rated)
            except ProblemError as error:
                if error.status in (404, 405):
                    log.warning("matchmaking: this server has none (%s); the pools are ignored", error.code)
                    self.enabled = False
                else:
                    log.warning("matchmaking: joining %s for %s failed: %s", pool.game, pool.players, error)
                return
            except httpx.TransportError as error:
                log.warning("matchmaking: joining %s failed: %s", pool.game, error)
                return
            self.tickets[pool] = ticket["id"]
            self.save()
        log.info("matchmaking: waiting in the %s pool for %s (ticket %s)", pool.game, pool.players, ticket["id"])
        threading.Thread(target=self.follow, args=(pool, ticket), name=f"ticket-{ticket['id']}", daemon=True).start()

    def follow(self, pool: Pool, ticket: MatchmakingTicket) -> None:
        """Long-poll the ticket until it is no longer waiting: matched (its match comes as an event), or expired
        (joined again while still idle), or cancelled."""
        while not self.stopping.is_set() and self.tickets.get(pool) == ticket["id"]:
            try:
                ticket = self.client.matchmaking_ticket(ticket["id"], wait=WAIT)
            except (ProblemError, httpx.TransportError) as error:
                log.warning("matchmaking: following ticket %s failed: %s", ticket["id"], error)
                self.stopping.wait(PAUSE)
                continue
            if ticket["status"] == "waiting":
                continue
            with self.lock:
                if self.tickets.get(pool) == ticket["id"]:
                    del self.tickets[pool]
                    self.save()
            if ticket["status"] == "matched":
                log.info("matchmaking: paired in match %s (seat %s)", ticket["match"], ticket["seat"])
            elif ticket["status"] == "expired":
                log.info("matchmaking: ticket %s expired; joining again while idle", ticket["id"])
                self.update()
            return

    def cancel_all(self) -> None:
        """Cancel every ticket held (a ticket already paired or ended is simply dropped)."""
        with self.lock:
            held, self.tickets = dict(self.tickets), {}
            self.save()
        for pool, ticket_id in held.items():
            try:
                self.client.cancel_matchmaking(ticket_id)
                log.info("matchmaking: left the %s pool (ticket %s)", pool.game, ticket_id)
            except (ProblemError, httpx.TransportError) as error:
                log.debug("matchmaking: cancelling ticket %s: %s", ticket_id, error)

    def cancel_saved(self) -> None:
        """Cancel the tickets a previous run left on disk (it was killed before it could)."""
        for ticket_id in self.state.tickets():
            with contextlib.suppress(ProblemError, httpx.TransportError):
                self.client.cancel_matchmaking(ticket_id)
        self.state.save_tickets({})

    def stop(self) -> None:
        """A clean stop: cancel the tickets held."""
        self.stopping.set()
        with self.lock:
            if self.waking is not None:
                self.waking.cancel()
        self.cancel_all()

    def save(self) -> None:
        """Keep the tickets on disk (called with the lock held)."""
        self.state.save_tickets({ticket: pool.game for pool, ticket in self.tickets.items()})
