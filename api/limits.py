"""Rate limits: fixed windows of the `limits` library, counted in the service's own Redis, keyed by who is asking.

Whose bucket a request spends is decided by what is proven, never by what a request claims: a seat's
(`seat:<match>:<seat>`), a bot's (`bot:<id>`) or an owner's bucket is charged only once the view has checked the
bearer token (`prove`, called where the token is verified), so a forged token spends nobody's bucket. Until then the
request is held, and a request whose token is never proven (a 401, a 403, a 404 ...) is charged to the client's
address (`addr:<ip>`, an IPv6 client by its /64) after its answer. Requests without a token are charged to their
address before the view runs. Creations and joins (matches, bots, tournaments, seats) are keyed by address whatever
the token, since each mints a token: keyed by a token, each would buy its sender a new bucket.

An address that sends tokens that fail (`auth_failures`, counted on every 401) or that are never proven is a
suspect: its token requests first look at its address's buckets, and once its 401 budget or one of those buckets
is spent, every request it sends with a token is refused, uncounted, until the window ends. (Each count is in
Redis; a process looks them up only for addresses it has itself suspected lately, so an honest client's token
requests cost no round trip for it.)

Behind a reverse proxy, `PARLOUR_TRUSTED_PROXIES=N` takes the client address from the
`X-Forwarded-For` those N proxies append (werkzeug's ProxyFix); without it the header is ignored,
since any client can send one.

Every refusal is a 429 problem+json (`rate-limited`, mapped in `api/problems.py`) with `Retry-After`
and the IETF draft's `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds) and
`RateLimit-Policy` (`<limit>;w=<seconds>` for each limit of the route); limited routes carry the
four RateLimit headers on every answer. If Redis cannot be reached the limiter lets the request
through and logs why: a store outage answers 503 where the store is needed, never a 500 for a counter.

One Redis script call counts a request against every limit of its route and answers what the headers
need (`Counters`), so a limited request costs one round trip and an unlimited one none. (flask-limiter,
used before, took a quarter of the API's time on the load test: two evaluations of every request,
a round trip per limit and another for its headers.)
"""

from __future__ import annotations

import ipaddress
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import redis
from flask import Flask, Response, current_app, g, request
from limits import RateLimitItem, parse_many
from werkzeug.middleware.proxy_fix import ProxyFix

from model.refusals import RateLimited
from model.settings import LimitSettings
from model.tokens import BotToken, Credential, OwnerToken, parse_credential
from store.connection import redis_client

log = logging.getLogger(__name__)
KEY_PREFIX = "parlour:limit"
"""Redis keys of the counters: `parlour:limit:LIMITER/<route>/<who>/<amount>/<multiples>/<period>`."""
LIMITER = "parlour.limiter"
"""Where `install` keeps the app's Limiter (`app.extensions`), for `prove`."""
IPV6_BLOCK = 64
"""An IPv6 client is counted by its /64: one host is handed a whole /64 and may send from any address in it."""
AUTH_FAILURES_SCOPE = "auth-failures"
SUSPECTS_KEPT = 100_000
"""Addresses a process remembers having answered 401 (the oldest are forgotten first)."""
RATE_LIMIT_HEADERS = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", "Retry-After")


# --- who is asking ---------------------------------------------------------------------------------
def client_address() -> str:
    """The client's key by address (`addr:<ip>`): the peer, or the forwarded-for a trusted proxy gave; an IPv6
    address by its /64 (`addr:2001:db8:1:2::/64`), an IPv4-mapped one as the IPv4 address it maps."""
    return f"addr:{address_block(request.remote_addr or 'unknown')}"


