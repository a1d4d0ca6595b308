"""parlour-bot's config: a mistake is one line naming the key and what is wrong (exit 2, no traceback); the token
comes from the environment or a file, never the config; engines load from a module or a file beside the config."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from parlour_bot.cli import main
from parlour_bot.config import ConfigError, Pool, load_config, parse_config
from parlour_bot.engines import EngineError, RandomEngine, load_engine

TOKEN = "bot.Xk2pQ9vLm0aZ.s3cr3t"
GOOD: dict[str, Any] = {"url": "http://127.0.0.1:8000", "token_env": "BOT_TOKEN", "state_dir": "state"}
ENGINE_FILE = """
import random


class Engine:
    def choose(self, game, view, legal):
        return random.choice(legal["actions"])
"""


def parse(**changes: Any) -> Any:
    """The config GOOD with `changes` (a None value removes the key), its token in BOT_TOKEN."""
    data = {key: value for key, value in {**GOOD, **changes}.items() if value is not None}
    return parse_config(data, Path("/bots"), environ={"BOT_TOKEN": TOKEN})


def test_a_small_config_reads_its_token_and_bot_from_the_environment() -> None:
    config = parse(matchmaking=[{"game": "icecream", "players": 2}], challenges={"games": {"sundae_split": [3, 4]}})
    assert (config.token, config.bot_id, config.state_dir) == (TOKEN, "Xk2pQ9vLm0aZ", Path("/bots/state"))
    assert config.pools == (Pool("icecream", 2, True),)
    assert config.challenges.games == {"sundae_split": frozenset({3, 4})}
    assert config.engine.path == "parlour_bot.engines:RandomEngine"


@pytest.mark.parametrize(
    ("changes", "key", "words"),
    [
        ({"url": None}, "url", "missing"),
        ({"url": "127.0.0.1:8000"}, "url", "not an http"),
        ({"token": TOKEN}, "token", "never put the token in the config"),
        ({"token_env": None}, "token_env", "exactly one of token_env"),
        ({"token_env": "NOT_SET"}, "token_env", "NOT_SET is not set"),
        ({"bot": "someone"}, "bot", "not the bot the token belongs to"),
        ({"concurrency": 0}, "concurrency", "above 0"),
        ({"move_budget": "fast"}, "move_budget", "not a number"),
        ({"policy": "everyone"}, "policy", "not one of ask, tournaments, anyone"),
        ({"colour": "red"}, "colour", "unknown key"),
        ({"engine": {"path": "no_colon"}}, "engine.path", "module:Class"),
        ({"challenges": {"games": {"icecream": 2}}}, "challenges.games.icecream", "a list of player counts"),
        ({"challenges": {"opponents_blocked": "rando"}}, "challenges.opponents_blocked", "a list of names"),
        ({"matchmaking": [{"game": "icecream"}]}, "matchmaking[0].players", "missing"),
        ({"matchmaking": [{"game": "icecream", "players": 2, "rating": 3}]}, "matchmaking[0].rating", "unknown key"),
    ],
)
def test_a_config_mistake_names_its_key_and_what_is_wrong(changes: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse(**changes)
    assert raised.value.key == key and words in str(raised.value)


def test_the_command_prints_one_line_for_a_bad_config_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "bot.toml"
    config.write_text('url = "http://127.0.0.1:8000"\ntoken_file = "missing.token"\nstate_dir = "state"\n')
    assert main(["run", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("parlour-bot: config error: token_file: cannot read") and "Traceback" not in err
    config.write_text("url = [")
    assert main(["run", str(config)]) == 2
    assert "is not valid TOML" in capsys.readouterr().err


def test_an_engine_loads_from_a_file_beside_the_config_or_a_module(tmp_path: Path) -> None:
    (tmp_path / "my_engine.py").write_text(ENGINE_FILE)
    (tmp_path / "bot.token").write_text(TOKEN + "\n")
    (tmp_path / "bot.toml").write_text(
        'url = "http://127.0.0.1:8000"\ntoken_file = "bot.token"\nstate_dir = "state"\n'
        '[engine]\npath = "./my_engine.py:Engine"\n'
    )
    config = load_config(tmp_path / "bot.toml")
    engine = load_engine(config.engine.path, config.engine.options, config.engine.base)
    legal: Any = {"kind": "enumerated", "actions": [{"type": "pass"}]}
    assert engine.choose("icecream", None, legal) == {"type": "pass"}
    assert isinstance(load_engine("parlour_bot.engines:RandomEngine", {"seed": 1}), RandomEngine)
    with pytest.raises(EngineError, match="does not take the options"):
        load_engine("parlour_bot.engines:RandomEngine", {"colour": "red"})
    with pytest.raises(EngineError, match="cannot import"):
        load_engine("no_such_module:Engine", {})
