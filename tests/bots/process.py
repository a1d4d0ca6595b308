"""The bot runner as its own process (`python -m parlour_bot run`), for tests that play it against a live server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.client.conftest import CLIENT_SOURCE


def write_config(folder: Path, url: str, *, seed: int | None = None, rematch: bool = False) -> Path:
    """A config accepting every challenge, playing RandomEngine (seeded), its token from PARLOUR_BOT_TOKEN."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        f'url = "{url}"',
        'token_env = "PARLOUR_BOT_TOKEN"',
        'state_dir = "state"',
        "concurrency = 8",
        f"rematch = {'true' if rematch else 'false'}",
        "[engine]",
        'path = "parlour_bot.engines:RandomEngine"',
        *([f"options = {{ seed = {seed} }}"] if seed is not None else []),
    ]
    config = folder / "bot.toml"
    config.write_text("\n".join(lines) + "\n")
    return config


def start_runner(config: Path, token: str, log: Path, *flags: str) -> subprocess.Popen[str]:
    """`python -m parlour_bot run <config> <flags>`, its log lines in `log`."""
    env = {**os.environ, "PARLOUR_BOT_TOKEN": token, "PYTHONPATH": str(CLIENT_SOURCE), "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "parlour_bot", "run", str(config), *flags],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
        text=True,
    )
