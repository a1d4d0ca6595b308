"""The soak's faults: kills at random (SIGKILL or SIGTERM) of API processes, AI workers, the timer worker, the
primary (a Sentinel failover) and a sentinel, each followed by a restart and a wait for the service to recover.

Faults come one at a time: each waits until the previous one has recovered, so the time to recover
is that fault's own. Recovered means: the killed process answers again (a data node as a replica
linked to the primary), every API process answers a write of its own (a match created, a move
played), and, after a kill of the primary, an AI worker or the timer worker, an AI seat has moved
and a turn timer has fired in a new match.
"""

from __future__ import annotations

import contextlib
import functools
import random
import signal
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from loadtests.chaos.balancer import ServerError
from loadtests.chaos.clients import Context, created_tokens
from loadtests.chaos.cluster import FAILOVER_WAIT, Cluster, Node, api_healthy, wait_until

KINDS = ("api", "ai-worker", "timer", "sentinel")
"""What is killed besides the primary."""
RECOVERY_LIMIT = 180.0
"""Seconds a kill may take to recover before the soak calls it unrecovered (and goes on)."""
RESTART_DELAY = (0.5, 3.0)
"""Seconds between a kill and the restart, as a supervisor or an operator would take."""


@dataclass
class Fault:
    """One kill: what, how, when (monotonic), and what followed."""

    kind: str
    node: str
    signal: str
    at: float
    failover_to: str | None = None
    recovered_after: float | None = None
    errors: Counter[int] = field(default_factory=Counter)
    problem: str | None = None


def plan(rng: random.Random, kills: int, failovers: int) -> list[str]:
    """The kinds of `kills` faults, `failovers` of them the primary, every other kind at least once when room allows."""
    others = max(0, kills - failovers)
    kinds = [KINDS[n % len(KINDS)] for n in range(min(others, len(KINDS)))]
    kinds += [rng.choice(KINDS) for _ in range(others - len(kinds))]
    kinds += ["primary"] * failovers
    rng.shuffle(kinds)
    return kinds


