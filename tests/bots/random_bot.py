"""A random external bot: follows its event stream and plays a random legal action whenever it may act.

Runnable against a live server with nothing but the standard library:

    python -m tests.bots.random_bot --url http://127.0.0.1:8000 --name my-bot     # registers, prints the token
    python -m tests.bots.random_bot --url ... --bot <id> --token bot.<id>.<secret> --matches 3

It registers (or takes its id and token), accepts every challenge (a `challenge` event: seating a
bot asks it first), reads `GET /v1/bots/{id}/events`, and on each `your-turn` fetches the seat's
legal actions and posts a random one with `expected_version`, so a stale event is refused (409) and
simply skipped. Each time it (re)connects it first resyncs from what the server keeps for it however
many events went by: its pending challenges (`GET /v1/bots/{id}/challenges`, accepted) and its live
seats (`GET /v1/bots/{id}/matches?status=playing`, played where it may act), then resumes the stream
with `Last-Event-ID`. A refusal that means "not now" (429, or a 502, 503 or 504 while the server
restarts) is waited out, for its `Retry-After` when it gives one, and followed by a resync. With
`--matches N` it exits once N of its matches are over; `--policy` sets
which challenges the server accepts for it without asking (`ask`, `tournaments`, `anyone`). With
`--rematch` it offers (or accepts) a rematch of each match that ends while it wants more matches
(`POST /v1/matches/{id}/rematch`); the rematch reaches it as a `match-started` event like any match.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

RECONNECT_DELAY = 1.0
RETRIED = (429, 502, 503, 504)  # refusals that say "not now": the bot waits (Retry-After if given) and resyncs
MAX_RETRY_WAIT = 30.0  # seconds the bot waits at most before it tries again, whatever Retry-After says
STREAM_TIMEOUT = 60.0  # seconds without a byte (heartbeats come every 15 s) before the stream is read again


@dataclass
class Event:
    """One Server-Sent Event of the bot's stream."""

    id: int
    name: str
    data: dict[str, Any]


class ApiError(Exception):
    """The server answered an error (problem+json)."""

    def __init__(self, status: int, problem: dict[str, Any], retry_after: str | None = None) -> None:
        super().__init__(f"{status} {problem.get('code')}: {problem.get('detail')}")
        self.status = status
        self.problem = problem
        self.retry_after = retry_after

    def wait(self) -> float:
        """Seconds to wait before trying again: the answer's Retry-After (in seconds), else RECONNECT_DELAY."""
        try:
            return min(MAX_RETRY_WAIT, max(0.0, float(self.retry_after or RECONNECT_DELAY)))
        except ValueError:  # an HTTP date: not worth parsing for a wait this short
            return RECONNECT_DELAY


@dataclass
class Client:
    """A tiny JSON client of the Parlour API."""

    base: str
    token: str | None = None

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """Send one request; the JSON answer, or ApiError."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=self.headers())
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as error:
            raise ApiError(error.code, json.loads(error.read() or b"{}"), error.headers.get("Retry-After")) from None

    def headers(self) -> dict[str, str]:
        """The Authorization header, once the bot has its token."""
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def events(self, bot_id: str, after: int) -> Iterator[Event]:
        """The bot's events numbered above `after`, as they come, until the connection drops."""
        request = urllib.request.Request(
            f"{self.base}/v1/bots/{bot_id}/events",
            headers={**self.headers(), "Accept": "text/event-stream", "Last-Event-ID": str(after)},
        )
        with urllib.request.urlopen(request, timeout=STREAM_TIMEOUT) as stream:
            fields: dict[str, str] = {}
            for raw in stream:
                line = raw.decode().rstrip("\r\n")
                if line:
                    if not line.startswith(":"):
                        name, _, value = line.partition(":")
                        fields[name] = value.removeprefix(" ")
                    continue
                if "id" in fields and "data" in fields:
                    yield Event(int(fields["id"]), fields.get("event", "message"), json.loads(fields["data"]))
                fields = {}


