"""What every store module shares: the Redis client, the test for a full store, the change channel, the Lua scripts.

The scripts are `.lua` files under `store/lua/<module>/<name>.lua`, one folder per store module that runs
them (`store/lua/matches/commit.lua` is `store/matches.py`'s). A folder of their own, rather than files
beside each module, keeps `store/` a flat package of Python modules, lets one package-data glob ship them
all (`lua/**/*.lua`), and lets a reader see every script Parlour runs in Redis in one place. Each file
starts with what it does and what its KEYS and ARGV are.

A script's text is read once per process (`lua_source` is cached); each store registers it on its client
when it is built (`redis.Redis.register_script`, which only hashes it), and Redis loads it at its first
call (EVALSHA, then SCRIPT LOAD if Redis does not know it, as after a restart of Redis).
"""

from __future__ import annotations

from functools import cache
from importlib import resources

import redis
from redis.commands.core import Script

REDIS_POOL_SIZE = 64
"""Redis connections a client keeps per process; under gevent thousands of requests share them."""
REDIS_POOL_WAIT = 20
"""Seconds a request waits for a free connection before it fails (503)."""
CHANGES_CHANNEL = "parlour:changes"
"""The pub/sub channel every stored change is announced on (the scripts that store changes name it too)."""
TIE_MARGIN = 50
"""Entries a page of a sorted set reads beyond its size, so entries tied on their score are never skipped."""


def redis_client(url: str, decode_responses: bool = False) -> redis.Redis:
    """A client on `url` whose commands wait for a free pooled connection instead of failing when all are busy."""
    pool = redis.BlockingConnectionPool.from_url(
        url,
        max_connections=REDIS_POOL_SIZE,
        timeout=REDIS_POOL_WAIT,
        decode_responses=decode_responses,
        socket_timeout=5,
        health_check_interval=30,
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