@dataclass
class Chaos:
    """Runs the planned faults spread over the soak's time, on the main thread (processes start from it)."""

    cluster: Cluster
    context: Context
    rng: random.Random
    faults: list[Fault] = field(default_factory=list)
    unexpected_exits: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def run(self, kinds: list[str], seconds: float) -> None:
        """Each fault at its slot of `seconds` (or later, when the previous one took longer to recover)."""
        started = self.started = time.monotonic()
        gap = seconds / (len(kinds) + 1)
        for n, kind in enumerate(kinds):
            due = started + gap * (n + 1) + self.rng.uniform(-gap / 4, gap / 4)
            while time.monotonic() < due and not self.context.stop.is_set():
                self.look_after_processes()
                time.sleep(0.2)
            self.inject(kind)
        while time.monotonic() < started + seconds:
            self.look_after_processes()
            time.sleep(0.2)

    def look_after_processes(self) -> None:
        """Restart (and report) any process that died though nobody killed it."""
        for node in self.cluster.nodes():
            if node.process is not None and not node.alive():
                self.unexpected_exits.append(f"{node.name} exited by itself with {node.process.returncode}")
                print(
                    f"  [{time.monotonic() - self.started:6.1f} s]   {self.unexpected_exits[-1]}; restarted", flush=True
                )
                try:
                    self.cluster.restart(node)
                except RuntimeError as error:
                    lines = [line for line in str(error).splitlines() if line.strip()]
                    self.unexpected_exits.append(f"{node.name} did not start again ({lines[-1].strip()})")

    def victim(self, kind: str) -> Node:
        """The process to kill: the primary, or one of `kind` at random."""
        if kind == "primary":
            primary = self.cluster.primary()
            if primary is None:
                raise RuntimeError("no sentinel names a primary")
            return primary
        candidates = [n for n in (*self.cluster.parlour, *self.cluster.sentinels) if n.kind == kind]
        return self.rng.choice(candidates)

    def inject(self, kind: str) -> None:
        """Kill one process of `kind`, restart it, and wait for the service to recover."""
        node = self.victim(kind)
        signum = self.rng.choice((signal.SIGKILL, signal.SIGTERM))
        fault = Fault(kind, node.name, signum.name, time.monotonic())
        self.faults.append(fault)
        print(f"  [{self.elapsed(fault):6.1f} s] {signum.name} {kind} {node.name}", flush=True)
        node.kill(signum)
        if kind == "primary":
            self.await_failover(fault, node)
        else:
            time.sleep(self.rng.uniform(*RESTART_DELAY))
        try:
            self.cluster.restart(node)
            self.await_recovery(fault)
        except RuntimeError as error:
            fault.problem = str(error)
        fault.errors = Counter(e.status for e in self.errors_since(fault.at))
        print(
            f"  [{self.elapsed(fault):6.1f} s]   recovered after {fault.recovered_after or float('nan'):.1f} s"
            f"{f', failed over to {fault.failover_to}' if fault.failover_to else ''}"
            f"{f', PROBLEM: {fault.problem}' if fault.problem else ''}",
            flush=True,
        )

    def elapsed(self, fault: Fault) -> float:
        """Seconds since the soak's faults began."""
        del fault
        return time.monotonic() - self.started

    def await_failover(self, fault: Fault, old: Node) -> None:
        """Wait until the sentinels name another primary."""
        try:
            wait_until(lambda: self.cluster.primary_port() not in (None, old.port), "a failover", FAILOVER_WAIT)
        except RuntimeError as error:
            fault.problem = str(error)
            self.cluster.replica_of[old.name] = None  # nobody took over: it comes back as the primary
            return
        new = self.cluster.primary()
        fault.failover_to = new.name if new else None

    def await_recovery(self, fault: Fault) -> None:
        """Wait until the killed process answers again and the service does what it should (see the module)."""
        deadline = fault.at + RECOVERY_LIMIT
        self.wait(self.cluster.healthy_data, "the primary, its replica and the sentinels to agree", deadline)
        for node in self.cluster.parlour:
            if node.kind == "api":
                self.wait(functools.partial(api_healthy, node.port), f"{node.name} to answer", deadline)
        for node in self.cluster.parlour:
            if node.kind == "api":
                self.wait(functools.partial(self.write_through, node.port), f"a write through {node.name}", deadline)
        if fault.kind in ("primary", "ai-worker"):
            self.wait_for_move(ai_probe(), "an AI seat to move in a new match", deadline)
        if fault.kind in ("primary", "timer"):
            self.wait_for_move(timer_probe(), "a turn timer to fire in a new match", deadline)
        fault.recovered_after = time.monotonic() - fault.at

    def wait(self, check: Callable[[], bool], what: str, deadline: float) -> None:
        """Poll `check` until true, restarting meanwhile any process that died by itself (as a supervisor would);
        RuntimeError naming `what` at `deadline` (monotonic)."""
        while not check():
            self.look_after_processes()
            if time.monotonic() > deadline:
                raise RuntimeError(f"gave up waiting for {what}")
            time.sleep(0.1)

    def write_through(self, port: int) -> bool:
        """A match created and a move played through one API process, each answered 2xx at the first try."""
        request = {"game": "icecream", "players": 2, "options": {"turn_limit": 2}}
        created = self.context.balancer.send(port, "POST", "/v1/matches", request)
        if created.status != 201:
            time.sleep(0.2)
            return False
        tokens = {entry["seat"]: entry["token"] for entry in created.body["tokens"]}
        self.context.record.match(created.body["id"], game="icecream", kind="probe", tokens=tokens, timer=None)
        match_id = created.body["id"]
        for seat, token in tokens.items():
            legal = self.context.balancer.send(port, "GET", f"/v1/matches/{match_id}/legal-actions", None, token)
            if legal.status == 200 and legal.body["may_act"]:
                action, version = legal.body["actions"][0], legal.body["version"]
                if self.context.act(match_id, seat, token, action, version, port=port).status != 200:
                    return False  # left as it is: an untimed match of people owes nobody a move
                self.resign(match_id, token)
                return True
        return False

    def wait_for_move(self, request: dict[str, Any], what: str, deadline: float) -> None:
        """Create a match whose first turn is not a person's to play; wait until its log has an entry; resign it."""
        created = None
        while created is None:
            created = self.context.create_match(request, "probe")
            if time.monotonic() > deadline:
                raise RuntimeError(f"gave up creating a match for {what}")
        match_id = created["id"]
        self.wait(lambda: self.logged(match_id), what, deadline)
        for token in created_tokens(created).values():
            self.resign(match_id, token)

    def logged(self, match_id: str) -> bool:
        """True once the match's log has an entry (a version alone may be a timer's make-up for downtime)."""
        answer = self.context.balancer.call("GET", f"/v1/matches/{match_id}/log", retry=False)
        if answer.status == 200 and answer.body["entries"]:
            return True
        time.sleep(0.25)
        return False

    def resign(self, match_id: str, token: str) -> None:
        """End a probe match (nobody plays it on)."""
        with contextlib.suppress(Exception):
            self.context.balancer.call("POST", f"/v1/matches/{match_id}/resign", token=token, budget=30.0)

    def errors_since(self, since: float) -> list[ServerError]:
        """The 5xx (and unanswered requests) the clients met since `since` (monotonic)."""
        with self.context.record.lock:
            return [e for e in self.context.record.errors if e.at >= since]


def ai_probe() -> dict[str, Any]:
    """A short match of two random AI seats, which the AI workers play to its end."""
    seats = [{"type": "ai", "level": "random"}, {"type": "ai", "level": "random"}]
    return {"game": "icecream", "players": 2, "options": {"turn_limit": 2}, "seats": seats}


def timer_probe() -> dict[str, Any]:
    """A match whose first seat nobody plays, on a 1 s turn timer."""
    return {"game": "icecream", "players": 2, "options": {"turn_limit": 2}, "turn_timer": {"seconds": 1}}
