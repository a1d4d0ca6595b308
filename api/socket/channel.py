"""One socket's life: the hello that proves its token, the events pumped to it, and each message it sends.

The work is the HTTP layer's and the domain's, called as the routes call it: the token is checked by
`commands.authenticate` / `registration.check_bot_token` (again before every message), each message is
charged to the limits of `POST .../actions` in the holder's bucket (`api/limits.py`'s key: a socket
spends the same limit as its HTTP requests), an action is `commands.apply_action` with its
compare-and-set, the events are the streams of `domain/events` (the match's for a seat, the bot's for
a bot), and every refusal is the problem+json `api/problems.py` answers HTTP with.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

import redis
from flask import Response, copy_current_request_context, current_app, url_for
from simple_websocket import ConnectionClosed  # type: ignore[import-untyped]

from api.bots.views import resync
from api.current import ParlourApp, services
from api.http import load
from api.limits import ADDRESS, LIMITER, Limiter, client_address, proven_key
from api.matches.schemas import ActionRequest, ActionRequestSchema
from api.socket import protocol
from api.socket.outbox import Outbox
from domain.bots import registration
from domain.events.bot_stream import BotEventStream, snapshot
from domain.events.match_stream import EventStream
from domain.matches import commands
from domain.quotas import Lease
from model.codec import dumps
from model.match import MatchRecord
from model.refusals import InvalidRequest, RateLimited, Unauthorized
from model.tokens import BotToken, Credential, SeatToken, parse_credential

log = logging.getLogger(__name__)

ACTIONS_ROUTE = "matches.post_action"
"""Every message after the hello spends the limits of `POST /v1/matches/{id}/actions`, in the same bucket."""
MATCH_STREAM_ROUTE = "events.match_events"
BOT_STREAM_ROUTE = "bots.bot_events"
"""The hello spends what opening the same stream over SSE spends."""
MAX_QUEUED_BYTES = 1024 * 1024
"""Bytes of messages a socket may have waiting to be sent before it counts as lagging (`SOCKET_MAX_QUEUED_BYTES`)."""
LAG_SECONDS = 30.0
"""Seconds one send, or the wait for the outbox to drain, may take before the socket counts as lagging."""
SEAT_LOST = frozenset(str(reason) for reason in commands.SeatLost)


@dataclass(frozen=True)
class Holder:
    """Who the socket's token proved to be: a seat of a match, or a bot (following one match, or its own events)."""

    token: Credential
    kind: str  # "seat" or "bot"
    match_id: str | None  # a seat's match; the match a bot follows, if it named one
    seat: int | None
    bot_id: str | None = None
    bot_token_hash: str | None = None


