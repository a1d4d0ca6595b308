"""Locust users that move over a WebSocket: boardgame.io's socket.io protocol, and Parlour's `GET /v1/socket`.

* `BoardgameIoPlayer` plays IceCream on boardgame.io (loadtests/peer/server.js) as its own client does: it
  creates a match and joins both seats with the lobby API (`POST /games/icecream/create`, `.../join`), opens
  one socket.io connection per seat (namespace `/icecream`), sends `sync`, then each move as an `update`
  carrying a `MAKE_MOVE` action with the seat's credentials and the state id it saw, and reads the `update`
  both seats' sockets receive. The random legal move is chosen from the state the server sent, with Parlour's
  engine (`engine.icecream`, the same moves as the game's `ai.enumerate`: loadtests/peer_check.py).
* `IceCreamSocketPlayer`, `SundaeSplitSocketPlayer`, `FreezeFactorySocketPlayer`, `RockemSockemSocketPlayer`
  and `RobotsLoveIceCreamSocketPlayer` play Parlour's games as the HTTP users of loadtests/locustfile.py do
  (same matches, same choices), but over one WebSocket per seat: `hello` with the seat's token, then each
  action as an `action` message answered by a `result`; every seat's socket receives an `event` (with that
  seat's `legal_actions`) for each new version, so no request reads anything before a move.

Each move counts as one Locust request named `move` (type `WS`, or `SIO` for socket.io): from sending it until
the mover has its answer (the `result`, or the `update` with the new state id). The reads of the other seats'
sockets that follow are not timed. Creating and joining matches count under their own names.

socket.io is spoken directly (Engine.IO 4 over a plain WebSocket: `40/icecream,` to join the namespace,
`42/icecream,[event, ...args]` per event, `3` answering the server's `2` ping) with websocket-client, the
same client as Parlour's socket users, so neither side pays for a heavier client library.
"""

from __future__ import annotations

import random
import time
from typing import Any

import orjson
import websocket
from locust import FastHttpUser, constant, task

from engine.icecream import IceCreamState
from engine.icecream.game import OPTIONS
from engine.rng import Rng
from loadtests.locustfile import (
    EXAMPLE_SPLITS,
    FREEZE_FACTORY_TURNS,
    ROBOTS_VARIANT_ODDS,
    ROBOTS_VARIANTS,
    ROCKEM_SOCKEM_REALTIME,
    favoured_keep,
    random_split,
)

SOCKET_TIMEOUT = 30.0  # seconds a socket read may wait before the match counts as failed
MAX_MOVES = 5000  # a match's moves; random matches end far sooner: this only bounds a bug
NAMESPACE = "/icecream"
ICECREAM_OPTIONS = OPTIONS.resolve({})


class SocketFailure(Exception):
    """The server closed, refused or answered something unexpected."""


def socket_url(host: str, path: str) -> str:
    """ws://host/path for Locust's http://host."""
    return "ws" + host.removeprefix("http").rstrip("/") + path


def connect(url: str) -> websocket.WebSocket:
    """A WebSocket connection (no compression: neither side asks for it)."""
    return websocket.create_connection(url, timeout=SOCKET_TIMEOUT, enable_multithread=False)


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


