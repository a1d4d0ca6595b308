"""`python -m ops.supervisor`: settings, the supervisor, and a real start, stop and restart."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]
import pytest
import redis
from rq import Queue, Worker

from domain.turn_timers import parse_iso
from model.match import now_iso
from ops.supervisor import (
    Child,
    ConfigError,
    Settings,
    Supervisor,
    data_dir_lock,
    describe_redis,
    gunicorn_command,
    service_children,
)
from store.jobs import LIVE_QUEUE

PYTHON = sys.executable


def test_settings_defaults_suit_a_laptop() -> None:
    settings = Settings.from_env({})
    assert (settings.host, settings.port, settings.redis_url) == ("127.0.0.1", 8000, None)
    assert settings.redis_dir == Path("data/redis")
    assert describe_redis(settings) == "embedded, data in ./data/redis"


def test_settings_read_the_environment() -> None:
    env = {"PORT": "9000", "WEB_CONCURRENCY": "3", "PARLOUR_THREADS": "8", "PARLOUR_DATA_DIR": "/srv/p"}
    settings = Settings.from_env(env)
    assert (settings.port, settings.workers, settings.threads) == (9000, 3, 8)
    assert settings.redis_dir == Path("/srv/p/redis")


def test_the_web_server_runs_gevent_unless_told_otherwise() -> None:
    assert Settings.from_env({}).worker_class == "gevent"
    settings = Settings.from_env({"PARLOUR_WORKER_CLASS": "gthread", "PARLOUR_WORKER_CONNECTIONS": "100"})
    assert (settings.worker_class, settings.connections) == ("gthread", 100)
    command = gunicorn_command("app:app", "127.0.0.1", 8000, 1, 4, "gevent", 3000)
    assert command[command.index("--worker-class") + 1] == "gevent"
    assert command[command.index("--worker-connections") + 1] == "3000"


@pytest.mark.parametrize(
    ("env", "warm"), [({}, True), ({"PARLOUR_AI_WARM_UP": "1"}, True), ({"PARLOUR_AI_WARM_UP": "0"}, False)]
)
def test_ai_workers_warm_up_only_when_told_to(env: dict[str, str], warm: bool) -> None:
    children = service_children(Settings.from_env({**env, "PARLOUR_AI_WORKERS": "2"}))
    ai_workers = [child for child in children if child.name.startswith("ai-worker")]
    assert len(ai_workers) == 2 and all(("--warm-up" in child.argv) is warm for child in ai_workers)


def test_the_open_file_limit_is_raised_to_the_hard_limit() -> None:
    code = (
        "import resource; from ops.supervisor import OPEN_FILES_WANTED, raise_open_file_limit; "
        "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE); "
        "resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard)); raise_open_file_limit(); "
        "wanted = hard if hard != resource.RLIM_INFINITY else OPEN_FILES_WANTED; "
        "print(resource.getrlimit(resource.RLIMIT_NOFILE)[0] == wanted)"
    )
    done = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "True"


@pytest.mark.parametrize(
    "env", [{"PORT": "http"}, {"PORT": "70000"}, {"WEB_CONCURRENCY": "0"}, {"PARLOUR_WORKER_CLASS": "eventlet"}]
)
def test_bad_settings_are_refused(env: dict[str, str]) -> None:
    with pytest.raises(ConfigError):
        Settings.from_env(env)


def test_a_password_in_redis_url_is_not_printed() -> None:
    settings = Settings.from_env({"REDIS_URL": "redis://:hunter2@cache:6379/0"})
    assert describe_redis(settings) == "redis://:***@cache:6379/0"


def test_supervisor_stops_everything_when_a_child_dies() -> None:
    supervisor = Supervisor(
        [
            Child("sleeper", [PYTHON, "-c", "import time; time.sleep(60)"]),
            Child("crasher", [PYTHON, "-c", "import sys, time; time.sleep(0.3); sys.exit(3)"]),
        ],
        env=dict(os.environ),
    )
    supervisor.start()
    try:
        assert supervisor.wait() == 3
    finally:
        supervisor.stop(timeout=5)
    assert supervisor.processes["sleeper"].returncode == -signal.SIGTERM


def test_a_worker_that_dies_is_started_again_never_taken_for_a_fatal_death() -> None:
    # A worker may die between the supervisor's restart pass and its look for dead children (an RQ worker that
    # quits in a failover did): it is started again at the next pass, and the service goes on.
    supervisor = Supervisor([Child("quitter", [PYTHON, "-c", "raise SystemExit(1)"], restart=True)], env=os.environ)
    supervisor.start()
    try:
        supervisor.processes["quitter"].wait()
        assert supervisor.dead_child() is None
        supervisor.restart_dead_workers()
        assert supervisor.processes["quitter"].wait() == 1  # a new process, which quit in its turn
    finally:
        supervisor.stop(timeout=5)


# --- the whole service --------------------------------------------------------------------------


def free_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Service:
    """`python -m ops.supervisor` as a child process, on its own port and data folder."""

    def __init__(
        self, data_dir: Path, port: int, warm_up: bool = True, extra_env: dict[str, str] | None = None
    ) -> None:
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        env.update(PORT=str(port), PARLOUR_DATA_DIR=str(data_dir), PARLOUR_AI_WARM_UP=str(int(warm_up)))
        env.update(extra_env or {})
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        # Its own process group, so that signalling the group is what a terminal's Ctrl-C does.
        self.process = subprocess.Popen(
            [PYTHON, "-m", "ops.supervisor"], env=env, stdout=subprocess.PIPE, text=True, process_group=0
        )

    def wait_ready(self, timeout: float = 30.0) -> str:
        """The startup line, once the API answers its health check."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"the service exited with {self.process.returncode}"
            try:
                if request(f"{self.base}/v1/health")[0] == 200:
                    assert self.process.stdout is not None
                    return self.process.stdout.readline().strip()
            except OSError:
                time.sleep(0.1)
        raise AssertionError("the service did not become healthy")

    def stop(self, signum: int) -> int:
        """Send `signum` to the service's whole process group and wait for its exit code."""
        os.killpg(self.process.pid, signum)
        return self.process.wait(timeout=30)