def address_block(address: str) -> str:
    """What one client's address is counted as: an IPv4 address, or the /64 an IPv6 address lies in (anything
    else, such as a proxy's malformed forwarded-for, is `unknown`: no key is built from it)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, IPV6_BLOCK), strict=False))
    return str(ip)


def proven_key(token: Credential, by: str, match_id: str, seat: int | None) -> str:
    """The bucket of a token the view has checked: its seat's, its bot's (narrowed to the seat for `SEAT`
    limits: a bot's hints are per seat) or its owner's. Every part comes from a checked token or record."""
    if isinstance(token, BotToken):
        narrowed = by == SEAT and seat is not None
        return f"bot:{token.bot_id}:{match_id}:{seat}" if narrowed else f"bot:{token.bot_id}"
    if isinstance(token, OwnerToken):
        return f"owner:{token.owned_id}"
    return f"seat:{token.match_id}:{token.seat}"


def request_credential() -> Credential | None:
    """The bearer token the request names, parsed but unchecked (None without one, or when it is not a token)."""
    scheme, _, text = request.headers.get("Authorization", "").partition(" ")
    return parse_credential(text.strip()) if scheme.lower() == "bearer" else None


def prove(token: Credential, match_id: str = "", seat: int | None = None) -> None:
    """The view has checked `token` (for `seat` of `match_id`): charge the request's held limits to its bucket;
    a 429 when one is spent. Nothing to do on a route without such limits, or with limits off."""
    limiter: Limiter | None = current_app.extensions.get(LIMITER)
    if limiter is not None:
        limiter.charge_proven(token, match_id, seat)


# --- what is limited -------------------------------------------------------------------------------


ADDRESS = "address"
"""A limit charged to the client's address, whatever token it sends."""
HOLDER = "holder"
"""A limit charged to the proven holder of the request's token (its seat, bot or owner), else to its address."""
SEAT = "seat"
"""As `HOLDER`, but a bot's bucket is narrowed to the match and seat it acts for."""


@dataclass(frozen=True)
class RouteLimit:
    """One limit on one route: the setting it reads, whose bucket it charges, and when it does not apply."""

    endpoint: str
    setting: str
    by: str
    applies: Callable[[], bool] = lambda: True


def _long_poll() -> bool:
    return "after" in request.args


def _stream() -> bool:
    return "wait" not in request.args


def _bot_long_poll() -> bool:
    return "wait" in request.args


LIMITED: tuple[RouteLimit, ...] = (
    RouteLimit("matches.create_match", "create_match", ADDRESS),
    RouteLimit("matches.join_match", "joins", ADDRESS),
    RouteLimit("bots.register_bot", "create_bot", ADDRESS),
    RouteLimit("tournaments.create_tournament", "create_tournament", ADDRESS),
    RouteLimit("matchmaking.enter", "matchmaking", ADDRESS),
    RouteLimit("matchmaking.cancel_ticket", "matchmaking", HOLDER),
    RouteLimit("matchmaking.get_ticket", "long_polls", HOLDER, _bot_long_poll),
    RouteLimit("matches.request_ai_move", "hints", SEAT),
    RouteLimit("analysis.analyse_match", "hints", SEAT),  # an analysis costs a worker what a hint does
    RouteLimit("analysis.analyse_position", "hints", ADDRESS),
    RouteLimit("matches.post_action", "actions", HOLDER),
    RouteLimit("matches.resign", "actions", HOLDER),  # the lifecycle posts are a seat's moves as well
    RouteLimit("matches.leave", "actions", HOLDER),
    RouteLimit("matches.rematch", "actions", HOLDER),
    RouteLimit("events.match_events", "streams", HOLDER),
    RouteLimit("bots.bot_events", "streams", HOLDER, _stream),
    RouteLimit("jobs.job_events", "streams", ADDRESS),  # a public analysis's reader sends no token to be proven
    RouteLimit("bots.bot_events", "long_polls", HOLDER, _bot_long_poll),
    RouteLimit("matches.get_match", "long_polls", HOLDER, _long_poll),
    RouteLimit("matches.replay_step", "replays", ADDRESS),
    RouteLimit("match_exports.export_match", "replays", ADDRESS),
    RouteLimit("reviews.get_review", "replays", ADDRESS),
    RouteLimit("reviews.ask_for_review", "reviews", ADDRESS),  # each may queue a job: limited as creations are
    # Pages of up to 100 or 500 entries, each a read of as many records or log entries.
    RouteLimit("matches.list_matches", "pages", ADDRESS),
    RouteLimit("matches.match_log", "pages", ADDRESS),
    RouteLimit("bots.list_bots", "pages", ADDRESS),
    RouteLimit("bots.list_matches", "pages", ADDRESS),
    RouteLimit("bots.rating_history", "pages", ADDRESS),
    RouteLimit("tournaments.list_tournaments", "pages", ADDRESS),
    RouteLimit("games.leaderboard", "pages", ADDRESS),
    RouteLimit("matchmaking.list_pools", "pages", ADDRESS),
)
TOKEN_ENDPOINTS = frozenset(
    {
        "matches.get_match",
        "matches.legal_actions",
        "matches.post_action",
        "matches.resign",
        "matches.leave",
        "matches.rematch",
        "matches.match_log",
        "matches.request_ai_move",
        "events.match_events",
        "jobs.get_job",
        "jobs.job_events",
        "analysis.analyse_match",
        "bots.bot_events",
        "matchmaking.get_ticket",
        "matchmaking.cancel_ticket",
    }
)
"""The routes that read a bearer token: a request with one counts against its address's 401 budget."""


class Suspects:
    """The addresses this process answered 401 within the auth-failure window: only their token requests
    pay for a look at the shared 401 counter, so an honest client's requests cost no Redis call for it.

    Another process's 401s are counted in Redis all the same; this process starts checking an address
    at its own first 401 from it, so a forger spreading over processes gains at most one each.
    """

    def __init__(self, window: float) -> None:
        self.window = window
        self._until: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, address: str) -> None:
        """Remember a 401 answered to `address`."""
        with self._lock:
            self._until[address] = time.monotonic() + self.window
            self._until.move_to_end(address)
            while len(self._until) > SUSPECTS_KEPT:
                self._until.popitem(last=False)

    def __contains__(self, address: object) -> bool:
        with self._lock:
            until = self._until.get(str(address))
            if until is not None and until < time.monotonic():
                del self._until[str(address)]
                return False
            return until is not None


