"""Every setting is declared once in model/settings.py (the settings reference is generated from it), read
where it is used, and nothing reads an undeclared PARLOUR_* variable."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from model import settings
from model.redis_address import SentinelAddress
from model.settings import SECTIONS, SETTINGS, LimitSettings, Setting, Settings

ROOT = Path(__file__).resolve().parent.parent
SERVER = ("engine", "ai", "model", "store", "domain", "api", "workers", "ops", "tournaments")
VARIABLE = re.compile(r"\bPARLOUR_[A-Z][A-Z_]*[A-Z]\b")
BUILT = {"PARLOUR_LIMIT"}
"""Prefixes the code completes (`PARLOUR_LIMIT_<NAME>`, from LIMIT_NAMES): each completion is declared."""


def source_files() -> list[Path]:
    return [path for package in SERVER for path in sorted((ROOT / package).rglob("*.py"))]


def test_every_variable_the_code_names_is_declared() -> None:
    declared = {setting.name for setting in SETTINGS}
    named = {name for path in source_files() for name in VARIABLE.findall(path.read_text())}
    assert named - BUILT <= declared, f"read but not declared in model/settings.py: {sorted(named - BUILT - declared)}"
    assert {f"PARLOUR_LIMIT_{name.upper()}" for name in settings.LIMIT_NAMES} <= declared


def test_each_setting_is_declared_once_with_a_section_a_meaning_and_a_default_that_reads() -> None:
    names = [setting.name for setting in SETTINGS]
    assert len(names) == len(set(names))
    for setting in SETTINGS:
        assert setting.section in SECTIONS and setting.description.endswith("."), setting.name
        setting.read({})  # the default is a value the setting accepts


def test_each_declared_setting_is_read_somewhere() -> None:
    constants = {name for name, value in vars(settings).items() if isinstance(value, Setting)}
    assert len(constants) == len(SETTINGS)
    own = code_of(ROOT / "model" / "settings.py")
    elsewhere = "\n".join(code_of(path) for path in source_files() if path.name != "settings.py")
    unread = [
        name
        for name in constants
        if len(re.findall(rf"\b{name}\b", own)) < 2 and not re.search(rf"\b{name}\b", elsewhere)
    ]
    assert unread == []


def code_of(path: Path) -> str:
    """A module's text without its string literals (a variable's name in quotes is not a use of its constant)."""
    return re.sub(r'"""[\s\S]*?"""|"[^"\n]*"', '""', path.read_text())


def test_a_bad_value_is_refused_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLOUR_FINISHED_TTL", "-5")
    with pytest.raises(ValueError, match="PARLOUR_FINISHED_TTL must be 0 or more"):
        Settings()
    monkeypatch.setenv("PARLOUR_FINISHED_TTL", "a day")
    with pytest.raises(ValueError, match="PARLOUR_FINISHED_TTL must be an integer"):
        Settings()
    monkeypatch.delenv("PARLOUR_FINISHED_TTL")
    monkeypatch.setenv("PARLOUR_LIMIT_HINTS", "often")
    with pytest.raises(ValueError, match="PARLOUR_LIMIT_HINTS: 'often' is not a limit"):
        LimitSettings()


def test_the_environment_sets_what_it_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLOUR_IDLE_TTL", "60")
    monkeypatch.setenv("PARLOUR_CORS_ORIGINS", "https://a.example, https://b.example")
    monkeypatch.setenv("PARLOUR_QUOTA_BOTS", "0")
    read = Settings()
    assert read.idle_ttl == 60 and read.cors_origins == ["https://a.example", "https://b.example"]
    assert read.limits.bots == 0 and read.finished_ttl == int(settings.FINISHED_TTL.default)


def test_sentinels_stand_in_for_redis_url_and_name_their_primary() -> None:
    env = {
        "REDIS_URL": "redis://ignored:6379/0",
        "PARLOUR_REDIS_SENTINELS": "10.0.0.1:26379, [fd00::2]:26380",
        "PARLOUR_REDIS_SENTINEL_MASTER": "games",
        "PARLOUR_REDIS_PASSWORD": "p@ss/word",
        "PARLOUR_REDIS_SENTINEL_PASSWORD": "s&s",
    }
    url = settings.redis_url(env)
    assert url.startswith("redis+sentinel://")
    assert SentinelAddress.parse(url) == SentinelAddress(
        (("10.0.0.1", 26379), ("fd00::2", 26380)), "games", "p@ss/word", "s&s"
    )
    assert SentinelAddress.parse("redis://cache:6379/0") is None
    assert settings.redis_url({"REDIS_URL": "redis://cache:6379/0"}) == "redis://cache:6379/0"


def test_a_sentinel_that_is_no_host_and_port_is_refused_naming_it() -> None:
    for bad in ("localhost", "host:port", "host:70000", ":26379"):
        with pytest.raises(ValueError, match="a sentinel is written host:port"):
            settings.redis_url({"PARLOUR_REDIS_SENTINELS": bad})