class Channel:
    """A socket from its hello to its close (run in the upgrade request's context, on its thread or greenlet)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.app: ParlourApp = services_app()
        settings = self.app.services.settings
        self.heartbeat = settings.events_heartbeat
        self.hello_seconds = settings.body_timeout
        self.max_message = settings.max_body_bytes
        config = self.app.config
        self.outbox = Outbox(
            ws, config.get("SOCKET_MAX_QUEUED_BYTES", MAX_QUEUED_BYTES), config.get("SOCKET_LAG_SECONDS", LAG_SECONDS)
        )
        self.limiter: Limiter | None = self.app.extensions.get(LIMITER)
        self.address = client_address()
        self.refused_until = 0.0  # monotonic time until which the holder's bucket is known spent
        self.holder: Holder | None = None
        self.lease: Lease | None = None
        self._closing = threading.Lock()
        self._handling = False  # a client message is being answered
        self._deferred_close: tuple[int, str] | None = None  # a close the stream asked for meanwhile

    def close_when_answered(self, code: int, reason: str) -> None:
        """Close once the message being answered (if any) has its answer: the move that ends a match gets its
        result, though the stream's `end` may come first."""
        with self._closing:
            if self._handling:
                self._deferred_close = self._deferred_close or (code, reason)
                return
        self.outbox.close(code, reason)

    # --- the socket's life ------------------------------------------------------------------------
    def run(self) -> None:
        """Hello, then the events and the client's messages until either side closes."""
        try:
            chunks = self.open()
            if chunks is None:
                return
            pump = threading.Thread(target=copy_current_request_context(self.pump), args=(chunks,), daemon=True)
            pump.name = "socket-pump"
            pump.start()
            while not self.outbox.closed:
                text = self.ws.receive(timeout=self.heartbeat)
                if text is None:
                    self.outbox.check_lag()
                    continue
                with self._closing:
                    self._handling = True
                try:
                    self.handle(text)
                finally:
                    with self._closing:
                        self._handling = False
                        deferred, self._deferred_close = self._deferred_close, None
                    if deferred is not None:
                        self.outbox.close(*deferred)
        except ConnectionClosed as closed:
            log.debug("socket closed by the client: %r", closed)
        finally:
            self.outbox.close(protocol.NORMAL, "")
            self.outbox.wait_closed(protocol_close_wait(self.heartbeat))
            if self.lease is not None:
                self.lease.close()

    def open(self) -> Iterator[str | bytes] | None:
        """Read and check the hello; welcome the client and answer its events' chunks (None: refused and closing)."""
        text = self.ws.receive(timeout=self.hello_seconds)
        if text is None:
            self.refuse(None, InvalidRequest(f"no hello within {self.hello_seconds:g} s"), protocol.HELLO_TIMEOUT)
            return None
        try:
            hello = protocol.hello_of(protocol.parse(text))
            self.refuse_suspect()
            token = parse_credential(hello.token)
            if token is None or not isinstance(token, SeatToken | BotToken):
                raise Unauthorized("a socket's hello needs a seat or bot token")
            chunks = self.follow(token, hello)
            self.lease = services().quotas.streams.open(self.address)
        except Exception as error:  # every refusal is a problem, then the close
            self.refuse(None, error, None)
            return None
        holder = self.holder
        assert holder is not None
        self.outbox.put(
            protocol.welcome(holder.kind, holder.match_id, holder.seat, holder.bot_id, self.heartbeat, self.max_message)
        )
        return chunks

    def follow(self, token: SeatToken | BotToken, hello: protocol.Hello) -> Iterator[str | bytes]:
        """Check the token and name its holder; the stream its events come from (a match's, or the bot's)."""
        app = services()
        heartbeat = self.heartbeat
        if isinstance(token, BotToken) and hello.match is None:
            bot = registration.check_bot_token(app.store, token)
            self.holder = Holder(token, "bot", None, None, bot.id, bot.token_hash)
            self.charge(BOT_STREAM_ROUTE, "", None)
            resync(bot.id)
            opening = None
            after = hello.after
            if after is None:  # no cursor: what is true now, then new events (as the bot's SSE stream)
                opening = snapshot(app.store, app.tournaments, bot.id)
                after = opening.id
            return iter(BotEventStream(app.store.bots, app.changes, bot.id, bot.token_hash, after, heartbeat, opening))
        match_id = hello.match or (token.match_id if isinstance(token, SeatToken) else "")
        record = commands.load_match(app.store, match_id)
        seat = commands.authenticate(app.store, record, token, hello.seat)
        assert seat is not None
        bot_id = token.bot_id if isinstance(token, BotToken) else None
        self.holder = Holder(token, "seat" if bot_id is None else "bot", record.id, seat, bot_id)
        self.charge(MATCH_STREAM_ROUTE, record.id, seat)
        log_url = url_for("matches.match_log", match_id=record.id)
        stream = EventStream(
            app.store, app.changes, app.renders, record.id, seat, hello.after, heartbeat, log_url, False, token
        )
        return iter(stream)

    def pump(self, chunks: Iterator[str | bytes]) -> None:
        """Send the stream's events as they come (each once the one before is sent); then close as it ended."""
        ended: dict[str, Any] | None = None
        try:
            for chunk in chunks:
                message = protocol.event_of_sse(chunk)
                if message is None:
                    continue
                if self.lease is not None:
                    self.lease.renew_if_due()
                if not self.outbox.put_when_drained(message):
                    return
                if message.startswith('{"type":"event","id":null,"event":"end"'):
                    ended = json.loads(message)["data"]
        except Exception as error:  # the stream failed: the client resumes with after
            log.warning("socket events ended: %r", error)
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()
        self.close_after_stream(ended)

    def close_after_stream(self, ended: dict[str, Any] | None) -> None:
        """The stream ended: close as its reason says (a lost token is a 401 problem first)."""
        if self.outbox.close_code is not None:
            return
        if services().changes.stopping:
            self.close_when_answered(protocol.GOING_AWAY, "the server is stopping: reconnect and resume with after")
            return
        lost = ended["reason"] if ended is not None and ended["reason"] in SEAT_LOST else None
        if ended is None and self.bot_token_rotated():
            lost = "token-rotated"
        if lost is not None:
            self.refuse(None, Unauthorized(f"the token no longer acts here: {lost}"), protocol.UNAUTHORIZED)
        elif ended is not None:
            self.close_when_answered(protocol.NORMAL, str(ended["reason"]))
        else:
            self.close_when_answered(protocol.INTERNAL_ERROR, "the events stopped: reconnect and resume with after")

    def bot_token_rotated(self) -> bool:
        """True when the socket follows a bot's own events and its token is no longer the bot's."""
        holder = self.holder
        if holder is None or holder.bot_id is None or holder.match_id is not None:
            return False
        try:
            return services().store.bots.token_hash(holder.bot_id) != holder.bot_token_hash
        except redis.RedisError:
            return False

    # --- each client message ----------------------------------------------------------------------
    def handle(self, text: str | bytes) -> None:
        """Answer one client message: a `result`, `pong` or `problem` (a lost token also closes the socket)."""
        message: dict[str, Any] | None = None
        ref = None
        try:
            try:
                message = protocol.parse(text)
                ref = protocol.ref_of(message)
            except InvalidRequest:
                self.recheck()
                raise
            if message["type"] == protocol.ACTION:
                self.act(message, ref)
                return
            self.recheck()
            if message["type"] == protocol.HELLO:
                raise InvalidRequest("this socket said hello already", errors={"type": ["hello once"]})
            self.outbox.put(protocol.pong(ref))
        except Exception as error:  # every refusal is a problem; only a lost token closes
            self.refuse(ref, error, protocol.UNAUTHORIZED if isinstance(error, Unauthorized) else None)

    def recheck(self) -> None:
        """Check the token again (a seat's against its match as stored now; a bot's against the bot), and charge
        the message to its holder's bucket."""
        holder = self.holder
        assert holder is not None
        store = services().store
        if holder.kind == "seat" or holder.match_id is not None:
            record = commands.load_match(store, holder.match_id or "")
            commands.authenticate(store, record, holder.token, holder.seat)
        else:
            assert isinstance(holder.token, BotToken)
            registration.check_bot_token(store, holder.token)
        self.charge(ACTIONS_ROUTE, holder.match_id or "", holder.seat)

    def act(self, message: dict[str, Any], ref: str | None) -> None:
        """Apply an action as `POST /v1/matches/{id}/actions` does: the same checks in the same order.

        An action chosen at a version this process holds (stored, or read for an event) is checked on it without
        reading the match (`commands.act_on_version`).
        """
        holder = self.holder
        assert holder is not None
        try:
            action: protocol.ActionMessage | None = protocol.action_of(message)
            malformed = None
        except InvalidRequest as error:
            action, malformed = None, error
        match_id = (action.match if action else None) or holder.match_id
        if match_id is None:
            self.recheck()
            raise malformed or InvalidRequest(
                "a bot's action names its match", errors={"match": ["required on a bot's socket"]}
            )
        app = services()
        charged = False

        def act_on(record: MatchRecord, on_commit: commands.OnCommit) -> commands.SeatMatchJson:
            nonlocal charged
            seat = commands.authenticate(app.store, record, holder.token, self.named_seat(action))
            assert seat is not None
            if not charged:  # a message is counted once, whichever version it was checked on
                self.charge(ACTIONS_ROUTE, record.id, seat)
                charged = True
            if malformed is not None or action is None:
                raise malformed or InvalidRequest("invalid action")
            fields = {"action": action.action, "expected_version": action.expected_version}
            body = cast(ActionRequest, load(ActionRequestSchema, fields))
            return commands.apply_action(
                app.store, record, seat, body["action"], body["expected_version"], action.idempotency_key, on_commit
            )

        held = app.renders.stored(match_id, action.expected_version) if action is not None else None
        answer = commands.act_on_version(
            held, lambda: commands.load_match(app.store, match_id), act_on, app.after_change
        )
        app.replication.confirm()  # acknowledged once replicated, as over HTTP (api/replication.py)
        self.outbox.put(protocol.result(ref, dumps(answer)))

    def named_seat(self, action: protocol.ActionMessage | None) -> int | None:
        """The seat the action is for: the one it names, else the socket's."""
        named = action.seat if action is not None else None
        return named if named is not None else self.holder.seat if self.holder is not None else None

    # --- limits and refusals ----------------------------------------------------------------------
    def charge(self, endpoint: str, match_id: str, seat: int | None) -> None:
        """Count one request of `endpoint` against the holder's buckets (keyed as HTTP keys them); 429 when spent."""
        limiter = self.limiter
        holder = self.holder
        if limiter is None or holder is None:
            return
        now = time.monotonic()
        if now < self.refused_until:  # known spent: refused without a count, until its window ends
            raise rate_limited(int(self.refused_until - now) + 1)
        try:
            windows = []
            for route in limiter.routes.get(endpoint, ()):
                if not route.applies():
                    continue
                who = self.address if route.by == ADDRESS else proven_key(holder.token, route.by, match_id, seat)
                windows += limiter.counters.count(route.items, route.scope, who, cost=1)
        except redis.RedisError as error:  # fail open, as the HTTP limits do
            log.warning("socket message not counted (%s): let through", error)
            return
        spent = next((window for window in windows if window.breached), None)
        if spent is not None:
            retry = max(1, spent.reset)
            self.refused_until = now + retry
            raise rate_limited(retry, f"at most {spent.item}")

    def refuse_suspect(self) -> None:
        """An address that sent failing tokens past its budget opens no socket (as its token requests are refused)."""
        limiter = self.limiter
        if limiter is None or self.address not in limiter.suspects:
            return
        try:
            windows = limiter.suspected_windows([])
        except redis.RedisError:
            return
        spent = next((window for window in windows if window.breached), None)
        if spent is not None:
            raise rate_limited(max(1, spent.reset), f"at most {spent.item}")

    def refuse(self, ref: str | None, error: Exception, close: int | None) -> None:
        """Send the problem HTTP would answer `error` with; close the socket if `close` (or at the hello) says so.

        A hello refused closes with 4000 + its status; a 401 counts against the address's budget, as over HTTP.
        """
        body, status = problem_of(error)
        self.outbox.put(protocol.problem(ref, body))
        if status == 401 and self.limiter is not None:
            self.limiter.count_auth_failure()
        if close is None and self.lease is None:  # refused at the hello
            close = protocol.close_code(status)
        if close is not None:
            self.close_when_answered(close, str(body.get("code", "")))


def rate_limited(retry_after: int, what: str = "") -> RateLimited:
    """The 429 refusal of a spent bucket, with its Retry-After."""
    detail = (
        f"too many requests of this kind: {what}; see retry_after" if what else "too many requests: see retry_after"
    )
    refusal = RateLimited(detail)
    refusal.retry_after = retry_after
    return refusal


def problem_of(error: Exception) -> tuple[dict[str, Any], int]:
    """The problem+json body and status the app's error handlers (api/problems.py) answer `error` with;
    `retry_after` in the body where HTTP sends a Retry-After header."""
    response = cast(Response, current_app.handle_user_exception(error))
    body: dict[str, Any] = json.loads(response.get_data())
    retry_after = response.headers.get("Retry-After")
    if retry_after is not None:
        body["retry_after"] = int(retry_after)
    return body, int(response.status_code)


def services_app() -> ParlourApp:
    """The app serving this socket."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    assert isinstance(app, ParlourApp)
    return app


def protocol_close_wait(heartbeat: float) -> float:
    """Seconds the handler waits for the writer to send what is queued and the close frame."""
    return max(5.0, 2 * heartbeat)
