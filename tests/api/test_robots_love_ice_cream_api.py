"""Robots Love Ice Cream over HTTP: whole co-operative matches by per-seat clients, every variant, no leaks.

Each seat is a client holding only its own token; the public is a client with none. A seat's bot
decides from its own view and its own legal actions only: `random` picks any legal action, `team`
plays a simple plan (keep what matches the hand, fire at the column closest to its Spinston, refill,
buy, equip). After every action every seat and the public read the match and their legal actions,
and now and then their logs. Every answer is recorded and checked: no seat's hand or pending draw
is shown to anyone else (unless `open_hands`), a seat sees exactly the public view plus its own
cards, a kept card never shows in another viewer's log or events, and no answer holds a deck order,
the RNG or the seed while the match runs. Once the match is over and the seed revealed, the
engine replays the log and every answer is compared with the view the engine gives that viewer at
that version.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from engine import GameState, get_game
from engine.robots_love_ice_cream.game import INFO
from tests.api.conftest import bearer, whole_log
from tests.api.test_sundae_split_api import Opener

GAME = "robots_love_ice_cream"
TOKENS = 13  # Ice Cream tokens in the game: one per Spinston over the five planets
TOKENS_NEEDED = 10  # 'if your group has saved at least 10 ice creams'
WILD = frozenset({"brain_freeze", "sprinkletonium"})
SPRINKLETONIUM = "sprinkletonium"
VARIANTS: dict[str, dict[str, Any]] = {  # the Challenge Variants A to F, each an option
    "A": {"harder_robots": True},
    "B": {"weaponized_sprinkletonium": True},
    "C": {"all_red_spinstons": True},
    "D": {"ice_cream_social": True},
    "E": {"attack_twice": True},
    "F": {"boost_limit": True},
}
ALL_VARIANTS = {name: value for variant in VARIANTS.values() for name, value in variant.items()}
VIEW_KEYS = frozenset(
    [
        "phase",
        "step",
        "planet",
        "planet_card",
        "round",
        "first_player",
        "active",
        "queue",
        "columns",
        "track_levels",
        "above_track",
        "captured",
        "saved",
        "tokens_needed",
        "seats",
        "drawn",
        "drawn_count",
        "attacks_made",
        "extra_attacks_used",
        "used_this_planet",
        "sprinkletonium_supply",
        "ice_cream_deck_count",
        "ice_cream_discard",
        "robot_deck_count",
        "robot_discard",
        "boost_deck_count",
        "boost_discard",
        "store_row",
        "bought_this_store",
        "pending_boost",
        "social",
        "events",
    ]
)
SEAT_KEYS = frozenset(
    [
        "seat",
        "hand",
        "hand_count",
        "weaponized_sprinkletonium",
        "sprinkletonium",
        "tokens",
        "victory_points",
        "equipped",
        "spare_upgrades",
        "effects",
        "upgrade_slots",
        "refill_to",
    ]
)
CARDS = {card["id"]: card for card in INFO.to_json()["cards"]}
"""The catalog's cards by id (views name cards by id)."""
SECRET_KEYS = frozenset({"rng", "ice_deck", "robot_deck", "boost_deck", "hands", "state", "record", "token_hashes"})
LOG_EVERY = 7  # every seat and the public read their logs after every 7th action (and at the end)

Policy = Callable[[dict[str, Any], int, list[dict[str, Any]], random.Random], dict[str, Any]]


