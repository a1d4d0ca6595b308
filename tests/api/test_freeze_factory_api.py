"""Freeze Factory over HTTP: whole matches by per-seat clients, FREEZE! claims out of turn, no leaks.

Each seat is a client holding only its own token; the public is a client with none. The seats are
played by a bot that sees only its own view: it fulfils and claims whatever it can, and otherwise
slides the tile that brings the flavours of one of its cones closest to a line of three. The
others poll their legal actions after every action and call FREEZE! when they can. Every answer
is recorded, and afterwards no seat's cones in hand may show in an answer to anyone else except
as fulfilled cones (a cone becomes public when it is laid face up).
"""

from __future__ import annotations

import itertools
import json
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from engine import get_game
from tests.api.conftest import bearer, read_log
from tests.api.test_sundae_split_api import Opener

GAME = "freeze_factory"
SIZE = 5
SEGMENTS = [tuple((r, c + k) for k in range(3)) for r in range(SIZE) for c in range(SIZE - 2)] + [
    tuple((r + k, c) for k in range(3)) for r in range(SIZE - 2) for c in range(SIZE)
]
STEP = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
NO_ROLL = {"type": "no_roll"}
END_TURN = {"type": "end_turn"}
# Whole matches: (players, seed), each found to give at least one natural FREEZE! claim with this bot.
MATCHES = [(2, "ff-2-3"), (3, "ff-3-8"), (4, "ff-4-0")]
# A claim by construction (2 players, seed `freeze-0`): seat 0 takes 3 points and two slides form
# two lines, one of them (mint, peach, vanilla) seat 1's cone 14, with one point left for seat 0.
CLAIM_SEED = "freeze-0"
CLAIM_LINE: list[tuple[int, dict[str, Any]]] = [
    (0, NO_ROLL),
    (0, {"type": "slide", "space": [0, 2], "direction": "left"}),
    (0, {"type": "slide", "space": [3, 1], "direction": "up"}),
]
CLAIMED_CONE = 14
SYMBOL_SEED = "symbol-11"  # 2 players: seat 0's first roll shows the cone symbol
CORNERS = [(0, 0), (0, 1), (0, 3), (0, 4), (1, 0), (1, 4), (2, 2), (3, 0), (3, 4), (4, 0), (4, 1), (4, 3), (4, 4)]


# --- the bot: its own view and legal actions only ----------------------------------------------------
def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Steps between two spaces, sliding off an edge onto the opposite one allowed."""
    rows, columns = abs(a[0] - b[0]), abs(a[1] - b[1])
    return min(rows, SIZE - rows) + min(columns, SIZE - columns)


def cost(board: list[list[str | None]], hand: list[dict[str, Any]]) -> int:
    """How far the board is from a line of one cone in hand: steps to bring its flavours into a
    line of three spaces, plus two for every other tile standing in that line."""
    where = {flavour: (r, c) for r, row in enumerate(board) for c, flavour in enumerate(row) if flavour}
    best = 99
    for cone in hand:
        flavours = cone["flavours"]
        starts = [where[f] for f in flavours]
        for segment in SEGMENTS:
            blockers = sum(board[r][c] is not None and board[r][c] not in flavours for r, c in segment)
            for targets in itertools.permutations(segment):
                best = min(best, sum(map(distance, starts, targets)) + 2 * blockers)
    return best


def slid(board: list[list[str | None]], slide: dict[str, Any]) -> list[list[str | None]]:
    """The board after a legal slide."""
    (row, column), (d_row, d_column) = slide["space"], STEP[slide["direction"]]
    after = [list(r) for r in board]
    after[(row + d_row) % SIZE][(column + d_column) % SIZE], after[row][column] = after[row][column], None
    return after


def choose(view: dict[str, Any], actions: list[dict[str, Any]], rng: random.Random) -> dict[str, Any] | None:
    """Fulfil or claim if possible; roll or not, and take the extra cone or not, at random; else the slide
    that gets closest to a cone."""
    for action in actions:
        if action["type"] in ("fulfil", "freeze"):
            return action
    if not actions:
        return None
    if actions[0]["type"] in ("roll", "take_cone"):
        return rng.choice(actions)
    slides = [a for a in actions if a["type"] == "slide"]
    if not slides:
        return END_TURN
    now = cost(view["board"], view["hand"])
    scored = [(cost(slid(view["board"], a), view["hand"]), a) for a in rng.sample(slides, len(slides))]
    best, action = min(scored, key=lambda pair: pair[0])
    if best >= now and rng.random() < 0.3:
        return rng.choice(slides)  # stuck: shake the board
    return action


def simulate(players: int, seed: str) -> tuple[list[tuple[int, dict[str, Any]]], int]:
    """The engine, driven as `Table.play` drives the server: the moves and the number of claims."""
    game = get_game(GAME)
    assert game is not None
    state = game.start(players, {}, seed)
    rngs = [random.Random(f"{seed}-{seat}") for seat in range(players)]
    moves: list[tuple[int, dict[str, Any]]] = []
    claims = 0
    while not state.is_over():
        (active,) = state.waiting_for()
        claimant = next((s for s in range(players) if s != active and state.legal_actions(s)), None)
        seat = active if claimant is None else claimant
        action = choose(state.view(seat), state.legal_actions(seat), rngs[seat])
        assert action is not None
        claims += claimant is not None
        state.play(seat, action)
        moves.append((seat, action))
    return moves, claims


# --- what every viewer was told ----------------------------------------------------------------------
@dataclass
class Answer:
    """One answer (304s have no body and are not kept), with what was hidden when it was given."""

    viewer: int | None
    what: str
    body: Any
    hands: dict[int, list[int]]
    fulfilled: set[int]


def cone_ids(value: Any) -> set[int]:
    """Cone ids a JSON value names: cone objects ({id, flavours}) and actions' `cone`."""
    found: set[int] = set()
    if isinstance(value, dict):
        if set(value) == {"id", "flavours"}:
            found.add(value["id"])
        if isinstance(value.get("cone"), int):
            found.add(value["cone"])
        for item in value.values():
            found |= cone_ids(item)
    elif isinstance(value, list):
        for item in value:
            found |= cone_ids(item)
    return found