def _sends_token() -> bool:
    return request.endpoint in TOKEN_ENDPOINTS and "Authorization" in request.headers


# Fixed windows, as the `limits` library keeps them (the key is `limits`' own), in one round trip for all
# of a request's limits. KEYS: one counter per limit. ARGV[1]: the cost (0 only looks); ARGV[i + 1]: the
# window of KEYS[i] in seconds, which starts at the counter's first count. Answers count and TTL per key.
_COUNT = """
local answer = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCRBY', key, ARGV[1])
  local ttl = redis.call('TTL', key)
  if ttl < 0 then
    ttl = tonumber(ARGV[i + 1])
    redis.call('EXPIRE', key, ttl)
  end
  answer[#answer + 1] = count
  answer[#answer + 1] = ttl
end
return answer
"""


@dataclass(frozen=True)
class Window:
    """One limit's window as this request left it: the limit, the count in it, and seconds until it ends."""

    item: RateLimitItem
    count: int
    reset: int
    breached: bool

    @property
    def remaining(self) -> int:
        """Requests the window still allows."""
        return 0 if self.breached else max(0, self.item.amount - self.count)

    @property
    def policy(self) -> str:
        """The limit in the IETF draft's policy form: `<limit>;w=<seconds>`."""
        return f"{self.item.amount};w={self.item.get_expiry()}"


class Counters:
    """The limits' counters in Redis (under KEY_PREFIX): one script call per request, however many limits."""

    def __init__(self, client: redis.Redis) -> None:
        self._count = client.register_script(_COUNT)

    def count(self, items: Sequence[RateLimitItem], scope: str, who: str, cost: int) -> list[Window]:
        """Add `cost` to each limit's counter of `who` in `scope` (0: only look); each window after it."""
        keys = [f"{KEY_PREFIX}:{item.key_for(scope, who)}" for item in items]
        reply = self._count(keys=keys, args=[cost, *(item.get_expiry() for item in items)])
        windows = []
        for item, count, ttl in zip(items, reply[::2], reply[1::2], strict=True):
            over = count > item.amount if cost else count >= item.amount
            windows.append(Window(item, int(count), max(0, int(ttl)), over))
        return windows


@dataclass(frozen=True)
class RouteLimits:
    """A route's limits, parsed: the items of one setting, its scope, whose bucket it charges, when it applies."""

    items: tuple[RateLimitItem, ...]
    scope: str
    by: str
    applies: Callable[[], bool]


