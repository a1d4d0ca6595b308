"""The example bot waits out a server that cannot reach its store, as while it restarts, instead of exiting."""

from __future__ import annotations

import random
import threading
from pathlib import Path

from flask.testing import FlaskClient
from werkzeug.serving import make_server

from api.app import create_app
from model.settings import Settings
from ops.embedded_redis import EmbeddedRedis, start_embedded_redis
from tests.api.conftest import create_match
from tests.bots.random_bot import Client, RandomBot, register
from tests.workers.test_ai_seats import WAIT, wait_for


def test_the_example_bot_retries_a_503_and_plays_on_once_the_store_is_back(tmp_path: Path) -> None:
    folder = tmp_path / "redis"
    store: EmbeddedRedis = start_embedded_redis(folder, persistent=True)
    app = create_app(Settings(redis_url=store.url))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    failures: list[BaseException] = []
    try:
        client = Client(f"http://127.0.0.1:{server.server_port}")
        bot_id, client.token = register(client, "patient")
        store.stop()  # every request needing the store is now a 503 (service-unavailable)
        bot = RandomBot(client, bot_id, random.Random(1), matches=1)

        def run() -> None:
            try:
                bot.run()
            except BaseException as error:  # the thread's failure is the test's
                failures.append(error)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        wait_for(lambda: bot.retries > 0 or bool(failures), "the bot's first refusal")
        assert not failures, failures
        store = start_embedded_redis(folder, persistent=True)  # the same data: the bot is still registered

        http: FlaskClient = app.test_client()
        match = create_match(http, seats=[{"type": "bot", "bot": bot_id}, {"type": "human"}])
        wait_for(lambda: http.get(f"/v1/matches/{match.id}").get_json()["status"] == "active", "the bot's accept")
        seat = match.tokens[1]
        resigned = http.post(f"/v1/matches/{match.id}/resign", headers={"Authorization": f"Bearer {seat}"})
        assert resigned.status_code == 200, resigned.get_json()
        thread.join(WAIT)
        assert not thread.is_alive() and not failures, failures
        assert bot.finished == {match.id}
    finally:
        server.shutdown()
        app.services.changes.stop()
        store.stop()