def without_public_cones(body: Any) -> Any:
    """The answer without what is public anyway: `view.fulfilled` (cones laid face up) and the
    flavours of `view.freeze_lines` (lines that stood on the public board, whether or not a cone matches)."""
    if isinstance(body, dict) and isinstance(body.get("view"), dict):
        view = {k: v for k, v in body["view"].items() if k != "fulfilled"}
        if "freeze_lines" in view:
            view["freeze_lines"] = [{k: v for k, v in line.items() if k != "flavours"} for line in view["freeze_lines"]]
        return {**body, "view": view}
    return body


def leaks(answers: list[Answer], flavours_of: dict[int, list[str]]) -> list[str]:
    """Every answer that shows a cone in one seat's hand to another viewer outside `fulfilled`."""
    found = []
    for number, answer in enumerate(answers):
        rest = without_public_cones(answer.body)
        text = json.dumps(rest)
        own = set(answer.hands.get(answer.viewer, [])) if answer.viewer is not None else set()
        if isinstance(answer.body, dict) and isinstance(answer.body.get("view"), dict):
            shown = {cone["id"] for cone in answer.body["view"].get("hand", [])}
            if shown - own:
                found.append(f"answer {number} ({answer.what}) hand shows {sorted(shown - own)}")
        for seat, hand in answer.hands.items():
            if seat == answer.viewer:
                continue
            for cone in hand:
                if cone in cone_ids(rest) or json.dumps(sorted(flavours_of[cone])) in text:
                    found.append(f"answer {number} ({answer.what}) to {answer.viewer} shows seat {seat}'s cone {cone}")
        strays = cone_ids(rest) - own - answer.fulfilled
        if strays:
            found.append(f"answer {number} ({answer.what}) to {answer.viewer} names cones {sorted(strays)}")
    return found


@dataclass
class Player:
    """One seat's client (or the public's): its own token only; every answer recorded by the table."""

    table: Table
    seat: int | None
    token: str | None
    etag: str | None = None
    last: dict[str, Any] | None = None

    def call(self, method: str, suffix: str = "", **kwargs: Any) -> TestResponse:
        """One request to the match with this player's token, recorded."""
        headers = {**kwargs.pop("headers", {}), **(bearer(self.token) if self.token else {})}
        response = self.table.client.open(
            f"/v1/matches/{self.table.match_id}{suffix}", method=method, headers=headers, **kwargs
        )
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
        assert self.last["viewer"] == self.seat
        return self.last

    def legal(self) -> dict[str, Any]:
        """GET legal-actions with this seat's token."""
        response = self.call("GET", "/legal-actions")
        assert response.status_code == 200, response.get_json()
        return dict(response.get_json())

    def act(self, action: dict[str, Any], version: int) -> TestResponse:
        """POST an action decided on `version`."""
        return self.call("POST", "/actions", json={"action": action, "expected_version": version})


