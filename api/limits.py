"""Rate limits: flask-limiter, its counters in the service's own Redis, keyed by who is asking.

Who asks (`identity`): the seat a seat token names (`seat:<match>:<seat>`), the bot a bot token
names (`bot:<id>`), or else the client's address (`addr:<ip>`). Tokens are parsed here, not
checked (the views check them), so anyone can invent one and with it a fresh bucket; but a forged
token is answered 401, and the 401s are counted per address (`auth_failures`): once an address
has used up that budget, every request it sends with a token is refused until the window ends.
(Every 401 is counted in Redis; a process looks the count up only for addresses it has itself
answered 401 lately, so an honest client's token requests cost no round trip for it.)
Creations (matches, bots, tournaments) are keyed by address whatever the token, since creating a
match mints seat tokens: keyed by a seat token, each new match would buy its creator a new bucket.

Behind a reverse proxy, `PARLOUR_TRUSTED_PROXIES=N` takes the client address from the
`X-Forwarded-For` those N proxies append (werkzeug's ProxyFix); without it the header is ignored,
since any client can send one.

Every refusal is a 429 problem+json (`rate-limited`, mapped in `api/errors.py`) with `Retry-After`
and the IETF draft's `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds) and
`RateLimit-Policy` (`<limit>;w=<seconds>` for each limit of the route); limited routes carry the
four RateLimit headers on every answer. If Redis cannot be reached the limiter lets the request
through and logs why (flask-limiter's `swallow_errors`): a store outage answers 503 where the store
is needed, never a 500 for a counter.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import cast

import redis
from flask import Flask, Response, g, request
from flask_limiter import ApplicationLimit, Limiter, RequestLimit
from limits import RateLimitItem, parse_many
from limits.storage import RedisStorage
from werkzeug.middleware.proxy_fix import ProxyFix

from api.store import redis_client
from api.tokens import BotToken, OwnerToken, parse_credential

log = logging.getLogger(__name__)
KEY_PREFIX = "parlour:limit"
"""Redis keys of the counters: `parlour:limit:LIMITER/<who>/<route>/<amount>/<multiples>/<period>`."""
MAX_ID = 64  # longer match or bot ids are never valid: such a token is keyed by address
AUTH_FAILURES_SCOPE = "auth-failures"
SUSPECTS_KEPT = 100_000
"""Addresses a process remembers having answered 401 (the oldest are forgotten first)."""
RATE_LIMIT_HEADERS = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", "Retry-After")


def _env(name: str, default: str) -> str:
    """An environment variable, or the default when unset or empty."""
    return os.environ.get(name, "").strip() or default


def _env_count(name: str, default: int) -> int:
    """A non-negative integer environment variable, or the default when unset or empty."""
    raw = os.environ.get(name, "").strip()
    value = int(raw) if raw else default
    if value < 0:
        raise ValueError(f"{name} must be 0 or more, not {value}")
    return value


@dataclass(frozen=True)
class LimitSettings:
    """Rate limits (flask-limiter strings such as `30/minute;5/second`) and quotas; see README, Limits."""

    enabled: bool = field(default_factory=lambda: _env("PARLOUR_LIMITS", "1") != "0")
    trusted_proxies: int = field(default_factory=lambda: _env_count("PARLOUR_TRUSTED_PROXIES", 0))
    create_match: str = field(default_factory=lambda: _env("PARLOUR_LIMIT_CREATE_MATCH", "30/minute"))
    create_bot: str = field(default_factory=lambda: _env("PARLOUR_LIMIT_CREATE_BOT", "10/hour"))
    create_tournament: str = field(default_factory=lambda: _env("PARLOUR_LIMIT_CREATE_TOURNAMENT", "10/hour"))
    hints: str = field(default_factory=lambda: _env("PARLOUR_LIMIT_HINTS", "60/minute"))
    actions: str = field(default_factory=lambda: _env("PARLOUR_LIMIT_ACTIONS", "100/second;3000/minute"))
    streams: str = field(default_factory=lambda: _env("PARLOUR_LIMIT_STREAMS", "120/minute"))
    long_polls: str = field(default_factory=lambda: _env("PARLOUR_LIMIT_LONG_POLLS", "100/second;3000/minute"))
    replays: str = field(default_factory=lambda: _env("PARLOUR_LIMIT_REPLAYS", "20/second;600/minute"))
    auth_failures: str = field(default_factory=lambda: _env("PARLOUR_LIMIT_AUTH_FAILURES", "30/minute"))
    # Quotas (api/quotas.py); 0 means none.
    matches: int = field(default_factory=lambda: _env_count("PARLOUR_QUOTA_MATCHES", 50))
    tournaments: int = field(default_factory=lambda: _env_count("PARLOUR_QUOTA_TOURNAMENTS", 2))
    bots: int = field(default_factory=lambda: _env_count("PARLOUR_QUOTA_BOTS", 20))
    streams_held: int = field(default_factory=lambda: _env_count("PARLOUR_QUOTA_STREAMS", 64))
    tournament_matches: int = field(default_factory=lambda: _env_count("PARLOUR_QUOTA_TOURNAMENT_MATCHES", 500))
    tournament_entrants: int = field(default_factory=lambda: _env_count("PARLOUR_QUOTA_TOURNAMENT_ENTRANTS", 64))

    def __post_init__(self) -> None:
        for name in LIMIT_NAMES:
            try:
                parse_many(getattr(self, name))
            except ValueError:
                variable = f"PARLOUR_LIMIT_{name.upper()}"
                raise ValueError(f"{variable}: {getattr(self, name)!r} is not a limit such as '30/minute'") from None


# --- who is asking ---------------------------------------------------------------------------------
def client_address() -> str:
    """The client's key by address (`addr:<ip>`): the peer, or the forwarded-for a trusted proxy gave."""
    return f"addr:{request.remote_addr or 'unknown'}"


