"""parlour-bot joins its matchmaking pools when idle: two runners with nothing to do enter the rated IceCream
pool, are paired, play the match to the end, and it counts on the ladder."""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

from parlour_bot import RandomEngine, Runner
from parlour_client import Client

from tests.client.test_runner import JOIN, bot_config, start


def test_two_idle_runners_are_paired_by_matchmaking_and_their_match_counts_on_the_ladder(
    base_url: str, tmp_path: Path
) -> None:
    with Client(base_url) as anyone:
        bots = [anyone.register_bot(name) for name in ("mm-alpha", "mm-beta")]
        pool = [{"game": "icecream", "players": 2, "rated": True}]
        runners = [
            Runner(bot_config(base_url, tmp_path / bot["name"], bot, matchmaking=pool), RandomEngine(seed=i), matches=1)
            for i, bot in enumerate(bots)
        ]
        threads = [start(runner) for runner in runners]
        for thread in threads:
            thread.join(JOIN)
            assert not thread.is_alive(), "a runner was not paired, or its match did not end"
        played = set()
        for bot in bots:
            lines = (tmp_path / bot["name"] / "results.jsonl").read_text().splitlines()
            played |= {json.loads(line)["match"] for line in lines}
            assert json.loads((tmp_path / bot["name"] / "tickets.json").read_text()) == {}, "no ticket left behind"
        (match_id,) = played
        match = anyone.match(match_id)
        assert match["status"] == "finished" and match["game"] == "icecream"
        ladder = {row["bot"]: row["games"] for row in anyone.leaderboard("icecream") if row["bot"]}
        assert ladder[bots[0]["id"]] == ladder[bots[1]["id"]] == 1


def test_after_a_matchmade_match_a_runner_rests_before_joining_again(base_url: str, tmp_path: Path) -> None:
    """docs/reference/python-client.md: '`matchmaking_rest` ... seconds the bot rests after a match before it joins
    its pools again'."""
    resting = threading.Event()

    class Resting(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.getMessage().startswith("matchmaking: resting 3600 s"):
                resting.set()

    handler, logger = Resting(), logging.getLogger("parlour_bot")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    with Client(base_url) as anyone:
        bots = [anyone.register_bot(name) for name in ("rest-alpha", "rest-beta")]
        pool = [{"game": "sundae_split", "players": 2, "rated": False}]
        runners = [
            Runner(
                bot_config(base_url, tmp_path / bot["name"], bot, matchmaking=pool, matchmaking_rest=3600),
                RandomEngine(seed=i),
            )
            for i, bot in enumerate(bots)
        ]
        threads = [start(runner) for runner in runners]
        try:
            assert resting.wait(JOIN), "no runner rested after its match"
            waiting = {
                (row["game"], row["players"], row["rated"]): row["waiting"] for row in anyone.matchmaking_pools()
            }
            assert waiting[("sundae_split", 2, False)] == 0, "a runner joined again at once"
        finally:
            logger.removeHandler(handler)
            logger.setLevel(level)
            for runner in runners:
                runner.stop()
            for thread in threads:
                thread.join(JOIN)