@dataclass
class Claim:
    """A FREEZE! claim seen through the API, with the public view just before and just after it."""

    seat: int
    cone: int
    before: dict[str, Any]
    after: dict[str, Any]


@dataclass
class Table:
    """A Freeze Factory match played by one client per seat, the public watching."""

    client: Opener
    players: int
    match_id: str
    options: dict[str, Any]
    tokens: dict[int, str]
    seats: list[Player] = field(default_factory=list)
    public: Player | None = None
    answers: list[Answer] = field(default_factory=list)
    hands: dict[int, list[int]] = field(default_factory=dict)
    fulfilled: set[int] = field(default_factory=set)
    flavours_of: dict[int, list[str]] = field(default_factory=dict)
    moves: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    seed: str = ""  # the bots' own random choices derive from it

    @classmethod
    def create(cls, client: Opener, players: int, seed: str | None, **options: Any) -> Table:
        """Create the match; each seat gets its own token; the hands are read by their owners."""
        request: dict[str, Any] = {"game": GAME, "players": players, "options": options}
        if seed is not None:
            request["seed"] = seed
        response = client.open("/v1/matches", method="POST", json=request)
        assert response.status_code == 201, response.get_json()
        created = response.get_json()
        tokens = {seat["seat"]: seat["token"] for seat in created["tokens"]}
        table = cls(client, players, created["id"], created["options"], tokens, seed=seed or "")
        table.seats = [Player(table, seat, tokens[seat]) for seat in range(players)]
        table.public = Player(table, None, None)
        for seat, token in tokens.items():  # what each seat holds, before anyone is told anything
            own = client.open(f"/v1/matches/{table.match_id}", method="GET", headers=bearer(token))
            table.learn(seat, own.get_json()["view"])
        return table

    def keep(self, viewer: int | None, what: str, response: TestResponse) -> None:
        """Record an answer with the hands as they are now; no request may fail with a 5xx."""
        assert response.status_code < 500, f"{what}: {response.status_code} {response.get_data(as_text=True)}"
        if response.status_code != 304:
            hands = {seat: list(hand) for seat, hand in self.hands.items()}
            self.answers.append(Answer(viewer, what, response.get_json(), hands, set(self.fulfilled)))

    def learn(self, seat: int | None, view: dict[str, Any]) -> None:
        """What a seat's own answer tells the test: its hand, and the fulfilled cones (public)."""
        for cones in view["fulfilled"]:
            for cone in cones:
                self.fulfilled.add(cone["id"])
                self.flavours_of[cone["id"]] = cone["flavours"]
        if seat is not None:
            self.hands[seat] = [cone["id"] for cone in view["hand"]]
            self.flavours_of.update({cone["id"]: cone["flavours"] for cone in view["hand"]})

    def send(self, seat: int, action: dict[str, Any], version: int) -> dict[str, Any]:
        """One action that must apply; the hands and fulfilled cones follow from its answer."""
        player = self.seats[seat]
        response = player.act(action, version)
        assert response.status_code == 200, (action, response.get_json())
        answer: dict[str, Any] = response.get_json()
        assert answer["version"] == version + 1 and answer["viewer"] == seat
        self.learn(seat, answer["view"])
        self.answers[-1] = Answer(seat, self.answers[-1].what, answer, dict(self.hands), set(self.fulfilled))
        self.moves.append((seat, action))
        return answer

    def read_public(self) -> dict[str, Any]:
        """The public view, with the checks every poll makes."""
        assert self.public is not None
        match = self.public.read()
        view = match["view"]
        assert view["hand"] == [] and match["viewer"] is None
        if match["status"] == "active":
            assert match["to_act"] == list(range(self.players)), "every seat may act: claims are secret"
            assert match["waiting_for"] == [view["active"]]
        else:
            assert match["to_act"] == match["waiting_for"] == []
        assert view["hand_counts"] == [len(self.hands[s]) for s in range(self.players)]
        return match

    def play(self, limit: int = 3000) -> dict[str, Any]:
        """Seats claim when they can, else the active seat acts; the final public match."""
        rngs = [random.Random(f"{self.seed}-{seat}") for seat in range(self.players)]
        for _ in range(limit):
            public = self.read_public()
            if public["status"] == "finished":
                return public
            (active,) = public["waiting_for"]
            claimed = False
            for player in self.seats:
                assert player.seat is not None
                legal = player.legal()
                assert legal["may_act"] == bool(legal["actions"]) and legal["version"] == public["version"]
                if player.seat == active:
                    continue
                assert all(a["type"] == "freeze" for a in legal["actions"])
                assert {a["cone"] for a in legal["actions"]} <= set(self.hands[player.seat])
                if legal["actions"]:
                    action = choose(player.read()["view"], legal["actions"], rngs[player.seat])
                    assert action is not None
                    self.send(player.seat, action, legal["version"])
                    after = self.read_public()
                    self.claims.append(Claim(player.seat, action["cone"], public, after))
                    claimed = True
                    break
            if claimed:
                continue
            me = self.seats[active]
            seen = me.read()
            assert [c["id"] for c in seen["view"]["hand"]] == self.hands[active]
            legal = me.legal()
            action = choose(seen["view"], legal["actions"], rngs[active])
            assert action is not None and action in legal["actions"]
            self.send(active, action, legal["version"])
        raise AssertionError("the match did not end")


