"""The soak's traffic: people playing every game, against each other and the AI, some on short turn timers, seats
that sleep through their timers, two bots in a tournament, a hint flood and event streams being followed.

Each client runs in a thread until `stop` is set, through the `Balancer`; every action it is
answered 200 for is written to the `Record` (match, seat, version, action) for the final checks.
Actions carry an `Idempotency-Key` and `expected_version`, so one sent again after a lost answer is
applied at most once. Every loop is bounded in steps and in time.
"""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx

from loadtests.chaos.balancer import Ack, Balancer, Record

GAMES: dict[str, tuple[int, dict[str, Any]]] = {
    "icecream": (2, {"turn_limit": 8}),
    "rockem_sockem": (2, {}),
    "freeze_factory": (3, {"turn_limit": 12}),
    "robots_love_ice_cream": (2, {}),
    "sundae_split": (3, {}),
}
"""Every game, with its players and options that keep a random match short (turn limits where a game has one)."""
MATCH_STEPS = 600
"""Actions a client sends in one match at most."""
LONG_POLL = 5
"""Seconds a client waits for someone else's move per read."""
TIMER_SECONDS = 2
"""The turn timer of timed matches; a sleeping seat's is 1 s."""
AI_LEVELS = ("random", "easy")
"""Cheap levels: the machine is shared, and the soak is about failures, not the AI's strength."""
STREAM_SECONDS = 30.0
"""Seconds one event stream is followed before the follower picks another match."""
TOURNAMENT_GAME = "rockem_sockem"


def choose(rng: random.Random, legal: dict[str, Any]) -> Any:
    """A legal action: a random listed one, or the server's example of a constructed one."""
    if legal["kind"] == "enumerated":
        return rng.choice(legal["actions"])
    return legal["example"]


@dataclass
class Context:
    """What every client shares: the balancer, the record, the stop flag and the seed."""

    balancer: Balancer
    record: Record
    stop: threading.Event
    seed: str

    def rng(self, name: str) -> random.Random:
        """A generator of one client's choices, from the soak's seed and the client's name."""
        return random.Random(f"{self.seed}/{name}")

    def create_match(self, request: dict[str, Any], kind: str) -> dict[str, Any] | None:
        """POST /v1/matches (retried while no process answers); the created match, written to the record."""
        answer = self.balancer.call("POST", "/v1/matches", request, stop=self.stop)
        if answer.status != 201:
            self.record.count(f"match creations answered {answer.status}")
            return None
        created: dict[str, Any] = answer.body
        tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
        timer = request.get("turn_timer", {}).get("seconds")
        self.record.match(created["id"], game=request["game"], kind=kind, tokens=tokens, timer=timer)
        return created

    def act(
        self,
        match_id: str,
        seat: int,
        token: str,
        action: Any,
        version: int,
        seat_query: bool = False,
        port: int | None = None,
    ) -> Any:
        """POST one action with a fresh Idempotency-Key, sent again on lost answers and 5xx (or, to `port`, once);
        the answer."""
        key = uuid.uuid4().hex
        path = f"/v1/matches/{match_id}/actions" + (f"?seat={seat}" if seat_query else "")
        body = {"action": action, "expected_version": version}
        headers = {"Idempotency-Key": key}
        if port is None:
            answer = self.balancer.call("POST", path, body, token, headers, stop=self.stop)
        else:
            answer = self.balancer.send(port, "POST", path, body, token, headers)
        if answer.status == 200:
            self.record.ack(Ack(match_id, seat, int(answer.body["version"]), action, key, token))
        elif answer.status == 422 and answer.body and answer.body.get("code") == "illegal-action":
            self.record.anomaly(f"{match_id} v{version} seat {seat}: a listed action refused: {answer.body}")
        return answer

    def legal(self, match_id: str, token: str, seat: int | None = None) -> dict[str, Any] | None:
        """The seat's legal actions now, or None when no process could say."""
        path = f"/v1/matches/{match_id}/legal-actions" + (f"?seat={seat}" if seat is not None else "")
        answer = self.balancer.call("GET", path, token=token, stop=self.stop)
        return dict(answer.body) if answer.status == 200 else None


# --- people -------------------------------------------------------------------------------------------------


def person(context: Context, index: int) -> None:
    """A person playing match after match, every game in turn: with friends, against the AI, or on a timer."""
    rng = context.rng(f"person-{index}")
    games = list(GAMES)
    played = 0
    while not context.stop.is_set():
        game = games[(index + played) % len(games)]
        players, options = GAMES[game]
        kind = rng.choice(("friends", "friends", "timed", "versus-ai"))
        request: dict[str, Any] = {"game": game, "players": players, "options": options}
        if kind == "versus-ai":
            request["seats"] = [{"type": "human", "name": f"p{index}"}] + [
                {"type": "ai", "level": rng.choice(AI_LEVELS)} for _ in range(players - 1)
            ]
            rng.shuffle(request["seats"])
        elif kind == "timed":
            request["turn_timer"] = {"seconds": TIMER_SECONDS}
        created = context.create_match(request, kind)
        played += 1
        if created is None:
            time.sleep(0.5)
            continue
        play_seats(context, rng, created["id"], created_tokens(created), late=kind == "timed")


