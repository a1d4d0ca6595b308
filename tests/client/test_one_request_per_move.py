"""One request per move, counted at the client's transport: `play_turn` fed the previous answer's legal actions
reads none, and parlour-bot's runner, woken by `your-turn` events that carry them, sends only its actions."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from parlour_bot import RandomEngine, Runner
from parlour_client import Client, LegalActions

from api.current import ParlourApp
from tests.client.test_client import random_legal, tokens
from tests.client.test_runner import JOIN, bot_config, moves_of, start

WATCHING = 10.0  # seconds the runners may take to open their streams (never asserted as a speed)


class Counting(httpx.BaseTransport):
    """The network, with every request counted by its method and the kind of resource (`GET legal-actions`)."""

    def __init__(self) -> None:
        self.sent: Counter[str] = Counter()
        self.inner = httpx.HTTPTransport()
        self.lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        parts = request.url.path.strip("/").split("/")  # v1, matches, <id>, what
        if len(parts) > 3:
            what = parts[3]
        else:  # a match, a bot (`GET match`), or a collection (`POST matches`)
            what = parts[1].removesuffix("es").removesuffix("s") if len(parts) == 3 else parts[-1]
        with self.lock:
            self.sent[f"{request.method} {what}"] += 1
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


def test_play_turn_fed_the_answers_legal_actions_reads_them_once_per_turn(base_url: str) -> None:
    counting = Counting()
    with Client(base_url, transport=counting) as client:
        match = client.create_match("icecream", 2, seed="one-request-per-move", options={"turn_limit": 6})
        seats, rng = tokens(match), random.Random(5)
        turns = moves = 0
        status = "active"
        while status == "active":
            for seat, token in seats.items():
                legal: LegalActions | None = None  # a new turn: nothing known (a seat's event would carry them)
                while status == "active" and (
                    answer := client.play_turn(match["id"], token, random_legal(rng), legal=legal)
                ):
                    turns += legal is None
                    moves, status = moves + 1, answer["status"]
                    legal = answer["legal_actions"]
                    assert legal["seat"] == seat and legal["version"] == answer["version"]
        assert moves == len(list(client.log(match["id"]))) > turns
    assert counting.sent["POST actions"] == moves
    # Once per turn (and once per seat looked at out of turn): never before a move the previous answer prepared.
    assert counting.sent["GET legal-actions"] < moves


def test_a_runner_woken_by_your_turn_sends_one_request_per_move(app: ParlourApp, base_url: str, tmp_path: Path) -> None:
    # Over HTTP (the socket's count: test_runner_socket).
    for runner, journalled, sent, in_log in play_one_match(app, base_url, tmp_path, transport="http"):
        assert len(journalled) == in_log > 0
        assert runner.tally.refused == Counter()
        assert sent["POST actions"] == len(journalled)
        assert sent["GET legal-actions"] == 0, sent  # each came with an event or an answer
        assert sent["GET match"] == 0, sent  # RandomEngine wants no view


def test_a_runner_started_on_its_turn_in_a_live_match_reads_no_legal_actions(base_url: str, tmp_path: Path) -> None:
    """openapi.yaml, BotSeat.legal_actions: 'so a bot that starts again plays its first move with no read'. The
    bot's match started while no runner ran (its turn first); the runner finds it in the live seats it lists at its
    start, and in its stream's snapshot, with the legal actions to play it."""
    rng = random.Random(4)
    counted = Counting()
    with Client(base_url) as anyone:
        bot = anyone.register_bot("latecomer")
        seats = [{"type": "bot", "bot": bot["id"]}, {"type": "human"}]
        match = anyone.create_match("icecream", 2, seats=seats, options={"turn_limit": 12})
        person = next(seat["token"] for seat in match["tokens"] if seat["seat"] == 1)
        runner = Runner(
            bot_config(base_url, tmp_path / "latecomer", bot, transport="http"),
            RandomEngine(seed=4),
            Client(base_url, bot["token"], transport=counted),
            matches=1,
        )
        thread = start(runner)
        for update in anyone.match_updates(match["id"]):  # synchronised on the match's versions
            if update["status"] != "active":
                break
            while anyone.play_turn(match["id"], person, random_legal(rng)) is not None:
                pass
        thread.join(JOIN)
        assert not thread.is_alive(), "the runner did not see its match over"
        bot_moves = sum(entry["seat"] == 0 for entry in anyone.log(match["id"]))
    assert bot_moves > 0 and counted.sent["POST actions"] == bot_moves
    assert counted.sent["GET legal-actions"] == 0, counted.sent  # the listing and the events carried them


