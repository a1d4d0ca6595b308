"""The bot's TOML config, read and checked: every mistake is a `ConfigError` naming the key and what is wrong.

url = "http://127.0.0.1:8000"
token_env = "PARLOUR_BOT_TOKEN"        # or token_file = "bot.token" (never the token itself)
state_dir = "state"                    # paths are relative to the config file
concurrency = 2                        # matches at once
move_budget = 5.0                      # seconds the engine may think per move

[engine]
path = "./my_engine.py:Engine"         # or "parlour_bot.engines:RandomEngine"

[challenges]
games = ["icecream", "sundae_split"]   # or {icecream = [2], sundae_split = [3, 4]}

matchmaking_rest = 30                  # seconds idle after a match before joining the pools again
transport = "auto"                     # "socket" or "http" to force one (or PARLOUR_BOT_TRANSPORT)

[[matchmaking]]
game = "icecream"
players = 2
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

POLICIES = ("ask", "tournaments", "anyone")
LOG_LEVELS = ("debug", "info", "warning", "error")
TOP_KEYS = frozenset(
    {
        "url", "token_env", "token_file", "bot", "state_dir", "concurrency", "move_budget", "policy",
        "max_matches", "rematch", "log_level", "engine", "challenges", "matchmaking", "matchmaking_rest",
        "transport",
    }
)  # fmt: skip
ENGINE_KEYS = frozenset({"path", "options"})
CHALLENGE_KEYS = frozenset({"games", "rated_only", "opponents_allowed", "opponents_blocked", "tournaments"})
POOL_KEYS = frozenset({"game", "players", "rated"})
DEFAULT_ENGINE = "parlour_bot.engines:RandomEngine"
TRANSPORTS = ("auto", "socket", "http")
"""How the runner talks to the server: its WebSocket when it can be had (else the event stream and POST), the
WebSocket only, or the stream and POST only."""
TRANSPORT_ENV = "PARLOUR_BOT_TRANSPORT"
"""The environment variable that overrides the config's `transport`."""


class ConfigError(ValueError):
    """A config the bot cannot run with: `key` names the key (dotted), the message says what is wrong."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}" if key else problem)
        self.key = key
        self.problem = problem


@dataclass(frozen=True)
class EngineSpec:
    """Which engine to load (`module:Class` or `./file.py:Class`), its constructor's options, and the folder
    a file path is relative to."""

    path: str = DEFAULT_ENGINE
    options: dict[str, Any] = field(default_factory=dict)
    base: Path = Path()


@dataclass(frozen=True)
class Filters:
    """Which challenges the bot accepts. `games` maps a game to its accepted player counts (None: any);
    `allowed` (when not empty) and `blocked` are opponents' names."""

    games: dict[str, frozenset[int] | None] = field(default_factory=dict)
    rated_only: bool = False
    allowed: frozenset[str] = frozenset()
    blocked: frozenset[str] = frozenset()
    tournaments: bool = True


@dataclass(frozen=True)
class Pool:
    """A matchmaking pool the bot joins when it is idle."""

    game: str
    players: int
    rated: bool = True


@dataclass(frozen=True)
class BotConfig:
    """Everything the runner needs, checked."""

    url: str
    token: str
    bot_id: str
    state_dir: Path
    concurrency: int = 1
    move_budget: float = 10.0
    policy: str | None = None
    max_matches: int | None = None
    rematch: bool = False
    log_level: str = "info"
    engine: EngineSpec = field(default_factory=EngineSpec)
    challenges: Filters = field(default_factory=Filters)
    pools: tuple[Pool, ...] = ()
    matchmaking_rest: float = 30.0
    transport: str = "auto"