def created_tokens(created: dict[str, Any]) -> dict[int, str]:
    """The seat tokens of a created match, by seat."""
    return {entry["seat"]: entry["token"] for entry in created["tokens"]}


def play_seats(context: Context, rng: random.Random, match_id: str, tokens: dict[int, str], late: bool) -> None:
    """Play every seat of `tokens` until the match is over (or `MATCH_STEPS`, or stop); `late`: sometimes too slow."""
    version = 0
    for _ in range(MATCH_STEPS):
        if context.stop.is_set():
            return
        acted = False
        for seat in rng.sample(sorted(tokens), len(tokens)):
            legal = context.legal(match_id, tokens[seat])
            if legal is None or not legal["may_act"]:
                continue
            time.sleep(rng.uniform(0.02, 0.3))  # a person thinks
            if late and rng.random() < 0.05:
                time.sleep(TIMER_SECONDS + 0.5)  # ... too long: the timer plays for the seat
                context.record.count("turns a person let run out")
            answer = context.act(match_id, seat, tokens[seat], choose(rng, legal), legal["version"])
            acted = acted or answer.status == 200
            if answer.status == 200:
                version = int(answer.body["version"])
        if not acted:
            match = context.balancer.call("GET", f"/v1/matches/{match_id}?wait={LONG_POLL}&after={version}")
            if match.status == 200:
                version = int(match.body["version"])
                if match.body["status"] != "active":
                    return
            else:
                time.sleep(0.2)


def sleeper(context: Context, index: int) -> None:
    """A seat that never acts, against a random AI, on a 1 s turn timer: its timer plays every one of its turns."""
    rng = context.rng(f"sleeper-{index}")
    while not context.stop.is_set():
        seats = [{"type": "human", "name": f"sleeper{index}"}, {"type": "ai", "level": "random"}]
        rng.shuffle(seats)
        request = {"game": "icecream", "players": 2, "options": {"turn_limit": 6}, "seats": seats}
        created = context.create_match({**request, "turn_timer": {"seconds": 1}}, "sleeper")
        if created is None:
            time.sleep(0.5)
            continue
        follow_until_over(context, created["id"])


def follow_until_over(context: Context, match_id: str) -> None:
    """Long-poll a match until it is over or stop."""
    version = 0
    while not context.stop.is_set():
        answer = context.balancer.call("GET", f"/v1/matches/{match_id}?wait={LONG_POLL}&after={version}")
        if answer.status != 200:
            time.sleep(0.2)
            continue
        version = int(answer.body["version"])
        if answer.body["status"] != "active":
            return


# --- hints ---------------------------------------------------------------------------------------------------


def hint_flood(context: Context, rate: float) -> None:
    """Hints asked `rate` a second for the acting seats of a few matches of its own; a finished hint is played."""
    rng = context.rng("hints")
    matches: list[tuple[str, dict[int, str]]] = []
    jobs: dict[str, tuple[str, int, str]] = {}  # job id -> match, seat, token
    while not context.stop.is_set():
        time.sleep(1 / rate)
        if len(matches) < 3:
            request = {"game": "sundae_split", "players": 2, "assistance": "allowed"}
            created = context.create_match(request, "hinted")
            if created is not None:
                matches.append((created["id"], created_tokens(created)))
            continue
        match_id, tokens = rng.choice(matches)
        for seat, token in tokens.items():
            legal = context.legal(match_id, token)
            if legal is None or not legal["may_act"]:
                continue
            body = {"level": rng.choice(("easy", "medium"))}
            answer = context.balancer.call("POST", f"/v1/matches/{match_id}/ai-move", body, token, stop=context.stop)
            context.record.count(f"hints answered {answer.status}")
            if answer.status == 202:
                jobs[answer.body["id"]] = (match_id, seat, token)
        play_finished_hints(context, jobs)
        matches = [(m, t) for m, t in matches if still_active(context, m)]


