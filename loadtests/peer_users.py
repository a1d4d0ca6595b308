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

Both protocols are spoken directly with websocket-client (loadtests/peer_protocol.py), the same client on both
sides, so neither pays for a heavier client library.
"""

from __future__ import annotations

import random
import time
from typing import Any

import websocket
from locust import FastHttpUser, constant, task

from loadtests.locustfile import (
    EXAMPLE_SPLITS,
    FREEZE_FACTORY_TURNS,
    ROBOTS_VARIANT_ODDS,
    ROBOTS_VARIANTS,
    ROCKEM_SOCKEM_REALTIME,
    favoured_keep,
    random_split,
)
from loadtests.peer_protocol import ParlourSeat, SocketFailure, SocketIoSeat, icecream_moves

MAX_MOVES = 5000  # a match's moves; random matches end far sooner: this only bounds a bug


class SocketUser(FastHttpUser):
    """What both kinds of socket user share: a move counted, a failure counted, a POST."""

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

    def post(self, path: str, name: str, body: dict[str, Any]) -> Any:
        """An HTTP POST (creating or joining a match); its JSON body, or None on failure (which Locust counts)."""
        with self.client.post(path, name=name, json=body, catch_response=True) as response:
            if response.status_code not in (200, 201):
                response.failure(f"{response.status_code}: {response.text[:200] if response.text else ''}")
                return None
            return response.json()


# --- boardgame.io ---------------------------------------------------------------------------------------------


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