class Limiter:
    """Counts each limited request (before its view, or once the view proved its token), refuses it with a 429
    once a window is spent, and writes the RateLimit headers of the limit nearest to refusing it.

    On `flask.g`: `parlour_windows`, the windows counted so far; `parlour_held`, the limits waiting for the
    request's token to be proven (charged to the holder by `charge_proven`, else to the address afterwards).
    """

    def __init__(self, settings: LimitSettings, client: redis.Redis) -> None:
        self.counters = Counters(client)
        self.routes: dict[str, list[RouteLimits]] = {}
        for route in LIMITED:
            items = tuple(parse_many(getattr(settings, route.setting)))
            limits = RouteLimits(items, route.setting, route.by, route.applies)
            self.routes.setdefault(route.endpoint, []).append(limits)
        self.failure_items = tuple(parse_many(settings.auth_failures))
        self.suspects = Suspects(max(item.get_expiry() for item in self.failure_items))

    def check(self) -> None:
        """Before the view: charge the request's address-keyed limits, and hold those its token may be proven for;
        429 when a window is spent, or when a suspect address sends a token past its budget."""
        if request.method == "OPTIONS":  # a CORS preflight runs no view: it costs nothing to count
            return
        limits = [route for route in self.routes.get(request.endpoint or "", ()) if route.applies()]
        token = request_credential() if _sends_token() else None
        held = [route for route in limits if route.by != ADDRESS and token is not None]
        try:
            if _sends_token() and client_address() in self.suspects:
                self.refuse_if_spent(self.suspected_windows(held))  # uncounted: nothing spent past the budget
            windows: list[Window] = []
            for route in limits:
                if route not in held:
                    windows += self.counters.count(route.items, route.scope, client_address(), cost=1)
        except redis.RedisError as error:  # fail open: a counter Redis cannot keep lets the request through
            log.warning("rate limits not checked (%s): request let through", error)
            return
        g.parlour_windows = windows
        self.refuse_if_spent(windows)
        g.parlour_held = held

    def suspected_windows(self, held: Sequence[RouteLimits]) -> list[Window]:
        """A suspect address's 401 budget and the address buckets its held limits fall back on, looked at only."""
        windows = self.counters.count(self.failure_items, AUTH_FAILURES_SCOPE, client_address(), cost=0)
        for route in held:
            windows += self.counters.count(route.items, route.scope, client_address(), cost=0)
        return windows

    def charge_proven(self, token: Credential, match_id: str, seat: int | None) -> None:
        """The request's token is proven: charge its held limits to the holder's buckets; 429 once one is spent."""
        held: list[RouteLimits] = g.pop("parlour_held", [])
        windows: list[Window] = []
        try:
            for route in held:
                who = proven_key(token, route.by, match_id, seat)
                windows += self.counters.count(route.items, route.scope, who, cost=1)
        except redis.RedisError as error:  # fail open, as before the view
            log.warning("rate limits not checked (%s): request let through", error)
            return
        g.parlour_windows = g.get("parlour_windows", []) + windows
        self.refuse_if_spent(windows)

    @staticmethod
    def refuse_if_spent(windows: Sequence[Window]) -> None:
        """A 429 naming the first spent window, if any (its headers are written by `after`)."""
        refused = next((window for window in windows if window.breached), None)
        if refused is not None:
            g.parlour_windows = [refused, *g.get("parlour_windows", [])]
            raise RateLimited(f"too many requests of this kind: at most {refused.item}; see Retry-After")

    def after(self, response: Response) -> Response:
        """After the view: charge a token never proven to its address, count a 401 against its address's budget,
        and write the RateLimit headers."""
        held: list[RouteLimits] = g.pop("parlour_held", [])
        if held:
            self.charge_address(held)
        if response.status_code == 401 and _sends_token():
            self.count_auth_failure()
        windows: list[Window] = g.pop("parlour_windows", [])
        if windows:
            add_headers(response, windows)
        return response

    def charge_address(self, held: Sequence[RouteLimits]) -> None:
        """A request whose token was never proven is charged to its address, which becomes a suspect here."""
        address = client_address()
        self.suspects.add(address)
        try:
            for route in held:
                g.parlour_windows = g.get("parlour_windows", []) + self.counters.count(
                    route.items, route.scope, address, cost=1
                )
        except redis.RedisError as error:  # fail open, as the limits do
            log.warning("unproven request of %s not counted: %s", address, error)

    def count_auth_failure(self) -> None:
        """Count a 401 against its address's budget (in Redis, for every process), and suspect the address here."""
        address = client_address()
        self.suspects.add(address)
        try:
            self.counters.count(self.failure_items, AUTH_FAILURES_SCOPE, address, cost=1)
        except redis.RedisError as error:  # fail open, as the limits do
            log.warning("401 of %s not counted: %s", address, error)


def install(app: Flask, settings: LimitSettings, redis_url: str) -> Limiter | None:
    """Trust the configured proxies and limit the routes in `LIMITED`; None when limits are off."""
    if settings.trusted_proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.trusted_proxies)  # type: ignore[method-assign]
    if not settings.enabled:
        return None
    limiter = Limiter(settings, redis_client(redis_url))
    app.extensions[LIMITER] = limiter
    app.before_request(limiter.check)
    app.after_request(limiter.after)
    return limiter


def add_headers(response: Response, windows: Sequence[Window]) -> None:
    """The RateLimit headers of the limit nearest to refusing this request (and Retry-After on a 429)."""
    current = next((window for window in windows if window.breached), None)
    if current is None:
        current = min(windows, key=lambda window: window.remaining)  # the first listed among equals
    response.headers["RateLimit-Limit"] = str(current.item.amount)
    response.headers["RateLimit-Remaining"] = str(current.remaining)
    response.headers["RateLimit-Reset"] = str(current.reset)
    response.headers["RateLimit-Policy"] = ", ".join(dict.fromkeys(w.policy for w in [current, *windows]))
    if response.status_code == 429 and "Retry-After" not in response.headers:  # a quota's refusal has its own
        response.headers["Retry-After"] = str(max(1, current.reset))