@dataclass
class RandomBot:
    """Plays a random legal action for each of its seats whenever its stream says it may act."""

    client: Client
    bot_id: str
    rng: random.Random = field(default_factory=random.Random)
    matches: int | None = None  # stop after this many matches are over; None: run forever
    rematch: bool = False  # offer a rematch of each match that ends while more matches are wanted
    last_event: int = 0
    finished: set[str] = field(default_factory=set)
    playing: set[str] = field(default_factory=set)
    moves: int = 0
    retries: int = 0  # refusals waited out (a restarting server's 503, a 429)

    def run(self) -> None:
        """Resync, then follow the stream where it left off (again after each drop) until enough matches are over."""
        while not self.done():
            try:
                self.resync()
                if self.done():
                    return
                for event in self.client.events(self.bot_id, self.last_event):
                    self.last_event = event.id
                    self.handle(event)
                    if self.done():
                        return
            except ApiError as error:
                if error.status not in RETRIED:
                    raise
                self.retries += 1
                say(f"server busy or restarting ({error}); resyncing in {error.wait():.0f} s")
                time.sleep(error.wait())
            except (OSError, urllib.error.URLError) as error:
                say(f"stream interrupted ({error}); resuming after event {self.last_event}")
                time.sleep(RECONNECT_DELAY)

    def resync(self) -> None:
        """Act on what the server keeps for the bot, whatever its stream dropped: open challenges, live seats."""
        for challenge in self.pages(f"/v1/bots/{self.bot_id}/challenges?limit=200"):
            self.accept(challenge["id"])
        seats = list(self.pages(f"/v1/bots/{self.bot_id}/matches?status=playing&limit=500"))
        live = {seat["match"] for seat in seats}
        for match in self.playing - live:  # over while the bot was away (its match-over may be gone)
            self.finished.add(match)
            say(f"match {match} is over (resynced)")
        self.playing = live - self.finished
        for seat in seats:
            if seat["may_act"]:
                self.play(seat["match"], seat["seat"], seat["version"])

    def pages(self, path: str) -> Iterator[dict[str, Any]]:
        """Every item of a listing, page after page."""
        cursor = None
        while True:
            page = self.client.request("GET", path + (f"&cursor={cursor}" if cursor else ""))
            yield from page["items"]
            cursor = page["next_cursor"]
            if cursor is None:
                return

    def accept(self, challenge: str) -> None:
        """Accept a challenge; one that ended meanwhile (409) is skipped."""
        try:
            self.client.request("POST", f"/v1/bots/{self.bot_id}/challenges/{challenge}/accept")
            say(f"accepted challenge {challenge}")
        except ApiError as error:
            if error.status != 409:
                raise
            say(f"challenge {challenge}: {error}")

    def done(self) -> bool:
        """True once the matches asked for are over."""
        return self.matches is not None and len(self.finished) >= self.matches

    def handle(self, event: Event) -> None:
        """React to one event."""
        if event.name == "challenge":
            self.accept(event.data["id"])
            return
        if event.name == "challenge-canceled":
            say(f"challenge {event.data['challenge']} {event.data['status']}: {event.data['reason']}")
            return
        match = event.data["match"]
        if event.name == "match-started":
            self.playing.add(match)
            say(f"match {match} ({event.data['game']}) started; I hold seat {event.data['seat']}")
        elif event.name == "match-over":
            self.finished.add(match)
            self.playing.discard(match)
            say(f"match {match} is over: {json.dumps(event.data['result'])}")
            if self.rematch and not self.done():
                self.offer_rematch(match, event.data["seat"])
        elif event.name == "your-turn" and match not in self.finished:
            self.play(match, event.data["seat"], event.data["version"])

    def offer_rematch(self, match: str, seat: int) -> None:
        """Offer a rematch of a match that ended, or accept the offer; one the server refuses (409) is skipped."""
        try:
            offer = self.client.request("POST", f"/v1/matches/{match}/rematch?seat={seat}")["rematch"]
            say(f"rematch of {match}: waiting for seats {offer['waiting_for']}, new match {offer['match']}")
        except ApiError as error:
            if error.status != 409:
                raise
            say(f"no rematch of {match}: {error}")

    def play(self, match: str, seat: int, version: int) -> None:
        """Post a random legal action at `version`; a refusal (someone moved first) is skipped."""
        try:
            legal = self.client.request("GET", f"/v1/matches/{match}/legal-actions?seat={seat}")
            if legal["version"] != version or not legal["may_act"]:
                return  # an older event: a newer one follows
            action = self.choose(legal)
            body = {"action": action, "expected_version": version}
            self.client.request("POST", f"/v1/matches/{match}/actions?seat={seat}", body)
            self.moves += 1
        except ApiError as error:
            if error.status not in (409, 422):
                raise
            say(f"match {match} seat {seat} at version {version}: {error}")

    def choose(self, legal: dict[str, Any]) -> dict[str, Any]:
        """A random listed action, or the server's example when the actions are constructed."""
        if legal["kind"] == "enumerated":
            return dict(self.rng.choice(legal["actions"]))
        return dict(legal["example"])


def register(client: Client, name: str) -> tuple[str, str]:
    """Register a bot; its id and token (shown this once)."""
    answer = client.request("POST", "/v1/bots", {"name": name})
    return answer["id"], answer["token"]


def say(message: str) -> None:
    """One line of progress on stderr."""
    print(f"random_bot: {message}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    """Entry point: register or take a token, then play until the matches asked for are over."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the server's base URL")
    parser.add_argument("--name", help="register a new bot under this name")
    parser.add_argument("--bot", help="the id of a registered bot (with --token)")
    parser.add_argument("--token", help="that bot's token")
    parser.add_argument("--matches", type=int, help="exit once this many of the bot's matches are over")
    parser.add_argument("--seed", type=int, help="seed of the random choices")
    parser.add_argument("--policy", choices=("ask", "tournaments", "anyone"), help="challenges accepted unasked")
    parser.add_argument("--rematch", action="store_true", help="offer a rematch of each match that ends")
    args = parser.parse_args(argv)
    client = Client(args.url.rstrip("/"))
    if args.token and args.bot:
        bot_id, client.token = args.bot, args.token
    elif args.name:
        bot_id, client.token = register(client, args.name)
        print(json.dumps({"bot": bot_id, "token": client.token}), flush=True)
    else:
        parser.error("give --name to register, or --bot and --token")
    if args.policy:
        client.request("PATCH", f"/v1/bots/{bot_id}", {"policy": args.policy})
    bot = RandomBot(client, bot_id, random.Random(args.seed), args.matches, args.rematch)
    try:
        bot.run()
    except KeyboardInterrupt:
        return 130
    say(f"done: {len(bot.finished)} matches over, {bot.moves} moves played")
    return 0


if __name__ == "__main__":
    sys.exit(main())