def identity() -> str:
    """The key of who is asking: the seat or bot its bearer token names (unchecked), else its address."""
    if "parlour_identity" not in g:
        g.parlour_identity = _identity_of(request.headers.get("Authorization", ""))
    return str(g.parlour_identity)


def _identity_of(header: str) -> str:
    scheme, _, text = header.partition(" ")
    credential = parse_credential(text.strip()) if scheme.lower() == "bearer" else None
    if isinstance(credential, BotToken):
        if len(credential.bot_id) <= MAX_ID:
            return f"bot:{credential.bot_id}"
    elif isinstance(credential, OwnerToken):
        if len(credential.owned_id) <= MAX_ID:
            return f"owner:{credential.owned_id}"
    elif credential is not None and len(credential.match_id) <= MAX_ID:
        return f"seat:{credential.match_id}:{credential.seat}"
    return client_address()


def seat_identity() -> str:
    """Who asks, for one seat: a bot's key is narrowed to the match and the seat it names (hints are per seat)."""
    who = identity()
    if not who.startswith("bot:"):
        return who
    match_id = (request.view_args or {}).get("match_id", "")
    return f"{who}:{match_id}:{request.args.get('seat', '')}"


# --- what is limited -------------------------------------------------------------------------------
LIMIT_NAMES = (
    "create_match",
    "create_bot",
    "create_tournament",
    "hints",
    "actions",
    "streams",
    "long_polls",
    "auth_failures",
)
"""The rate limits: each a LimitSettings field, set by PARLOUR_LIMIT_<NAME>."""


@dataclass(frozen=True)
class RouteLimit:
    """One limit on one route: the setting it reads, whose bucket it counts, and when it does not apply."""

    endpoint: str
    setting: str
    key: Callable[[], str]
    applies: Callable[[], bool] = lambda: True


def _long_poll() -> bool:
    return "after" in request.args


def _stream() -> bool:
    return "wait" not in request.args


def _bot_long_poll() -> bool:
    return "wait" in request.args


LIMITED: tuple[RouteLimit, ...] = (
    RouteLimit("matches.create_match", "create_match", client_address),
    RouteLimit("bots.register_bot", "create_bot", client_address),
    RouteLimit("tournaments.create_tournament", "create_tournament", client_address),
    RouteLimit("matches.request_ai_move", "hints", seat_identity),
    RouteLimit("matches.post_action", "actions", identity),
    RouteLimit("events.match_events", "streams", identity),
    RouteLimit("bots.bot_events", "streams", identity, _stream),
    RouteLimit("bots.bot_events", "long_polls", identity, _bot_long_poll),
    RouteLimit("matches.get_match", "long_polls", identity, _long_poll),
    RouteLimit("matches.replay_step", "replays", client_address),
)
TOKEN_ENDPOINTS = frozenset(
    {
        "matches.get_match",
        "matches.legal_actions",
        "matches.post_action",
        "matches.match_log",
        "matches.request_ai_move",
        "events.match_events",
        "jobs.get_job",
        "bots.bot_events",
    }
)
"""The routes that read a bearer token: a request with one counts against its address's 401 budget."""


