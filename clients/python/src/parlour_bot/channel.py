"""The bot's WebSocket (`GET /v1/socket`), shared by the runner and its match players: the runner iterates
its events, each match player sends its actions on it, and a connection that drops is opened again with
`after` (the last event read), an action in flight sent again under its idempotency key.

`parlour_client.socket.Socket` reads one message at a time on the thread that asks; here several threads ask
at once, so one reads at a time and the others wait for what it finds (an event for the runner, an answer for
the player that waits for it: each reader tells every waiter after each message, so a player's answer read by
the runner wakes the player), and no one sends while the connection is being opened again."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable
from typing import Any

from parlour_client import Action, Client, LegalActions, Match, ProblemError
from parlour_client.client import Chooser, expected_version
from parlour_client.socket import Socket, SocketClosed
from parlour_client.sse import Event

__all__ = ["BotChannel", "SocketClosed", "open_channel"]


class BotChannel(Socket):
    """One bot's socket following its own events, safe to read and act on from several threads."""

    def __init__(self, base_url: str, token: str, *, after: int | None = None) -> None:
        self._told = threading.Condition()  # notified after each message read (and each reopening)
        self._reader = False  # a thread is reading (or reopening): the others wait to be told
        self._sending = threading.Lock()  # no send while the connection is opened again
        super().__init__(base_url, token, after=after)

    # --- one reader at a time ---------------------------------------------------------------------
    def _pump(self, ready: Callable[[], bool]) -> bool:
        """Until `ready()`: read a message when no other thread is reading, else wait to be told of the one it
        reads. False once the socket is closed for good."""
        with self._told:
            while not ready():
                if self.ended:
                    return False
                if self._reader:
                    self._told.wait()
                    continue
                self._reader = True
                self._told.release()
                try:
                    read = super()._read()
                finally:
                    self._told.acquire()
                    self._reader = False
                    self._told.notify_all()
                if not read:
                    return ready()
            return True

    def _reopen(self) -> bool:
        import websocket

        with self._sending:
            if self.ended:  # stopped: the close was ours
                return False
            try:
                return super()._reopen()
            except SocketClosed:  # not reopened after its attempts
                self.ended = True
                raise
            except websocket.WebSocketException as error:  # refused on the way (a 503 while the store is away)
                self.ended = True
                raise SocketClosed(None, f"not reopened: {error}") from error

    def __next__(self) -> Event:
        if not self._pump(lambda: bool(self._events)):
            raise StopIteration
        return self._events.popleft()  # only the runner takes events

    def _send_once(self, text: str) -> int:
        """Send `text` on the connection as it is; the count of reopenings it went on. A send that fails is
        left to the reader, which finds the connection lost, opens it again, and so makes it be sent again."""
        import websocket

        with self._sending:
            reconnects = self.reconnects
            with contextlib.suppress(websocket.WebSocketException, OSError):
                self._ws.send(text)
            return reconnects

    def _ask(self, message: dict[str, Any], ref: str) -> dict[str, Any]:
        text = json.dumps(message)
        sent_on = self._send_once(text)

        def answered_or_reopened() -> bool:
            return ref in self._answers or self.reconnects != sent_on or self.ended

        while True:
            self._pump(answered_or_reopened)
            if ref in self._answers:
                return self._answers.pop(ref)
            if self.ended:
                raise self._refusal or SocketClosed(*getattr(self, "_closed_with", (None, "closed")))
            sent_on = self._send_once(text)  # opened again: it may not have arrived; its key applies it once

    def stop(self) -> None:
        """Close the connection now, from any thread: the runner's iteration ends, nothing is reopened."""
        self.ended = True
        with contextlib.suppress(Exception):  # already closed
            self._ws.shutdown()

    # --- a turn -----------------------------------------------------------------------------------
    def play_match_turn(
        self,
        match_id: str,
        choose: Chooser,
        *,
        seat: int,
        game: str,
        legal: LegalActions | None,
        client: Client,
        attempts: int = 5,
    ) -> Match | None:
        """`Client.play_turn` with the action sent on the socket: from `legal` (an event's or the last
        answer's), else read by `client`; on `stale-version`, read and choose again.
        None when the seat may not act."""
        for _ in range(attempts):
            if legal is None:
                legal = client.legal_actions(match_id, seat=seat)
            if not legal["may_act"]:
                return None
            action: Action = choose(legal)
            version = expected_version(game, action, legal["version"])
            try:
                return self.act(action, expected_version=version, match=match_id, seat=seat)
            except ProblemError as error:
                if error.code != "stale-version":
                    raise
            legal = None  # what they were at a version gone by: read them again
        raise ProblemError(409, "stale-version", f"the match moved on {attempts} times while this seat chose")


def open_channel(base_url: str, token: str, *, after: int | None) -> BotChannel | None:
    """The bot's socket, or None when websocket-client is not installed or the server refuses the upgrade
        (then the runner follows the stream and acts by POST). A refused hello raises its `ProblemError`; a busy or
    unreachable server, `SocketClosed` or OSError (tried again later)."""
    try:
        import websocket
    except ImportError:
        return None
    try:
        return BotChannel(base_url, token, after=after)
    except websocket.WebSocketBadStatusException as error:
        if error.status_code == 429 or error.status_code >= 500:  # busy or restarting: not a refusal
            raise SocketClosed(error.status_code, str(error)) from error
        return None
    except websocket.WebSocketException as error:
        raise SocketClosed(None, str(error)) from error
