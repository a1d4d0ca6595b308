"""The WebSocket transport (`GET /v1/socket`): one connection carrying a seat's or a bot's events and its actions.

It needs the `socket` extra (`pip install 'parlour-client[socket]'`: websocket-client). `Socket` is an
iterator of the same events the stream gives (`Event`: id, name, data), and `act` plays an action as
`Client.act` does, answered by the same body or `ProblemError`. A connection that drops, or that the
server closes to be resumed (shutting down, store away, lagging), is opened again with `after` (the last
event's id), so no event is missed or repeated, and an action in flight is sent again under its
idempotency key, so it is applied once. See the guide's WebSocket page for every message.
"""

from __future__ import annotations

import json
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, cast

from parlour_client.errors import ProblemError
from parlour_client.models import Action, LegalActions, Match
from parlour_client.sse import Event

RESUMABLE = frozenset({1001, 1006, 1011, 4000})
"""Close codes after which the socket is opened again: going away, lost, the store away, lagging."""


class SocketClosed(Exception):
    """The server closed the socket for good (the match ended, or it refused the socket)."""

    def __init__(self, code: int | None, reason: str) -> None:
        super().__init__(f"the socket closed: {code} {reason}")
        self.code = code
        self.reason = reason


class Socket(Iterator[Event]):
    """One seat's (a seat token) or one bot's (a bot token) socket: its events, and its actions.

    A bot's socket follows the bot's own events, or one match it sits in when `match` is given.
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        match: str | None = None,
        seat: int | None = None,
        after: int | None = None,
        timeout: float = 30.0,
        attempts: int = 5,
    ) -> None:
        self.url = base_url.rstrip("/").replace("http", "ws", 1) + "/v1/socket"
        self.token = token
        self.match = match
        self.seat = seat
        self.last_event_id = after
        self.timeout = timeout
        self.attempts = attempts
        self.reconnects = 0
        self.welcome: dict[str, Any] = {}
        self.latest_legal: LegalActions | None = None
        """The seat's legal actions as the newest event or answer gave them (None before any)."""
        self.ended = False
        self._events: deque[Event] = deque()
        self._answers: dict[str, dict[str, Any]] = {}
        self._refusal: ProblemError | None = None
        self._ws: Any = None
        self._open()

    # --- the connection -------------------------------------------------------------------------
    def _open(self) -> None:
        import websocket

        self._ws = websocket.create_connection(self.url, timeout=self.timeout)
        hello: dict[str, Any] = {"type": "hello", "token": self.token}
        for name, value in (("after", self.last_event_id), ("match", self.match), ("seat", self.seat)):
            if value is not None:
                hello[name] = value
        self._ws.send(json.dumps(hello))
        first = self._message()
        if first is None or first["type"] != "welcome":
            raise self._refusal or SocketClosed(None, "no welcome")
        self.welcome = first

    def _message(self) -> dict[str, Any] | None:
        """The next message off the connection (heartbeats skipped); None once it closed (`_closed_with` says how)."""
        import websocket

        while True:
            try:
                opcode, data = self._ws.recv_data(control_frame=True)
            except (websocket.WebSocketException, OSError):
                self._closed_with: tuple[int | None, str] = (1006, "connection lost")
                return None
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                code = int.from_bytes(data[:2], "big") if len(data) >= 2 else None
                self._closed_with = (code, data[2:].decode(errors="replace"))
                return None
            if opcode != websocket.ABNF.OPCODE_TEXT:
                continue
            message = cast(dict[str, Any], json.loads(data))
            if message["type"] == "problem" and message.get("ref") is None:
                problem = message["problem"]
                self._refusal = ProblemError.from_answer(int(problem.get("status", 0)), problem)
            if message["type"] != "heartbeat":
                return message

    def _read(self) -> bool:
        """Read one message and keep it (an event for iteration, an answer for `act`); reconnect after a close
        to resume. False once the socket closed for good."""
        message = self._message()
        if message is None:
            return self._reopen()
        kind = message["type"]
        if kind == "event":
            event = Event(message["id"], message["event"], message["data"])
            if event.id is not None:
                self.last_event_id = event.id
            self._keep_legal(event.data)
            self._events.append(event)
        elif kind in ("result", "problem", "pong") and message.get("ref") is not None:
            self._answers[str(message["ref"])] = message
        return True

    def _reopen(self) -> bool:
        code, reason = self._closed_with
        self._ws.close()
        if code not in RESUMABLE:
            self.ended = True
            return False
        for _ in range(self.attempts):
            self.reconnects += 1
            try:
                self._open()
                return True
            except (OSError, SocketClosed):
                continue
        raise SocketClosed(code, f"{reason}; not reopened after {self.attempts} attempts")

    def _keep_legal(self, data: Any) -> None:
        legal = data.get("legal_actions") if isinstance(data, dict) else None
        if legal is not None:
            self.latest_legal = cast(LegalActions, legal)

    def close(self) -> None:
        """Close the connection."""
        self.ended = True
        if self._ws is not None:
            self._ws.close()

    def __enter__(self) -> Socket:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # --- events ---------------------------------------------------------------------------------
    def __next__(self) -> Event:
        """The next event (the stream's `match`/`end`, or a bot's); StopIteration after `end` or the close."""
        while not self._events:
            if self.ended or not self._read():
                raise StopIteration
        event = self._events.popleft()
        if event.event == "end":
            self.ended = True
        return event

    # --- actions --------------------------------------------------------------------------------
    def act(
        self,
        action: Action,
        *,
        expected_version: int | None,
        match: str | None = None,
        seat: int | None = None,
        idempotency_key: str | None = None,
    ) -> Match:
        """Play one action (as `POST .../actions`): the answer, or `ProblemError` with the HTTP problem. A bot
        following its own events names the `match`. Sent again under its key after a reconnection."""
        key = idempotency_key or str(uuid.uuid4())
        message: dict[str, Any] = {"type": "action", "ref": key, "action": action, "idempotency_key": key}
        if expected_version is not None:
            message["expected_version"] = expected_version
        if match is not None:
            message["match"] = match
        if seat is not None:
            message["seat"] = seat
        answer = self._ask(message, key)
        if answer["type"] == "problem":
            problem = answer["problem"]
            raise ProblemError.from_answer(int(problem.get("status", 0)), problem)
        body = cast(Match, answer["answer"])
        self._keep_legal(body)
        return body

    def _ask(self, message: dict[str, Any], ref: str) -> dict[str, Any]:
        text = json.dumps(message)
        self._send(text)
        reconnects = self.reconnects
        while ref not in self._answers:
            if not self._read():
                raise self._refusal or SocketClosed(*self._closed_with)
            if self.reconnects != reconnects:  # reopened: the message may not have arrived; its key applies it once
                reconnects = self.reconnects
                self._send(text)
        return self._answers.pop(ref)

    def _send(self, text: str) -> None:
        """Send a message; on a connection found lost, open it again (resuming) and send it there."""
        import websocket

        for _ in range(self.attempts):
            try:
                self._ws.send(text)
                return
            except (websocket.WebSocketException, OSError):
                self._closed_with = (1006, "connection lost")
                if not self._reopen():
                    raise SocketClosed(*self._closed_with) from None
        raise SocketClosed(1006, f"not sent after {self.attempts} attempts")

    def play_turn(
        self,
        choose: Callable[[LegalActions], Action],
        *,
        legal: LegalActions | None = None,
        match: str | None = None,
        attempts: int = 5,
    ) -> Match | None:
        """Play the seat's action if it may act, from `legal` or the newest legal actions the socket received;
        on `stale-version`, wait for the next event's and choose again. None when it may not act."""
        for _ in range(attempts):
            legal = legal or self.latest_legal
            while legal is None:
                if not self._read():
                    raise self._refusal or SocketClosed(*self._closed_with)
                legal = self.latest_legal
            if not legal["may_act"]:
                return None
            try:
                return self.act(choose(legal), expected_version=legal["version"], match=match)
            except ProblemError as error:
                if error.code != "stale-version":
                    raise
            stale = legal["version"]
            legal = None
            while self.latest_legal is None or self.latest_legal["version"] <= stale:
                if not self._read():
                    raise self._refusal or SocketClosed(*self._closed_with)
        raise ProblemError(409, "stale-version", f"the match moved on {attempts} times while this seat chose")


def open_socket(
    base_url: str, token: str, *, match: str | None = None, seat: int | None = None, after: int | None = None
) -> Socket | None:
    """A `Socket` if it can be had: None when websocket-client is not installed or the server has no socket
    (then the stream and HTTP do the same work). A refused hello raises its `ProblemError`."""
    try:
        import websocket
    except ImportError:
        return None
    try:
        return Socket(base_url, token, match=match, seat=seat, after=after)
    except websocket.WebSocketBadStatusException:
        return None
