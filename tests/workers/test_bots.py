"""The bot runner (`parlour-bot`, RandomEngine) accepts its challenges and plays whole matches against AI seats
on real workers, over HTTP, by its event stream; two runners play a match and its rematch."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.api.conftest import create_match, read_log
from tests.bots.process import start_runner, write_config
from tests.serving import served
from tests.workers.conftest import StartWorker
from tests.workers.test_ai_seats import assert_log_is_a_game, finished, wait_for

BOT_TIMEOUT = 180.0  # seconds the bot may take for its matches (never asserted as a speed)


@pytest.fixture
def live_server(app: Flask) -> Iterator[str]:
    """The API served over HTTP on a free port (threads, so the bot's stream and its requests go together)."""
    with served(app) as url:
        yield url


def test_the_runner_plays_whole_matches_against_ai_seats(
    client: FlaskClient, live_server: str, start_worker: StartWorker, tmp_path: Path
) -> None:
    start_worker("bot-opponents")
    registered = client.post("/v1/bots", json={"name": "rando"}).get_json()
    config = write_config(tmp_path / "rando", live_server, seed=1)
    bot = start_runner(config, registered["token"], tmp_path / "bot.log", "--matches", "2")
    try:
        seat = {"type": "bot", "bot": registered["id"]}
        icecream = create_match(client, seats=[seat, {"type": "ai", "level": "easy"}], options={"turn_limit": 30})
        sundae = create_match(
            client,
            game="sundae_split",
            players=3,
            seats=[{"type": "ai", "level": "random"}, seat, {"type": "ai", "level": "easy"}],
        )
        assert bot.wait(timeout=BOT_TIMEOUT) == 0, (tmp_path / "bot.log").read_text()
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    for match, bot_seat in ((icecream, 0), (sundae, 1)):
        final = wait_for(partial(finished, client, match.id), f"match {match.id} to finish")
        assert final["seats"][bot_seat]["type"] == "bot" and final["seats"][bot_seat]["name"] == "rando"
        entries = assert_log_is_a_game(client, match.id, first=2)  # version 1: the bot accepted
        assert any(entry["seat"] == bot_seat for entry in entries), "the bot played its seat"
    profile = client.get(f"/v1/bots/{registered['id']}").get_json()
    assert (profile["matches_playing"], profile["matches_finished"]) == (0, 2)
    assert "stopped: 2 matches over" in (tmp_path / "bot.log").read_text()
    assert len(list((config.parent / "state" / "exports").glob("*.json"))) == 2


def test_two_runners_play_a_match_and_its_rematch_through_their_event_streams(
    client: FlaskClient, live_server: str, tmp_path: Path
) -> None:
    registered = [client.post("/v1/bots", json={"name": name}).get_json() for name in "AB"]
    ids = [bot["id"] for bot in registered]
    bots = [
        start_runner(
            write_config(tmp_path / bot["name"], live_server, rematch=True),
            bot["token"],
            tmp_path / f"{bot['name']}.log",
            "--matches",
            "2",
        )
        for bot in registered
    ]
    try:
        first = create_match(
            client, seats=[{"type": "bot", "bot": bot_id} for bot_id in ids], options={"turn_limit": 30}
        )
        for bot, name in zip(bots, "AB", strict=True):
            assert bot.wait(timeout=BOT_TIMEOUT) == 0, (tmp_path / f"{name}.log").read_text()
    finally:
        for bot in bots:
            if bot.poll() is None:
                bot.kill()
                bot.wait()
    over = wait_for(lambda: finished(client, first.id), "the first match to finish")
    rematch_id = over["rematch"]["match"]
    assert over["rematch"]["offered_by"] == [0, 1] and rematch_id is not None
    rematch = wait_for(lambda: finished(client, rematch_id), "the rematch to finish")
    assert [seat["bot"] for seat in rematch["seats"]] == ids[::-1], "the seats rotated"
    for match_id in (first.id, rematch_id):
        # Acceptances of a challenge and rematch offers are versions without a log entry; the moves run unbroken.
        entries = read_log(client, match_id)["entries"]
        versions = [entry["version"] for entry in entries]
        assert versions == list(range(versions[0], versions[-1] + 1)), "no move lost or doubled"
        assert {entry["seat"] for entry in entries} == {0, 1}, "both bots played"
    for bot_id in ids:
        profile = client.get(f"/v1/bots/{bot_id}").get_json()
        assert (profile["matches_playing"], profile["matches_finished"]) == (0, 2)
