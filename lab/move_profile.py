"""What one move costs the server, in one process: CPU, Redis commands and a profile, over HTTP and over the socket.

`python -m lab.move_profile [--matches N] [--runs R] [--top K]` starts an embedded Redis, builds the app
with the limits on (rates out of reach, as tests/api/conftest.py), and plays IceCream matches (two human
seats, random legal moves) two ways:

- `http`: `POST /v1/matches/{id}/actions` through Flask's test client, each seat acting on the
  `legal_actions` its last answer carried (one request per move);
- `socket`: the WebSocket channel's per-message handler (`api.socket.channel.Channel.handle`) fed the
  `action` messages a client would send, on a fake connection whose sends are collected (no network, no
  events pump: what one action message costs the handler and the outbox's writer). The events each move
  sends both seats' sockets (a view and legal actions rendered per seat, the pump, the frames) are not in it.

It prints, per path: the median CPU microseconds per move (process time, every thread), Redis commands per
move (INFO commandstats deltas), and cProfile's top functions by cumulative (wall) time in microseconds per move.
The machine may be busy: compare figures from the same run.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import redis

from api.app import create_app
from api.current import ParlourApp
from api.socket.channel import Channel, Holder
from model.settings import LIMIT_NAMES, LimitSettings, Settings
from model.tokens import SeatToken, parse_token
from ops.embedded_redis import start_embedded_redis

GAME = "icecream"
Mover = Callable[[str, int, dict[str, Any], Any], dict[str, Any]]
"""Make one move (match id, seat, its legal actions, the action): the answer."""


class FakeSocket:
    """The raw socket simple-websocket holds (the outbox wraps it)."""

    def sendall(self, data: bytes) -> None:
        pass

    def recv(self, size: int) -> bytes:
        return b""

    def fileno(self) -> int:
        return -1

    def shutdown(self, how: int) -> None:
        pass

    def close(self) -> None:
        pass


class FakeWs:
    """A simple-websocket connection whose sends are handed to whoever waits for them."""

    def __init__(self) -> None:
        self.sock = FakeSocket()
        self.event = threading.Event()
        self.sent: list[str] = []
        self.arrived = threading.Condition()

    def send(self, message: str) -> None:
        with self.arrived:
            self.sent.append(message)
            self.arrived.notify_all()

    def next_message(self) -> str:
        with self.arrived:
            while not self.sent:
                if not self.arrived.wait(timeout=40):
                    raise TimeoutError("no message in 10 s")
            return self.sent.pop(0)

    def close(self, code: int, reason: str) -> None:
        pass


def new_match(app: ParlourApp) -> tuple[str, dict[int, str]]:
    client = app.test_client()
    body = client.post("/v1/matches", json={"game": GAME, "players": 2, "seats": [{"type": "human"}] * 2}).get_json()
    return body["id"], {t["seat"]: t["token"] for t in body["tokens"]}


def http_mover(app: ParlourApp) -> Callable[[str, dict[int, str]], Mover]:
    client = app.test_client()

    def for_match(match_id: str, tokens: dict[int, str]) -> Mover:
        def move(_: str, seat: int, legal: dict[str, Any], action: Any) -> dict[str, Any]:
            answer = client.post(
                f"/v1/matches/{match_id}/actions",
                headers={"Authorization": f"Bearer {tokens[seat]}"},
                json={"action": action, "expected_version": legal["version"]},
            )
            return dict(answer.get_json())

        return move

    return for_match


def socket_mover(app: ParlourApp) -> Callable[[str, dict[int, str]], Mover]:
    """One channel per seat, in a request context of GET /v1/socket, its holder set as its hello would set it."""
    contexts: list[Any] = []

    def for_match(match_id: str, tokens: dict[int, str]) -> Mover:
        for context in reversed(contexts):
            context.pop()
        contexts.clear()
        channels: dict[int, tuple[Channel, FakeWs]] = {}
        for seat, text in tokens.items():
            context = app.test_request_context("/v1/socket", environ_base={"REMOTE_ADDR": "127.0.0.1"})
            context.push()
            contexts.append(context)
            ws = FakeWs()
            channel = Channel(ws)
            token = parse_token(text)
            assert isinstance(token, SeatToken)
            channel.holder = Holder(token, "seat", match_id, seat)
            channels[seat] = (channel, ws)

        def move(_: str, seat: int, legal: dict[str, Any], action: Any) -> dict[str, Any]:
            channel, ws = channels[seat]
            message = {"type": "action", "ref": "r", "action": action, "expected_version": legal["version"]}
            channel.handle(json.dumps(message))
            sent = json.loads(ws.next_message())
            if sent["type"] != "result":
                raise RuntimeError(f"the socket answered {sent}")
            return dict(sent["answer"])

        return move

    return for_match


def play(
    app: ParlourApp,
    movers: Callable[[str, dict[int, str]], Mover],
    matches: int,
    seed: int,
    profile: cProfile.Profile | None = None,
    calls: dict[str, int] | None = None,
    r: redis.Redis | None = None,
) -> tuple[int, float]:
    """Play `matches` whole matches; (moves, CPU seconds spent in the moves). Only the moves are profiled
    (`profile`) and their Redis commands summed into `calls` (the legal-actions reads between seats are not)."""
    rng = random.Random(seed)
    client = app.test_client()
    moves = 0
    cpu = 0.0
    for _ in range(matches):
        match_id, tokens = new_match(app)
        move = movers(match_id, tokens)
        legal: dict[int, dict[str, Any] | None] = dict.fromkeys(tokens)
        while True:
            acted = False
            for seat, token in tokens.items():
                la = legal[seat]
                if la is None:
                    headers = {"Authorization": f"Bearer {token}"}
                    la = client.get(f"/v1/matches/{match_id}/legal-actions", headers=headers).get_json()
                assert la is not None
                if not la.get("may_act") or la.get("kind") != "enumerated" or not la["actions"]:
                    legal[seat] = None
                    continue
                before = commandstats(r) if r is not None else {}
                if profile is not None:
                    profile.enable()
                start = time.process_time()
                answer = move(match_id, seat, la, rng.choice(la["actions"]))
                cpu += time.process_time() - start
                if profile is not None:
                    profile.disable()
                if r is not None and calls is not None:
                    for name, n in commandstats(r).items():
                        calls[name] = calls.get(name, 0) + n - before.get(name, 0)
                moves += 1
                acted = True
                legal = dict.fromkeys(tokens)
                legal[seat] = answer.get("legal_actions")
                break
            if not acted:
                break
    return moves, cpu


def commandstats(r: redis.Redis) -> dict[str, int]:
    """Redis's count of each command so far (the INFO asking it not counted)."""
    stats = r.info("commandstats")
    return {k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in stats.items() if k != "cmdstat_info"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=15, help="matches per run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--paths", default="http,socket")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = start_embedded_redis(Path(tmp), persistent=False)
        try:
            rates: dict[str, Any] = dict.fromkeys(LIMIT_NAMES, "100000/second")
            app = create_app(Settings(redis_url=server.url, limits=replace(LimitSettings(), **rates)))
            r = redis.Redis.from_url(server.url)
            paths = {"http": http_mover(app), "socket": socket_mover(app)}
            for name in args.paths.split(","):
                movers = paths[name]
                play(app, movers, 2, 0)  # warm up
                per_move = []
                for run in range(args.runs):
                    moves, cpu = play(app, movers, args.matches, run)
                    per_move.append(cpu / moves * 1e6)
                counted: dict[str, int] = {}
                moves = play(app, movers, args.matches, 99, calls=counted, r=r)[0]
                calls = {k: round(v / moves, 2) for k, v in sorted(counted.items(), key=lambda kv: -kv[1]) if v}
                profile = cProfile.Profile()  # wall time: process_time per call would swamp it
                rng_moves = play(app, movers, args.matches, 7, profile=profile)[0]
                print(f"\n=== {name}: {len(per_move)} runs of {args.matches} matches")
                print(
                    f"CPU us per move: median {statistics.median(per_move):.0f}"
                    f" (runs: {', '.join(f'{x:.0f}' for x in per_move)})"
                )
                print(f"Redis commands per move: {sum(calls.values()):.2f} {calls}")
                print(f"top {args.top}, us per move ({rng_moves} moves; wall time: Redis waits and the profiler in)")
                stats = pstats.Stats(profile)
                for column, title in ((3, "cumulative"), (2, "own")):
                    print(f"by {title} time:")
                    entries = sorted(stats.stats.items(), key=lambda kv: -kv[1][column])  # type: ignore[attr-defined]
                    for (file, line, func), (_cc, calls_n, tottime, cumtime, _callers) in entries[: args.top]:
                        where = file.split("/work/main/")[-1].split("site-packages/")[-1]
                        print(
                            f"  {cumtime / rng_moves * 1e6:8.0f} cum {tottime / rng_moves * 1e6:7.0f} own"
                            f" {calls_n / rng_moves:6.1f}x  {func}  {where}:{line}"
                        )
            app.services.changes.stop()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