# --- the bots: a seat's own view and legal actions only ------------------------------------------------
def random_policy(view: dict[str, Any], seat: int, actions: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """Any legal action."""
    return rng.choice(actions)


def team_policy(view: dict[str, Any], seat: int, actions: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A simple team plan: draw up, keep matching cards, attack towards a Spinston, refill, buy, equip."""
    kinds = {action["type"] for action in actions}
    if "draw_up" in kinds:
        return {"type": "draw_up"}
    if "keep_drawn" in kinds:
        hand = Counter(view["seats"][seat]["hand"])
        return max(actions, key=lambda a: sum(10 if card in WILD else hand[card] for card in a["cards"]))
    attacks = [action for action in actions if action["type"] == "attack"]
    if attacks:
        columns = view["columns"]

        def aim(action: dict[str, Any]) -> tuple[bool, int, int]:
            column = columns[action["column"]]
            robots = sum(robot is not None for robot in column["robots"])
            return column["target_level"] == 0, -robots, -sum(card in WILD for card in action["cards"])

        return max(attacks, key=aim)
    uses = [action for action in actions if action["type"] == "use_boost_in_play"]
    if uses:
        return rng.choice(uses)
    refills = [action for action in actions if action["type"] == "refill_hand"]
    if refills:
        return refills[-1]  # weaponize when Variant B allows it
    buys = [action for action in actions if action["type"] == "buy_boost"]
    if buys:
        return rng.choice(buys)
    if "equip_upgrades" in kinds:
        return max(actions, key=lambda a: len(a["upgrades"]))
    for kind in ("share_social_randomly", "end_turn", "stop_buying"):
        if kind in kinds:
            return {"type": kind}
    return rng.choice(actions)


POLICIES: dict[str, Policy] = {"random": random_policy, "team": team_policy}


def bot_rngs(seed: str, players: int) -> list[random.Random]:
    """Each seat's own source of random choices."""
    return [random.Random(f"{seed}-{seat}") for seat in range(players)]


Moves = list[tuple[int, dict[str, Any]]]


def simulate(players: int, options: dict[str, Any], seed: str, policy: str) -> tuple[Moves, GameState]:
    """The engine, driven as `Table.play` drives the server: the moves and the final state."""
    game = get_game(GAME)
    assert game is not None
    state = game.start(players, options, seed)
    rngs = bot_rngs(seed, players)
    moves: Moves = []
    while not state.is_over():
        (seat,) = state.acting_seats()
        action = POLICIES[policy](state.view(seat), seat, state.legal_actions(seat), rngs[seat])
        state.play(seat, action)
        moves.append((seat, action))
    return moves, state


# --- what the test knows, and the checks on every answer -----------------------------------------------
@dataclass
class Answer:
    """One answer with a body (304s are not kept), and the version it describes."""

    index: int
    viewer: int | None
    what: str
    body: Any


@dataclass
class Keep:
    """A keep the test made: the cards kept are the seat's own secret, the rest go face up."""

    version: int
    seat: int
    kept: list[str]
    rest: list[str]


def secret_keys(value: Any, where: str = "") -> list[str]:
    """Paths of keys in a JSON value that would hold a deck order, a hand list of all seats or the RNG."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in SECRET_KEYS:
                found.append(f"{where}.{key}")
            found += secret_keys(item, f"{where}.{key}")
    elif isinstance(value, list):
        for number, item in enumerate(value):
            found += secret_keys(item, f"{where}[{number}]")
    return found


def public_part(view: dict[str, Any], viewer: int | None, open_hands: bool) -> dict[str, Any]:
    """The view with what only `viewer` may see blanked: what the public view must equal."""
    if viewer is None or open_hands:
        return view
    public = copy.deepcopy(view)
    public["seats"][viewer]["hand"] = None
    if view["active"] == viewer:
        public["drawn"] = None
    return public


def redacted(seat: int, action: dict[str, Any], viewer: int | None, open_hands: bool) -> dict[str, Any]:
    """A logged action as a viewer may see it while the match runs: a keep's cards and a gift only to the seat."""
    if open_hands or viewer == seat:
        return action
    if action["type"] == "keep_drawn":
        return {"type": "keep_drawn", "cards": None}
    gift = action["type"] == "use_boost_in_play" and "card" in action and action["card"] != SPRINKLETONIUM
    if gift and viewer != action["target"]:
        return {**action, "card": None}
    return action


@dataclass
class Player:
    """One seat's client (or the public's): its own token only; every answer recorded by the table."""

    table: Table
    seat: int | None
    token: str | None
    etag: str | None = None
    last: dict[str, Any] | None = None

    def call(self, method: str, suffix: str = "", **kwargs: Any) -> TestResponse:
        """One request to the match with this player's token, recorded and checked."""
        headers = {**kwargs.pop("headers", {}), **(bearer(self.token) if self.token else {})}
        url = f"/v1/matches/{self.table.match_id}{suffix}"
        response = self.table.client.open(url, method=method, headers=headers, **kwargs)
        self.table.keep(self.seat, f"{method} {suffix or '/'} by {self.seat}", response)
        return response

    def read(self) -> dict[str, Any]:
        """The match as this player sees it, polled with If-None-Match."""
        response = self.call("GET", headers={"If-None-Match": self.etag} if self.etag else {})
        if response.status_code == 304:
            assert self.last is not None
            return self.last
        assert response.status_code == 200, response.get_json()
        self.etag, self.last = response.headers["ETag"], response.get_json()
        assert self.last is not None and self.last["viewer"] == self.seat
        return self.last

    def legal(self) -> dict[str, Any]:
        """GET legal-actions with this seat's token."""
        response = self.call("GET", "/legal-actions")
        assert response.status_code == 200, response.get_json()
        return dict(response.get_json())

    def log(self) -> dict[str, Any]:
        """GET the whole log as this player may see it, page after page."""

        def page(after: int) -> dict[str, Any]:
            response = self.call("GET", f"/log?after={after}")
            assert response.status_code == 200, response.get_json()
            return dict(response.get_json())

        return whole_log(page)

    def act(self, action: dict[str, Any], version: int) -> TestResponse:
        """POST an action decided on `version`."""
        return self.call("POST", "/actions", json={"action": action, "expected_version": version})


@dataclass
class Table:
    """A Robots Love Ice Cream match played by one client per seat, the public watching."""

    client: Opener
    players: int
    match_id: str
    options: dict[str, Any]
    seed: str
    policy: str
    seats: list[Player] = field(default_factory=list)
    public: Player | None = None
    answers: list[Answer] = field(default_factory=list)
    moves: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    keeps: list[Keep] = field(default_factory=list)
    public_views: dict[int, dict[str, Any]] = field(default_factory=dict)  # the public view, by version
    seat_views: list[tuple[int, int, dict[str, Any]]] = field(default_factory=list)  # (viewer, version, view)
    hidden_in_logs: Counter[str] = field(default_factory=Counter)  # redacted log entries seen, by action type

    @classmethod
    def create(cls, client: Opener, players: int, seed: str, policy: str = "random", **options: Any) -> Table:
        """Create the match with every seat held by its own client."""
        request = {"game": GAME, "players": players, "options": options, "seed": seed}
        response = client.open("/v1/matches", method="POST", json=request)
        assert response.status_code == 201, response.get_json()
        created = response.get_json()
        assert created["status"] == "active" and created["seed_commitment"] == hashlib.sha256(seed.encode()).hexdigest()
        tokens = {seat["seat"]: seat["token"] for seat in created["tokens"]}
        assert sorted(tokens) == list(range(players))
        table = cls(client, players, created["id"], created["options"], seed, policy)
        table.seats = [Player(table, seat, tokens[seat]) for seat in range(players)]
        table.public = Player(table, None, None)
        return table

    @property
    def open_hands(self) -> bool:
        """Whether every hand is shown to everyone."""
        return bool(self.options["open_hands"])

    def keep(self, viewer: int | None, what: str, response: TestResponse) -> None:
        """Record an answer; no request of a played match may fail with a 5xx, nor hold a secret key."""
        assert response.status_code < 500, f"{what}: {response.status_code} {response.get_data(as_text=True)}"
        if response.status_code == 304:
            return
        body = response.get_json()
        assert secret_keys(body) == [], f"{what}: {secret_keys(body)}"
        self.answers.append(Answer(len(self.answers), viewer, what, body))

    # --- playing -------------------------------------------------------------------------------------
    def play(self, limit: int = 2000) -> dict[str, Any]:
        """The seat in `waiting_for` acts; every seat and the public read after each action; the final match."""
        assert self.public is not None
        rngs = bot_rngs(self.seed, self.players)
        for step in range(limit):
            public = self.public.read()
            self.check_match(None, public)
            if public["status"] == "finished":
                self.check_logs()
                self.check_seat_views()
                return public
            (active,) = public["waiting_for"]
            assert public["to_act"] == [active] and public["view"]["active"] == active
            for player in self.seats:
                seen, legal = player.read(), player.legal()
                assert seen["version"] == legal["version"] == public["version"]
                self.check_match(player.seat, seen)
                assert legal["kind"] == "enumerated" and legal["may_act"] == (player.seat == active)
                assert legal["may_act"] == bool(legal["actions"]), "an active seat always has an action"
            me = self.seats[active]
            assert me.last is not None
            legal = me.legal()
            action = POLICIES[self.policy](me.last["view"], active, legal["actions"], rngs[active])
            assert action in legal["actions"]
            self.send(active, action, legal["version"], me.last["view"])
            if step % LOG_EVERY == 0 or action["type"] == "use_boost_in_play":
                self.check_logs()
        raise AssertionError("the match did not end")

    def send(self, seat: int, action: dict[str, Any], version: int, seen: dict[str, Any]) -> dict[str, Any]:
        """One action that must apply; the answer is the seat's view of the next version."""
        response = self.seats[seat].act(action, version)
        assert response.status_code == 200, (action, response.get_json())
        answer: dict[str, Any] = response.get_json()
        assert answer["version"] == version + 1 and answer["viewer"] == seat
        assert response.headers["ETag"] == f'"{version + 1}"'
        self.check_match(seat, answer)
        self.moves.append((seat, action))
        if action["type"] == "keep_drawn":
            rest = list((Counter(seen["drawn"]) - Counter(action["cards"])).elements())
            self.keeps.append(Keep(version + 1, seat, list(action["cards"]), rest))
        return answer

    # --- checks on what each viewer was told --------------------------------------------------------
    def check_match(self, viewer: int | None, match: dict[str, Any]) -> None:
        """A match answer: the view's shape, whose cards it shows, and that it adds nothing to the public view."""
        view, version = match["view"], match["version"]
        assert match["viewer"] == viewer and set(view) == VIEW_KEYS
        assert (match["seed"] is None) == (match["status"] == "active"), "the seed is revealed only at the end"
        for seat, entry in enumerate(view["seats"]):
            assert set(entry) == SEAT_KEYS and entry["seat"] == seat
            sees = self.open_hands or seat == viewer
            assert (entry["hand"] is not None) == sees, f"seat {seat}'s hand shown to {viewer}: {entry['hand']}"
            if sees:
                assert entry["hand"] == sorted(entry["hand"]) and SPRINKLETONIUM not in entry["hand"]
                assert len(entry["hand"]) + entry["weaponized_sprinkletonium"] == entry["hand_count"]
        active = view["active"]
        shows_draw = active is not None and (self.open_hands or viewer == active)
        assert (view["drawn"] is not None) == shows_draw, f"the draw of {active} shown to {viewer}"
        if shows_draw:
            assert len(view["drawn"]) == view["drawn_count"]
        if viewer is None:
            self.public_views.setdefault(version, view)
        else:
            self.seat_views.append((viewer, version, view))
        self.check_keep_events(viewer, version, view["events"])

    def check_seat_views(self) -> None:
        """Every seat's view is the public view of its version plus that seat's own cards, nothing else."""
        compared = 0
        for viewer, version, view in self.seat_views:
            if version in self.public_views:
                public = public_part(view, viewer, self.open_hands)
                assert public == self.public_views[version], f"{viewer}'s view holds more than its own cards"
                compared += 1
        assert compared >= len(self.seat_views) // 2

    def check_keep_events(self, viewer: int | None, version: int, events: list[str]) -> None:
        """The events of a keep name the cards that went face up, never the kept ones (to anyone else)."""
        for keep in self.keeps:
            if keep.version != version or viewer == keep.seat or self.open_hands:
                continue
            secret = set(keep.kept) - set(keep.rest)
            text = " ".join(events)
            named = [card for card in secret if card in text or CARDS[card]["title"] in text]
            assert not named, f"the kept {keep.kept} shown to {viewer}: {events}"

    def check_logs(self) -> None:
        """Every viewer's log: every action so far, a keep's cards and a gift hidden from the others."""
        assert self.public is not None
        for player in [self.public, *self.seats]:
            log = player.log()
            assert log["viewer"] == player.seat
            finished = log["status"] == "finished"
            assert (log["seed"] == self.seed) == finished and (log["seed"] is None) == (not finished)
            assert [entry["version"] for entry in log["entries"]] == list(range(1, len(self.moves) + 1))
            for entry, (seat, action) in zip(log["entries"], self.moves, strict=True):
                shown = action if finished else redacted(seat, action, player.seat, self.open_hands)
                assert entry["seat"] == seat and entry["action"] == shown, (player.seat, entry, action)
                if shown != action:
                    self.hidden_in_logs[action["type"]] += 1

    def check_against_replay(self, final: dict[str, Any]) -> int:
        """With the seed revealed, replay the log: every answer is the engine's view for its viewer and version.

        Returns how many answers (views and legal actions) were compared."""
        game = get_game(GAME)
        assert game is not None
        assert final["seed"] == self.seed
        state = game.start(self.players, final["options"], self.seed)
        states = [state.clone()]
        for seat, action in self.moves:
            state.play(seat, action)
            states.append(state.clone())
        result = state.result()
        assert state.is_over() and result is not None and result.to_json() == final["result"]
        checked = 0
        for answer in self.answers:
            body = answer.body
            if not isinstance(body, dict) or "version" not in body:
                continue
            at = states[body["version"]]
            if "view" in body:
                assert body["view"] == json.loads(json.dumps(at.view(answer.viewer))), answer.what
                assert body["to_act"] == (list(at.acting_seats()) if body["status"] == "active" else [])
                checked += 1
            elif "actions" in body:
                assert body["actions"] == json.loads(json.dumps(at.legal_actions(body["seat"]))), answer.what
                if body["actions"]:
                    assert body["ends_turn"] == at.action_space(body["seat"])["ends_turn"], answer.what
                checked += 1
        return checked


def check_result(final: dict[str, Any]) -> None:
    """The end as the rulebook counts it from the public view: the group's success and the champion."""
    view, result = final["view"], final["result"]
    assert final["status"] == "finished" and final["to_act"] == final["waiting_for"] == []
    assert view["phase"] == "over" and view["active"] is None and view["queue"] == []
    tokens = [seat["tokens"] for seat in view["seats"]]
    sprinkles = [seat["sprinkletonium"] for seat in view["seats"]]
    saved = sum(tokens)
    assert view["saved"] == saved and view["tokens_needed"] == TOKENS_NEEDED
    if "fifth planet" in result["reason"]:
        assert view["planet"] == 5 and saved + view["captured"] == TOKENS, "every token is saved or captured"
    # 'Each Ice Cream saved counts as 2 VPs and each Sprinkletonium counts as 1 VP.'
    points = [2 * t + s for t, s in zip(tokens, sprinkles, strict=True)]
    assert result["scores"] == points == [seat["victory_points"] for seat in view["seats"]]
    keys = [(points[seat], tokens[seat]) for seat in range(len(tokens))]
    ranking = [[seat for seat, key in enumerate(keys) if key == place] for place in sorted(set(keys), reverse=True)]
    assert result["ranking"] == ranking and result["draw"] is False
    success = saved >= TOKENS_NEEDED
    assert result["team_success"] is success
    if success:  # 'the player with the most Victory Points is named Champion of the Galaxy'; ties are co-champions
        assert result["winners"] == ranking[0] and "group victory" in result["reason"]
        assert ("co-champions" if len(ranking[0]) > 1 else "Champion of the Galaxy") in result["reason"]
    else:
        assert result["winners"] == [] and f"{TOKENS_NEEDED} needed" in result["reason"]


def problem(response: TestResponse, status: int, code: str) -> str:
    """The answer is a problem+json with this status and code; its detail."""
    body = response.get_json()
    assert response.status_code == status and body["code"] == code, body
    assert response.mimetype == "application/problem+json" and body["status"] == status
    return str(body["detail"])


# --- whole matches ------------------------------------------------------------------------------------
def every_view(table: Table) -> list[dict[str, Any]]:
    """The public view at every version seen, in version order."""
    return [table.public_views[version] for version in sorted(table.public_views)]


def variant_seen(name: str, table: Table, views: list[dict[str, Any]]) -> bool:
    """Whether the variant visibly changed this match (so the test knows it was played with it)."""
    actions = [action for _, action in table.moves]
    if name == "A":  # 'remove 6 Lil Chips, 2 Peaboties and 2 Punk Rockits': 44 robot cards, not 54
        start = views[0]
        on_planet = sum(robot is not None for column in start["columns"] for robot in column["robots"])
        return bool(start["robot_deck_count"] + on_planet == 44)
    if name == "B":  # a refill pulls a Sprinkletonium into the hand as a wild card
        return any(a == {"type": "refill_hand", "weaponize": True} for a in actions)
    if name == "C":  # 'All Spinstons are Red Spinston 2.0.'
        spinstons = [c["spinston"] for v in views for c in v["columns"] if c["spinston"]]
        return bool(spinstons) and set(spinstons) == {"red_spinston_2"}
    if name == "D":  # the Ice Cream Social shares face-up cards after each equip phase
        return any(a["type"] in ("share_social_cards", "share_social_randomly") for a in actions) or any(
            "Ice Cream Social" in event for v in views for event in v["events"]
        )
    if name == "E":  # two regular attacks in one turn
        return any(v["attacks_made"] == 2 for v in views)
    # F: 'players may only purchase 1 Boost card' per store phase
    return any(a["type"] == "buy_boost" for a in actions) and all(v["bought_this_store"] <= 1 for v in views)


# (players, seed, bot, variants by letter or other options): found by `simulate` to reach what each shows.
MATCHES = [
    pytest.param(1, "solo", "random", {}, id="1p"),
    pytest.param(2, "two", "random", {}, id="2p"),
    pytest.param(3, "three", "random", {}, id="3p"),
    pytest.param(4, "four", "random", {}, id="4p"),
    pytest.param(2, "team-2-1", "team", {}, id="2p-team"),
    pytest.param(4, "team-4", "team", {}, id="4p-team"),
    pytest.param(2, "variant-a", "random", {"A"}, id="2p-A"),
    pytest.param(3, "variant-b", "team", {"B"}, id="3p-B"),
    pytest.param(4, "variant-c", "random", {"C"}, id="4p-C"),
    pytest.param(2, "variant-d", "random", {"D"}, id="2p-D"),
    pytest.param(3, "variant-e", "team", {"E"}, id="3p-E"),
    pytest.param(4, "variant-f", "team", {"F"}, id="4p-F"),
    pytest.param(1, "all-1", "team", set(VARIANTS), id="1p-A-F"),
    pytest.param(4, "all-4", "team", set(VARIANTS), id="4p-A-F"),
]


@pytest.mark.parametrize(("players", "seed", "policy", "variants"), MATCHES)
def test_whole_match_by_separate_seats(
    client: FlaskClient, players: int, seed: str, policy: str, variants: set[str]
) -> None:
    options = {name: value for letter in sorted(variants) for name, value in VARIANTS[letter].items()}
    table, final = whole_match(client, players, seed, policy, options)
    views = every_view(table)
    for letter in sorted(variants):
        assert variant_seen(letter, table, views), f"variant {letter} left no trace in this match"
    if policy == "team" and not variants:
        assert final["result"]["team_success"], "the team plan saves 10 tokens with this seed"
    if players > 1:
        assert table.hidden_in_logs["keep_drawn"] > 0, "other seats saw keeps in the log, redacted"


def whole_match(
    client: Opener, players: int, seed: str, policy: str, options: dict[str, Any]
) -> tuple[Table, dict[str, Any]]:
    """Play a match to its end through the API and check it all: the result, the answers, the replay."""
    table = Table.create(client, players, seed, policy, **options)
    assert table.options == {**table.options, **options}
    final = table.play()
    check_result(final)
    assert table.keeps, "every match draws and keeps"
    assert table.check_against_replay(final) > len(table.moves) * (players + 1)
    assert simulate(players, options, seed, policy)[0] == table.moves, "the bots play the same through the engine"
    assert len(table.answers) > (2 * players + 1) * len(table.moves)
    return table, final


def test_a_card_given_away_is_hidden_from_the_third_seat(client: FlaskClient) -> None:
    """Team Player: the gift's card shows only to the giver and the receiver while the match runs."""
    table, final = whole_match(client, 3, "gift-3-2", "team", {})
    gifts = [(seat, a) for seat, a in table.moves if a["type"] == "use_boost_in_play" and "card" in a]
    assert gifts and final["result"]["team_success"]
    assert table.hidden_in_logs["use_boost_in_play"] > 0, "a third seat's log showed a gift, its card hidden"


def test_open_hands_shows_every_hand_and_every_keep(client: FlaskClient) -> None:
    """Option open_hands: every viewer, the public too, sees every hand, every draw and every keep."""
    table, _ = whole_match(client, 3, "open", "random", {"open_hands": True})
    views = [a.body["view"] for a in table.answers if isinstance(a.body, dict) and "view" in a.body]
    assert all(seat["hand"] is not None for view in views for seat in view["seats"])
    assert any(view["drawn"] for view in table.public_views.values()), "the public saw a pending draw"
    assert not table.hidden_in_logs and table.keeps


def test_solo_on_three_player_planets_stops_once_lost(client: FlaskClient) -> None:
    _, final = whole_match(client, 1, "solo-3", "random", {"solo_planets": "3", "stop_when_lost": True})
    assert final["view"]["planet_card"].startswith("3p-") and final["view"]["planet"] < 5
    assert "can no longer save" in final["result"]["reason"] and final["view"]["captured"] > TOKENS - TOKENS_NEEDED


def test_the_leak_checks_find_a_shown_hand_and_a_logged_keep() -> None:
    """The checks above can fail: a hand or a draw shown to another seat, a view with more than the public's, a
    kept card in the events, an unredacted keep, a deck order."""
    table = Table(client=None, players=2, match_id="m", options={"open_hands": False}, seed="s", policy="random")  # type: ignore[arg-type]
    seats: list[dict[str, Any]] = [
        dict.fromkeys(SEAT_KEYS, 0) | {"seat": s, "hand": None, "hand_count": 1} for s in (0, 1)
    ]
    view: dict[str, Any] = dict.fromkeys(VIEW_KEYS) | {"seats": seats, "active": 0, "drawn_count": 2, "events": []}
    public: dict[str, Any] = {"viewer": None, "version": 1, "seed": None, "status": "active", "view": view}
    table.check_match(None, public)

    def seen_by(viewer: int) -> dict[str, Any]:
        match: dict[str, Any] = copy.deepcopy(public) | {"viewer": viewer}
        match["view"]["seats"][viewer]["hand"] = ["funday"]
        return match

    table.check_match(1, seen_by(1))
    shown = seen_by(1)
    shown["view"]["seats"][0]["hand"] = ["boomsicle"]
    with pytest.raises(AssertionError, match="seat 0's hand shown to 1"):
        table.check_match(1, shown)
    drawn = seen_by(1)
    drawn["view"]["drawn"] = ["rapid_pop", "funday"]
    with pytest.raises(AssertionError, match="draw of 0 shown to 1"):
        table.check_match(1, drawn)
    more = seen_by(1)
    more["view"]["ice_cream_deck_count"] = 3
    table.check_seat_views()
    table.check_match(1, more)
    with pytest.raises(AssertionError, match="more than its own cards"):
        table.check_seat_views()
    table.keeps.append(Keep(1, 0, ["funday"], ["boomsicle"]))
    told = copy.deepcopy(public)
    told["view"]["events"] = ["seat 0 keeps funday"]
    with pytest.raises(AssertionError, match="kept"):
        table.check_match(None, told)
    assert redacted(0, {"type": "keep_drawn", "cards": ["funday"]}, 1, False) == {"type": "keep_drawn", "cards": None}
    gift = {"type": "use_boost_in_play", "boost": "team_player", "target": 2, "card": "funday"}
    assert redacted(0, gift, 1, False) == {**gift, "card": None} and redacted(0, gift, 2, False) == gift
    assert secret_keys({"view": {"rng": 5, "x": [{"ice_deck": []}]}}) == [".view.rng", ".view.x[0].ice_deck"]


# --- refusals, the catalog ------------------------------------------------------------------------------
def act_step(table: Table) -> tuple[Player, dict[str, Any], dict[str, Any]]:
    """Play keeps and draw-ups until a seat is in its act step; that seat, its view and legal actions."""
    assert table.public is not None
    for _ in range(20):
        public = table.public.read()
        (active,) = public["waiting_for"]
        me = table.seats[active]
        seen, legal = me.read(), me.legal()
        if seen["view"]["step"] == "act":
            return me, seen, legal
        table.send(active, legal["actions"][0], legal["version"], seen["view"])
    raise AssertionError("no act step reached")


def test_refused_actions_name_the_rule(client: FlaskClient) -> None:
    table = Table.create(client, 2, "refusals")
    assert table.public is not None
    public = table.public.read()
    (active,) = public["waiting_for"]
    me, other = table.seats[active], table.seats[1 - active]
    seen, legal = me.read(), me.legal()
    version = legal["version"]
    assert seen["view"]["step"] == "keep" and legal["actions"][0]["type"] == "keep_drawn"

    # Out of turn: 409 before any rule is looked at.
    assert "may not act now" in problem(other.act(legal["actions"][0], version), 409, "not-your-turn")
    assert problem(other.act({"type": "end_turn"}, version), 409, "not-your-turn")
    # The wrong step, the wrong cards, a stale version, a malformed body.
    detail = problem(me.act({"type": "end_turn"}, version), 422, "illegal-action")
    assert "keep step" in detail and "keep_drawn" in detail
    drawn = seen["view"]["drawn"]
    absent = next(card for card in ("single_serve", "rapid_pop", "boomsicle", "funday") if card not in drawn)
    assert "keep exactly 1 of the cards you drew" in problem(
        me.act({"type": "keep_drawn", "cards": [absent]}, version), 422, "illegal-action"
    )
    problem(me.act({"type": "keep_drawn", "cards": drawn}, version), 422, "illegal-action")
    problem(me.act({"type": "buy_boost", "boost": "power_pack"}, version), 422, "illegal-action")
    problem(me.act(legal["actions"][0], version + 1), 409, "stale-version")
    bad = client.post(
        f"/v1/matches/{table.match_id}/actions",
        json={"action": "keep_drawn", "expected_version": version},
        headers=bearer(me.token or ""),
    )
    assert bad.status_code == 400 and bad.get_json()["code"] == "invalid-request"

    # In the act step: attacks that break the attack rule say which.
    me, seen, legal = act_step(table)
    version, view = legal["version"], seen["view"]
    assert me.seat is not None
    hand = Counter(view["seats"][me.seat]["hand"])
    column = next(n for n, c in enumerate(view["columns"]) if c["target_level"] is not None)
    target = view["columns"][column]
    robot = CARDS[target["spinston"] if target["target_level"] == 0 else target["robots"][target["target_level"] - 1]]
    # A set the hand holds but of the wrong size (8 cards of 5 kinds: some kind is held twice).
    kind, held = hand.most_common(1)[0]
    wrong = [kind] * (2 if robot["defense"] == 1 else 1)
    assert held >= len(wrong)

    def attack(cards: list[str], on: int = column) -> dict[str, Any]:
        return {"type": "attack", "column": on, "cards": cards, "upgrade": None}

    detail = problem(me.act(attack(wrong), version), 422, "illegal-action")
    assert f"{robot['title']} has defense {robot['defense']}" in detail
    assert "'the set must be equal in number to the defense value'" in detail
    too_many = attack([kind] * (held + 1))
    assert f"you do not hold ['{kind}']" in problem(me.act(too_many, version), 422, "illegal-action")
    low, high = sorted(set(hand) - {"brain_freeze"})[:2]
    assert "use matching sets" in problem(me.act(attack([low, high]), version), 422, "illegal-action")
    assert "list the cards in sorted order" in problem(me.act(attack([high, low]), version), 422, "illegal-action")
    assert "no column 9" in problem(me.act(attack([kind], 9), version), 422, "illegal-action")
    assert "an attack is" in problem(me.act({"type": "attack", "column": column}, version), 422, "illegal-action")
    assert "Variant B" in problem(me.act({"type": "refill_hand", "weaponize": True}, version), 422, "illegal-action")
    # Nothing was applied by any refusal; the same seat may still end its turn.
    assert table.public.read()["version"] == version and len(table.public.log()["entries"]) == version
    table.send(me.seat, {"type": "end_turn"}, version, view)


def test_an_attack_destroys_the_lowest_robot_of_the_column(client: FlaskClient) -> None:
    """A2/A3 through the API: a legal attack discards the set, removes the target and pays its reward."""
    for number in range(30):
        table = Table.create(client, 2, f"attack-{number}")
        me, seen, legal = act_step(table)
        attacks = [action for action in legal["actions"] if action["type"] == "attack"]
        if attacks:
            break
    else:
        raise AssertionError("no seed gave an attack in the first turn")
    view, seat = seen["view"], me.seat
    assert seat is not None
    attack = attacks[0]
    column = view["columns"][attack["column"]]
    level = column["target_level"]
    robot = CARDS[column["spinston"] if level == 0 else column["robots"][level - 1]]
    after = table.send(seat, attack, legal["version"], view)["view"]
    assert len(attack["cards"]) == robot["defense"]
    hand_before, hand_after = Counter(view["seats"][seat]["hand"]), Counter(after["seats"][seat]["hand"])
    assert hand_before - hand_after == Counter(attack["cards"])
    assert after["ice_cream_discard"][-len(attack["cards"]) :] == attack["cards"]
    assert after["seats"][seat]["sprinkletonium"] == robot["reward"]
    assert after["sprinkletonium_supply"] == view["sprinkletonium_supply"] - robot["reward"]
    hit = after["columns"][attack["column"]]
    if level == 0:
        assert hit["spinston"] is None and after["seats"][seat]["tokens"] == 1
    else:
        assert hit["robots"][level - 1] is None and after["robot_discard"][-1] == robot["id"]
    assert after["attacks_made"] == 1 and not [a for a in me.legal()["actions"] if a["type"] == "attack"]


def test_a_finished_match_refuses_actions(client: FlaskClient) -> None:
    table = Table.create(client, 1, "over", "random", stop_when_lost=True)
    final = table.play()
    check_result(final)
    detail = problem(table.seats[0].act({"type": "end_turn"}, final["version"]), 409, "match-over")
    assert detail
    assert table.seats[0].legal() == {
        "version": final["version"],
        "seat": 0,
        "may_act": False,
        "kind": "enumerated",
        "actions": [],
    }


@pytest.mark.parametrize(
    ("request_body", "field_name"),
    [
        ({"players": 5}, "players"),
        ({"players": 0}, "players"),
        ({"players": 2, "options": {"harder_robots": "yes"}}, "options"),
        ({"players": 1, "options": {"solo_planets": "4"}}, "options"),
        ({"players": 2, "options": {"variant_g": True}}, "options"),
    ],
)
def test_creating_refuses_bad_players_and_options(
    client: FlaskClient, request_body: dict[str, Any], field_name: str
) -> None:
    response = client.post("/v1/matches", json={"game": GAME, **request_body})
    assert response.status_code == 400 and field_name in response.get_json()["errors"], response.get_json()


def test_catalog_lists_the_game_with_its_variants_and_assumptions(client: FlaskClient) -> None:
    entry = client.get(f"/v1/games/{GAME}").get_json()
    assert entry["name"] == "Robots Love Ice Cream" and (entry["min_players"], entry["max_players"]) == (1, 4)
    assert entry["cooperative"] is True and entry["information"] == "imperfect" and entry["chance"] is True
    assert entry["simultaneous"] is False and entry["ai_levels"] == ["random", "easy", "medium", "hard"]
    options = {option["name"]: option for option in entry["options"]}
    assert set(options) == {*ALL_VARIANTS, "solo_planets", "open_hands", "stop_when_lost"}
    assert options["solo_planets"]["choices"] == ["2", "3"] and options["solo_planets"]["default"] == "2"
    for name in (*ALL_VARIANTS, "open_hands", "stop_when_lost"):
        assert options[name]["type"] == "bool" and options[name]["default"] is False
    ids = {assumption["id"] for assumption in entry["assumptions"]}
    assert {"first-player", "planet-layouts", "exact-set", "discard-face-up", "robot:lil_chip"} <= ids
    assert all(assumption["choice"] and assumption["reason"] for assumption in entry["assumptions"])
    assert entry in client.get("/v1/games").get_json()["items"]
    assert {card["id"]: card for card in entry["cards"]} == CARDS
    created = client.post("/v1/matches", json={"game": GAME, "players": 1})
    assert created.status_code == 201
    assert created.get_json()["options"] == {name: option["default"] for name, option in options.items()}


def test_the_catalog_gives_every_card_its_title_type_price_and_text(client: FlaskClient) -> None:
    """Views name cards by id; the catalog has each one (a Boost with its price), and every invented one is assumed."""
    cards = {card["id"]: card for card in client.get(f"/v1/games/{GAME}").get_json()["cards"]}
    assumed = {a["id"] for a in client.get(f"/v1/games/{GAME}").get_json()["assumptions"]}
    decks = Counter(card["deck"] for card in cards.values())
    assert decks == {"ice_cream": 5, "sprinkletonium": 1, "robot": 13, "boost": 27}
    for card in cards.values():
        assert card["title"] and card["type"] and card["text"]
        assert ("price" in card) == (card["deck"] == "boost")
        assert card["assumed"] == (f"{card['deck']}:{card['id']}" in assumed), card
    assert cards["power_pack"]["text"].startswith("Add 1 to any attack value") and not cards["power_pack"]["assumed"]
    assert cards["deflector_shield"]["assumed"] and cards["free_sample"]["price"] == 3
    table = Table.create(client, 2, "cards-named")
    view = table.seats[0].read()["view"]
    named = {robot for column in view["columns"] for robot in (column["spinston"], *column["robots"]) if robot}
    named |= {*view["seats"][0]["hand"], *view["robot_discard"], *view["store_row"]}
    assert named and named <= set(cards)