class SlowLastAnswer(Counting):
    """The network, where the answer to the move that ends the match arrives LAST_ANSWER_DELAY s late: after the
    match-over event the server announced before it answered."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if request.method == "POST" and request.url.path.endswith("/actions"):
            response.read()
            if response.json().get("status") == "finished":
                time.sleep(LAST_ANSWER_DELAY)  # the fault: a late answer, not a wait for anything
        return response


LAST_ANSWER_DELAY = 2.0


def test_a_runner_journals_the_last_move_whose_answer_comes_after_the_match_over(
    app: ParlourApp, base_url: str, tmp_path: Path
) -> None:
    """The match-over event may come before the answer to the move that ended the match: the runner ends only once
    that answer is read, so the move is journalled and counted (a run that ended first left it out)."""
    played = play_one_match(app, base_url, tmp_path, network=SlowLastAnswer, transport="http")
    for runner, journalled, _, in_log in played:  # journals read as the runs end, not later
        assert len(journalled) == in_log == runner.tally.moves > 0


def play_one_match(
    app: ParlourApp,
    base_url: str,
    tmp_path: Path,
    *,
    drop: bool = False,
    network: Callable[[], Counting] = Counting,
    **extra: Any,
) -> list[tuple[Runner, list[dict[str, Any]], Counter[str], int]]:
    """Two runners (counting their HTTP requests on a `network` of their own) play one IceCream match against each
    other; per runner: the runner, its journalled moves, its requests, and its moves in the match's log. `drop`
    cuts the first runner's socket once both are open, before the match starts."""
    counted = [network(), network()]
    dropped: list[Any] = []
    with Client(base_url) as anyone:
        bots = [anyone.register_bot(name) for name in ("uno", "due")]
        folders = [tmp_path / bot["name"] for bot in bots]
        runners = [
            Runner(
                bot_config(base_url, folder, bot, **extra),
                RandomEngine(seed=index),
                Client(base_url, bot["token"], transport=transport),
                matches=1,
            )
            for index, (bot, folder, transport) in enumerate(zip(bots, folders, counted, strict=True))
        ]
        threads = [start(runner) for runner in runners]
        deadline = time.monotonic() + WATCHING
        while app.services.changes.watched() < len(bots):  # both followed: every turn comes as an event
            assert time.monotonic() < deadline, "the runners' events were not followed"
            time.sleep(0.01)
        if drop:
            channel = runners[0].channel
            assert channel is not None
            channel._ws.shutdown()  # the network drops the connection under the runner
            dropped.append(channel)
        seats = [{"type": "bot", "bot": bot["id"]} for bot in bots]
        match = anyone.create_match("icecream", 2, seats=seats, options={"turn_limit": 20})
        for thread in threads:
            thread.join(JOIN)
            assert not thread.is_alive(), "a runner did not see its match over"
        log = list(anyone.log(match["id"]))
    played = []
    for runner, folder, transport in zip(runners, folders, counted, strict=True):
        journalled = moves_of(folder)
        in_log = sum(entry["seat"] == journalled[0]["seat"] for entry in log)
        played.append((runner, journalled, transport.sent, in_log))
    assert all(channel.reconnects >= 1 for channel in dropped)  # resumed with after on a new connection
    return played
