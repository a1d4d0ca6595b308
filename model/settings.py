"""Every setting Parlour reads from its environment, declared once: its name, default, section and meaning.

`SETTINGS` lists them all, in the order the settings reference shows them (docs/reference/settings.md is
generated from it). Each declaration is also its reader: `Settings` and `LimitSettings` read the API's and the
workers' settings with them, and the supervisor (`ops.supervisor`) and the embedded Redis theirs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from limits import parse_many

from model.redis_address import SentinelAddress, parse_sentinels

T = TypeVar("T")

SERVICE, STORAGE, REQUESTS, AI, LIMITS, QUOTAS = "Service", "Storage", "Requests", "AI workers", "Limits", "Quotas"
MATCHMAKING = "Matchmaking"
SECTIONS = (SERVICE, STORAGE, REQUESTS, MATCHMAKING, AI, LIMITS, QUOTAS)


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One environment variable: its name, its default as a user would write it, where it belongs, what it does."""

    name: str
    default: str
    section: str
    description: str
    parse: Callable[[str], T]

    def read(self, env: Mapping[str, str] | None = None) -> T:
        """Its value in `env` (the process's environment by default); the default when unset or empty."""
        raw = (os.environ if env is None else env).get(self.name, "").strip()
        return self.parse(raw or self.default)


SETTINGS: list[Setting[object]] = []
"""Every setting, in the order declared."""


def declare(name: str, default: str, section: str, description: str, parse: Callable[[str], T]) -> Setting[T]:
    """A setting, listed in SETTINGS."""
    setting = Setting(name, default, section, description, parse)
    SETTINGS.append(setting)  # type: ignore[arg-type]  # listed for its name and text; read through its own type
    return setting