def play_finished_hints(context: Context, jobs: dict[str, tuple[str, int, str]]) -> None:
    """Play the move of every hint job that has finished (a stale one is refused: fine); forget ended jobs."""
    for job_id, (match_id, seat, token) in list(jobs.items()):
        answer = context.balancer.call("GET", f"/v1/jobs/{job_id}", token=token, retry=False)
        if answer.status != 200 or answer.body.get("status") not in ("finished", "failed"):
            if answer.status == 404:
                del jobs[job_id]
            continue
        del jobs[job_id]
        move = (answer.body.get("result") or {}).get("action")
        version = (answer.body.get("result") or {}).get("version", answer.body.get("version"))
        if move is not None and version is not None:
            context.act(match_id, seat, token, move, int(version))
            context.record.count("hinted moves played")


def still_active(context: Context, match_id: str) -> bool:
    """False once the match is over (True while it cannot be read)."""
    answer = context.balancer.call("GET", f"/v1/matches/{match_id}", stop=context.stop)
    return answer.status != 200 or answer.body["status"] == "active"


# --- event streams -------------------------------------------------------------------------------------------


def stream_follower(context: Context, index: int) -> None:
    """Follow the event stream of a random match, resuming on another process when one drops, for a while each."""
    rng = context.rng(f"streams-{index}")
    while not context.stop.is_set():
        with context.record.lock:
            candidates = [m for m, facts in context.record.matches.items() if facts["kind"] != "probe"]
        if not candidates:
            time.sleep(0.5)
            continue
        follow_stream(context, rng, rng.choice(candidates[-20:]))


def follow_stream(context: Context, rng: random.Random, match_id: str) -> None:
    """Read one match's events for up to STREAM_SECONDS; every id must rise; resume with Last-Event-ID."""
    last: int | None = None
    until = time.monotonic() + STREAM_SECONDS
    while not context.stop.is_set() and time.monotonic() < until:
        port = rng.choice(context.balancer.ports)
        headers = {"Last-Event-ID": str(last)} if last is not None else {}
        url = f"http://127.0.0.1:{port}/v1/matches/{match_id}/events"
        try:
            with httpx.stream("GET", url, headers=headers, timeout=httpx.Timeout(10.0, read=20.0)) as response:
                if response.status_code != 200:
                    response.read()
                    body = response.json() if response.headers.get("content-type", "").endswith("json") else None
                    context.record.answered(response.status_code, body, url, "/events", dict(response.headers))
                    time.sleep(0.3)
                    continue
                context.record.count("event streams opened")
                ended, last = read_events(context, match_id, response, last, until)
                if ended:
                    return
        except httpx.HTTPError:
            context.record.count("event streams dropped")
            time.sleep(0.2)


def read_events(
    context: Context, match_id: str, response: httpx.Response, last: int | None, until: float
) -> tuple[bool, int | None]:
    """Read events until the stream ends, `until`, or stop; (the match ended, the last id)."""
    event, data = "", ""
    for line in response.iter_lines():
        if context.stop.is_set() or time.monotonic() > until:
            return False, last
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data = line[5:].strip()
        elif line == "" and event:
            if event == "end":
                return True, last
            if event == "match":
                last = seen_event(context, match_id, json.loads(data), last)
            event, data = "", ""
    context.record.count("event streams closed by the server")
    return False, last


def seen_event(context: Context, match_id: str, payload: dict[str, Any], last: int | None) -> int:
    """Check one match event against the last: its id rises; note the log entries it carries."""
    version = int(payload["version"])
    if last is not None and version < last:
        context.record.anomaly(f"{match_id}: an event stream went back from version {last} to {version}")
    context.record.count("events read")
    with context.record.lock:
        for entry in payload.get("log") or []:
            context.record.seen_entries[(match_id, int(entry["version"]))] = int(entry["seat"])
    return version


# --- bots in a tournament -------------------------------------------------------------------------------------


