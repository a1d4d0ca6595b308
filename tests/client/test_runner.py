"""parlour-bot's runner against the served app: two bots, each its own runner with RandomEngine, accept their
challenges and play IceCream and Sundae Split to the end; each finished match counted once, exported, and
every move the server accepted journalled once."""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from parlour_bot import RandomEngine, Runner
from parlour_bot.config import BotConfig, parse_config
from parlour_bot.engines import Engine, LocalAI
from parlour_client import BotRegistered, Client

JOIN = 50.0  # seconds a test waits for a runner's thread before it fails (never asserted as a speed)


def bot_config(base_url: str, folder: Path, bot: BotRegistered, **extra: Any) -> BotConfig:
    """A runner config for `bot` (its token from the environment), its state in `folder`."""
    data = {
        "url": base_url,
        "token_env": "PARLOUR_BOT_TOKEN",
        "state_dir": str(folder),
        "concurrency": 2,
        "challenges": {"games": ["icecream", "sundae_split"]},
        **extra,
    }
    return parse_config(data, folder.parent, environ={"PARLOUR_BOT_TOKEN": bot["token"]})


def start(runner: Runner) -> threading.Thread:
    """The runner in a thread of its own."""
    thread = threading.Thread(target=runner.run, name=f"runner-{runner.bot}", daemon=True)
    thread.start()
    return thread


def moves_of(folder: Path) -> list[dict[str, Any]]:
    """The moves a runner journalled."""
    return [json.loads(line) for line in (folder / "moves.jsonl").read_text().splitlines()]


def test_two_runners_play_their_challenges_in_icecream_and_sundae_split(base_url: str, tmp_path: Path) -> None:
    with Client(base_url) as anyone:
        bots = [anyone.register_bot(name) for name in ("alpha", "beta")]
        folders = [tmp_path / bot["name"] for bot in bots]
        runners = [
            Runner(bot_config(base_url, folder, bot), RandomEngine(seed=index), matches=2)
            for index, (bot, folder) in enumerate(zip(bots, folders, strict=True))
        ]
        threads = [start(runner) for runner in runners]
        seats = [{"type": "bot", "bot": bot["id"]} for bot in bots]
        icecream = anyone.create_match("icecream", 2, seats=seats, options={"turn_limit": 30})
        sundae = anyone.create_match("sundae_split", 2, seats=seats[::-1])
        for thread in threads:
            thread.join(JOIN)
            assert not thread.is_alive(), "a runner did not see both its matches over"
        match_ids = {icecream["id"], sundae["id"]}
        for runner, folder in zip(runners, folders, strict=True):
            results = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
            assert sorted(result["match"] for result in results) == sorted(match_ids), "each match counted once"
            assert {path.stem for path in (folder / "exports").glob("*.json")} == match_ids
            assert runner.tally.refused == Counter() and runner.tally.engine_errors == 0
        for match_id in match_ids:
            assert anyone.match(match_id)["status"] == "finished"
            log = list(anyone.log(match_id))
            journalled = sorted(
                (move["match"], move["seat"], move["version"]) for folder in folders for move in moves_of(folder)
            )
            mine = [move for move in journalled if move[0] == match_id]
            assert len(mine) == len(log) == len(set(mine)), "every move accepted once, and journalled once"
            assert {entry["seat"] for entry in log} == {0, 1}


def test_a_runner_with_local_ai_plays_from_the_whole_match_options_included(base_url: str, tmp_path: Path) -> None:
    """docs/reference/python-client.md: LocalAI 'plays from the whole match ... its view, players and options'."""
    engine = LocalAI(level="easy", seed=3, time_cap=0.05)
    engines: tuple[Engine, Engine] = (engine, RandomEngine(seed=4))
    with Client(base_url) as anyone:
        bots = [anyone.register_bot(name) for name in ("thinker", "dicer")]
        runners = [
            Runner(bot_config(base_url, tmp_path / bot["name"], bot), chosen, matches=1)
            for bot, chosen in zip(bots, engines, strict=True)
        ]
        threads = [start(runner) for runner in runners]
        seats = [{"type": "bot", "bot": bot["id"]} for bot in bots]
        options = {"first_player_flavour": "green", "turn_limit": 8}  # shown by the view, and not
        anyone.create_match("icecream", 2, seats=seats, options=options)
        for thread in threads:
            thread.join(JOIN)
            assert not thread.is_alive(), "a runner did not see its match over"
    played = len(moves_of(tmp_path / "thinker"))
    assert played > 0 and engine.local.moves == played, "every move the level's, none a random fallback"
    assert runners[0].tally.refused == Counter() and runners[0].tally.engine_errors == 0
