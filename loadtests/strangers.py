"""Strangers on one server: a player's AI opponent while another client floods, a bot that never accepts, a cancel.

    .venv/bin/python -m loadtests.strangers [--url http://127.0.0.1:8000] [--turns 20] [--hint-seats 10]

Against the service at `--url` (e.g. `make run`, with its default limits), or, without `--url`, the
whole service started on a free port and a temporary data folder with its default limits. It plays,
in order:

1. Keepers: matches stored before anything else (one with moves played, one waiting for a player)
   and a registered bot, read back as they are.
2. A stranger plays Sundae Split against an `--level` AI seat: `--turns` AI answers with nobody else
   about (quiet), then `--turns` more while another client floods (flooded): `hard` hints for the
   seat to act in each of `--hint-seats` matches it holds both seats of, `--rate` a second in turn,
   and `--hammer` more for one of those seats back to back (the issue's 150 in about 2 s); bursts
   of `--creates` match creations and `--bots` bot registrations. The flooder is refused with 429s:
   each must be problem+json with `Retry-After`, and a rate limit's with the RateLimit headers. A
   turn's latency is the AI's log entry time minus the stranger's action before it, both stamped
   by the server.
3. A bot whose author never answers is challenged to a match: it is never seated, and the match is
   aborted once its challenge expires (`PARLOUR_CHALLENGE_SECONDS`, 90 s by default: this waits).
4. A tournament of `random` AI entrants is cancelled by its owner once matches are running: the
   seconds until the answer and until every match is over.
5. The keepers read back unchanged, and every match the flood was answered 201 for is stored.

On one machine every client has the address 127.0.0.1, and creations are limited per address, so
the stranger creates its matches before the flood begins (behind a trusted proxy, set with
`PARLOUR_TRUSTED_PROXIES`, each client has its own address). Run it once per fresh service or
hour: it spends the address's bot registrations (10 an hour). Prints each check as `ok` or
`FAILED` and exits 1 if any failed. Every loop is bounded in count and time.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from loadtests.ai_latency import Service, running_service
from loadtests.hint_flood import GAME, any_action, new_stranger_match, play_stranger

PHASE_TIMEOUT = 300.0
"""Seconds a phase may take before the script gives up on it."""
CHALLENGE_SLACK = 30.0
"""Seconds past a challenge's expiry the script waits for its match to be aborted."""
RATE_LIMIT_HEADERS = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy")
HARD = {"level": "hard"}
AI_ANSWERS_PER_MATCH = 3
"""AI answers to the stranger in a 2-player Sundae Split match (each phase starts a match of its own)."""


@dataclass
class Answer:
    """One HTTP answer: status, JSON body (or None) and headers."""

    status: int
    body: Any
    headers: dict[str, str]


def send(base: str, method: str, path: str, body: dict[str, Any] | None = None, token: str | None = None) -> Answer:
    """One request; every status is an answer (none raises)."""
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, raw, got = response.status, response.read(), response.headers
    except urllib.error.HTTPError as error:
        status, raw, got = error.code, error.read(), error.headers
    return Answer(status, json.loads(raw) if raw else None, {k: v for k, v in got.items()})


@dataclass
class Checks:
    """The script's verdicts, printed as they come."""

    failed: int = 0

    def check(self, ok: bool, what: str) -> None:
        """Print one verdict."""
        self.failed += not ok
        print(f"  {'ok' if ok else 'FAILED':6} {what}", flush=True)


def two_humans(game: str, name: str) -> dict[str, Any]:
    """A match request for two human seats, both handed to the creator."""
    return {"game": game, "players": 2, "seats": [{"type": "human", "name": f"{name}-{n}"} for n in range(2)]}


def created(answer: Answer) -> dict[str, Any]:
    """A 201 body; RuntimeError naming the refusal otherwise."""
    if answer.status != 201:
        raise RuntimeError(f"expected 201, got {answer.status}: {answer.body}")
    return dict(answer.body)


