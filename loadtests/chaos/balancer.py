"""The soak's HTTP side: a load balancer over the API processes, and the record every client writes to.

A request goes to an API process picked at random, as a load balancer would; one that cannot be
reached (refused, reset, timed out) or answers 502-504 is tried again on another, after a short
pause, until the request's budget is spent. Every 5xx is written down with when and where, so the
figures can say how many were answered during each failover.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

HTTP_TIMEOUT = 10.0
RETRY_BUDGET = 120.0
"""Seconds a retried request keeps trying (a failover, its replica's resync and a restart fit in it)."""
RETRIED = {500, 502, 503, 504}
"""Statuses worth sending again (with the same Idempotency-Key, an action is applied once whatever happens)."""


@dataclass(frozen=True)
class Answer:
    """An HTTP answer: status (0: no answer at all), JSON body (None when empty or not JSON), headers."""

    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    api: str = ""


@dataclass(frozen=True)
class Ack:
    """An action a client was answered 2xx for: the match, the seat, the version it made, the action, its key."""

    match: str
    seat: int
    version: int
    action: Any
    key: str
    token: str = field(default="", repr=False, compare=False)
    """The token it was sent with (a bot's, for a bot seat), to read the log as that seat sees it."""


@dataclass(frozen=True)
class ServerError:
    """A 5xx answer (or a request no API process answered): when (monotonic), the status, problem code, API."""

    at: float
    status: int
    code: str
    api: str
    path: str
    problem: bool = True
    """Whether it came as problem+json with a Retry-After header (what every 503 must be)."""


@dataclass
class Record:
    """Everything the clients saw, shared by their threads (append under the lock)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    acks: list[Ack] = field(default_factory=list)
    errors: list[ServerError] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    matches: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Match id -> what its creator knows: game, kind, tokens by seat, turn timer seconds."""
    tournaments: dict[str, dict[str, Any]] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    anomalies: list[str] = field(default_factory=list)
    """Things a client saw that must not happen (an event stream going back, a listed action refused)."""
    seen_entries: dict[tuple[str, int], int] = field(default_factory=dict)
    """(match, version) -> seat of each log entry an event stream carried."""

    def ack(self, ack: Ack) -> None:
        """Write down an acknowledged action."""
        with self.lock:
            self.acks.append(ack)

    def count(self, what: str, n: int = 1) -> None:
        """Add to a figure."""
        with self.lock:
            self.counts[what] += n

    def anomaly(self, what: str) -> None:
        """Write down something that must not happen."""
        with self.lock:
            self.anomalies.append(what)

    def match(self, match_id: str, **facts: Any) -> None:
        """Write down a match a client made, with what its creator knows."""
        with self.lock:
            self.matches[match_id] = facts

    def answered(self, status: int, body: Any, api: str, path: str, headers: dict[str, str] | None = None) -> None:
        """Count an answer by status; write down a 5xx or a request nobody answered (status 0)."""
        with self.lock:
            self.statuses[status] += 1
            if status >= 500 or status == 0:
                code = body.get("code", "") if isinstance(body, dict) else ""
                sent = {key.lower(): value for key, value in (headers or {}).items()}
                problem = sent.get("content-type", "").startswith("application/problem+json") and "retry-after" in sent
                self.errors.append(ServerError(time.monotonic(), status, str(code), api, path, problem))


@dataclass
class Balancer:
    """Picks an API process per request; moves on to another when one is down."""

    ports: list[int]
    record: Record
    clients: threading.local = field(default_factory=threading.local)

    def client(self) -> httpx.Client:
        """This thread's HTTP client (kept-alive connections; a killed API's are dropped on error)."""
        client = getattr(self.clients, "client", None)
        if client is None:
            client = httpx.Client(timeout=HTTP_TIMEOUT)
            self.clients.client = client
        return client

    def base(self, port: int) -> str:
        """The URL of the API process on `port`."""
        return f"http://127.0.0.1:{port}"

    def send(
        self,
        port: int,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        """One request to one API process; status 0 when it did not answer."""
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        api = self.base(port)
        try:
            response = self.client().request(method, api + path, json=body, headers=sent)
        except httpx.HTTPError:
            self.clients.client = None  # its pool may hold the dead process's connections
            self.record.answered(0, None, api, path)
            return Answer(0, None, {}, api)
        try:
            parsed = response.json() if response.content else None
        except ValueError:
            parsed = None
        self.record.answered(response.status_code, parsed, api, path, dict(response.headers))
        return Answer(response.status_code, parsed, dict(response.headers), api)

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        retry: bool = True,
        stop: threading.Event | None = None,
        budget: float = RETRY_BUDGET,
    ) -> Answer:
        """Send through the balancer; with `retry`, again on another process while none answers or a 5xx comes."""
        deadline = time.monotonic() + budget
        ports = list(self.ports)
        random.shuffle(ports)
        attempt = 0
        while True:
            answer = self.send(ports[attempt % len(ports)], method, path, body, token, headers)
            attempt += 1
            if not retry or answer.status not in RETRIED | {0}:
                return answer
            if time.monotonic() > deadline or (stop is not None and stop.is_set() and attempt > len(ports) * 3):
                return answer
            time.sleep(retry_pause(answer, attempt, len(ports)))


def retry_pause(answer: Answer, attempt: int, apis: int) -> float:
    """Seconds before the next try: none to go round the other processes, then Retry-After (at most 1 s)."""
    if attempt % apis:
        return 0.02
    try:
        return min(1.0, max(0.1, float(answer.headers.get("retry-after", "0.3"))))
    except ValueError:
        return 0.3
