"""parlour-bot over the bot's WebSocket: two runners play a match with their events and actions on one connection
each (no POST for an action, no legal-actions read), one of them resuming after its connection drops; and a
server that refuses the socket leaves them on the event stream and POST, as before."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from parlour_bot import RandomEngine, Runner
from parlour_client import Client

from api.current import ParlourApp
from tests.client.test_one_request_per_move import play_one_match
from tests.client.test_runner import bot_config
from tests.serving import served

StartResponse = Callable[..., Any]


def refusing_the_socket(app: ParlourApp) -> Callable[[dict[str, Any], StartResponse], Iterable[bytes]]:
    """The app behind a proxy that answers 404 to `GET /v1/socket` (a server without the WebSocket)."""

    def wsgi(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == "/v1/socket":
            start_response("404 Not Found", [("Content-Type", "text/plain"), ("Content-Length", "0")])
            return [b""]
        return app(environ, start_response)

    return wsgi


def test_runners_play_over_their_sockets_with_no_post_and_no_legal_actions_read(
    app: ParlourApp, base_url: str, tmp_path: Path
) -> None:
    for runner, journalled, sent, in_log in play_one_match(app, base_url, tmp_path):
        assert len(journalled) == in_log == runner.tally.moves > 0
        assert runner.tally.refused == Counter()
        assert runner.no_socket is False
        assert sent["POST actions"] == 0, sent  # every action a message on the socket
        assert sent["GET legal-actions"] == 0, sent  # each came with a your-turn or an answer
        assert sent["GET match"] == 0, sent  # RandomEngine wants no view
        assert sent["GET events"] == 0, sent  # no event stream either


def test_a_runner_whose_socket_drops_resumes_and_plays_on(app: ParlourApp, base_url: str, tmp_path: Path) -> None:
    played = play_one_match(app, base_url, tmp_path, drop=True)
    for runner, journalled, sent, in_log in played:
        assert len(journalled) == in_log == runner.tally.moves > 0
        assert sent["POST actions"] == 0, sent
    assert played[0][0].outages == 0  # resumed by the socket itself, with after


def test_runners_fall_back_to_the_stream_and_post_when_the_socket_is_refused(app: ParlourApp, tmp_path: Path) -> None:
    with served(refusing_the_socket(app)) as base_url:
        for runner, journalled, sent, in_log in play_one_match(app, base_url, tmp_path):
            assert len(journalled) == in_log > 0
            assert runner.no_socket is True
            assert sent["POST actions"] == len(journalled), sent  # one request per move, as before the socket
            assert sent["GET legal-actions"] == 0, sent
            assert sent["GET events"] == 1, sent


def test_a_runner_told_to_use_the_socket_stops_when_there_is_none(app: ParlourApp, tmp_path: Path) -> None:
    with served(refusing_the_socket(app)) as base_url, Client(base_url) as anyone:
        bot = anyone.register_bot("insistent")
        runner = Runner(bot_config(base_url, tmp_path / "state", bot, transport="socket"), RandomEngine(seed=1))
        assert runner.run() == 1


def test_the_transport_setting_forces_http(app: ParlourApp, base_url: str, tmp_path: Path) -> None:
    for runner, journalled, sent, _ in play_one_match(app, base_url, tmp_path, transport="http"):
        assert runner.no_socket is True
        assert sent["POST actions"] == len(journalled) > 0, sent


def test_the_environment_overrides_the_configs_transport(tmp_path: Path) -> None:
    from parlour_bot.config import ConfigError, parse_config

    data = {"url": "http://x", "token_env": "T", "state_dir": "s", "transport": "socket"}
    environ = {"T": "bot.abc.secret", "PARLOUR_BOT_TRANSPORT": "http"}
    assert parse_config(data, tmp_path, environ=environ).transport == "http"
    assert parse_config(data, tmp_path, environ={"T": "bot.abc.secret"}).transport == "socket"
    try:
        parse_config({**data, "transport": "pigeon"}, tmp_path, environ={"T": "bot.abc.secret"})
    except ConfigError as error:
        assert error.key == "transport"
    else:
        raise AssertionError("an unknown transport was accepted")
