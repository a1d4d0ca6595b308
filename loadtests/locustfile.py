"""Locust users for Parlour's load test, one class per target (pick it by name on the command line).

* `IceCreamPlayer` plays whole IceCream matches through the API, holding both seats.
* `IceCreamStreamPlayer` does the same following each seat's match stream, as two players would: a seat whose
  turn comes acts on the legal actions its event carries, so every move is one request. Each game's player
  has such a twin (`SundaeSplitStreamPlayer`, `FreezeFactoryStreamPlayer`, `RockemSockemStreamPlayer`,
  `RobotsLoveIceCreamStreamPlayer`).
* `SundaeSplitPlayer` plays whole Sundae Split matches for 2 to 5 players (chosen at random),
  holding every seat: the Splitter sends the constructed `example` or a random split built from
  `constraints`, a chooser a random pile.
* `FreezeFactoryPlayer` plays Freeze Factory matches for 2 to 4 players (at random), holding every
  seat, with the option `turn_limit` (60 turns) so that each user goes through many matches: the
  seat whose turn it is (`waiting_for`) takes a random legal action, preferring `fulfil`; after
  each of its slides the other seats poll their legal actions and call FREEZE! when they can.
* `RockemSockemPlayer` plays Rock'em Sock'em matches holding both seats, in `realtime` mode half
  the time (`rounds` otherwise): the flipper flips, then every seat in `to_act` reads its legal
  actions and rolls, keeping the dice of the largest group on the coin's side. Rolls are sent
  without `expected_version`, as racing clients should send them.
* `RobotsLoveIceCreamPlayer` plays Robots Love Ice Cream matches for 1 to 4 players (at random),
  holding every seat, each Challenge Variant (A-F) switched on with probability 0.3: the seat in
  `waiting_for` fires a random attack when it has one, and otherwise takes a random legal action
  (keep, Boost, refill, end of turn, buy, equip...), until the five planets are over.
* `BaselineUser` does the same pattern of reads and compare-and-set writes against
  `loadtests/baseline_app.py`, a bare Flask + Redis app, to show what the game logic costs.
* `DocumentBaselineUser` does it on the same app's 5 KB JSON documents (read, parse, modify,
  compare-and-set, answer), to show what any app that carries a JSON state pays.

    locust -f loadtests/locustfile.py --headless -u 50 -r 10 -t 30s \\
        --host http://127.0.0.1:8000 IceCreamPlayer

Both use Locust's FastHttpUser: on a 2-core machine the load generator shares the CPU with the
servers, and the cheaper client leaves more of it to them.

A move costs one request where the API allows it: the answer to a seat's action carries that seat's
`legal_actions` at the new version, so a seat acting again reads nothing first. A user holding every seat
reads `legal-actions` only when another seat moved since its seat's last answer (a seat of its own would
learn that from its event stream, which these users do not hold open); the `legal-actions` row of the
report counts those reads. The `...StreamPlayer` users hold each seat's stream open instead (one request per
seat and match, the `events` row), and read no `legal-actions` at all.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from locust import FastHttpUser, constant, task

MAX_STEPS = 2000  # random IceCream games end within a few hundred actions; this only bounds a bug
SUNDAE_SPLIT_STEPS = 40  # a Sundae Split match takes 12 (2 players) to 25 (5 players) actions
EXAMPLE_SPLITS = 0.3  # how often the Splitter sends the server's example instead of its own split
FREEZE_FACTORY_TURNS = 60  # the turn_limit of a load-test match: random play needs 400-1100 turns to end
FREEZE_FACTORY_STEPS = 2000  # 60 turns take about 250 actions (at most 5 slides each); this only bounds a bug
ROCKEM_SOCKEM_STEPS = 500  # turns (one action per seat in to_act); a match takes 20-150 actions; this bounds a bug
ROCKEM_SOCKEM_REALTIME = 0.5  # how often a match is played in realtime mode rather than rounds
ROBOTS_STEPS = 1000  # a match takes 40 (solo) to 180 (4 players) actions; this only bounds a bug
ROBOTS_VARIANTS = (
    "harder_robots",
    "weaponized_sprinkletonium",
    "all_red_spinstons",
    "ice_cream_social",
    "attack_twice",
    "boost_limit",
)  # the Challenge Variants A-F
ROBOTS_VARIANT_ODDS = 0.3  # how often each variant is on in a load-test match
BASELINE_STEPS = 100  # writes per baseline counter, about a random IceCream game's length

MATCHES = "/v1/matches"
MATCH = "/v1/matches/[id]"
LEGAL_ACTIONS = "/v1/matches/[id]/legal-actions"
ACTIONS = "/v1/matches/[id]/actions"
EVENTS = "/v1/matches/[id]/events"


def bearer(token: str) -> dict[str, str]:
    """The Authorization header for a seat token."""
    return {"Authorization": f"Bearer {token}"}


class SeatStream:
    """One seat's match stream, read only when that seat's turn comes, for the legal actions its events carry."""

    def __init__(self, response: Any) -> None:
        self.response = response
        self.blocks = self._blocks()

    def _blocks(self) -> Iterator[bytes]:
        """The stream's blocks (events, comments), as they arrive: read up to each blank line, never waiting
        for more than one block (geventhttpclient's `read(n)` would wait for `n` bytes)."""
        outer = self.response._response
        body = getattr(outer, "_response", outer)  # geventhttpclient's socket response, chunks decoded
        while block := body.readline(b"\n\n"):
            yield block.rstrip(b"\n")

    def legal_at(self, version: int) -> dict[str, Any] | None:
        """The seat's legal actions from its first event at `version` or later (None if the stream ends first)."""
        for block in self.blocks:
            fields = dict(line.split(b": ", 1) for line in block.split(b"\n") if b": " in line and line[:1] != b":")
            if fields.get(b"event") == b"end":
                return None
            if fields.get(b"event") == b"match":
                event = json.loads(fields[b"data"])
                if event["version"] >= version:
                    return event.get("legal_actions")  # type: ignore[no-any-return]
        return None

    def close(self, finished: bool) -> None:
        """Give the connection back: a finished match's stream ends by itself (read it to its end); any other is
        dropped, and its socket closed."""
        if finished:
            for _ in self.blocks:
                pass  # the end of the body gives the connection back to the pool


class MatchPlayer(FastHttpUser):
    """What every game's player does: create a match holding every seat, play it to the end."""

    abstract = True
    wait_time = constant(0)
    follow_streams = False
    """Hold each seat's match stream open and act on the legal actions its events carry (no legal-actions read)."""
    known: dict[int, dict[str, Any]]
    """Each seat's legal actions as the answer to its last action gave them (this match's)."""
    streams: dict[int, SeatStream]
    """Each seat's match stream, when the user follows them (this match's)."""

    def play_match_of(self, request: dict[str, Any], max_steps: int) -> None:
        """One whole match: create, read, then actions (and legal-actions when no answer gave them) until finished."""
        self.known, self.streams = {}, {}
        created = self.send("POST", MATCHES, MATCHES, json=request)
        if created is None:
            return
        match_id = created["id"]
        tokens = {seat["seat"]: seat["token"] for seat in created["tokens"]}
        if self.follow_streams:
            for seat, token in tokens.items():
                path = f"{MATCHES}/{match_id}/events"
                response = self.client.request("GET", path, name=EVENTS, headers=bearer(token), stream=True)
                if response.status_code == 200:  # else the seat reads its legal actions (the failure is counted)
                    self.streams[seat] = SeatStream(response)
        state = self.send("GET", f"{MATCHES}/{match_id}", MATCH, token=tokens[0])
        try:
            for _ in range(max_steps):
                if state is None or state["status"] == "finished":
                    return
                state = self.take_turn(match_id, tokens, state)
            self.report_failure("match", f"no end after {max_steps} actions")
        finally:
            for stream in self.streams.values():
                stream.close(finished=state is not None and state["status"] == "finished")

    def take_turn(self, match_id: str, tokens: dict[int, str], state: dict[str, Any]) -> dict[str, Any] | None:
        """Post a random legal action of the seat whose turn it is; the match after it, or None."""
        seat = state["waiting_for"][0]  # whose turn it is (`to_act` may list more seats)
        legal = self.legal_actions(match_id, seat, tokens[seat], state["version"])
        if legal is None:
            return None
        action = self.choose_action(legal) if legal["may_act"] else None
        if action is None:
            self.report_failure(LEGAL_ACTIONS, "the seat to act has no legal action")
            return None
        return self.act(match_id, seat, tokens[seat], {"action": action, "expected_version": legal["version"]})

    def legal_actions(self, match_id: str, seat: int, token: str, version: int) -> dict[str, Any] | None:
        """The seat's legal actions at `version`: its last answer's when at that version (no request), else read."""
        known = self.known.get(seat)
        if known is not None and known["version"] == version:
            return known
        stream = self.streams.get(seat)
        if stream is not None and (carried := stream.legal_at(version)) is not None:
            return carried
        return self.send("GET", f"{MATCHES}/{match_id}/legal-actions", LEGAL_ACTIONS, token=token)  # type: ignore[no-any-return]

    def act(self, match_id: str, seat: int, token: str, body: dict[str, Any]) -> dict[str, Any] | None:
        """Post the seat's action; the answer (the match after it), whose legal actions the seat keeps."""
        after: dict[str, Any] | None = self.send(
            "POST", f"{MATCHES}/{match_id}/actions", ACTIONS, token=token, json=body
        )
        if after is not None and "legal_actions" in after:
            self.known[seat] = after["legal_actions"]
        return after

    def choose_action(self, legal: dict[str, Any]) -> dict[str, Any] | None:
        """A random listed action, or None if there is none (a constructed space lists none)."""
        return random.choice(legal["actions"]) if legal.get("actions") else None

    def send(self, method: str, path: str, name: str, token: str | None = None, **kwargs: Any) -> Any:
        """One request, grouped under `name`; its JSON body on success, None on failure (which Locust counts)."""
        headers = bearer(token) if token else {}
        with self.client.request(method, path, name=name, headers=headers, catch_response=True, **kwargs) as response:
            if response.status_code not in (200, 201):
                response.failure(f"{response.status_code}: {response.text[:200] if response.text else ''}")
                return None
            return response.json()

    def report_failure(self, name: str, reason: str) -> None:
        """Count a failure that is not one request's."""
        self.environment.events.request.fire(
            request_type="CHECK", name=name, response_time=0, response_length=0, exception=RuntimeError(reason)
        )


class IceCreamPlayer(MatchPlayer):
    """Creates an IceCream match with both seats and plays random legal actions until it ends."""

    @task
    def play_match(self) -> None:
        """One whole IceCream match."""
        self.play_match_of({"game": "icecream", "players": 2, "options": {}}, MAX_STEPS)


class IceCreamStreamPlayer(IceCreamPlayer):
    """`IceCreamPlayer` following each seat's match stream: every move one request."""

    follow_streams = True


def random_split(constraints: dict[str, Any]) -> dict[str, Any]:
    """A random valid split built from a constructed answer's `constraints`."""
    cards = list(constraints["cards"])
    random.shuffle(cards)
    low, high = constraints["pile_size"]["min"], constraints["pile_size"]["max"]
    while True:  # random pile sizes until they hold exactly the drawn cards
        sizes = [random.randint(low, high) for _ in range(constraints["piles"])]
        if sum(sizes) == len(cards):
            break
    hidden = set(random.sample(range(len(cards)), constraints["face_down"]))
    piles, start = [], 0
    for size in sizes:
        positions = range(start, start + size)
        piles.append(
            {
                "face_up": [cards[i] for i in positions if i not in hidden],
                "face_down": [cards[i] for i in positions if i in hidden],
            }
        )
        start += size
    return {"type": "split", "piles": piles}


class SundaeSplitPlayer(MatchPlayer):
    """Creates a Sundae Split match for 2 to 5 (at random) with every seat and plays it to the end."""

    @task
    def play_match(self) -> None:
        """One whole match: each round the Splitter splits and the choosers choose, until finished."""
        self.play_match_of({"game": "sundae_split", "players": random.randint(2, 5)}, SUNDAE_SPLIT_STEPS)

    def choose_action(self, legal: dict[str, Any]) -> dict[str, Any] | None:
        """The Splitter's example or own random split; a chooser's random pile."""
        if legal["kind"] == "constructed":
            return legal["example"] if random.random() < EXAMPLE_SPLITS else random_split(legal["constraints"])
        return super().choose_action(legal)


class FreezeFactoryPlayer(MatchPlayer):
    """Creates a Freeze Factory match for 2 to 4 (at random) with every seat; plays it to its turn limit."""

    last_action: dict[str, Any] | None = None

    @task
    def play_match(self) -> None:
        """One match: random turns, FREEZE! claims polled after every slide, until finished."""
        request = {
            "game": "freeze_factory",
            "players": random.randint(2, 4),
            "options": {"turn_limit": FREEZE_FACTORY_TURNS},
        }
        self.play_match_of(request, FREEZE_FACTORY_STEPS)

    def choose_action(self, legal: dict[str, Any]) -> dict[str, Any] | None:
        """A `fulfil` if there is one, else a random legal action."""
        fulfil = [action for action in legal.get("actions", []) if action["type"] == "fulfil"]
        self.last_action = fulfil[0] if fulfil else super().choose_action(legal)
        return self.last_action

    def take_turn(self, match_id: str, tokens: dict[int, str], state: dict[str, Any]) -> dict[str, Any] | None:
        """The active seat's action; after a slide, every other seat asks whether it can call FREEZE!."""
        self.last_action = None
        after = super().take_turn(match_id, tokens, state)
        slid = self.last_action is not None and self.last_action["type"] == "slide"
        if after is None or after["status"] != "active" or not slid or not after["view"]["freeze_lines"]:
            return after
        active = state["waiting_for"][0]
        for seat, token in tokens.items():
            if seat == active:
                continue
            legal = self.legal_actions(match_id, seat, token, after["version"])
            if legal is None or legal["version"] != after["version"]:
                return None
            if legal["actions"]:
                return self.act(
                    match_id, seat, token, {"action": legal["actions"][0], "expected_version": legal["version"]}
                )
        return after


def favoured_keep(view: dict[str, Any], seat: int) -> list[int]:
    """Rock'em Sock'em: the dice of the largest group on the coin's side (at most three); none on a first roll."""
    dice = view["corners"][seat]["dice"]
    if dice is None:
        return []
    key = "colour" if view["coin"] == "colour" else "icon"
    values = [face[key] for face in dice]
    best = max(values, key=values.count)
    return [i for i, value in enumerate(values) if value == best][:3]


class RockemSockemPlayer(MatchPlayer):
    """Creates a Rock'em Sock'em match (realtime half the time) with both seats; plays it to a knock-out."""

    @task
    def play_match(self) -> None:
        """One whole match: flips and unpinned rolls until a robot is knocked out."""
        mode = "realtime" if random.random() < ROCKEM_SOCKEM_REALTIME else "rounds"
        self.play_match_of({"game": "rockem_sockem", "players": 2, "options": {"mode": mode}}, ROCKEM_SOCKEM_STEPS)

    def take_turn(self, match_id: str, tokens: dict[int, str], state: dict[str, Any]) -> dict[str, Any] | None:
        """Every seat in `to_act` acts once, without `expected_version`; the match after the last action."""
        after: dict[str, Any] | None = state
        for seat in state["to_act"]:
            if after is None or after["status"] != "active" or seat not in after["to_act"]:
                break  # the other seat's roll grabbed the coin (realtime), or the match ended
            legal = self.legal_actions(match_id, seat, tokens[seat], after["version"])
            if legal is None or not legal["actions"]:
                self.report_failure(LEGAL_ACTIONS, "a seat in to_act has no legal action")
                return None
            action = legal["actions"][0] if legal["actions"][0]["type"] == "flip" else None
            if action is None:
                action = {"type": "roll", "keep": favoured_keep(after["view"], seat)}
                if action not in legal["actions"]:
                    action = random.choice(legal["actions"])
            after = self.act(match_id, seat, tokens[seat], {"action": action})
        return after


class RobotsLoveIceCreamPlayer(MatchPlayer):
    """Creates a Robots Love Ice Cream match for 1 to 4 (at random, random variants) with every seat; plays it out."""

    @task
    def play_match(self) -> None:
        """One whole match: five planets of draws, attacks, robot phases, stores and equip phases."""
        options = {variant: random.random() < ROBOTS_VARIANT_ODDS for variant in ROBOTS_VARIANTS}
        request = {"game": "robots_love_ice_cream", "players": random.randint(1, 4), "options": options}
        self.play_match_of(request, ROBOTS_STEPS)

    def choose_action(self, legal: dict[str, Any]) -> dict[str, Any] | None:
        """A random attack if the seat has one, else a random legal action."""
        attacks = [action for action in legal.get("actions", []) if action["type"] == "attack"]
        return random.choice(attacks) if attacks else super().choose_action(legal)


class SundaeSplitStreamPlayer(SundaeSplitPlayer):
    """`SundaeSplitPlayer` following each seat's match stream."""

    follow_streams = True


class FreezeFactoryStreamPlayer(FreezeFactoryPlayer):
    """`FreezeFactoryPlayer` following each seat's match stream (its FREEZE! claims too)."""

    follow_streams = True


class RockemSockemStreamPlayer(RockemSockemPlayer):
    """`RockemSockemPlayer` following each seat's match stream."""

    follow_streams = True


class RobotsLoveIceCreamStreamPlayer(RobotsLoveIceCreamPlayer):
    """`RobotsLoveIceCreamPlayer` following each seat's match stream."""

    follow_streams = True


class CompareAndSetUser(FastHttpUser):
    """Creates a resource of the baseline app and does read + compare-and-set writes on it, like a match's turns."""

    abstract = True
    wait_time = constant(0)
    resource = ""  # the collection's path
    write = ""  # the write's path below one resource

    def version_of(self, body: dict[str, Any]) -> int:
        """The version a read answered."""
        return int(body["version"])

    @task
    def play_resource(self) -> None:
        """One resource: create, then BASELINE_STEPS rounds of GET it and POST a write at its version."""
        with self.client.post(self.resource, name=self.resource, catch_response=True) as response:
            if response.status_code != 201:
                response.failure(f"{response.status_code}")
                return
            resource_id = response.json()["id"]
        url, name = f"{self.resource}/{resource_id}", f"{self.resource}/[id]"
        for _ in range(BASELINE_STEPS):
            got = self.client.get(url, name=name)
            if got.status_code != 200:
                return  # Locust has counted the failure
            body = {"expected_version": self.version_of(got.json())}
            posted = self.client.post(f"{url}/{self.write}", name=f"{name}/{self.write}", json=body)
            if posted.status_code != 200:
                return


class BaselineUser(CompareAndSetUser):
    """Bare counters: read the version, increment it with compare-and-set."""

    resource, write = "/counters", "increment"


class DocumentBaselineUser(CompareAndSetUser):
    """5 KB JSON documents: read one whole, move it on with compare-and-set."""

    resource, write = "/documents", "moves"

    def version_of(self, body: dict[str, Any]) -> int:
        """The version inside the document."""
        return int(body["state"]["version"])