def request(url: str, body: dict[str, Any] | None = None, token: str | None = None) -> tuple[int, dict[str, Any]]:
    """GET (or POST `body` as JSON), with a bearer token if given, and return the status and JSON answer."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    req = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture
def service_factory(tmp_path: Path) -> Iterator[Any]:
    """Start services on one data folder; kill whatever a failing test leaves running."""
    started: list[Service] = []

    def start(warm_up: bool = True, port: int | None = None, extra_env: dict[str, str] | None = None) -> Service:
        service = Service(tmp_path / "data", port or free_port(), warm_up, extra_env)
        started.append(service)
        return service

    yield start
    for service in started:
        if service.process.poll() is None:
            os.killpg(service.process.pid, signal.SIGKILL)
            service.process.wait()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_service_serves_and_keeps_matches_across_a_restart(service_factory: Any, signum: int) -> None:
    service = service_factory()
    banner = service.wait_ready()
    assert banner.startswith(f"Parlour listening on {service.base} (Redis: embedded, data in ")
    assert service.process.stdout is not None
    assert service.process.stdout.readline().split() == [
        *("web", "client", f"{service.base}/", "guide", f"{service.base}/guide"),
        *("API", "reference", f"{service.base}/docs"),
        *("OpenAPI", f"{service.base}/v1/openapi.yaml"),
    ]
    status, created = request(f"{service.base}/v1/matches", {"game": "icecream", "players": 2})
    assert status == 201
    assert service.stop(signum) == 0

    again = service_factory()
    again.wait_ready()
    status, match = request(f"{again.base}/v1/matches/{created['id']}")
    assert (status, match["id"], match["version"]) == (200, created["id"], 0)
    assert again.stop(signal.SIGTERM) == 0


def test_a_second_service_on_the_same_data_is_refused(service_factory: Any) -> None:
    first = service_factory()
    first.wait_ready()
    second = service_factory()
    assert second.process.wait(timeout=30) != 0
    assert request(f"{first.base}/v1/health")[0] == 200
    assert first.stop(signal.SIGTERM) == 0


def registered_workers(data_dir: Path) -> dict[str, int]:
    """The AI workers registered on the service's embedded Redis (not the timer worker), by name, with their pids."""
    connection = redis.Redis.from_url(f"unix://{data_dir / 'redis' / 'redis.sock'}")
    workers = Worker.all(queue=Queue(LIVE_QUEUE, connection=connection))
    return {worker.name: worker.pid for worker in workers if worker.pid is not None}


