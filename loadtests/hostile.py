"""A hostile client against a running server: the three high findings of the security review (issue 32).

    .venv/bin/python -m loadtests.hostile --url http://127.0.0.1:8000 [--forged 3001]

Against the service at `--url` (a `make run`, with its default limits), over loopback only. It checks, in order:

1. **Join, read, leave.** In a 3-player Freeze Factory match with two open seats, a stranger joins seat 1,
   reads the match and its event stream with its token before the start, and leaves: everything it read
   is the public view (nothing of seat 1's hand), and its stream ends `seat-left`. Two others then
   take the seats: seat 1's view now shows a hand the leaver never saw.
2. **A stream after its token lost its seat.** A bot seated in an IceCream match opens the match's stream
   with its bot token; the bot's token is rotated: the stream ends `token-rotated`.
3. **A bot flooded with forged tokens.** From a second loopback address (127.0.0.2), `--forged` actions
   with `Bearer bot.<the bot's id>.forged`; then the bot, from 127.0.0.1, still plays its move (200).

Prints each check as `ok` or `FAILED` and exits 1 if any failed. Every loop is bounded in count and time.
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass
from typing import Any

TIMEOUT = 30.0
"""Seconds any one answer (or stream event) may take."""
FORGER = "127.0.0.2"
"""The forger's address: another loopback address, so its limits are not the honest client's."""


@dataclass(frozen=True)
class Server:
    """The server under test: where it listens."""

    host: str
    port: int

    def connection(self, source: str | None = None) -> http.client.HTTPConnection:
        """A new connection, from `source` (an address of this machine) when given."""
        return http.client.HTTPConnection(
            self.host, self.port, timeout=TIMEOUT, source_address=(source, 0) if source else None
        )

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None, source: str | None = None
    ) -> tuple[int, Any]:
        """One request; its status and JSON answer (None when it has none)."""
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        connection = self.connection(source)
        try:
            connection.request(method, path, json.dumps(body) if body is not None else None, headers)
            response = connection.getresponse()
            raw = response.read()
        finally:
            connection.close()
        return response.status, json.loads(raw) if raw else None


class Events:
    """One event stream, read an event at a time."""

    def __init__(self, server: Server, path: str, token: str) -> None:
        self.connection = server.connection()
        self.connection.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        self.response = self.connection.getresponse()
        if self.response.status != 200:
            raise AssertionError(f"{path}: {self.response.status}")

    def next(self) -> tuple[str, Any] | None:
        """The next event's name and data (comments skipped), or None once the stream has closed."""
        name, data = None, None
        while True:
            line = self.response.readline()
            if not line:
                return None
            text = line.decode().rstrip("\n")
            if text.startswith("event: "):
                name = text[len("event: ") :]
            elif text.startswith("data: "):
                data = json.loads(text[len("data: ") :])
            elif text == "" and name is not None:
                return name, data

    def close(self) -> None:
        """Stop reading."""
        self.connection.close()


class Checks:
    """Each check's line, and whether all held."""

    def __init__(self) -> None:
        self.failed = 0

    def check(self, holds: bool, what: str) -> None:
        """Print one check."""
        print(f"  {'ok    ' if holds else 'FAILED'} {what}")
        self.failed += not holds


def created(answer: tuple[int, Any]) -> Any:
    """The body of a 201, or an error naming what came back."""
    status, body = answer
    if status != 201:
        raise AssertionError(f"expected 201, got {status}: {body}")
    return body


