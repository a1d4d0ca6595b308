"""The bot runner waits out a server that cannot reach its store, as while it restarts, instead of exiting, and
plays on once the store is back."""

from __future__ import annotations

import threading
from pathlib import Path

from flask.testing import FlaskClient
from parlour_bot import RandomEngine, Runner
from parlour_client import Client, RetryPolicy

from api.app import create_app
from model.settings import Settings
from ops.embedded_redis import EmbeddedRedis, start_embedded_redis
from tests.api.conftest import create_match
from tests.client.test_runner import bot_config
from tests.serving import served
from tests.workers.test_ai_seats import WAIT, wait_for

QUICK = RetryPolicy(attempts=3, backoff=0.05, cap=0.2)
"""Retries short enough that the runner's own loop sees the outage soon."""


def test_the_runner_waits_out_a_503_and_plays_on_once_the_store_is_back(tmp_path: Path) -> None:
    folder = tmp_path / "redis"
    store: EmbeddedRedis = start_embedded_redis(folder, persistent=True)
    app = create_app(Settings(redis_url=store.url))
    try:
        with served(app) as base_url:
            with Client(base_url) as anyone:
                bot = anyone.register_bot("patient")
            store.stop()  # every request needing the store is now a 503 (service-unavailable)
            client = Client(base_url, bot["token"], retry=QUICK)
            runner = Runner(bot_config(base_url, tmp_path / "state", bot), RandomEngine(seed=1), client, matches=1)
            failures: list[BaseException] = []

            def run() -> None:
                try:
                    runner.run()
                except BaseException as error:  # the thread's failure is the test's
                    failures.append(error)

            thread = threading.Thread(target=run, daemon=True)
            thread.start()
            wait_for(lambda: runner.outages > 0 or bool(failures), "the runner's first refusal")
            assert not failures, failures
            store = start_embedded_redis(folder, persistent=True)  # the same data: the bot is still registered

            http: FlaskClient = app.test_client()
            match = create_match(http, seats=[{"type": "bot", "bot": bot["id"]}, {"type": "human"}])
            wait_for(lambda: http.get(f"/v1/matches/{match.id}").get_json()["status"] == "active", "the bot's accept")
            seat = match.tokens[1]
            resigned = http.post(f"/v1/matches/{match.id}/resign", headers={"Authorization": f"Bearer {seat}"})
            assert resigned.status_code == 200, resigned.get_json()
            thread.join(WAIT)
            assert not thread.is_alive() and not failures, failures
            assert runner.state.finished == {match.id} and client.waited[503] > 0
            client.close()
    finally:
        app.services.changes.stop()
        store.stop()
