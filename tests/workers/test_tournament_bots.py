"""Tournaments with external bots, on real workers: the bot runner over HTTP (it accepts the tournament's
challenge from its stream), and a bot that enters by its policy and never plays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.api.conftest import bearer, read_log
from tests.bots.process import start_runner, write_config
from tests.workers.conftest import StartTimerWorker, StartWorker
from tests.workers.test_ai_seats import wait_for
from tests.workers.test_bots import live_server  # noqa: F401  (the API over HTTP)
from tests.workers.test_tournaments import finished_tournament
from tournaments.cli import main

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
BOT_TIMEOUT = 300.0  # seconds the tournament may take (never asserted as a speed)


def test_a_round_robin_with_the_bot_runner_runs_to_the_end_over_http(
    client: FlaskClient,
    live_server: str,  # noqa: F811
    start_worker: StartWorker,
    start_timer_worker: StartTimerWorker,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    start_worker("tournament-ai")
    start_timer_worker("tournament-timers")
    registered = client.post("/v1/bots", json={"name": "rando"}).get_json()
    config = write_config(tmp_path / "rando", live_server, seed=7)
    bot = start_runner(config, registered["token"], tmp_path / "bot.log", "--matches", "4")
    try:
        plot = tmp_path / "ratings.png"
        args = ["tournament", "rockem_sockem", "random", "easy", f"bot:{registered['id']}", "--server", live_server]
        code = main([*args, "--turn-timer", "5", "--plot", str(plot), "--quiet"])  # a bot: the server's seed
        assert code == 0, capsys.readouterr().err
        assert bot.wait(timeout=BOT_TIMEOUT) == 0, (tmp_path / "bot.log").read_text()
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    out = capsys.readouterr().out
    assert "6/6 matches (seed " in out and "rando" in out
    assert plot.read_bytes().startswith(PNG_SIGNATURE)
    listed = client.get("/v1/tournaments?status=finished").get_json()["items"]
    body = client.get(listed[0]["url"]).get_json()
    assert [entrant["name"] for entrant in body["entrants"]] == ["random", "easy", "rando"]
    assert body["entrants"][2] == {"entrant": 2, "name": "rando", "type": "bot", "bot": registered["id"]}
    assert {rating["name"] for rating in body["ratings"]} == {"random", "easy", "rando"}
    bot_moves = 0
    for match in body["matches"]:
        if 2 in match["seats"]:
            seat = match["seats"].index(2)
            entries = read_log(client, match["match"])["entries"]
            bot_moves += sum(1 for entry in entries if entry["seat"] == seat and not entry.get("timeout"))
    assert bot_moves > 0, "the bot played its own seats"


def test_a_bot_that_never_answers_is_played_on_time_and_the_tournament_ends(
    client: FlaskClient,
    start_worker: StartWorker,
    start_timer_worker: StartTimerWorker,
) -> None:
    start_worker("silent-opponent")
    start_timer_worker("silent-timers")
    silent = client.post("/v1/bots", json={"name": "silent"}).get_json()
    # It enters tournaments without being asked (its policy), then never plays a move.
    policy = client.patch(f"/v1/bots/{silent['id']}", json={"policy": "tournaments"}, headers=bearer(silent["token"]))
    assert policy.status_code == 200
    entrants: list[dict[str, Any]] = [{"type": "ai", "level": "easy"}, {"type": "bot", "bot": silent["id"]}]
    request = {"game": "sundae_split", "entrants": entrants, "turn_timer": {"seconds": 1}}  # a bot: no chosen seed
    created = client.post("/v1/tournaments", json=request)
    assert created.status_code == 201, created.get_json()
    url = created.headers["Location"]
    body = wait_for(lambda: finished_tournament(client, url), "the tournament to finish", timeout=BOT_TIMEOUT)
    assert body["progress"]["done"] == body["progress"]["total"] == 2
    for match in body["matches"]:
        seat = match["seats"].index(1)
        entries = read_log(client, match["match"])["entries"]
        mine = [entry for entry in entries if entry["seat"] == seat]
        assert mine and all(entry.get("timeout") for entry in mine)
    # With a bot entrant the server draws the seed, so who wins the two deals is chance's (timeout
    # defaults do win a Sundae Split now and then); that every match ends and counts is the test.
    assert sorted(row["name"] for row in body["standings"]) == ["easy", "silent"]
    assert [row["played"] for row in body["standings"]] == [2, 2]