def load_config(path: Path, *, url: str | None = None, environ: Mapping[str, str] | None = None) -> BotConfig:
    """Read and check the config at `path` (`url` overrides its server URL); ConfigError when it is wrong."""
    try:
        data = tomllib.loads(path.read_text())
    except OSError as error:
        raise ConfigError("", f"cannot read {path}: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError("", f"{path} is not valid TOML: {error}") from None
    return parse_config(data, path.resolve().parent, url=url, environ=os.environ if environ is None else environ)


def parse_config(
    data: dict[str, Any], base: Path, *, url: str | None = None, environ: Mapping[str, str] | None = None
) -> BotConfig:
    """A checked config from the decoded TOML `data`; relative paths are relative to `base`."""
    if "token" in data:
        raise ConfigError("token", "never put the token in the config: name it with token_env or token_file")
    unknown_keys(data, TOP_KEYS, "")
    server = str(url or typed(data, "url", str, 'a URL such as "http://127.0.0.1:8000"', required=True))
    if not server.startswith(("http://", "https://")):
        raise ConfigError("url", f"{server!r} is not an http:// or https:// URL")
    token = read_token(data, base, os.environ if environ is None else environ)
    bot_id = bot_of(token, typed(data, "bot", str, "the bot's id"))
    policy = typed(data, "policy", str, "one of " + ", ".join(POLICIES))
    if policy is not None and policy not in POLICIES:
        raise ConfigError("policy", f"{policy!r} is not one of {', '.join(POLICIES)}")
    log_level = typed(data, "log_level", str, "one of " + ", ".join(LOG_LEVELS)) or "info"
    if log_level not in LOG_LEVELS:
        raise ConfigError("log_level", f"{log_level!r} is not one of {', '.join(LOG_LEVELS)}")
    environ = os.environ if environ is None else environ
    transport = environ.get(TRANSPORT_ENV) or typed(data, "transport", str, "one of " + ", ".join(TRANSPORTS))
    if (transport or "auto") not in TRANSPORTS:
        key = "transport" if not environ.get(TRANSPORT_ENV) else TRANSPORT_ENV
        raise ConfigError(key, f"{transport!r} is not one of {', '.join(TRANSPORTS)}")
    return BotConfig(
        url=server.rstrip("/"),
        token=token,
        bot_id=bot_id,
        state_dir=base / typed(data, "state_dir", str, "a folder", required=True),
        concurrency=positive(data, "concurrency", 1),
        move_budget=float(positive(data, "move_budget", 10.0)),
        policy=policy,
        max_matches=positive(data, "max_matches", None),
        rematch=typed(data, "rematch", bool, "true or false") or False,
        log_level=log_level,
        engine=engine_spec(table(data, "engine"), base),
        challenges=filters(table(data, "challenges")),
        pools=pools(data.get("matchmaking", [])),
        matchmaking_rest=seconds(data, "matchmaking_rest", 30.0),
        transport=transport or "auto",
    )


def read_token(data: dict[str, Any], base: Path, environ: Mapping[str, str]) -> str:
    """The bot token, from the environment variable `token_env` or the file `token_file` (exactly one)."""
    env = typed(data, "token_env", str, "an environment variable's name")
    file = typed(data, "token_file", str, "a file's path")
    if (env is None) == (file is None):
        raise ConfigError("token_env", "give exactly one of token_env (a variable's name) and token_file (a path)")
    if env is not None:
        token = environ.get(env, "").strip()
        if not token:
            raise ConfigError("token_env", f"the environment variable {env} is not set (export the bot's token)")
        return token
    assert file is not None
    try:
        token = (base / file).read_text().strip()
    except OSError as error:
        raise ConfigError("token_file", f"cannot read {base / file}: {error.strerror or error}") from None
    if not token:
        raise ConfigError("token_file", f"{base / file} is empty")
    return token


def bot_of(token: str, configured: str | None) -> str:
    """The bot's id: the configured one, else the one a bot token `bot.<id>.<secret>` names."""
    parts = token.split(".")
    named = parts[1] if len(parts) == 3 and parts[0] == "bot" and parts[1] else None
    if configured is not None and named is not None and configured != named:
        raise ConfigError("bot", f"{configured!r} is not the bot the token belongs to ({named!r})")
    if configured is None and named is None:
        raise ConfigError("bot", "the token is not a bot token (bot.<id>.<secret>): give the bot's id as bot")
    return configured or str(named)


def engine_spec(data: dict[str, Any], base: Path) -> EngineSpec:
    """The `[engine]` table."""
    unknown_keys(data, ENGINE_KEYS, "engine.")
    path = typed(data, "path", str, "module:Class or ./file.py:Class", prefix="engine.") or DEFAULT_ENGINE
    module, colon, name = path.rpartition(":")
    if not colon or not module or not name.isidentifier():
        raise ConfigError("engine.path", f"{path!r} is not module:Class or ./file.py:Class")
    options = table(data, "options", prefix="engine.")
    return EngineSpec(path, dict(options), base)


def filters(data: dict[str, Any]) -> Filters:
    """The `[challenges]` table."""
    unknown_keys(data, CHALLENGE_KEYS, "challenges.")
    games = data.get("games", {})
    accepted: dict[str, frozenset[int] | None] = {}
    if isinstance(games, list) and all(isinstance(game, str) for game in games):
        accepted = dict.fromkeys(games)
    elif isinstance(games, dict):
        for game, counts in games.items():
            if not (isinstance(counts, list) and counts and all(type(n) is int and n > 0 for n in counts)):
                raise ConfigError(f"challenges.games.{game}", "a list of player counts, such as [2, 3]")
            accepted[game] = frozenset(counts)
    else:
        raise ConfigError(
            "challenges.games", "a list of games, or a table of games to player counts, such as {icecream = [2]}"
        )
    return Filters(
        games=accepted,
        rated_only=typed(data, "rated_only", bool, "true or false", prefix="challenges.") or False,
        allowed=names(data, "opponents_allowed"),
        blocked=names(data, "opponents_blocked"),
        tournaments=typed(data, "tournaments", bool, "true or false", prefix="challenges.") is not False,
    )


def pools(data: Any) -> tuple[Pool, ...]:
    """The `[[matchmaking]]` pools."""
    if not isinstance(data, list):
        raise ConfigError("matchmaking", "one [[matchmaking]] table per pool (game, players, rated)")
    found = []
    for index, pool in enumerate(data):
        prefix = f"matchmaking[{index}]."
        if not isinstance(pool, dict):
            raise ConfigError(prefix[:-1], "a table with game, players and rated")
        unknown_keys(pool, POOL_KEYS, prefix)
        game = typed(pool, "game", str, "a game's id", prefix=prefix, required=True)
        players = typed(pool, "players", int, "a player count", prefix=prefix, required=True)
        if players < 1:
            raise ConfigError(prefix + "players", f"{players} is not a player count")
        rated = typed(pool, "rated", bool, "true or false", prefix=prefix)
        found.append(Pool(game, players, True if rated is None else rated))
    return tuple(found)


def names(data: dict[str, Any], key: str) -> frozenset[str]:
    """A list of bot names."""
    value = data.get(key, [])
    if not (isinstance(value, list) and all(isinstance(name, str) for name in value)):
        raise ConfigError(f"challenges.{key}", 'a list of names, such as ["rando"]')
    return frozenset(value)


def table(data: dict[str, Any], key: str, prefix: str = "") -> dict[str, Any]:
    """A sub-table (empty when absent)."""
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(prefix + key, f"a table ([{prefix}{key}]), not {type(value).__name__}")
    return value


def positive(data: dict[str, Any], key: str, default: T) -> T | Any:
    """A number above 0 (an int for counts), or the default when absent."""
    value = data.get(key)
    if value is None:
        return default
    counts = isinstance(default, int) or default is None
    if isinstance(value, bool) or not isinstance(value, int if counts else (int, float)) or value <= 0:
        raise ConfigError(key, f"{value!r} is not {'a whole number' if counts else 'a number'} above 0")
    return value


def seconds(data: dict[str, Any], key: str, default: float) -> float:
    """A number of seconds, 0 or more, or the default when absent."""
    value = data.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ConfigError(key, f"{value!r} is not a number of seconds, 0 or more")
    return float(value)


def typed(
    data: dict[str, Any], key: str, kind: type[T], what: str, *, prefix: str = "", required: bool = False
) -> T | Any:
    """The value at `key` if it has the type `kind`; None when absent (ConfigError when required)."""
    value = data.get(key)
    if value is None:
        if required:
            raise ConfigError(prefix + key, f"missing: {what}")
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ConfigError(prefix + key, f"{value!r} is not {what}")
    return value


def unknown_keys(data: dict[str, Any], known: frozenset[str], prefix: str) -> None:
    """ConfigError for a key the config does not know (a typo must not pass silently)."""
    for key in data:
        if key not in known:
            raise ConfigError(prefix + key, f"unknown key; known: {', '.join(sorted(known))}")