def limits_uri(redis_url: str) -> str:
    """The `limits` library's storage URI for a REDIS_URL (its scheme for a Unix socket is `redis+unix`)."""
    return "redis+unix://" + redis_url.removeprefix("unix://") if redis_url.startswith("unix://") else redis_url


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


def install(app: Flask, settings: LimitSettings, redis_url: str) -> Limiter | None:
    """Trust the configured proxies and limit the routes in `LIMITED`; None when limits are off."""
    if settings.trusted_proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.trusted_proxies)  # type: ignore[method-assign]
    if not settings.enabled:
        return None
    failure_limits = parse_many(settings.auth_failures)
    suspects = Suspects(max(item.get_expiry() for item in failure_limits))
    auth_failures = ApplicationLimit(
        settings.auth_failures,
        key_function=client_address,
        scope=AUTH_FAILURES_SCOPE,
        exempt_when=lambda: not (_sends_token() and client_address() in suspects),
        deduct_when=lambda response: False,  # only looked at here: `count_auth_failure` counts the 401s
    )
    limiter = Limiter(
        key_func=client_address,
        app=app,
        application_limits=[auth_failures],
        strategy="fixed-window",
        storage_uri=limits_uri(redis_url),
        storage_options={"connection_pool": redis_client(redis_url).connection_pool, "key_prefix": KEY_PREFIX},  # type: ignore[dict-item]
        swallow_errors=True,  # fail open: a counter Redis cannot keep lets the request through, logged
        headers_enabled=False,  # the IETF names and a Reset in seconds are written by `rate_limit_headers`
    )
    for route in LIMITED:
        view = app.view_functions[route.endpoint]
        wrapped = limiter.limit(
            getattr(settings, route.setting),
            key_func=route.key,
            exempt_when=lambda applies=route.applies: not applies(),  # type: ignore[misc]
            scope=route.setting,
        )(view)
        app.view_functions[route.endpoint] = wrapped  # type: ignore[assignment]
    endpoints = {route.endpoint for route in LIMITED}

    @app.after_request
    def rate_limit_headers(response: Response) -> Response:
        if response.status_code == 401 and _sends_token():
            count_auth_failure(limiter, failure_limits, suspects)
        if request.endpoint in endpoints or response.status_code == 429:
            add_headers(limiter, response, limiter.current_limit, limiter.current_limits)
        return response

    return limiter


def count_auth_failure(limiter: Limiter, limits: Sequence[RateLimitItem], suspects: Suspects) -> None:
    """Count a 401 against its address's budget (in Redis, for every process), and suspect the address here."""
    address = client_address()
    suspects.add(address)
    try:
        for item in limits:
            limiter.limiter.hit(item, address, AUTH_FAILURES_SCOPE)
    except redis.RedisError as error:  # fail open, as the limiter does
        log.warning("401 of %s not counted: %s", address, error)


def window_of(limiter: Limiter, current: RequestLimit) -> tuple[float, int]:
    """When the limit's window ends and what it has left: one round trip (the `limits` API takes two)."""
    storage = limiter.storage
    if not isinstance(storage, RedisStorage):
        reset_at, remaining = current.window
        return reset_at, remaining
    key = storage.prefixed_key(current.limit.key_for(*current.request_args))
    pipe = cast(redis.Redis, storage.get_connection()).pipeline(transaction=False)
    pipe.get(key)
    pipe.ttl(key)
    count, ttl = pipe.execute()
    return time.time() + max(int(ttl), 0), max(0, current.limit.amount - int(count or 0))


def add_headers(
    limiter: Limiter, response: Response, current: RequestLimit | None, evaluated: Sequence[RequestLimit]
) -> None:
    """The RateLimit headers of the limit nearest to refusing this request (and Retry-After on a 429)."""
    if current is None:
        return
    try:
        reset_at, remaining = window_of(limiter, current)
    except redis.RedisError as error:  # the limiter failed open; so do its headers
        log.warning("rate limit headers left out: %s", error)
        return
    reset = max(0, math.ceil(reset_at - time.time()))
    policies = [current, *(limit for limit in evaluated if limit is not current)]
    response.headers["RateLimit-Limit"] = str(current.limit.amount)
    response.headers["RateLimit-Remaining"] = str(0 if current.breached else remaining)
    response.headers["RateLimit-Reset"] = str(reset)
    response.headers["RateLimit-Policy"] = ", ".join(
        dict.fromkeys(f"{limit.limit.amount};w={limit.limit.get_expiry()}" for limit in policies)
    )
    if response.status_code == 429 and "Retry-After" not in response.headers:  # a quota's refusal has its own
        response.headers["Retry-After"] = str(max(1, reset))