class SocketUser(FastHttpUser):
    """What both kinds of socket user share: report a move, report a failure, close sockets."""

    abstract = True
    wait_time = constant(0)

    def moved(self, kind: str, started: float, size: int) -> None:
        """Count one move, timed from `started` (perf_counter) until now."""
        self.environment.events.request.fire(
            request_type=kind,
            name="move",
            response_time=(time.perf_counter() - started) * 1000,
            response_length=size,
            exception=None,
            context={},
        )

    def failed(self, kind: str, name: str, error: BaseException) -> None:
        """Count a failure that is not an HTTP request's."""
        self.environment.events.request.fire(
            request_type=kind, name=name, response_time=0, response_length=0, exception=error, context={}
        )

    def post(self, path: str, name: str, body: dict[str, Any], token: str | None = None) -> Any:
        """An HTTP POST; its JSON body, or None on failure (which Locust counts)."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        with self.client.post(path, name=name, json=body, headers=headers, catch_response=True) as response:
            if response.status_code not in (200, 201):
                response.failure(f"{response.status_code}: {response.text[:200] if response.text else ''}")
                return None
            return response.json()


# --- boardgame.io ---------------------------------------------------------------------------------------------


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

    def read_until(self, done: Any) -> None:
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


class BoardgameIoPlayer(SocketUser):
    """Creates an IceCream match on boardgame.io with both seats and plays random legal moves until it ends."""

    @task
    def play_match(self) -> None:
        """One whole match over two socket.io connections."""
        created = self.post("/games/icecream/create", "/games/icecream/create", {"numPlayers": 2})
        if created is None:
            return
        match_id = created["matchID"]
        credentials = {}
        for player in ("0", "1"):
            joined = self.post(
                f"/games/icecream/{match_id}/join",
                "/games/icecream/[id]/join",
                {"playerID": player, "playerName": player},
            )
            if joined is None:
                return
            credentials[player] = joined["playerCredentials"]
        seats: dict[str, SocketIoSeat] = {}
        try:
            for player in ("0", "1"):
                seats[player] = SocketIoSeat(self.host or "", match_id, player, credentials[player])
            self.play(seats)
        except (OSError, websocket.WebSocketException, SocketFailure, KeyError, ValueError) as error:
            self.failed("SIO", "match", error)
        finally:
            for seat in seats.values():
                seat.close()

    def play(self, seats: dict[str, SocketIoSeat]) -> None:
        """Random legal moves until `ctx.gameover`; each seat reads every update."""
        state = seats["0"].state
        for _ in range(MAX_MOVES):
            if state["ctx"].get("gameover") is not None:
                return
            mover = seats[state["ctx"]["currentPlayer"]]
            next_id = state["_stateID"] + 1
            started = time.perf_counter()
            size = mover.move(random.choice(icecream_moves(state)))
            mover.read_until(lambda: mover.state["_stateID"] >= next_id)  # noqa: B023 (read now, in this iteration)
            self.moved("SIO", started, size)
            for seat in seats.values():
                seat.read_until(lambda: seat.state["_stateID"] >= next_id)  # noqa: B023
            state = mover.state
        raise SocketFailure(f"no end after {MAX_MOVES} moves")


# --- Parlour's socket -----------------------------------------------------------------------------------------


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

    def read_until(self, done: Any) -> None:
        """Read messages until `done()` is true."""
        while not done():
            self.receive()

    def act(self, ref: str, action: dict[str, Any], expected_version: int | None) -> dict[str, Any]:
        """Send an action and wait for its answer (the HTTP answer); SocketFailure on a problem."""
        message: dict[str, Any] = {"type": "action", "ref": ref, "action": action}
        if expected_version is not None:
            message["expected_version"] = expected_version
        self.ws.send(orjson.dumps(message).decode())
        self.read_until(lambda: ref in self.answers)
        answer = self.answers.pop(ref)
        if answer["type"] == "problem":
            raise SocketFailure(f"problem: {orjson.dumps(answer['problem']).decode()[:300]}")
        body: dict[str, Any] = answer["answer"]
        return body

    def close(self) -> None:
        """Close the connection."""
        self.ws.close()


class SocketMatchPlayer(SocketUser):
    """Creates a match holding every seat (HTTP) and plays it to the end over one socket per seat."""

    abstract = True
    send_version = True  # send expected_version with every action (Rock'em Sock'em's racing rolls do not)

    def match_request(self) -> dict[str, Any]:
        """The body of `POST /v1/matches`."""
        raise NotImplementedError

    def choose_action(self, legal: dict[str, Any], view: dict[str, Any], seat: int) -> dict[str, Any] | None:
        """A random listed action (the HTTP users' `choose_action`)."""
        return random.choice(legal["actions"]) if legal.get("actions") else None

    def choose_seat(self, acting: list[int]) -> int:
        """Which of the seats that may act acts next: any of them."""
        return random.choice(acting)

    @task
    def play_match(self) -> None:
        """One whole match."""
        created = self.post("/v1/matches", "/v1/matches", self.match_request())
        if created is None:
            return
        seats: list[ParlourSeat] = []
        try:
            for entry in created["tokens"]:
                seats.append(ParlourSeat(self.host or "", entry["seat"], entry["token"]))
            self.play(seats)
        except (OSError, websocket.WebSocketException, SocketFailure, KeyError, ValueError) as error:
            self.failed("WS", "match", error)
        finally:
            for seat in seats:
                seat.close()

    def play(self, seats: list[ParlourSeat]) -> None:
        """Until the match finishes: a seat that may act acts; then every socket reads up to the new version."""
        for step in range(MAX_MOVES):
            newest = max(seat.version for seat in seats)
            for seat in seats:
                seat.read_until(lambda: seat.version >= newest)  # noqa: B023 (read now, in this iteration)
            if seats[0].latest["match"]["status"] != "active":
                return
            acting = [seat for seat in seats if seat.latest["legal_actions"]["may_act"]]
            if not acting:
                raise SocketFailure(f"no seat may act at version {newest}")
            seat = seats[self.choose_seat([s.seat for s in acting]) if len(acting) > 1 else acting[0].seat]
            action = self.choose_action(seat.latest["legal_actions"], seat.latest["match"]["view"], seat.seat)
            if action is None:
                raise SocketFailure("the seat to act has no legal action")
            started = time.perf_counter()
            answer = seat.act(str(step), action, newest if self.send_version else None)
            self.moved("WS", started, 0)
            seat.read_until(lambda: seat.version >= answer["version"])  # noqa: B023
        raise SocketFailure(f"no end after {MAX_MOVES} actions")


class IceCreamSocketPlayer(SocketMatchPlayer):
    """IceCream with both seats, random legal moves."""

    def match_request(self) -> dict[str, Any]:
        """Two players, default options."""
        return {"game": "icecream", "players": 2, "options": {}}


class SundaeSplitSocketPlayer(SocketMatchPlayer):
    """Sundae Split for 2 to 5 with every seat: the Splitter's example or own split, a chooser's random pile."""

    def match_request(self) -> dict[str, Any]:
        """2 to 5 players."""
        return {"game": "sundae_split", "players": random.randint(2, 5)}

    def choose_action(self, legal: dict[str, Any], view: dict[str, Any], seat: int) -> dict[str, Any] | None:
        """As `SundaeSplitPlayer.choose_action`."""
        if legal["kind"] == "constructed":
            return legal["example"] if random.random() < EXAMPLE_SPLITS else random_split(legal["constraints"])
        return super().choose_action(legal, view, seat)


class FreezeFactorySocketPlayer(SocketMatchPlayer):
    """Freeze Factory for 2 to 4 with every seat, to its turn limit: `fulfil` first; a seat that may call FREEZE! acts
    as soon as its event says so, as any seat that may act."""

    def match_request(self) -> dict[str, Any]:
        """2 to 4 players, the load test's turn limit."""
        players = random.randint(2, 4)
        return {"game": "freeze_factory", "players": players, "options": {"turn_limit": FREEZE_FACTORY_TURNS}}

    def choose_action(self, legal: dict[str, Any], view: dict[str, Any], seat: int) -> dict[str, Any] | None:
        """A `fulfil` if there is one, else a random legal action (as `FreezeFactoryPlayer`)."""
        fulfil = [action for action in legal.get("actions", []) if action["type"] == "fulfil"]
        return fulfil[0] if fulfil else super().choose_action(legal, view, seat)


class RockemSockemSocketPlayer(SocketMatchPlayer):
    """Rock'em Sock'em (realtime half the time) with both seats: flips, and rolls keeping the favoured group."""

    send_version = False  # rolls race, as in `RockemSockemPlayer`

    def match_request(self) -> dict[str, Any]:
        """Two players, realtime or rounds."""
        mode = "realtime" if random.random() < ROCKEM_SOCKEM_REALTIME else "rounds"
        return {"game": "rockem_sockem", "players": 2, "options": {"mode": mode}}

    def choose_action(self, legal: dict[str, Any], view: dict[str, Any], seat: int) -> dict[str, Any] | None:
        """Flip when flipping; else roll keeping the largest group on the coin's side (as `RockemSockemPlayer`)."""
        actions = legal.get("actions") or []
        if not actions:
            return None
        if actions[0]["type"] == "flip":
            return dict(actions[0])
        roll = {"type": "roll", "keep": favoured_keep(view, seat)}
        return roll if roll in actions else random.choice(actions)


class RobotsLoveIceCreamSocketPlayer(SocketMatchPlayer):
    """Robots Love Ice Cream for 1 to 4, random variants, every seat: a random attack first, else any action."""

    def match_request(self) -> dict[str, Any]:
        """1 to 4 players, each Challenge Variant on at the load test's odds."""
        options = {variant: random.random() < ROBOTS_VARIANT_ODDS for variant in ROBOTS_VARIANTS}
        return {"game": "robots_love_ice_cream", "players": random.randint(1, 4), "options": options}

    def choose_action(self, legal: dict[str, Any], view: dict[str, Any], seat: int) -> dict[str, Any] | None:
        """As `RobotsLoveIceCreamPlayer.choose_action`."""
        attacks = [action for action in legal.get("actions", []) if action["type"] == "attack"]
        return random.choice(attacks) if attacks else super().choose_action(legal, view, seat)