def new_table(client: Opener, players: int, seed: str, **options: Any) -> Table:
    """A table with a chosen seed (its bots draw their choices from it too)."""
    return Table.create(client, players, seed, **options)


def problem(response: TestResponse, status: int, code: str) -> str:
    """The problem's detail, after checking its status and code."""
    body = response.get_json()
    assert response.status_code == status and body["code"] == code, body
    return str(body["detail"])


# --- whole matches ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("players", "seed"), MATCHES)
def test_whole_match_by_separate_seats(client: FlaskClient, players: int, seed: str) -> None:
    table = new_table(client, players, seed)
    final = table.play()
    assert final["status"] == "finished"
    view = final["view"]
    assert view["pile_count"] == 0, "the real end: a fulfilment with the pile empty"
    assert "pile is empty" in final["result"]["reason"] and final["options"]["turn_limit"] == 0
    counts = [len(cones) for cones in view["fulfilled"]]
    assert final["result"]["scores"] == counts
    assert final["result"]["winners"] == [s for s in range(players) if counts[s] == max(counts)]

    # At least one FREEZE! by a seat whose turn it was not; the turn went on undisturbed.
    assert table.claims, "no seat called FREEZE! in this match"
    for claim in table.claims:
        before, after = claim.before["view"], claim.after["view"]
        assert claim.seat != before["active"]
        assert claim.cone in [c["id"] for c in after["fulfilled"][claim.seat]]
        assert sum(map(len, after["fulfilled"])) == sum(map(len, before["fulfilled"])) + 1
        if claim.after["status"] == "active":
            assert (after["active"], after["phase"], after["points_left"], after["turn"]) == (
                before["active"],
                before["phase"],
                before["points_left"],
                before["turn"],
            )
            assert claim.after["waiting_for"] == claim.before["waiting_for"]
            assert after["board"] == before["board"], "a claim moves no tile"

    # The log is the moves, and the seed replays them to the same end; the engine agrees move by move.
    log = read_log(client, table.match_id)
    assert [(e["seat"], e["action"]) for e in log["entries"]] == table.moves
    assert (
        [e["version"] for e in log["entries"]]
        == list(range(1, len(table.moves) + 1))
        == [*range(1, final["version"] + 1)]
    )
    game = get_game(GAME)
    assert game is not None
    replayed = game.replay(players, final["options"], log["seed"], table.moves)
    result = replayed.result()
    assert result is not None and result.to_json() == final["result"]
    assert replayed.view(None) == view
    assert simulate(players, seed)[0] == table.moves, "the bot plays the same through the engine"

    # Nobody's cones in hand were shown to anyone else.
    assert len(table.answers) > 5 * len(table.moves)
    assert leaks(table.answers, table.flavours_of) == []


