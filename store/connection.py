"""What every store module shares: the Redis client, the test for a full store, the change channel, the Lua scripts.

The scripts are `.lua` files under `store/lua/<module>/<name>.lua`, one folder per store module that runs
them (`store/lua/matches/commit.lua` is `store/matches.py`'s). A folder of their own, rather than files
beside each module, keeps `store/` a flat package of Python modules, lets one package-data glob ship them
all (`lua/**/*.lua`), and lets a reader see every script Parlour runs in Redis in one place. Each file
starts with what it does and what its KEYS and ARGV are.

A script's text is read once per process (`lua_source` is cached); each store registers it on its client
when it is built (`redis.Redis.register_script`, which only hashes it), and Redis loads it at its first
call (EVALSHA, then SCRIPT LOAD if Redis does not know it, as after a restart of Redis or a failover to a
replica that never ran it).

Redis is one server (`redis://`, `rediss://`, `unix://`) or a primary that Redis Sentinel names
(`redis+sentinel://`, see `model.redis_address`). With Sentinel, every new connection asks the sentinels
where the primary is, so after a failover the next command reaches the promoted replica; a connection still
open on a primary that was demoted is closed at its first `READONLY` (or `UNBLOCKED`) answer, and one on a
primary that died at its first error. A command that finds Redis away is not sent again (redis-py's connections
retry nothing by default): it fails at once, and the API answers 503 with Retry-After, so a request never hangs
on a Redis it cannot reach and the client decides when to try again.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import redis
from redis.commands.core import Script
from redis.connection import parse_url
from redis.sentinel import Sentinel, SentinelConnectionPool, SentinelManagedConnection

from model.redis_address import SentinelAddress

REDIS_POOL_SIZE = 64
"""Redis connections a client keeps per process; under gevent thousands of requests share them."""
REDIS_POOL_WAIT = 20
"""Seconds a request waits for a free connection before it fails (503)."""
REDIS_CONNECT_TIMEOUT = 1.0
"""Seconds a new connection to Redis may take: on a network that drops packets, a connect fails this soon."""
REDIS_SOCKET_TIMEOUT = 3.0
"""Seconds a command waits for Redis's answer before it fails (none of the pool's commands blocks)."""
REDIS_HEALTH_CHECK = 5
"""Seconds a connection may sit idle before its next use pings first: a connection to a host that vanished
(cut off, not closed) is found out then, not after a command's whole timeout."""
SENTINEL_TIMEOUT = 0.5
"""Seconds a question to one sentinel may take; an unreachable one is passed over for the next."""
CHANGES_CHANNEL = "parlour:changes"
"""The pub/sub channel every stored change is announced on (the scripts that store changes name it too)."""
TIE_MARGIN = 50
"""Entries a page of a sorted set reads beyond its size, so entries tied on their score are never skipped."""


FAILOVER_REFUSALS = ("NOREPLICAS", "MASTERDOWN")
"""Error replies of a node that cannot serve for now, in the middle of a failover: a primary left without the
replicas `min-replicas-to-write` asks for, a replica whose primary is gone."""


class FailoverRefusalsAreAway:
    """Mixin for a connection class: a failover refusal (FAILOVER_REFUSALS) is raised as a ConnectionError, as when
    Redis is away, so every caller treats both alike: the API answers 503, an RQ worker waits and reconnects instead
    of quitting, and the next connection asks the sentinels anew.

    Redis refuses a write (or a script, at its first write) before it changes anything, so nothing was half-done.
    """

    def read_response(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().read_response(*args, **kwargs)  # type: ignore[misc]
        except redis.ResponseError as error:
            if not any(refusal in str(error) for refusal in FAILOVER_REFUSALS):
                raise
            self.disconnect()  # type: ignore[attr-defined]
            raise redis.ConnectionError(f"Redis cannot take this now, in a failover: {error}") from error


class TcpConnection(FailoverRefusalsAreAway, redis.Connection):
    """A TCP connection to one Redis server."""


class TlsConnection(FailoverRefusalsAreAway, redis.SSLConnection):
    """A TLS connection to one Redis server (`rediss://`)."""


class UnixConnection(FailoverRefusalsAreAway, redis.UnixDomainSocketConnection):
    """A Unix socket connection to one Redis server (`unix://`)."""


class SentinelConnection(FailoverRefusalsAreAway, SentinelManagedConnection):
    """A connection to the primary the sentinels name."""


CONNECTION_CLASSES: dict[type[redis.Connection | redis.UnixDomainSocketConnection], type[Any]] = {
    redis.Connection: TcpConnection,
    redis.SSLConnection: TlsConnection,
    redis.UnixDomainSocketConnection: UnixConnection,
}
"""redis-py's connection class for a URL's scheme, and ours for it."""


class BlockingSentinelConnectionPool(SentinelConnectionPool, redis.BlockingConnectionPool):
    """redis-py's Sentinel pool, waiting for a free connection (as `BlockingConnectionPool`) instead of failing."""


def redis_client(
    url: str, decode_responses: bool = False, socket_timeout: float | None = REDIS_SOCKET_TIMEOUT
) -> redis.Redis:
    """A client on `url` (one server, or a Sentinel primary) whose commands wait for a free pooled connection
    instead of failing when all are busy, and fail soon when Redis is away.

    `socket_timeout`: None for a client whose commands block (RQ's workers set their own).
    """
    options = {
        "decode_responses": decode_responses,
        "socket_timeout": socket_timeout,
        "socket_connect_timeout": REDIS_CONNECT_TIMEOUT,
        "health_check_interval": REDIS_HEALTH_CHECK,
    }
    sentinel = SentinelAddress.parse(url)
    if sentinel is None:
        scheme_class = parse_url(url).get("connection_class", redis.Connection)  # type: ignore[no-untyped-call]
        pool = redis.BlockingConnectionPool.from_url(
            url,
            max_connections=REDIS_POOL_SIZE,
            timeout=REDIS_POOL_WAIT,
            connection_class=CONNECTION_CLASSES[scheme_class],
            **options,
        )
        return redis.Redis(connection_pool=pool)
    sentinels = Sentinel(
        sentinel.sentinels,
        sentinel_kwargs={
            "password": sentinel.sentinel_password,
            "socket_timeout": SENTINEL_TIMEOUT,
            "socket_connect_timeout": SENTINEL_TIMEOUT,
        },
    )
    pool = BlockingSentinelConnectionPool(  # type: ignore[no-untyped-call]  # redis-py leaves it untyped
        sentinel.master,
        sentinels,
        max_connections=REDIS_POOL_SIZE,
        timeout=REDIS_POOL_WAIT,
        connection_class=SentinelConnection,
        password=sentinel.password,
        **options,
    )
    return redis.Redis(connection_pool=pool)


def is_store_full(error: redis.RedisError) -> bool:
    """True when Redis refused a write for want of memory (`maxmemory` reached; a script's error says OOM too).

    Under `noeviction` Redis refuses a script at its first write that may grow memory, before it has
    written anything (it would not stop one half-way), so a refused commit or announce changed nothing.
    """
    return isinstance(error, redis.exceptions.OutOfMemoryError) or "OOM command not allowed" in str(error)


@cache
def lua_source(module: str, name: str) -> str:
    """The text of the script `store/lua/<module>/<name>.lua` (read once per process)."""
    return resources.files("store").joinpath("lua", module, f"{name}.lua").read_text(encoding="utf-8")


def lua_script(client: redis.Redis, module: str, name: str) -> Script:
    """The script `store/lua/<module>/<name>.lua` registered on `client`, loaded into Redis at its first call."""
    return client.register_script(lua_source(module, name))