# --- 1. keepers --------------------------------------------------------------------------------
@dataclass
class Keepers:
    """What was stored before the strangers came: read back at the end, it must be the same."""

    service: Service
    paths: list[str] = field(default_factory=list)
    before: dict[str, Any] = field(default_factory=dict)

    def store(self) -> None:
        """A match with moves played, a match waiting for a player, a bot; their readings now."""
        played = created(send(self.service.base, "POST", "/v1/matches", two_humans("icecream", "keeper")))
        tokens = {t["seat"]: t["token"] for t in played["tokens"]}
        for _ in range(3):
            legal = send(self.service.base, "GET", f"/v1/matches/{played['id']}", token=tokens[0]).body
            seat = legal["to_act"][0]
            moves = self.service.call(f"/v1/matches/{played['id']}/legal-actions", token=tokens[seat])
            body = {"action": any_action(moves), "expected_version": moves["version"]}
            self.service.call(f"/v1/matches/{played['id']}/actions", body, token=tokens[seat])
        waiting = {
            "game": "sundae_split",
            "players": 3,
            "seats": [{"type": "human", "name": "host"}] + [{"type": "open"}] * 2,
        }
        open_match = created(send(self.service.base, "POST", "/v1/matches", waiting))
        bot = created(send(self.service.base, "POST", "/v1/bots", {"name": f"keeper-{time.time_ns() % 10**9}"}))
        for match in (played, open_match):
            self.paths += [f"/v1/matches/{match['id']}", f"/v1/matches/{match['id']}/log"]
        self.paths.append(f"/v1/bots/{bot['id']}")
        self.before = self.read()

    def read(self) -> dict[str, Any]:
        """Each keeper's public reading."""
        return {path: send(self.service.base, "GET", path).body for path in self.paths}