def test_the_leak_check_finds_a_cone_shown_to_another_seat() -> None:
    mint: dict[str, Any] = {"id": 3, "flavours": ["mango", "mint", "peach"]}
    hands = {0: [3], 1: [7]}
    own = Answer(0, "own view", {"view": {"hand": [mint], "fulfilled": [[], []]}}, hands, set())
    public_fulfilled = Answer(None, "fulfilled", {"view": {"hand": [], "fulfilled": [[mint], []]}}, {1: [7]}, {3})
    assert leaks([own, public_fulfilled], {3: mint["flavours"], 7: ["a", "b", "c"]}) == []
    shown = Answer(1, "other's hand", {"view": {"hand": [mint], "fulfilled": [[], []]}}, hands, set())
    logged = Answer(None, "log", {"entries": [{"action": {"type": "freeze", "cone": 7}}]}, hands, set())
    named = Answer(None, "text", {"detail": 'no ["mango", "mint", "peach"] here'}, hands, set())
    found = leaks([shown, logged, named], {3: mint["flavours"], 7: ["a", "b", "c"]})
    assert len(found) == 5 and all("answer" in f for f in found)


# --- a claim by construction, and a claim racing the next slide --------------------------------------
def claim_position(client: Opener) -> Table:
    """Seed `freeze-0`, 2 players: seat 0's two slides make a line of seat 1's cone 14."""
    game = get_game(GAME)
    assert game is not None
    state = game.replay(2, {}, CLAIM_SEED, CLAIM_LINE)
    assert state.legal_actions(1) == [{"type": "freeze", "cone": CLAIMED_CONE}], "the constructed claim moved"
    table = new_table(client, 2, CLAIM_SEED)
    for version, (seat, action) in enumerate(CLAIM_LINE):
        table.send(seat, action, version)
    return table


def test_a_constructed_claim_out_of_turn(client: FlaskClient) -> None:
    table = claim_position(client)
    version = len(CLAIM_LINE)
    before = table.read_public()
    assert before["waiting_for"] == [0] and before["view"]["points_left"] == 1
    assert before["view"]["freeze_lines"], "the line the last slide formed is public"
    legal = table.seats[1].legal()
    assert legal["actions"] == [{"type": "freeze", "cone": CLAIMED_CONE}] and legal["version"] == version
    # Seat 0 made the slide: it cannot claim (it may fulfil on its own turn, but cone 14 is not its).
    assert all(a["type"] != "freeze" for a in table.seats[0].legal()["actions"])
    answer = table.send(1, {"type": "freeze", "cone": CLAIMED_CONE}, version)
    assert CLAIMED_CONE in [c["id"] for c in answer["view"]["fulfilled"][1]]
    assert len(answer["view"]["hand"]) == 1 and answer["view"]["pile_count"] == before["view"]["pile_count"] - 1
    after = table.read_public()
    assert after["waiting_for"] == [0] and after["view"]["active"] == 0
    assert (after["view"]["points_left"], after["view"]["phase"]) == (1, "move")
    # The claim is used up; the turn continues with seat 0's last point.
    again = table.seats[1].act({"type": "freeze", "cone": CLAIMED_CONE}, version + 1)
    assert "not in your hand" in problem(again, 422, "illegal-action")
    assert table.seats[0].legal()["actions"][-1] == END_TURN
    assert leaks(table.answers, table.flavours_of) == []


