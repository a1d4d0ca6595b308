"""The two WebSocket protocols the load test speaks, without Locust: boardgame.io's socket.io and Parlour's socket.

* `SocketIoSeat`: one seat's connection to boardgame.io's server (loadtests/peer/server.js), as its own client
  speaks it: Engine.IO 4 over a plain WebSocket, the namespace `/icecream` joined with `40/icecream,`, then
  `42/icecream,[event, ...args]` per event (`sync` once, an `update` with a `MAKE_MOVE` action per move), and
  `3` answering the server's `2` ping. `icecream_moves` lists a boardgame.io state's legal moves with Parlour's
  engine (the same as the game's `ai.enumerate`: loadtests/peer_check.py checks it).
* `ParlourSeat`: one seat's `GET /v1/socket`: `hello` with the seat's token, then `action` messages answered
  by a `result` (or a `problem`), and an `event` for each new version carrying the seat's `legal_actions`.

Both use websocket-client; loadtests/peer_users.py builds the Locust users on them, and tests/test_peer_check.py
plays a match on boardgame.io's server with `SocketIoSeat`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
import websocket

from engine.icecream import IceCreamState
from engine.icecream.game import OPTIONS
from engine.rng import Rng

SOCKET_TIMEOUT = 30.0  # seconds a socket read may wait before the match counts as failed
NAMESPACE = "/icecream"
ICECREAM_OPTIONS = OPTIONS.resolve({})


class SocketFailure(Exception):
    """The server closed, refused or answered something unexpected."""


def socket_url(host: str, path: str) -> str:
    """ws://host/path for Locust's http://host."""
    return "ws" + host.removeprefix("http").rstrip("/") + path


def connect(url: str) -> websocket.WebSocket:
    """A WebSocket connection. Its text is checked as UTF-8 when decoded (in C), not byte by byte in Python as
    websocket-client would, which cost the generator more than boardgame.io's server spent on a move."""
    return websocket.create_connection(url, timeout=SOCKET_TIMEOUT, enable_multithread=False, skip_utf8_validation=True)


def receive_text(ws: websocket.WebSocket) -> str:
    """The next text message (a WebSocket ping answered on the way); SocketFailure on a close or a binary one."""
    opcode, data = ws.recv_data(control_frame=True)
    if opcode == websocket.ABNF.OPCODE_TEXT:
        return bytes(data).decode()
    if opcode == websocket.ABNF.OPCODE_CLOSE:
        code = int.from_bytes(data[:2], "big") if len(data) >= 2 else None
        raise SocketFailure(f"the server closed the socket: {code} {data[2:].decode(errors='replace')}")
    if opcode == websocket.ABNF.OPCODE_PING:
        ws.pong(data)
        return receive_text(ws)
    raise SocketFailure(f"expected a text message, got opcode {opcode}")


class SocketIoSeat:
    """One seat's socket.io connection to boardgame.io's `/icecream` namespace, and the last state it received."""

    def __init__(self, url: str, match_id: str, player_id: str, credentials: str) -> None:
        self.match_id, self.player_id, self.credentials = match_id, player_id, credentials
        self.ws = connect(socket_url(url, "/socket.io/?EIO=4&transport=websocket"))
        self.prefix = f"42{NAMESPACE},"
        opened = receive_text(self.ws)
        if not opened.startswith("0"):
            raise SocketFailure(f"no Engine.IO open packet: {opened[:80]}")
        self.ws.send(f"40{NAMESPACE},")
        joined = receive_text(self.ws)  # the server drops events sent to a namespace before it acknowledges it
        if not joined.startswith(f"40{NAMESPACE},"):
            raise SocketFailure(f"boardgame.io refused the namespace: {joined[:200]}")
        self.state: dict[str, Any] = {}
        self.emit("sync", match_id, player_id, credentials, 2)
        self.read_until(lambda: bool(self.state))

    def emit(self, event: str, *args: Any) -> int:
        """Send a socket.io event; its size in characters."""
        packet = self.prefix + orjson.dumps([event, *args]).decode()
        self.ws.send(packet)
        return len(packet)

    def receive(self) -> None:
        """Read one packet: keep the state an `update` or `sync` carries, answer a ping."""
        packet = receive_text(self.ws)
        if packet.startswith(self.prefix):
            event, *args = orjson.loads(packet[len(self.prefix) :])
            if event == "update":
                self.state = args[1]
            elif event == "sync":
                self.state = args[1]["state"]
        elif packet == "2":
            self.ws.send("3")
        elif packet.startswith((f"44{NAMESPACE}", f"41{NAMESPACE}", "1")):
            raise SocketFailure(f"boardgame.io closed the namespace: {packet[:200]}")

    def read_until(self, done: Callable[[], bool]) -> None:
        """Read packets until `done()` is true."""
        while not done():
            self.receive()

    def move(self, args: list[int]) -> int:
        """Send a move at the state id this seat last saw; the packet's size."""
        action = {
            "type": "MAKE_MOVE",
            "payload": {"type": "move", "args": args, "playerID": self.player_id, "credentials": self.credentials},
        }
        return self.emit("update", action, self.state["_stateID"], self.match_id, self.player_id)

    def close(self) -> None:
        """Close the connection."""
        self.ws.close()


