"""parlour_client.socket against a real server: a seat and a bot play over the WebSocket, and a dropped socket
resumes with nothing lost and no action applied twice."""

from __future__ import annotations

from typing import Any

import pytest
from parlour_client import Client, ProblemError
from parlour_client.models import LegalActions
from parlour_client.socket import Socket
from parlour_client.sse import Event

from tests.api.test_openapi import WINNING_LINE


def first(legal: LegalActions) -> Any:
    return legal["actions"][0]


def test_a_seat_plays_over_its_socket_one_message_a_move(base_url: str) -> None:
    with Client(base_url) as client:
        created = client.create_match("icecream", 2, seed="client-socket")
        tokens = {seat["seat"]: seat["token"] for seat in created["tokens"]}
        sockets = {seat: client.socket(token=token) for seat, token in tokens.items()}
        try:
            assert all(isinstance(socket, Socket) for socket in sockets.values())
            for version, (seat, action) in enumerate(WINNING_LINE):
                socket = sockets[seat]
                assert socket is not None
                answer = socket.act(action, expected_version=version)
                assert answer["version"] == version + 1
            for socket in sockets.values():
                assert socket is not None
                names = [event.event for event in socket]
                assert names[-1] == "end"
            assert client.match(created["id"])["status"] == "finished"
        finally:
            for socket in sockets.values():
                if socket is not None:
                    socket.close()


def test_play_turn_uses_the_legal_actions_the_socket_received(base_url: str) -> None:
    with Client(base_url) as client:
        created = client.create_match("icecream", 2, seed="play-turn")
        token = created["tokens"][0]["token"]
        with Socket(base_url, token) as socket:
            answer = socket.play_turn(first)
            assert answer is not None and answer["version"] == 1
        with pytest.raises(ProblemError) as refused:
            Socket(base_url, token[:-3] + "abc")
        assert refused.value.status == 401 and refused.value.code == "unauthorized"


def test_a_dropped_socket_resumes_with_nothing_lost_and_its_action_applied_once(base_url: str) -> None:
    with Client(base_url) as client:
        created = client.create_match("icecream", 2, seed="drop")
        tokens = {seat["seat"]: seat["token"] for seat in created["tokens"]}
        with Socket(base_url, tokens[0]) as watcher:
            assert next(watcher).id == 0
            watcher._ws.shutdown()  # the network drops the connection under it
            for version in range(3):
                seat, action = WINNING_LINE[version]
                client.act(created["id"], action, expected_version=version, token=tokens[seat])
            seen: list[Event] = []
            while not seen or seen[-1].id != 3:
                seen.append(next(watcher))
            assert watcher.reconnects == 1
            log = [entry["version"] for event in seen for entry in event.data["log"]]
            assert log == [1, 2, 3]
        with Socket(base_url, tokens[WINNING_LINE[3][0]]) as mover:
            mover._ws.shutdown()  # dropped before the action: it goes on the new connection
            answer = mover.act(WINNING_LINE[3][1], expected_version=3, idempotency_key="once")
            assert answer["version"] == 4
            again = mover.act(WINNING_LINE[3][1], expected_version=3, idempotency_key="once")
            assert again["version"] == 4  # the same key answers the first answer
        assert client.match(created["id"])["version"] == 4


def test_a_bot_plays_through_its_socket(base_url: str) -> None:
    with Client(base_url) as client:
        bot = client.register_bot("sockbot")
        client.set_bot_policy(bot["id"], token=bot["token"], policy="anyone")
        with Socket(base_url, bot["token"]) as socket:
            assert socket.welcome["kind"] == "bot"
            assert next(socket).event == "snapshot"
            created = client.create_match("icecream", 2, seats=[{"type": "bot", "bot": bot["id"]}, {"type": "human"}])
            human = created["tokens"][0]["token"] if created["tokens"] else ""
            for version, (seat, action) in enumerate(WINNING_LINE):
                if seat == 0:
                    event = next(socket)
                    while event.event != "your-turn":
                        event = next(socket)
                    assert event.data["version"] == version
                    socket.act(action, expected_version=version, match=created["id"])
                else:
                    client.act(created["id"], action, expected_version=version, token=human)
            event = next(socket)
            while event.event != "match-over":
                event = next(socket)
            assert event.data["result"]["winners"] == [0]
