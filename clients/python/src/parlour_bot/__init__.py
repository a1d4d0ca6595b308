"""parlour-bot: a ready bot runner for Parlour. One TOML config, one engine class with a `choose` method."""

from __future__ import annotations

from parlour_bot.config import BotConfig, ConfigError, load_config
from parlour_bot.engines import Engine, EngineError, LocalAI, RandomEngine, SplitEngine, load_engine
from parlour_bot.runner import Runner

__all__ = [
    "BotConfig",
    "ConfigError",
    "Engine",
    "EngineError",
    "LocalAI",
    "RandomEngine",
    "Runner",
    "SplitEngine",
    "load_config",
    "load_engine",
]