@dataclass
class Bots:
    """Two registered bots; the tournaments they enter one after another, each cancelled if still running at stop."""

    context: Context
    games_per_pairing: int
    bots: list[dict[str, Any]] = field(default_factory=list)

    def register(self) -> bool:
        """Register the two bots (accepting tournaments by themselves)."""
        for name in ("chaos-bot-a", "chaos-bot-b"):
            name = f"{name}-{self.context.seed}"[:40]
            answer = self.context.balancer.call("POST", "/v1/bots", {"name": name}, stop=self.context.stop)
            if answer.status != 201:
                self.context.record.anomaly(f"bot registration answered {answer.status}: {answer.body}")
                return False
            bot = dict(answer.body)
            patched = self.context.balancer.call(
                "PATCH", f"/v1/bots/{bot['id']}", {"policy": "tournaments"}, bot["token"], stop=self.context.stop
            )
            if patched.status != 200:
                self.context.record.anomaly(f"bot policy answered {patched.status}: {patched.body}")
            self.bots.append(bot)
        return True

    def run(self) -> None:
        """Play tournament after tournament until stop; the one running then is cancelled by its owner."""
        if not self.register():
            return
        players = [threading.Thread(target=self.play, args=(bot,), daemon=True) for bot in self.bots]
        for thread in players:
            thread.start()
        while not self.context.stop.is_set():
            tournament = self.create()
            if tournament is None:
                time.sleep(1)
                continue
            while not self.context.stop.wait(1.0):
                answer = self.context.balancer.call("GET", f"/v1/tournaments/{tournament['id']}")
                if answer.status == 200 and answer.body["status"] not in ("running", "waiting"):
                    break
        for thread in players:
            thread.join(timeout=30)

    def create(self) -> dict[str, Any] | None:
        """A round robin of the two bots and a random AI level, on a 5 s turn timer; None if it was refused."""
        entrants = [{"type": "bot", "bot": bot["id"]} for bot in self.bots] + [{"type": "ai", "level": "random"}]
        request = {
            "game": TOURNAMENT_GAME,
            "entrants": entrants,
            "games_per_pairing": self.games_per_pairing,
            "turn_timer": {"seconds": 5},
        }
        answer = self.context.balancer.call("POST", "/v1/tournaments", request, stop=self.context.stop)
        if answer.status != 201:
            self.context.record.anomaly(f"tournament creation answered {answer.status}: {answer.body}")
            return None
        tournament = dict(answer.body)
        with self.context.record.lock:
            self.context.record.tournaments[tournament["id"]] = {"owner_token": tournament["owner_token"]}
        self.context.record.count("tournaments")
        return tournament

    def play(self, bot: dict[str, Any]) -> None:
        """The bot: list its live seats, act where it may, until stop."""
        rng = self.context.rng(f"bot-{bot['id']}")
        while not self.context.stop.is_set():
            answer = self.context.balancer.call(
                "GET", f"/v1/bots/{bot['id']}/matches?status=playing", token=bot["token"], stop=self.context.stop
            )
            acted = False
            for seat in answer.body["items"] if answer.status == 200 else []:
                if not seat["may_act"] or self.context.stop.is_set():
                    continue
                legal = self.context.legal(seat["match"], bot["token"], seat["seat"])
                if legal is None or not legal["may_act"]:
                    continue
                time.sleep(rng.uniform(0.02, 0.2))
                action = choose(rng, legal)
                reply = self.context.act(seat["match"], seat["seat"], bot["token"], action, legal["version"], True)
                acted = acted or reply.status == 200
            if not acted:
                time.sleep(0.3)

    def cancel_running(self) -> None:
        """The owner cancels every tournament still running (or waiting)."""
        for tournament_id, facts in list(self.context.record.tournaments.items()):
            answer = self.context.balancer.call("GET", f"/v1/tournaments/{tournament_id}")
            if answer.status == 200 and answer.body["status"] in ("running", "waiting"):
                cancelled = self.context.balancer.call(
                    "POST", f"/v1/tournaments/{tournament_id}/cancel", token=facts["owner_token"]
                )
                self.context.record.count(f"tournaments cancelled at the end (answered {cancelled.status})")


@dataclass
class Traffic:
    """Every client thread of the soak."""

    context: Context
    people: int = 6
    sleepers: int = 2
    streams: int = 3
    hint_rate: float = 3.0
    games_per_pairing: int = 2
    threads: list[threading.Thread] = field(default_factory=list)
    bots: Bots | None = None

    def start(self) -> None:
        """Start every client thread."""
        self.bots = Bots(self.context, self.games_per_pairing)
        targets: list[tuple[str, Any, tuple[Any, ...]]] = [
            *((f"person-{n}", person, (self.context, n)) for n in range(self.people)),
            *((f"sleeper-{n}", sleeper, (self.context, n)) for n in range(self.sleepers)),
            *((f"streams-{n}", stream_follower, (self.context, n)) for n in range(self.streams)),
            ("hints", hint_flood, (self.context, self.hint_rate)),
            ("bots", self.bots.run, ()),
        ]
        for name, target, args in targets:
            thread = threading.Thread(target=guarded, args=(self.context, name, target, args), name=name, daemon=True)
            thread.start()
            self.threads.append(thread)

    def stop(self, timeout: float = 60.0) -> list[str]:
        """Stop every client; the names of those that did not end in `timeout` s."""
        self.context.stop.set()
        deadline = time.monotonic() + timeout
        for thread in self.threads:
            thread.join(timeout=max(0.1, deadline - time.monotonic()))
        return [thread.name for thread in self.threads if thread.is_alive()]


def guarded(context: Context, name: str, target: Any, args: tuple[Any, ...]) -> None:
    """Run a client; an exception in it is an anomaly of the soak itself, written down, not a silent thread death."""
    try:
        target(*args)
    except Exception as error:
        context.record.anomaly(f"client {name} failed: {error!r}")
