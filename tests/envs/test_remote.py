"""The remote environment against the real served app: one IceCream episode against the server's `random` AI seat,
its moves made by a real RQ worker running beside the test, played to the end over HTTP; the reward is the
server's result."""

from __future__ import annotations

import importlib
import random
import sys
import threading
import warnings
from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import redis
from rq.serializers import JSONSerializer
from rq.timeouts import TimerDeathPenalty

from api.current import ParlourApp
from engine.result import Result
from tests.api.conftest import app, settings  # noqa: F401
from tests.client.conftest import CLIENT_SOURCE
from tests.client.test_client import random_legal
from tests.client.test_one_request_per_move import Counting
from tests.serving import served
from workers import context
from workers.worker import PromptWorker

if str(CLIENT_SOURCE) not in sys.path:
    sys.path.insert(0, str(CLIENT_SOURCE))

from parlour_client import Client, ProblemError

from parlour_envs.remote import AgainstAI, Challenges, Matchmaking, RemoteEnv


class ThreadWorker(PromptWorker):
    """An RQ worker on a thread of the test: no signal handlers (only the main thread may set them), job timeouts
    by timer, and a stop that wakes it from its blocking read (a last job: a no-op)."""

    death_penalty_class = TimerDeathPenalty

    def _install_signal_handlers(self) -> None:
        """Only the main thread may set signal handlers; this worker is stopped by `halt`."""

    def halt(self) -> None:
        """Stop after the job it runs, or at once when idle: the no-op job wakes its blocking read."""
        self._stop_requested = True
        self.queues[0].enqueue("builtins.len", [])


@pytest.fixture
def base_url(app: ParlourApp) -> Iterator[str]:  # noqa: F811
    with served(app) as url:
        yield url


@pytest.fixture
def ai_worker(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A real worker making the AI seats' moves while the test plays: its services on the test Redis."""
    monkeypatch.setenv("REDIS_URL", redis_url)
    context.context.cache_clear()
    queues = list(context.context().jobs.queues.values())
    worker = ThreadWorker(queues, connection=redis.Redis.from_url(redis_url), serializer=JSONSerializer)
    thread = threading.Thread(target=worker.work, kwargs={"burst": False}, name="ai-worker", daemon=True)
    thread.start()
    try:
        yield
    finally:
        worker.halt()
        thread.join(timeout=30)
        context.context.cache_clear()
    assert not thread.is_alive(), "the worker stopped"


def play(env: RemoteEnv, seed: int) -> tuple[list[float], dict[str, Any]]:
    """One episode with uniformly random legal tokens; every reward and the last info."""
    rng = np.random.default_rng(seed)
    observation, info = env.reset(seed=seed)
    assert observation in env.observation_space
    rewards: list[float] = []
    done = False
    while not done:
        token = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observation, reward, terminated, truncated, info = env.step(token)
        rewards.append(float(reward))
        assert not truncated
        done = terminated
    return rewards, info


def server_reward(client: Client, match_id: str, seat: int) -> float:
    """The seat's reward from the finished match's result, as the server sends it."""
    match = client.match(match_id)
    assert match["status"] == "finished" and match["result"] is not None
    return Result.from_json(dict(match["result"])).rewards()[seat]


def test_an_episode_against_a_random_ai_seat_is_played_to_the_end_and_paid_the_server_s_result(
    base_url: str, ai_worker: None
) -> None:
    with Client(base_url) as client, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # Gymnasium's advice on Dict observations
        env = RemoteEnv("icecream", client, AgainstAI("random", seat=1), turn_limit=6)
        rewards, info = play(env, seed=4)
        assert info["seat"] == 1 and env.match is not None and env.match["seats"][0]["level"] == "random"
        assert rewards[-1] == server_reward(client, info["match"], 1) and set(rewards[:-1]) <= {0.0}
        played = [entry for entry in client.log(info["match"]) if entry.get("action") is not None]
        assert {entry["seat"] for entry in played} == {0, 1}, "both seats moved"
        env.close()


@pytest.mark.parametrize("game", ["icecream", "freeze_factory"])
def test_a_move_is_one_request_its_legal_actions_come_with_the_events_and_answers(
    base_url: str, ai_worker: None, game: str
) -> None:
    """Counted at the transport: each action one POST, and no legal-actions read (before: one per choice)."""
    counting = Counting()
    with Client(base_url, transport=counting) as client, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        players = 3 if game == "freeze_factory" else 2
        env = RemoteEnv(game, client, AgainstAI("random", seat=1), players=players, turn_limit=6)
        rewards, info = play(env, seed=4)
        env.close()
        moves = sum(entry["seat"] == 1 and entry.get("action") is not None for entry in client.log(info["match"]))
    assert len(rewards) > 0 and counting.sent["POST actions"] >= moves > 0, counting.sent
    assert counting.sent["GET legal-actions"] == 0, counting.sent
    assert counting.sent["GET events"] == 1, counting.sent  # one match stream for the episode


def test_a_bot_s_episode_is_the_next_match_it_is_challenged_to(base_url: str, ai_worker: None) -> None:
    with Client(base_url) as client, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        bot = client.register_bot("learner")
        seats = [{"type": "bot", "bot": bot["id"]}, {"type": "ai", "level": "random"}]
        match = client.create_match("icecream", 2, seats=seats, options={"turn_limit": 4})
        env = RemoteEnv("icecream", client, Challenges(bot["id"], bot["token"]), turn_limit=4)
        rewards, info = play(env, seed=8)
        assert (info["match"], info["seat"]) == (match["id"], 0)
        assert rewards[-1] == server_reward(client, match["id"], 0)
        env.close()


def test_without_the_client_the_import_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "parlour_client", None)  # as if it were not installed
    monkeypatch.delitem(sys.modules, "parlour_envs.remote")
    with pytest.raises(ImportError, match=r"pip install \./clients/python"):
        importlib.import_module("parlour_envs.remote")
    import parlour_envs.single_agent  # noqa: F401 (the rest of the package imports without it)


