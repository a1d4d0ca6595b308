"""parlour-bot killed with SIGKILL mid-match and started again: it resumes from its cursor and its live matches,
finishes the match, and replays nothing (the match counted over once, each of its moves sent and accepted once)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import httpx
from parlour_bot import RandomEngine, Runner
from parlour_client import Client, Event

from tests.client.conftest import CLIENT_SOURCE
from tests.client.test_client import random_legal
from tests.client.test_runner import bot_config
from tests.workers.test_ai_seats import wait_for

EXIT = 40.0  # seconds a runner process may take to finish its match and exit (never asserted as a speed)


def write_config(folder: Path, base_url: str) -> Path:
    """A config file accepting IceCream, its token from PARLOUR_BOT_TOKEN, its state beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "bot.toml"
    config.write_text(
        f'url = "{base_url}"\ntoken_env = "PARLOUR_BOT_TOKEN"\nstate_dir = "state"\nlog_level = "debug"\n'
        '[challenges]\ngames = ["icecream", "sundae_split"]\n'
    )
    return config


@contextmanager
def bot_process(config: Path, token: str, log: Path) -> Iterator[subprocess.Popen[str]]:
    """`python -m parlour_bot run <config> --matches 1` as its own process, its log in `log`."""
    env = {**os.environ, "PARLOUR_BOT_TOKEN": token, "PYTHONPATH": str(CLIENT_SOURCE), "PYTHONUNBUFFERED": "1"}
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "parlour_bot", "run", str(config), "--matches", "1"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            text=True,
        )
        try:
            yield process
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()


def test_a_runner_killed_mid_match_finishes_it_after_a_restart_and_replays_nothing(
    base_url: str, tmp_path: Path
) -> None:
    rng = random.Random(3)
    config = write_config(tmp_path / "bot", base_url)
    state = config.parent / "state"
    logs = [tmp_path / "first.log", tmp_path / "second.log"]
    with Client(base_url) as client:
        bot = client.register_bot("phoenix")
        match = client.create_match(
            "icecream", 2, seats=[{"type": "bot", "bot": bot["id"]}, {"type": "human"}], options={"turn_limit": 12}
        )
        person = next(seat["token"] for seat in match["tokens"] if seat["seat"] == 1)
        with bot_process(config, bot["token"], logs[0]) as first:
            for update in client.match_updates(match["id"]):  # synchronised on the match's versions
                if update["status"] == "active" and update["to_act"] == [1]:
                    break  # the bot has played its first turn: the person's turn now
            played = sum(1 for entry in client.log(match["id"]) if entry["seat"] == 0)
            # Its last move is accepted; killed before it journals that move, the bot would not know it sent it.
            wait_for(lambda: len(journal(state)) >= played, "the bot's journal of the moves it played")
            first.send_signal(signal.SIGKILL)
            first.wait()
        version = client.match(match["id"])["version"]
        while client.play_turn(match["id"], person, random_legal(rng)) is not None:
            pass  # the person's turn, while the bot is down: its your-turn waits for it
        with bot_process(config, bot["token"], logs[1]) as second:
            for update in client.match_updates(match["id"], after=version):
                if update["status"] != "active":
                    break
                while client.play_turn(match["id"], person, random_legal(rng)) is not None:
                    pass
            assert second.wait(EXIT) == 0, logs[1].read_text()
        final = client.match(match["id"])
        log = list(client.log(match["id"]))
    assert final["status"] == "finished"
    text = [path.read_text() for path in logs]
    assert all(f"match {match['id']} started" in part for part in text)
    assert sum(part.count(f"match {match['id']} over") for part in text) == 1, "the match counted over once"
    results = [json.loads(line) for line in (state / "results.jsonl").read_text().splitlines()]
    assert [result["match"] for result in results] == [match["id"]]
    moves = journal(state)
    sent = [(move["seat"], move["version"]) for move in moves]
    assert len(sent) == len(set(sent)), "no move sent twice for one version"
    bot_entries = [entry for entry in log if entry["seat"] == 0]
    assert len(bot_entries) == len(moves) and moves, "every move the bot sent accepted once, and no other"
    assert "refused" not in text[0] + text[1] and "Traceback" not in text[0] + text[1]
    assert (state / "exports" / f"{match['id']}.json").exists()


def journal(state: Path) -> list[dict[str, object]]:
    """The moves the runner journalled (none before its first)."""
    path = state / "moves.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_match_over_told_again_after_a_restart_is_not_counted_again(base_url: str, tmp_path: Path) -> None:
    with Client(base_url) as client:
        bot = client.register_bot("once")
        match = client.create_match(
            "icecream", 2, seats=[{"type": "human"}, {"type": "human"}], options={"turn_limit": 2}
        )
        seats = [seat["token"] for seat in match["tokens"]]
        while client.match(match["id"])["status"] == "active":
            for token in seats:
                client.play_turn(match["id"], token, random_legal(random.Random(1)))
    over = Event(7, "match-over", {"match": match["id"], "seat": 0, "version": 9, "status": "finished", "result": {}})
    config = bot_config(base_url, tmp_path / "state", bot)
    first = Runner(config, RandomEngine())
    first.handle(over)
    first.handle(replace(over, data={**over.data, "seat": 1}))  # one match-over per seat the bot holds
    assert first.over == 1
    again = Runner(config, RandomEngine())  # restarted before its cursor passed event 7: the event comes again
    again.handle(over)
    assert again.over == 0
    assert [json.loads(line)["match"] for line in (tmp_path / "state" / "results.jsonl").read_text().splitlines()] == [
        match["id"]
    ]
    assert (tmp_path / "state" / "exports" / f"{match['id']}.json").exists()


def test_a_match_that_ended_before_the_snapshot_is_ended_by_it(base_url: str, tmp_path: Path) -> None:
    """A runner with no cursor accepts a challenge, and the match ends before its stream opens: the `match-over`
    comes before the snapshot, which lists the match no more. The runner reads the match and ends it."""
    with Client(base_url) as client:
        bot = client.register_bot("late")
        created = client.create_match("icecream", 2, seats=[{"type": "bot", "bot": bot["id"]}, {"type": "human"}])
        runner = Runner(bot_config(base_url, tmp_path / "state", bot), RandomEngine())
        runner.consider(list(client.bot_challenges(bot["id"], token=bot["token"])))  # accepted: the match starts
        person = next(seat["token"] for seat in created["tokens"] if seat["seat"] == 1)
        assert client.resign(created["id"], token=person)["status"] == "finished"
        url, auth = f"{base_url}/v1/bots/{bot['id']}/events", {"Authorization": f"Bearer {bot['token']}"}
        # No cursor: the snapshot alone, numbered after the match-over.
        (snapshot,) = httpx.get(url, params={"wait": 1}, headers=auth).json()["events"]
        assert snapshot["event"] == "snapshot" and snapshot["data"]["matches"] == []
        runner.handle(Event(snapshot["id"], "snapshot", snapshot["data"]))
    assert runner.over == 1 and runner.idle()
    results = [json.loads(line) for line in (tmp_path / "state" / "results.jsonl").read_text().splitlines()]
    assert [(result["match"], result["status"]) for result in results] == [(created["id"], "finished")]