def race(
    app: Flask, match_id: str, version: int, requests: list[tuple[str, dict[str, Any]]]
) -> list[tuple[int, dict[str, Any]]]:
    """Send (token, action) requests on one version at the same instant, from separate threads and clients."""
    barrier = threading.Barrier(len(requests))

    def send(token: str, action: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        client = app.test_client()
        barrier.wait()
        response = client.post(
            f"/v1/matches/{match_id}/actions",
            json={"action": action, "expected_version": version},
            headers=bearer(token),
        )
        return response.status_code, response.get_json()

    with ThreadPoolExecutor(len(requests)) as pool:
        return list(pool.map(lambda args: send(*args), requests))


def test_a_claim_and_the_next_slide_race_on_one_version(app: Flask) -> None:
    winners = []
    for _ in range(8):
        table = claim_position(app.test_client())
        version = len(CLAIM_LINE)
        slide = next(a for a in table.seats[0].legal()["actions"] if a["type"] == "slide")
        requests = [
            (table.tokens[1], {"type": "freeze", "cone": CLAIMED_CONE}),
            (table.tokens[0], slide),
        ]
        answers = race(app, table.match_id, version, requests)
        statuses = [status for status, _ in answers]
        assert sorted(statuses) == [200, 409], answers
        loser = next(body for status, body in answers if status == 409)
        assert loser["code"] == "stale-version" and loser["current_version"] == version + 1
        client = app.test_client()
        log = read_log(client, table.match_id)
        match = client.get(f"/v1/matches/{table.match_id}").get_json()
        assert match["version"] == len(log["entries"]) == version + 1, "applied once, nothing lost"
        won = requests[statuses.index(200)][1]
        assert log["entries"][-1]["action"] == won and log["entries"][-1]["seat"] == statuses.index(200) ^ 1
        claimed = CLAIMED_CONE in [c["id"] for c in match["view"]["fulfilled"][1]]
        assert claimed == (won["type"] == "freeze")
        winners.append(won["type"])
        if won["type"] == "slide":
            # A later slide alone does not close the window (assumption freeze-window), but this one
            # spent seat 0's last point: the turn is over, and with it the claim on its earlier line.
            late = client.post(
                f"/v1/matches/{table.match_id}/actions",
                json={"action": {"type": "freeze", "cone": CLAIMED_CONE}, "expected_version": version + 1},
                headers=bearer(table.tokens[1]),
            )
            turn_went_on = match["view"]["active"] == 0
            assert late.status_code == (200 if turn_went_on else 422), late.get_json()
    assert set(winners) <= {"freeze", "slide"}


def test_the_next_player_claims_before_rolling(client: FlaskClient) -> None:
    """A line formed by a turn's last slide stays open until the next player rolls or not (freeze-window)."""
    table = claim_position(client)
    version = len(CLAIM_LINE)
    table.send(0, END_TURN, version)  # the slide that formed the line was the turn's last
    assert table.read_public()["waiting_for"] == [1]
    legal = table.seats[1].legal()["actions"]
    assert legal == [{"type": "roll"}, NO_ROLL, {"type": "freeze", "cone": CLAIMED_CONE}]
    answer = table.send(1, {"type": "freeze", "cone": CLAIMED_CONE}, version + 1)
    assert CLAIMED_CONE in [c["id"] for c in answer["view"]["fulfilled"][1]]
    assert (answer["view"]["active"], answer["view"]["phase"]) == (1, "roll")
    assert leaks(table.answers, table.flavours_of) == []


def test_the_extra_cone_is_the_seats_choice(client: FlaskClient) -> None:
    """'you may take one more cone': after the symbol the seat sends take_cone or leave_cone (seed `symbol-11`)."""
    table = new_table(client, 2, SYMBOL_SEED)
    answer = table.send(0, {"type": "roll"}, 0)
    assert answer["view"]["last_roll"] == "cone" and answer["view"]["phase"] == "extra_cone"
    legal = table.seats[0].legal()
    assert legal["actions"] == [{"type": "take_cone"}, {"type": "leave_cone"}] and legal["may_act"]
    assert table.read_public()["waiting_for"] == [0]
    assert table.seats[0].act(END_TURN, 1).status_code == 422
    pile = answer["view"]["pile_count"]
    answer = table.send(0, {"type": "leave_cone"}, 1)
    assert answer["view"]["pile_count"] == pile and answer["view"]["hand_counts"] == [1, 1]
    assert answer["view"]["active"] == 1 and answer["view"]["phase"] == "roll"
    assert leaks(table.answers, table.flavours_of) == []


def test_setup_options_deal_two_cones_on_the_corners(client: FlaskClient) -> None:
    """Options starting_hand and start_layout (assumptions starting-hand, start-layout) reach the match."""
    table = new_table(client, 3, "corners", starting_hand=2, start_layout="corners")
    view = table.read_public()["view"]
    assert view["hand_counts"] == [2, 2, 2] and view["pile_count"] == 26 - 3 - 6
    tiles = sorted((r, c) for r, row in enumerate(view["board"]) for c, flavour in enumerate(row) if flavour)
    assert tiles == sorted(tuple(space) for space in CORNERS)
    assert all(len(table.hands[seat]) == 2 for seat in range(3))
    assert leaks(table.answers, table.flavours_of) == []


# --- refusals, options, the catalog -------------------------------------------------------------------
def test_refused_actions_name_the_rule(client: FlaskClient) -> None:
    table = new_table(client, 2, CLAIM_SEED)
    seat0, seat1 = table.seats
    slide = {"type": "slide", "space": [0, 0], "direction": "right"}
    detail = problem(seat0.act(slide, 0), 422, "illegal-action")
    assert "no_roll" in detail, "first decide whether to roll"
    assert "seat 0's turn" in problem(seat1.act(slide, 0), 422, "illegal-action"), "a slide out of turn"
    assert "not in your hand" in problem(seat1.act({"type": "freeze", "cone": 0}, 0), 422, "illegal-action")
    table.send(0, NO_ROLL, 0)
    # (0, 0) pushed up wraps to (4, 0), where a tile starts.
    assert "opposite space is occupied" in problem(
        seat0.act({"type": "slide", "space": [0, 0], "direction": "up"}, 1), 422, "illegal-action"
    )
    table.send(0, {"type": "slide", "space": [0, 0], "direction": "right"}, 1)
    assert "adjacent space is occupied" in problem(
        seat0.act({"type": "slide", "space": [0, 1], "direction": "right"}, 2), 422, "illegal-action"
    )
    assert "no flavour tile" in problem(
        seat0.act({"type": "slide", "space": [0, 0], "direction": "down"}, 2), 422, "illegal-action"
    )
    for bad in ({"type": "slide", "space": [5, 0], "direction": "up"}, {"type": "slide", "space": [0, 1]}):
        problem(seat0.act(bad, 2), 422, "illegal-action")
    nothing = {"type": "freeze", "cone": table.hands[1][0]}
    assert "no open line matches it" in problem(seat1.act(nothing, 2), 422, "illegal-action")
    assert "slide" in problem(seat0.act({"type": "freeze", "cone": table.hands[0][0]}, 2), 422, "illegal-action")
    assert problem(seat1.act(nothing, 1), 409, "stale-version")
    public = table.read_public()
    assert public["version"] == 2 and len(table.moves) == 2
    assert leaks(table.answers, table.flavours_of) == []


def test_auto_freeze_claims_for_the_seat(client: FlaskClient) -> None:
    table = new_table(client, 2, CLAIM_SEED, auto_freeze=True)
    assert table.options == {
        "auto_freeze": True,
        "turn_limit": 0,
        "starting_hand": 1,
        "start_layout": "checkerboard",
        "shuffle_start": False,
        "fulfil_any_line": False,
    }
    for version, (seat, action) in enumerate(CLAIM_LINE):
        table.send(seat, action, version)
    public = table.read_public()
    assert CLAIMED_CONE in [c["id"] for c in public["view"]["fulfilled"][1]], "the server called FREEZE! for seat 1"
    assert public["waiting_for"] == [0] and public["view"]["points_left"] == 1
    assert table.seats[1].legal()["actions"] == []
    assert [e["seat"] for e in read_log(client, table.match_id)["entries"]] == [0, 0, 0]


def test_turn_limit_ends_the_match(client: FlaskClient) -> None:
    table = new_table(client, 3, "limit", turn_limit=4)
    final = table.play(limit=200)
    assert final["view"]["turn"] == 4 and "turn limit" in final["result"]["reason"]
    assert leaks(table.answers, table.flavours_of) == []


def test_catalog_lists_freeze_factory(client: FlaskClient) -> None:
    entry = client.get(f"/v1/games/{GAME}").get_json()
    assert (entry["min_players"], entry["max_players"]) == (2, 4)
    assert entry["information"] == "imperfect" and entry["chance"] is True and entry["simultaneous"] is False
    options = {option["name"]: option for option in entry["options"]}
    assert options["auto_freeze"]["type"] == "bool" and options["auto_freeze"]["default"] is False
    assert options["turn_limit"]["type"] == "int" and options["turn_limit"]["default"] == 0
    assert (options["starting_hand"]["default"], options["starting_hand"]["maximum"]) == (1, 2)
    assert options["start_layout"]["choices"] == ["checkerboard", "corners"]
    assert options["shuffle_start"]["default"] is False and options["fulfil_any_line"]["default"] is False
    ids = {assumption["id"] for assumption in entry["assumptions"]}
    assert {"freeze-window", "auto-freeze-option", "turn-limit", "cone-list", "own-lines", "miss-a-turn"} <= ids
    assert {"starting-hand", "fulfil-any-line-option"} <= ids
    assert entry in client.get("/v1/games").get_json()["items"]
    for players in (1, 5):
        response = client.post("/v1/matches", json={"game": GAME, "players": players})
        assert response.status_code == 400