def count_actions(client: Client) -> Counter[str]:
    """Count the client's actions by how the server answered: `accepted`, or the refusal's code."""
    sent = Counter[str]()
    act = client.act

    def counted(*args: Any, **kwargs: Any) -> Any:
        try:
            answer = act(*args, **kwargs)
        except ProblemError as refused:
            sent[refused.code] += 1
            raise
        sent["accepted"] += 1
        return answer

    client.act = counted  # type: ignore[method-assign]
    return sent


def test_an_action_the_match_has_moved_past_is_chosen_again_at_the_new_version(base_url: str, ai_worker: None) -> None:
    """Someone else plays the seat's move first (a turn timer would): the seat's own is refused as stale, and the
    seat chooses again once its turn comes back."""
    with Client(base_url) as client, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        sent = count_actions(client)
        env = RemoteEnv("icecream", client, AgainstAI("random", seat=0), turn_limit=6)
        observation, info = env.reset(seed=2)
        assert info["version"] == 0 and env.seat is not None
        legal = client.legal_actions(info["match"], token=env.seat.token)
        client.act(info["match"], legal["actions"][0], expected_version=0, token=env.seat.token)
        token = int(np.flatnonzero(observation["action_mask"])[0])
        observation, reward, terminated, truncated, info = env.step(token)
        assert sent == {"accepted": 1, "stale-version": 1}
        assert (reward, terminated, truncated) == (0.0, False, False)
        assert info["version"] >= 2 and observation["action_mask"].any(), "the seat's turn again, after the AI's"
        env.close()
        assert client.match(info["match"])["status"] == "finished", "closing mid-match resigns"


OTHERS = [
    ("rockem_sockem", 2, {}),  # both seats act at once: an action may come too late (stale), a roll goes unversioned
    ("sundae_split", 3, {}),  # the Splitter's split is constructed: the encoding's choices on the rebuilt state
    ("freeze_factory", 3, {"turn_limit": 8}),  # FREEZE! claims out of turn, and PASS
    ("robots_love_ice_cream", 2, {}),  # co-operative: the AI seat is a teammate, the reward shared
]


@pytest.mark.parametrize(("game", "players", "options"), OTHERS, ids=[game for game, _, _ in OTHERS])
def test_every_other_game_is_played_to_the_end_against_an_ai_seat(
    base_url: str, ai_worker: None, game: str, players: int, options: dict[str, Any]
) -> None:
    with Client(base_url) as client, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        sent = count_actions(client)
        env = RemoteEnv(game, client, AgainstAI("random", seat=1), players=players, **options)
        rewards, info = play(env, seed=3)
        assert rewards[-1] == server_reward(client, info["match"], 1)
        assert sent["accepted"] > 0 and set(sent) <= {"accepted", "stale-version"}
        env.close()


def test_a_bot_s_episode_is_found_in_a_matchmaking_pool(base_url: str) -> None:
    """A person waits in the unrated Sundae Split pool and plays at random on a thread, following its match's
    events; the learning bot enters the pool and is paired with it."""
    entered = threading.Event()
    failures: list[BaseException] = []

    def person() -> None:
        try:
            with Client(base_url) as client:
                ticket = client.join_matchmaking("sundae_split", 2, rated=False, name="someone")
                entered.set()
                while ticket["status"] == "waiting":
                    ticket = client.matchmaking_ticket(ticket["id"], token=ticket.get("token"), wait=10)
                match, seat_token = ticket["match"], ticket.get("seat_token")
                assert match is not None and seat_token is not None
                choose = random_legal(random.Random(1))
                for event in client.match_events(match, token=seat_token):
                    if event.event == "end":
                        return
                    while client.play_turn(match, seat_token, choose) is not None:
                        pass
        except BaseException as error:  # the test reports it
            failures.append(error)
            entered.set()

    thread = threading.Thread(target=person, name="person", daemon=True)
    thread.start()
    with Client(base_url) as client, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        bot = client.register_bot("pooled")
        assert entered.wait(timeout=30) and not failures
        env = RemoteEnv("sundae_split", client, Matchmaking(bot["token"], rated=False), players=2)
        rewards, info = play(env, seed=6)
        assert rewards[-1] == server_reward(client, info["match"], info["seat"])
        env.close()
    thread.join(timeout=30)
    assert not failures and not thread.is_alive()