# --- 2. the flood -------------------------------------------------------------------------------
@dataclass
class Flood:
    """Another client: hint requests for many seats of its own, and bursts of creations, in threads."""

    service: Service
    hint_seats: int
    rate: float
    hammered: int
    creates: int
    bots: int
    answers: Counter[str] = field(default_factory=Counter)
    refusals: list[Answer] = field(default_factory=list)
    stored: list[str] = field(default_factory=list)
    seats: list[tuple[str, str]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def prepare(self) -> None:
        """The flooder's own matches, both seats its own: the seat to act in each is one it asks hints for."""
        for _ in range(self.hint_seats):
            match = created(send(self.service.base, "POST", "/v1/matches", two_humans(GAME, "flooder")))
            acting = send(self.service.base, "GET", f"/v1/matches/{match['id']}").body["waiting_for"][0]
            self.seats += [(match["id"], t["token"]) for t in match["tokens"] if t["seat"] == acting]

    @contextmanager
    def running(self, timeout: float) -> Iterator[None]:
        """The flood, in two threads, for the block (at most `timeout` s)."""
        works = (self.hammer, self.hints, self.burst)
        threads = [threading.Thread(target=work, args=(timeout,), daemon=True) for work in works]
        for thread in threads:
            thread.start()
        try:
            yield
        finally:
            self.stop.set()
            for thread in threads:
                thread.join(timeout=60)

    def hammer(self, timeout: float) -> None:
        """`hammer` hard hints for the first seat, back to back (the issue's 150 in about 2 s)."""
        deadline = time.monotonic() + timeout
        match_id, token = self.seats[0]
        for _ in range(self.hammered):
            if self.stop.is_set() or time.monotonic() > deadline:
                return
            self.note("hint", send(self.service.base, "POST", f"/v1/matches/{match_id}/ai-move", HARD, token))

    def hints(self, timeout: float) -> None:
        """`hard` hints for each seat in turn, `rate` a second, until stopped."""
        started = time.monotonic()
        sent = 0
        while not self.stop.wait(max(0.0, started + sent / self.rate - time.monotonic())):
            if time.monotonic() - started > timeout:
                return
            match_id, token = self.seats[sent % len(self.seats)]
            self.note("hint", send(self.service.base, "POST", f"/v1/matches/{match_id}/ai-move", HARD, token))
            sent += 1

    def burst(self, timeout: float) -> None:
        """Match creations, then bot registrations, as fast as answers come."""
        deadline = time.monotonic() + timeout
        requests: list[tuple[str, str, Callable[[int], dict[str, Any]]]] = [
            ("create", "/v1/matches", lambda n: two_humans("icecream", f"junk{n}")),
            ("bot", "/v1/bots", lambda n: {"name": f"junk-{time.time_ns() % 10**9}-{n}"}),
        ]
        for (kind, path, body), count in zip(requests, (self.creates, self.bots), strict=True):
            for n in range(count):
                if self.stop.is_set() or time.monotonic() > deadline:
                    return
                answer = self.note(kind, send(self.service.base, "POST", path, body(n)))
                if kind == "create" and answer.status == 201:
                    self.stored.append(answer.body["id"])

    def note(self, kind: str, answer: Answer) -> Answer:
        """Count one answer; keep the refusals."""
        with self.lock:
            code = answer.body.get("code") if answer.status >= 400 and isinstance(answer.body, dict) else None
            self.answers[f"{kind} {answer.status}{f' {code}' if code else ''}"] += 1
            if answer.status == 429:
                self.refusals.append(answer)
        return answer


def well_refused(answer: Answer) -> bool:
    """A 429 as documented: problem+json with Retry-After, and a rate limit's with the RateLimit headers."""
    problem = answer.headers.get("Content-Type", "").startswith("application/problem+json")
    retry = answer.headers.get("Retry-After", "").isdigit()
    limited = answer.body.get("code") == "rate-limited"
    return problem and retry and (not limited or all(name in answer.headers for name in RATE_LIMIT_HEADERS))


def stranger_and_flood(service: Service, args: argparse.Namespace, checks: Checks) -> list[str]:
    """The stranger's AI latency quiet and flooded; the match ids the flood was answered 201 for."""
    ready = [new_stranger_match(service, args.level) for _ in range(2 * math.ceil(args.turns / AI_ANSWERS_PER_MATCH))]
    supply = iter(ready)
    quiet = play_stranger(service, supply.__next__, args.turns, PHASE_TIMEOUT)
    flood = Flood(service, args.hint_seats, args.rate, args.hammer, args.creates, args.bots)
    flood.prepare()
    with flood.running(PHASE_TIMEOUT):
        flooded = play_stranger(service, supply.__next__, args.turns, PHASE_TIMEOUT)
    print(f"  the flood's answers: {', '.join(f'{n} {kind}' for kind, n in sorted(flood.answers.items()))}")
    for name, measure in (("median", statistics.median), ("mean", statistics.fmean)):
        ratio = measure(flooded) / measure(quiet)
        checks.check(
            ratio <= 1.5,
            f"the stranger's {args.level} AI opponent, {name} turn: quiet {1000 * measure(quiet):.0f} ms, "
            f"flooded {1000 * measure(flooded):.0f} ms, x{ratio:.2f} (at most 1.5)",
        )
    kinds = {kind.split()[0] for kind in flood.answers if " 429 " in kind}
    met = ", ".join(sorted(kinds)) or "nothing"
    checks.check(kinds >= {"hint", "create", "bot"}, f"the flooder met 429s for {met}")
    checks.check(
        all(well_refused(answer) for answer in flood.refusals),
        f"all {len(flood.refusals)} 429s are problem+json with Retry-After (and RateLimit headers for rate limits)",
    )
    checks.check(not any(" 5" in kind for kind in flood.answers), "no 5xx answer to the flood")
    return flood.stored


# --- 3. a bot that never accepts ----------------------------------------------------------------
def challenge_silent_bot(service: Service) -> tuple[dict[str, Any], dict[str, Any]]:
    """A bot that will never answer, and a match that challenges it (the 201 bodies)."""
    bot = created(send(service.base, "POST", "/v1/bots", {"name": f"silent-{time.time_ns() % 10**9}"}))
    seats = [{"type": "human", "name": "challenger"}, {"type": "bot", "bot": bot["id"]}]
    match = created(send(service.base, "POST", "/v1/matches", {"game": "icecream", "players": 2, "seats": seats}))
    return bot, match


def check_never_seated(service: Service, bot: dict[str, Any], match: dict[str, Any], checks: Checks) -> None:
    """Wait out the challenge: the bot is never seated, and its match ends aborted."""
    url = f"/v1/matches/{match['id']}"
    now = send(service.base, "GET", url).body
    deadline = time.monotonic() + PHASE_TIMEOUT
    while now["status"] == "waiting" and time.monotonic() < deadline:
        still_pending = not now["seats"][1]["filled"] and now["seats"][1]["challenge"] == "pending"
        if not still_pending:
            break
        time.sleep(1.0)
        now = send(service.base, "GET", url).body
    waited = time.monotonic() - deadline + PHASE_TIMEOUT
    seat = now["seats"][1]
    checks.check(
        now["status"] == "aborted" and not seat["filled"],
        f"the silent bot's match: {now['status']} after {waited:.0f} s more ({now.get('abort_reason')}), "
        f"its seat filled: {seat['filled']}, challenge: {seat.get('challenge')}",
    )
    live = send(service.base, "GET", f"/v1/bots/{bot['id']}/matches?status=playing", token=bot["token"]).body
    profile = send(service.base, "GET", f"/v1/bots/{bot['id']}").body
    checks.check(
        live["items"] == [] and profile["matches_playing"] == 0 and profile["matches_finished"] == 0,
        "the silent bot holds no seat and never played",
    )


# --- 4. a cancelled tournament ------------------------------------------------------------------
def cancel_tournament(service: Service, checks: Checks) -> None:
    """Start a tournament of `random` entrants, cancel it while matches run, time how long it takes to stop."""
    entrants = [{"type": "ai", "level": "random"}] * 12
    request = {"game": GAME, "entrants": entrants, "games_per_pairing": 2, "parallel": 8}
    tournament = created(send(service.base, "POST", "/v1/tournaments", request))
    url = f"/v1/tournaments/{tournament['id']}"
    deadline = time.monotonic() + PHASE_TIMEOUT
    while send(service.base, "GET", url).body["progress"]["done"] < 4 and time.monotonic() < deadline:
        time.sleep(0.2)
    asked = time.monotonic()
    answer = send(service.base, "POST", f"{url}/cancel", token=tournament["owner_token"])
    answered = time.monotonic() - asked
    now = send(service.base, "GET", url).body
    while any(m["status"] == "running" for m in now["matches"]) and time.monotonic() - asked < PHASE_TIMEOUT:
        time.sleep(0.1)
        now = send(service.base, "GET", url).body
    stopped = time.monotonic() - asked
    statuses = Counter(m["status"] for m in now["matches"])
    checks.check(
        answer.status == 200 and now["status"] == "cancelled" and statuses["running"] == 0 and stopped < 10,
        f"a {len(now['matches'])}-match tournament cancelled by its owner: answered in {answered:.2f} s, "
        f"every match over {stopped:.2f} s after asking ({', '.join(f'{n} {s}' for s, n in sorted(statuses.items()))})",
    )


def check_nothing_lost(service: Service, keepers: Keepers, flooded: list[str], checks: Checks) -> None:
    """The keepers read as before; every match the flood was told is stored can be read."""
    after = keepers.read()
    changed = [path for path in keepers.paths if after[path] != keepers.before[path]]
    checks.check(not changed, f"the {len(keepers.paths)} keeper readings unchanged{f': {changed}' if changed else ''}")
    missing = [m for m in flooded if send(service.base, "GET", f"/v1/matches/{m}").status != 200]
    checks.check(not missing, f"all {len(flooded)} matches the flood was answered 201 for are stored")


def play(service: Service, args: argparse.Namespace) -> int:
    """Every phase against the service; 1 if a check failed."""
    checks = Checks()
    keepers = Keepers(service)
    keepers.store()
    bot, challenge = challenge_silent_bot(service)  # it expires while the rest plays
    print("the stranger and the flood:", flush=True)
    flooded = stranger_and_flood(service, args, checks)
    print("a tournament cancelled:", flush=True)
    cancel_tournament(service, checks)
    print("a bot that never accepts:", flush=True)
    check_never_seated(service, bot, challenge, checks)
    print("what was stored:", flush=True)
    check_nothing_lost(service, keepers, flooded, checks)
    print(f"{checks.failed} check(s) failed" if checks.failed else "every check passed")
    return 1 if checks.failed else 0


def main(argv: list[str] | None = None) -> int:
    """Run against --url, or a service of our own."""
    parser = argparse.ArgumentParser(prog="python -m loadtests.strangers", description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running service (default: start one)")
    parser.add_argument("--turns", type=int, default=20, help="AI answers measured quiet, and again flooded")
    parser.add_argument("--level", default="easy", help="the stranger's AI opponent")
    parser.add_argument("--hint-seats", type=int, default=10, help="seats (one a match) the flooder asks hints for")
    parser.add_argument("--hammer", type=int, default=150, help="hard hints for one seat, back to back")
    parser.add_argument("--rate", type=float, default=75.0, help="hint requests a second")
    parser.add_argument("--creates", type=int, default=60, help="match creations in the burst")
    parser.add_argument("--bots", type=int, default=20, help="bot registrations in the burst")
    args = parser.parse_args(argv)
    if args.url:
        return play(Service(None, args.url.rstrip("/")), args)
    with running_service(2, warm_up=False, prefix="parlour-strangers-", limits={}) as service:
        return play(service, args)


if __name__ == "__main__":
    raise SystemExit(main())