def join_read_leave(server: Server, checks: Checks) -> None:
    """Finding 1 (and 2, for a seat left): nothing private before the start, nothing after the seat is lost."""
    print("join, read, leave:")
    body = {"game": "freeze_factory", "players": 3, "open_seats": [1, 2]}
    match = created(server.call("POST", "/v1/matches", body))
    url = f"/v1/matches/{match['id']}"
    status, joined = server.call("POST", f"{url}/join", {"seat": 1, "name": "spy"})
    assert status == 200, joined
    spy = joined["token"]
    public = server.call("GET", url)[1]["view"]
    seen = [server.call("GET", url, token=spy)[1]["view"]]
    stream = Events(server, f"{url}/events", spy)
    first = stream.next()
    seen.append(first[1]["match"]["view"] if first else None)
    server.call("POST", f"{url}/leave", token=spy)
    end = stream.next()
    stream.close()
    checks.check(all(view == public for view in seen), "a joined seat reads only the public view before the start")
    checks.check(end is not None and end[0] == "end" and end[1]["reason"] == "seat-left", f"its stream ends: {end}")
    stranger = server.call("POST", f"{url}/join", {"seat": 1, "name": "stranger"})[1]["token"]
    server.call("POST", f"{url}/join", {"seat": 2, "name": "third"})
    hand = server.call("GET", url, token=stranger)[1]["view"]
    checks.check(hand != server.call("GET", url)[1]["view"], "seat 1's next holder sees a hand nobody read before")


def rotated_stream(server: Server, checks: Checks, bot: dict[str, Any], match_url: str) -> None:
    """Finding 2: a match stream opened with a bot token ends once the token is rotated."""
    print("a stream after its token was rotated:")
    stream = Events(server, f"{match_url}/events", bot["token"])
    first = stream.next()
    status, rotated = server.call("POST", f"/v1/bots/{bot['id']}/token", token=bot["token"])
    assert status == 200, rotated
    end = stream.next()
    stream.close()
    checks.check(first is not None and first[1]["match"]["viewer"] == 0, "the bot's stream showed its seat")
    checks.check(end is not None and end[1]["reason"] == "token-rotated", f"it ends once rotated: {end}")
    bot["token"] = rotated["token"]


def forged_flood(server: Server, checks: Checks, bot: dict[str, Any], match_url: str, forged: int) -> None:
    """Finding 3: a flood of forged tokens naming a bot spends the forger's limits, not the bot's."""
    print(f"a bot flooded with {forged} forged tokens from {FORGER}:")
    answers: Counter[int] = Counter()
    started = time.monotonic()
    for _ in range(forged):
        action = {"action": {"type": "move", "from_cone": 0, "scoops": 1}}
        answers[server.call("POST", f"{match_url}/actions", action, f"bot.{bot['id']}.forged", FORGER)[0]] += 1
    print(f"  the forger's answers in {time.monotonic() - started:.1f} s: {dict(sorted(answers.items()))}")
    checks.check(set(answers) <= {401, 429}, "every forged request is refused 401 or 429")
    _, legal = server.call("GET", f"{match_url}/legal-actions", token=bot["token"])
    move = {"action": legal["actions"][0], "expected_version": legal["version"]}
    status, _ = server.call("POST", f"{match_url}/actions", move, bot["token"])
    checks.check(status == 200, f"the bot still plays its move: {status}")
    status, _ = server.call("GET", f"/v1/bots/{bot['id']}/events?after=0&wait=1", token=bot["token"])
    checks.check(status == 200, f"and reads its events: {status}")


def main() -> int:
    """Run the checks against `--url`; 1 if one failed."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the server (loopback only)")
    parser.add_argument("--forged", type=int, default=3_001, help="forged actions sent at the bot")
    args = parser.parse_args()
    parsed = urllib.parse.urlsplit(args.url)
    if parsed.hostname not in ("127.0.0.1", "localhost", "::1"):
        parser.error("a hostile check runs against a server on this machine only (loopback)")
    server = Server(parsed.hostname or "127.0.0.1", parsed.port or 80)
    checks = Checks()
    join_read_leave(server, checks)
    bot = created(server.call("POST", "/v1/bots", {"name": f"hostile-{int(time.time())}"}))
    server.call("PATCH", f"/v1/bots/{bot['id']}", {"policy": "anyone"}, bot["token"])
    match = created(
        server.call(
            "POST",
            "/v1/matches",
            {"game": "icecream", "players": 2, "seats": [{"type": "bot", "bot": bot["id"]}, {"type": "human"}]},
        )
    )
    match_url = f"/v1/matches/{match['id']}"
    rotated_stream(server, checks, bot, match_url)
    forged_flood(server, checks, bot, match_url, args.forged)
    print("all checks passed" if not checks.failed else f"{checks.failed} checks FAILED")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
