"""The remote environment against the real served app: one IceCream episode against the server's `random` AI seat,
its moves made by a real RQ worker running beside the test, played to the end over HTTP; the reward is the
server's result."""

from __future__ import annotations

import importlib
import sys
import threading
import warnings
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
from tests.serving import served
from workers import context
from workers.worker import PromptWorker

if str(CLIENT_SOURCE) not in sys.path:
    sys.path.insert(0, str(CLIENT_SOURCE))

from parlour_client import Client

from parlour_envs.remote import AgainstAI, Challenges, RemoteEnv


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