def wait_until(check: Any, timeout: float = 90.0) -> Any:
    """Poll `check()` until it is truthy (and return it), failing after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(0.2)
    raise AssertionError("timed out")


def test_the_service_runs_ai_workers_and_restarts_a_dead_one(service_factory: Any, tmp_path: Path) -> None:
    service = service_factory(warm_up=False)  # solving IceCream first would only add half a minute here
    assert service.wait_ready().endswith("AI workers: 2)")
    workers = wait_until(lambda: (found := registered_workers(tmp_path / "data")) and len(found) == 2 and found)
    os.kill(next(iter(workers.values())), signal.SIGKILL)
    wait_until(lambda: len(set(registered_workers(tmp_path / "data")) - set(workers)) == 1)  # a new one took over
    seats = [{"type": "ai", "level": "easy"}, {"type": "ai", "level": "easy"}]
    status, created = request(f"{service.base}/v1/matches", {"game": "icecream", "players": 2, "seats": seats})
    assert status == 201 and created["tokens"] == []
    url = f"{service.base}/v1/matches/{created['id']}"
    finished = wait_until(lambda: (match := request(url)[1])["status"] == "finished" and match)
    assert finished["result"] is not None
    assert service.stop(signal.SIGTERM) == 0


# --- a port or data folder in use, and a SIGKILL ------------------------------------------------


def refused_start(data_dir: Path, port: int) -> subprocess.CompletedProcess[str]:
    """Run `python -m ops.supervisor` where it must refuse to start; its exit code and output."""
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(PORT=str(port), PARLOUR_DATA_DIR=str(data_dir))
    return subprocess.run([PYTHON, "-m", "ops.supervisor"], env=env, capture_output=True, text=True, timeout=60)


def test_a_port_in_use_is_refused_plainly(tmp_path: Path) -> None:
    """Something already listens on the port: one line saying so, exit 2, and never "listening"."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = refused_start(tmp_path / "data", port)
    assert done.returncode == 2 and "listening" not in done.stdout
    assert done.stderr.strip() == (
        f"parlour: port {port} on 127.0.0.1 is in use (another Parlour service, or another program); "
        "stop it first, or set PORT"
    )
    assert not (tmp_path / "data" / "redis").exists()  # refused before starting anything


def test_a_data_folder_in_use_is_refused_plainly(tmp_path: Path) -> None:
    """A live service holds the folder's lock: one line naming it, exit 2; the lock dies with its holder."""
    with data_dir_lock(tmp_path / "data"):
        done = refused_start(tmp_path / "data", free_port())
        with pytest.raises(ConfigError, match="in use by another Parlour service"), data_dir_lock(tmp_path / "data"):
            pass
    assert done.returncode == 2 and "listening" not in done.stdout
    assert done.stderr.startswith(f"parlour: the data folder {tmp_path / 'data'} is in use by another Parlour service")
    assert f"(pid {os.getpid()})" in done.stderr
    with data_dir_lock(tmp_path / "data"):
        pass