def count(name: str) -> Callable[[str], int]:
    """A parser of non-negative integers, naming the setting when a value is not one."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"{name} must be an integer, not {text!r}") from None
        if value < 0:
            raise ValueError(f"{name} must be 0 or more, not {value}")
        return value

    return parse


def rate(name: str) -> Callable[[str], str]:
    """A parser of rate limits such as `30/minute;5/second` (the `limits` library's notation)."""

    def parse(text: str) -> str:
        try:
            parse_many(text)
        except ValueError:
            raise ValueError(f"{name}: {text!r} is not a limit such as '30/minute'") from None
        return text

    return parse


def amount(name: str) -> Callable[[str], float]:
    """A parser of non-negative numbers (`0.5`), naming the setting when a value is not one."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"{name} must be a number, not {text!r}") from None
        if not 0 <= value < float("inf"):
            raise ValueError(f"{name} must be a finite number, 0 or more, not {text!r}")
        return value

    return parse


def text(value: str) -> str:
    """A setting read as it is written."""
    return value


def origins(value: str) -> list[str]:
    """`*` or a comma-separated list of origins."""
    return [origin.strip() for origin in value.split(",") if origin.strip()] or ["*"]


def declare_count(name: str, default: int, section: str, description: str) -> Setting[int]:
    """A non-negative integer setting."""
    return declare(name, str(default), section, description, count(name))


def declare_rate(name: str, default: str, description: str) -> Setting[str]:
    """A rate limit."""
    return declare(name, default, LIMITS, description, rate(name))


def declare_quota(name: str, default: int, description: str) -> Setting[int]:
    """A quota (`0`: none)."""
    return declare_count(name, default, QUOTAS, description)


# --- the service (read by ops.supervisor, which checks their ranges) ----------------------------------
PORT = declare("PORT", "8000", SERVICE, "TCP port of the API.", text)
HOST = declare("PARLOUR_HOST", "127.0.0.1", SERVICE, "Address to bind; `0.0.0.0` to serve other machines.", text)
DATA_DIR = declare(
    "PARLOUR_DATA_DIR", "data", SERVICE, "The embedded Redis keeps its files in `$PARLOUR_DATA_DIR/redis`.", text
)
WEB_CONCURRENCY = declare("WEB_CONCURRENCY", "2", SERVICE, "gunicorn worker processes (one per core).", text)
WORKER_CLASS = declare(
    "PARLOUR_WORKER_CLASS",
    "gevent",
    SERVICE,
    "gunicorn worker class: `gevent` (greenlets) or `gthread` (threads; a held event stream takes a thread).",
    text,
)
WORKER_CONNECTIONS = declare(
    "PARLOUR_WORKER_CONNECTIONS",
    "4000",
    SERVICE,
    "Connections a worker process serves at once; held event streams count, and past the limit new requests wait.",
    text,
)
THREADS = declare("PARLOUR_THREADS", "4", SERVICE, "Threads per worker process, with `gthread` only.", text)
AI_WORKERS = declare("PARLOUR_AI_WORKERS", "2", SERVICE, "AI worker processes `make run` starts (`0`: none).", text)
AI_WARM_UP = declare(
    "PARLOUR_AI_WARM_UP",
    "1",
    SERVICE,
    "`1`: each AI worker loads IceCream's stored solution (about 0.2 s) before its first job; `0`: the first "
    "`perfect` IceCream move in each worker loads it.",
    text,
)

# --- storage -------------------------------------------------------------------------------------------
REDIS_URL = declare(
    "REDIS_URL",
    "redis://127.0.0.1:6379/0",
    STORAGE,
    "An existing Redis, e.g. `redis://127.0.0.1:6379/0` or `unix:///run/redis.sock`. `make run` without it starts "
    "the embedded Redis and sets it for its children.",
    text,
)
REDIS_SENTINELS = declare(
    "PARLOUR_REDIS_SENTINELS",
    "",
    STORAGE,
    "Redis Sentinel: `host:port,host:port,...` of the sentinels, used instead of `REDIS_URL` when set. Every "
    "process asks them for the primary and follows a failover without a restart. Run at least three, on separate "
    "machines.",
    parse_sentinels,
)
REDIS_SENTINEL_MASTER = declare(
    "PARLOUR_REDIS_SENTINEL_MASTER",
    "parlour",
    STORAGE,
    "The primary's name as the sentinels know it (`sentinel monitor <name> ...`).",
    text,
)
REDIS_SENTINEL_PASSWORD = declare(
    "PARLOUR_REDIS_SENTINEL_PASSWORD", "", STORAGE, "The sentinels' password (their `requirepass`), if any.", text
)
REDIS_PASSWORD = declare(
    "PARLOUR_REDIS_PASSWORD",
    "",
    STORAGE,
    "With Sentinel: the primary's and replicas' password (their `requirepass`), if any. With `REDIS_URL`, write "
    "it in the URL.",
    text,
)
REDIS_WAIT_REPLICAS = declare_count(
    "PARLOUR_REDIS_WAIT_REPLICAS",
    0,
    STORAGE,
    "Replicas that must hold a change before it is acknowledged (Redis `WAIT`): a move, a creation, a join, a bot's "
    "registration, a replayed answer. When they do not confirm in time the answer is 503 `replication-timeout` with "
    "Retry-After. `0`: acknowledged once the primary has it.",
)
REDIS_WAIT_TIMEOUT_MS = declare(
    "PARLOUR_REDIS_WAIT_TIMEOUT_MS",
    "1000",
    STORAGE,
    "Milliseconds a change waits for `PARLOUR_REDIS_WAIT_REPLICAS` replicas to confirm it.",
    lambda text: max(1, count("PARLOUR_REDIS_WAIT_TIMEOUT_MS")(text)),
)
REDIS_MAXMEMORY = declare(
    "PARLOUR_REDIS_MAXMEMORY",
    "1gb",
    STORAGE,
    "The embedded Redis's memory cap (`maxmemory`, policy `noeviction`; `0`: none): past it writes are refused.",
    text,
)
FINISHED_TTL = declare_count(
    "PARLOUR_FINISHED_TTL", 24 * 3600, STORAGE, "Seconds a finished (or aborted) match is kept."
)
AI_MATCH_TTL = declare_count(
    "PARLOUR_AI_MATCH_TTL",
    3600,
    STORAGE,
    "Seconds a finished match that only the AI played is kept (at most `PARLOUR_FINISHED_TTL`); its AI moves "
    "queue with tournaments', behind live matches.",
)
IDLE_TTL = declare_count("PARLOUR_IDLE_TTL", 7 * 24 * 3600, STORAGE, "Seconds a match without any action is kept.")
IDEMPOTENCY_TTL = declare_count(
    "PARLOUR_IDEMPOTENCY_TTL", 24 * 3600, STORAGE, "Seconds the answer to an `Idempotency-Key` request is kept."
)

# --- requests ------------------------------------------------------------------------------------------
CORS_ORIGINS = declare(
    "PARLOUR_CORS_ORIGINS", "*", REQUESTS, "Origins allowed by CORS: `*` or a comma-separated list.", origins
)
MAX_BODY_BYTES = declare_count(
    "PARLOUR_MAX_BODY_BYTES",
    64 * 1024,
    REQUESTS,
    "Largest request body accepted; a longer one is a 413, with a `Content-Length` or chunked.",
)
BODY_TIMEOUT = declare_count(
    "PARLOUR_BODY_TIMEOUT",
    10,
    REQUESTS,
    "Seconds a request body may take to arrive, in all from its first byte; a slower one is answered 408 "
    "`request-timeout` and its connection dropped.",
)
CHALLENGE_SECONDS = declare_count(
    "PARLOUR_CHALLENGE_SECONDS",
    90,
    REQUESTS,
    "Seconds a challenged bot has to accept, and a match that seats a bot to start, before it is aborted (at least 1).",
)
EVENTS_HEARTBEAT = declare_count(
    "PARLOUR_EVENTS_HEARTBEAT",
    15,
    REQUESTS,
    "Seconds of silence after which an event stream sends a heartbeat comment (and checks its token again).",
)

# --- matchmaking (domain/matchmaking/) -----------------------------------------------------------------
MATCHMAKING_WINDOW = declare(
    "PARLOUR_MATCHMAKING_WINDOW",
    "5",
    MATCHMAKING,
    "The rating window a ticket starts with when it names none: it pairs with entrants whose ladder rating "
    "(mu - 3 sigma) is within this many points of its own, and theirs of it.",
    amount("PARLOUR_MATCHMAKING_WINDOW"),
)
MATCHMAKING_WIDEN = declare(
    "PARLOUR_MATCHMAKING_WIDEN",
    "0.5",
    MATCHMAKING,
    "Rating points a waiting ticket's window widens by each second it waits.",
    amount("PARLOUR_MATCHMAKING_WIDEN"),
)
MATCHMAKING_WINDOW_CAP = declare(
    "PARLOUR_MATCHMAKING_WINDOW_CAP",
    "50",
    MATCHMAKING,
    "The widest a window grows by waiting (a ticket that starts wider keeps its own).",
    amount("PARLOUR_MATCHMAKING_WINDOW_CAP"),
)
MATCHMAKING_SECONDS = declare_count(
    "PARLOUR_MATCHMAKING_SECONDS",
    300,
    MATCHMAKING,
    "Seconds a ticket waits to be paired before it expires (at least 1).",
)
MATCHMAKING_TURN_SECONDS = declare_count(
    "PARLOUR_MATCHMAKING_TURN_SECONDS",
    60,
    MATCHMAKING,
    "The turn timer of a matchmade match, in seconds (`0`: none), so an entrant that vanishes cannot stall "
    "the others: its turn times out as any timed turn does. At most a day.",
)

# --- AI workers ----------------------------------------------------------------------------------------
JOB_TTL = declare_count("PARLOUR_JOB_TTL", 3600, AI, "Seconds a finished or failed AI job (and its move) is kept.")
AI_RETRIES = declare_count(
    "PARLOUR_AI_RETRIES", 3, AI, "Times an AI job is run again after its worker died or it failed."
)
WORKER_MAINTENANCE = declare_count(
    "PARLOUR_WORKER_MAINTENANCE", 15, AI, "Seconds between a worker's sweeps for the jobs of dead workers."
)

# --- limits (api/limits.py) ----------------------------------------------------------------------------
LIMITS_ON = declare(
    "PARLOUR_LIMITS", "1", LIMITS, "`0` turns the rate limits off (the load test's baseline; quotas stay).", text
)
TRUSTED_PROXIES = declare_count(
    "PARLOUR_TRUSTED_PROXIES",
    0,
    LIMITS,
    "Reverse proxies in front of the API whose `X-Forwarded-For` is believed (only the last N entries).",
)
LIMIT_CREATE_MATCH = declare_rate("PARLOUR_LIMIT_CREATE_MATCH", "30/minute", "`POST /v1/matches`, per client address.")
LIMIT_CREATE_BOT = declare_rate("PARLOUR_LIMIT_CREATE_BOT", "10/hour", "`POST /v1/bots`, per client address.")
LIMIT_CREATE_TOURNAMENT = declare_rate(
    "PARLOUR_LIMIT_CREATE_TOURNAMENT", "10/hour", "`POST /v1/tournaments`, per client address."
)
LIMIT_HINTS = declare_rate(
    "PARLOUR_LIMIT_HINTS", "60/minute", "`POST .../ai-move`, per seat (a bot: per bot, match and seat)."
)
LIMIT_ACTIONS = declare_rate(
    "PARLOUR_LIMIT_ACTIONS",
    "100/second;3000/minute",
    "`POST .../actions`, `.../resign`, `.../leave`, `.../rematch`, per seat or bot.",
)
LIMIT_STREAMS = declare_rate(
    "PARLOUR_LIMIT_STREAMS", "120/minute", "Opening match and bot event streams, per seat, bot or address."
)
LIMIT_LONG_POLLS = declare_rate(
    "PARLOUR_LIMIT_LONG_POLLS", "100/second;3000/minute", "Match and bot long-polls, per seat, bot or address."
)
LIMIT_REPLAYS = declare_rate(
    "PARLOUR_LIMIT_REPLAYS",
    "20/second;600/minute",
    "`GET .../replay/{step}`, `.../export` and `.../review`, per address.",
)
LIMIT_REVIEWS = declare_rate(
    "PARLOUR_LIMIT_REVIEWS", "30/minute", "`POST /v1/matches/{id}/review` (asking for a review), per address."
)
LIMIT_JOINS = declare_rate("PARLOUR_LIMIT_JOINS", "30/minute", "`POST /v1/matches/{id}/join`, per address.")
LIMIT_PAGES = declare_rate(
    "PARLOUR_LIMIT_PAGES",
    "20/second;600/minute",
    "Listings and pages (the lobby, logs, bots, a bot's matches and ratings, tournaments, leaderboards), per address.",
)
LIMIT_MATCHMAKING = declare_rate(
    "PARLOUR_LIMIT_MATCHMAKING",
    "30/minute",
    "`POST /v1/matchmaking` per address, and `POST /v1/matchmaking/{id}/cancel` per ticket or bot.",
)
LIMIT_AUTH_FAILURES = declare_rate(
    "PARLOUR_LIMIT_AUTH_FAILURES",
    "30/minute",
    "401s of requests with a token, per address; past it the address's token requests are refused uncounted.",
)

# --- quotas (domain/quotas.py) -------------------------------------------------------------------------
QUOTA_MATCHES = declare_quota(
    "PARLOUR_QUOTA_MATCHES", 50, "Unfinished matches (waiting or active) a client address created."
)
QUOTA_KEPT_MATCHES = declare_quota(
    "PARLOUR_QUOTA_KEPT_MATCHES", 200, "Matches a client address created that are still kept, finished ones too."
)
QUOTA_TOURNAMENTS = declare_quota("PARLOUR_QUOTA_TOURNAMENTS", 2, "Running tournaments a client address created.")
QUOTA_BOTS = declare_quota("PARLOUR_QUOTA_BOTS", 20, "Registered bots a client address holds.")
QUOTA_STREAMS = declare_quota(
    "PARLOUR_QUOTA_STREAMS", 64, "Event streams (match and bot) and long-polls a client address holds open."
)
QUOTA_SEATS = declare_quota(
    "PARLOUR_QUOTA_SEATS", 20, "Seats a client address joined in matches that have not started yet."
)
QUOTA_TICKETS = declare_quota(
    "PARLOUR_QUOTA_TICKETS",
    4,
    "Matchmaking tickets waiting for people that a client address holds (a bot: one a pool).",
)
QUOTA_TOURNAMENT_MATCHES = declare_quota(
    "PARLOUR_QUOTA_TOURNAMENT_MATCHES", 500, "Matches one tournament may plan (`0`: the planner's own cap, 2,000)."
)
QUOTA_TOURNAMENT_ENTRANTS = declare_quota(
    "PARLOUR_QUOTA_TOURNAMENT_ENTRANTS", 64, "Entrants one tournament may have (never more than the request's 64)."
)


def read(setting: Setting[T]) -> Callable[[], T]:
    """A dataclass default factory reading `setting` from the environment."""
    return lambda: setting.read()


def configured_redis_url(env: Mapping[str, str] | None = None) -> str | None:
    """The Redis every process is to use: the Sentinel address when `PARLOUR_REDIS_SENTINELS` is set, else
    `REDIS_URL`; None when neither is set (`make run` then starts the embedded Redis)."""
    environment = os.environ if env is None else env
    sentinels = REDIS_SENTINELS.read(environment)
    if sentinels:
        return SentinelAddress(
            sentinels,
            REDIS_SENTINEL_MASTER.read(environment),
            REDIS_PASSWORD.read(environment) or None,
            REDIS_SENTINEL_PASSWORD.read(environment) or None,
        ).url()
    return environment.get(REDIS_URL.name, "").strip() or None


def redis_url(env: Mapping[str, str] | None = None) -> str:
    """The Redis every process is to use (`configured_redis_url`), `REDIS_URL`'s default when none is set."""
    return configured_redis_url(env) or REDIS_URL.default


LIMIT_NAMES = (
    "create_match",
    "create_bot",
    "create_tournament",
    "hints",
    "actions",
    "streams",
    "long_polls",
    "replays",
    "reviews",
    "joins",
    "pages",
    "matchmaking",
    "auth_failures",
)
"""The rate limits of LimitSettings, each read from PARLOUR_LIMIT_<NAME>."""


@dataclass(frozen=True)
class LimitSettings:
    """Rate limits (`limits` strings such as `30/minute;5/second`) and quotas (0 means none)."""

    enabled: bool = field(default_factory=lambda: LIMITS_ON.read() != "0")
    trusted_proxies: int = field(default_factory=read(TRUSTED_PROXIES))
    create_match: str = field(default_factory=read(LIMIT_CREATE_MATCH))
    create_bot: str = field(default_factory=read(LIMIT_CREATE_BOT))
    create_tournament: str = field(default_factory=read(LIMIT_CREATE_TOURNAMENT))
    hints: str = field(default_factory=read(LIMIT_HINTS))
    actions: str = field(default_factory=read(LIMIT_ACTIONS))
    streams: str = field(default_factory=read(LIMIT_STREAMS))
    long_polls: str = field(default_factory=read(LIMIT_LONG_POLLS))
    replays: str = field(default_factory=read(LIMIT_REPLAYS))
    reviews: str = field(default_factory=read(LIMIT_REVIEWS))
    joins: str = field(default_factory=read(LIMIT_JOINS))
    pages: str = field(default_factory=read(LIMIT_PAGES))
    matchmaking: str = field(default_factory=read(LIMIT_MATCHMAKING))
    auth_failures: str = field(default_factory=read(LIMIT_AUTH_FAILURES))
    matches: int = field(default_factory=read(QUOTA_MATCHES))
    tournaments: int = field(default_factory=read(QUOTA_TOURNAMENTS))
    bots: int = field(default_factory=read(QUOTA_BOTS))
    streams_held: int = field(default_factory=read(QUOTA_STREAMS))
    kept_matches: int = field(default_factory=read(QUOTA_KEPT_MATCHES))
    seats: int = field(default_factory=read(QUOTA_SEATS))
    tickets: int = field(default_factory=read(QUOTA_TICKETS))
    tournament_matches: int = field(default_factory=read(QUOTA_TOURNAMENT_MATCHES))
    tournament_entrants: int = field(default_factory=read(QUOTA_TOURNAMENT_ENTRANTS))

    def __post_init__(self) -> None:
        for name in LIMIT_NAMES:  # also when set in code, as the tests and load tests do
            rate(f"PARLOUR_LIMIT_{name.upper()}")(getattr(self, name))


@dataclass(frozen=True)
class MatchmakingSettings:
    """How matchmaking pairs: the starting window, its widening per second and cap, how long a ticket waits, and the
    turn timer of the matches it makes (0: none)."""

    window: float = field(default_factory=read(MATCHMAKING_WINDOW))
    widen: float = field(default_factory=read(MATCHMAKING_WIDEN))
    window_cap: float = field(default_factory=read(MATCHMAKING_WINDOW_CAP))
    seconds: int = field(default_factory=lambda: max(1, MATCHMAKING_SECONDS.read()))
    turn_seconds: int = field(default_factory=lambda: min(86_400, MATCHMAKING_TURN_SECONDS.read()))


@dataclass(frozen=True)
class Settings:
    """Everything the API and the workers read from their environment."""

    redis_url: str = field(default_factory=lambda: redis_url())
    wait_replicas: int = field(default_factory=read(REDIS_WAIT_REPLICAS))
    wait_timeout_ms: int = field(default_factory=read(REDIS_WAIT_TIMEOUT_MS))
    cors_origins: list[str] = field(default_factory=read(CORS_ORIGINS))
    finished_ttl: int = field(default_factory=read(FINISHED_TTL))
    idle_ttl: int = field(default_factory=read(IDLE_TTL))
    ai_match_ttl: int = field(default_factory=read(AI_MATCH_TTL))
    idempotency_ttl: int = field(default_factory=read(IDEMPOTENCY_TTL))
    job_ttl: int = field(default_factory=read(JOB_TTL))
    ai_retries: int = field(default_factory=read(AI_RETRIES))
    worker_maintenance: int = field(default_factory=read(WORKER_MAINTENANCE))
    max_body_bytes: int = field(default_factory=read(MAX_BODY_BYTES))
    body_timeout: float = field(default_factory=lambda: float(BODY_TIMEOUT.read()))
    challenge_seconds: int = field(default_factory=lambda: max(1, CHALLENGE_SECONDS.read()))
    events_heartbeat: float = field(default_factory=lambda: float(EVENTS_HEARTBEAT.read()))
    matchmaking: MatchmakingSettings = field(default_factory=MatchmakingSettings)
    limits: LimitSettings = field(default_factory=LimitSettings)