def icecream_moves(state: dict[str, Any]) -> list[list[int]]:
    """The legal moves of a boardgame.io IceCream state, listed by Parlour's engine (the same as `ai.enumerate`)."""
    G, seat = state["G"], int(state["ctx"]["currentPlayer"])
    mirror = IceCreamState(ICECREAM_OPTIONS, Rng(0), list(G["cones"]), G["turn"], G["pointsLeft"], seat)
    return [[action["from_cone"], action["scoops"]] for action in mirror.legal_actions(seat)]


class ParlourSeat:
    """One seat's `GET /v1/socket` connection: its token, the latest event's data, answers by `ref`."""

    def __init__(self, url: str, seat: int, token: str) -> None:
        self.seat = seat
        self.ws = connect(socket_url(url, "/v1/socket"))
        self.ws.send(orjson.dumps({"type": "hello", "token": token}).decode())
        self.latest: dict[str, Any] = {}  # the newest event's data: version, match, legal_actions
        self.answers: dict[str, dict[str, Any]] = {}  # results and problems not yet taken, by ref
        self.ended = False
        self.read_until(lambda: bool(self.latest))

    @property
    def version(self) -> int:
        """The version of the newest event read."""
        return int(self.latest.get("version", -1))

    def receive(self) -> None:
        """Read one message and keep what it says."""
        text = receive_text(self.ws)
        message = orjson.loads(text)
        kind = message["type"]
        if kind == "event":
            if message["event"] == "match":
                if message["data"]["version"] >= self.version:
                    self.latest = message["data"]
            elif message["event"] == "end":
                self.ended = True
        elif kind in ("result", "problem"):
            self.answers[message["ref"]] = message
        elif kind not in ("welcome", "heartbeat", "pong"):
            raise SocketFailure(f"unexpected message: {text[:200]}")

    def read_until(self, done: Callable[[], bool]) -> None:
        """Read messages until `done()` is true."""
        while not done():
            self.receive()

    def act(self, ref: str, action: dict[str, Any], expected_version: int | None) -> dict[str, Any]:
        """Send an action and wait for its answer (the HTTP answer); SocketFailure on a problem."""
        message: dict[str, Any] = {"type": "action", "ref": ref, "action": action}
        if expected_version is not None:
            message["expected_version"] = expected_version
        self.ws.send(orjson.dumps(message).decode())
        try:
            self.read_until(lambda: ref in self.answers)
        except SocketFailure as error:
            raise SocketFailure(
                f"no answer to an action (after the event of version {self.version}): {error}"
            ) from None
        answer = self.answers.pop(ref)
        if answer["type"] == "problem":
            raise SocketFailure(f"problem: {orjson.dumps(answer['problem']).decode()[:300]}")
        body: dict[str, Any] = answer["answer"]
        return body

    def close(self) -> None:
        """Close the connection."""
        self.ws.close()