def test_a_child_dies_with_its_killed_parent(tmp_path: Path) -> None:
    """A SIGKILLed parent takes with it the child it started with `dies_with_parent`."""
    code = (
        "import signal, subprocess, sys, time; from ops.supervisor import dies_with_parent; "
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], "
        "preexec_fn=dies_with_parent(signal.SIGKILL)); print(child.pid, flush=True); time.sleep(60)"
    )
    parent = subprocess.Popen([PYTHON, "-c", code], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = psutil.Process(int(parent.stdout.readline()))
    parent.kill()
    parent.wait()
    wait_until(lambda: not running([child]), timeout=10)


def running(processes: list[psutil.Process]) -> list[psutil.Process]:
    """The processes still running (a zombie, dead but not yet reaped, is not)."""
    alive = []
    for process in processes:
        try:
            if process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
        except psutil.NoSuchProcess:
            pass
    return alive


def play_turn(url: str, token: str, version: int) -> int:
    """Seat 0 plays its whole turn from `version`, each time the first legal action; the version after it."""
    while True:
        status, legal = request(f"{url}/legal-actions", token=token)
        assert status == 200 and legal["version"] == version, legal
        body = {"action": legal["actions"][0], "expected_version": version}
        status, answer = request(f"{url}/actions", body, token)
        assert status == 200, answer
        version = answer["version"]
        if answer["waiting_for"] != [0]:
            return int(version)


def ai_answered(url: str, after: int) -> dict[str, Any] | None:
    """The match once its AI seat (1) has moved after version `after` and it waits for seat 0 again."""
    match = request(url)[1]
    moved = match["version"] > after and match["waiting_for"] == [0]
    return match if moved else None


def test_a_killed_service_leaves_nothing_and_the_next_one_plays_on(service_factory: Any) -> None:
    """SIGKILL of the supervisor: every child dies; the next start on the same port and data serves the match,
    moves the seat's deadline by the downtime, and its AI seat plays on."""
    env = {"PARLOUR_AI_WORKERS": "1"}
    service = service_factory(warm_up=False, extra_env=env)
    service.wait_ready()
    seats = [{"type": "human"}, {"type": "ai", "level": "random"}]
    body = {"game": "icecream", "players": 2, "seats": seats, "turn_timer": {"seconds": 60}}
    status, created = request(f"{service.base}/v1/matches", body)
    assert status == 201
    url, token = f"{service.base}/v1/matches/{created['id']}", created["tokens"][0]["token"]
    played = play_turn(url, token, 0)
    before = wait_until(lambda: ai_answered(url, played))
    family = [psutil.Process(service.process.pid), *psutil.Process(service.process.pid).children(recursive=True)]
    assert len(family) >= 6  # the supervisor, Redis, gunicorn and its workers, the timer and AI workers

    service.process.kill()
    service.process.wait()
    killed = now_iso()
    wait_until(lambda: not running(family), timeout=30)

    again = service_factory(warm_up=False, port=service.port, extra_env=env)
    restarted = now_iso()
    again.wait_ready()
    old = before["deadlines"][0]["at"]
    moved = wait_until(lambda: (match := request(url)[1])["deadlines"][0]["at"] != old and match)
    assert (moved["version"], moved["waiting_for"]) == (before["version"] + 1, [0])  # a new version, no action
    assert seconds_between(old, moved["deadlines"][0]["at"]) >= seconds_between(killed, restarted)
    played = play_turn(url, token, moved["version"])
    after = wait_until(lambda: ai_answered(url, played))
    status, log = request(f"{url}/log")
    assert status == 200 and all(not entry.get("timeout") for entry in log["entries"])
    assert log["entries"][-1]["seat"] == 1 and after["status"] == "active"
    assert again.stop(signal.SIGTERM) == 0


def seconds_between(earlier: str, later: str) -> float:
    """Seconds from one ISO timestamp to another."""
    return (parse_iso(later) - parse_iso(earlier)).total_seconds()


def test_with_sentinels_no_redis_is_started_and_no_password_is_printed() -> None:
    env = {"PARLOUR_REDIS_SENTINELS": "s1:26379,s2:26379,s3:26379", "PARLOUR_REDIS_PASSWORD": "hunter2"}
    settings = Settings.from_env(env)
    assert settings.redis_url is not None and "hunter2" in settings.redis_url  # handed to the children
    assert describe_redis(settings) == "Sentinel primary 'parlour' via s1:26379,s2:26379,s3:26379"
    with pytest.raises(ConfigError, match="a sentinel is written host:port"):
        Settings.from_env({"PARLOUR_REDIS_SENTINELS": "s1"})
