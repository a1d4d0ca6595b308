"""Settings read from the environment, with defaults for a laptop."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from api.limits import LimitSettings
from store.matches import AI_MATCH_TTL

DEFAULT_CHALLENGE_SECONDS = 90
"""Seconds a challenged bot has to accept (and a match that seats a bot, to start) before it is aborted."""


def _int_env(name: str, default: int) -> int:
    """An integer environment variable, or the default when unset or empty."""
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw else default


def _origins_env() -> list[str]:
    """PARLOUR_CORS_ORIGINS: '*' or a comma-separated list of allowed origins."""
    raw = os.environ.get("PARLOUR_CORS_ORIGINS", "*").strip() or "*"
    return [origin.strip() for origin in raw.split(",") if origin.strip()]


@dataclass(frozen=True)
class Settings:
    """Everything the API reads from its environment."""

    redis_url: str = field(default_factory=lambda: os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    cors_origins: list[str] = field(default_factory=_origins_env)
    finished_ttl: int = field(default_factory=lambda: _int_env("PARLOUR_FINISHED_TTL", 24 * 3600))
    idle_ttl: int = field(default_factory=lambda: _int_env("PARLOUR_IDLE_TTL", 7 * 24 * 3600))
    ai_match_ttl: int = field(default_factory=lambda: _int_env("PARLOUR_AI_MATCH_TTL", AI_MATCH_TTL))
    idempotency_ttl: int = field(default_factory=lambda: _int_env("PARLOUR_IDEMPOTENCY_TTL", 24 * 3600))
    job_ttl: int = field(default_factory=lambda: _int_env("PARLOUR_JOB_TTL", 3600))
    ai_retries: int = field(default_factory=lambda: _int_env("PARLOUR_AI_RETRIES", 3))
    worker_maintenance: int = field(default_factory=lambda: _int_env("PARLOUR_WORKER_MAINTENANCE", 15))
    max_body_bytes: int = field(default_factory=lambda: _int_env("PARLOUR_MAX_BODY_BYTES", 64 * 1024))
    body_timeout: float = field(default_factory=lambda: float(_int_env("PARLOUR_BODY_TIMEOUT", 10)))
    challenge_seconds: int = field(
        default_factory=lambda: max(1, _int_env("PARLOUR_CHALLENGE_SECONDS", DEFAULT_CHALLENGE_SECONDS))
    )
    events_heartbeat: float = field(default_factory=lambda: float(_int_env("PARLOUR_EVENTS_HEARTBEAT", 15)))
    limits: LimitSettings = field(default_factory=LimitSettings)
