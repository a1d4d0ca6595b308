"""Rock'em Sock'em over HTTP: whole matches raced by per-seat clients, in both modes, no lost rolls.

Each seat is a client holding only its own token. Rolls are sent WITHOUT `expected_version`, from
a thread per seat (or several per seat), so they really race: the server must apply each on the
current version, re-checking the rules, and never lose one or let two rolls grab one coin. The
bot reads its own view and legal actions, flips when it is the flipper, and otherwise keeps the
dice of the largest group on the coin's side (never all four) and re-rolls the rest.

Afterwards the log is replayed through the engine (`Game.replay`): it must give the final state,
and every 200 answer must be the replayed state at its version, seen by its seat.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from domain.matches import commands as service
from engine import get_game
from engine.rockem_sockem.components import BLOCK, DICE, FACES
from engine.rockem_sockem.game import RockemSockemState
from tests.api.conftest import Match, bearer, create_match, whole_log
from tests.api.test_concurrency import race

GAME = "rockem_sockem"
FLIP = {"type": "flip"}
DEADLINE = 20.0  # seconds a threaded match may take; matches end in well under 100 actions


class Opener(Protocol):
    """What sends requests: a Flask test client, or one that checks answers against openapi.yaml."""

    def open(self, *args: Any, **kwargs: Any) -> TestResponse: ...


# --- the bot: its own view and legal actions only ------------------------------------------------------
def favoured_keep(view: dict[str, Any], seat: int) -> list[int]:
    """The dice of the largest group on the coin's side (at most three), or none on a first roll."""
    dice = view["corners"][seat]["dice"]
    if dice is None:
        return []
    if sum(face["icon"] == BLOCK for face in dice) >= 3:
        return [i for i, face in enumerate(dice) if face["icon"] == BLOCK][: DICE - 1]  # go for the heal
    key = "colour" if view["coin"] == "colour" else "icon"
    best, _ = Counter(face[key] for face in dice).most_common(1)[0]
    return [i for i, face in enumerate(dice) if face[key] == best][: DICE - 1]


def choose(
    view: dict[str, Any], actions: list[dict[str, Any]], seat: int, strict: bool = True
) -> dict[str, Any] | None:
    """The flip if it is listed; else the favoured keep; None with nothing to do.

    `strict`: the view and the actions describe one version, so the keep must be listed. A racer
    that read them apart (realtime) sends its keep anyway, and the server re-checks it."""
    if not actions:
        return None
    if actions == [FLIP]:
        return FLIP
    action = {"type": "roll", "keep": favoured_keep(view, seat)}
    assert not strict or action in actions, (action, actions)
    return action


def simulate(mode: str, seed: str) -> tuple[RockemSockemState, list[dict[str, Any] | None]]:
    """The bot against itself in the engine (rounds mode: the order of answers does not matter).

    The final state, and `last_round` after every resolved step (to find a tie in a line)."""
    game = get_game(GAME)
    assert game is not None
    state = game.start(2, {"mode": mode}, seed)
    assert isinstance(state, RockemSockemState)
    rounds: list[dict[str, Any] | None] = []
    while not state.is_over():
        for seat in state.acting_seats():
            action = choose(state.view(seat), state.legal_actions(seat), seat)
            assert action is not None
            state.play(seat, action)
            rounds.append(state.last_round)
            if state.is_over() or action == FLIP or state.phase == "flip":
                break
    return state, rounds


# --- what every client was told -----------------------------------------------------------------------
@dataclass
class Answer:
    """One answer: who asked, what, the action sent (for POSTs), the status and the body."""

    viewer: int | None
    what: str
    action: dict[str, Any] | None
    status: int
    body: Any


@dataclass
class Table:
    """One match and every answer its clients got (a lock keeps the list whole across threads)."""

    opener_factory: Any  # () -> Opener: one per thread (the Flask test client is not shared)
    match_id: str
    tokens: dict[int, str]
    seed: str | None
    answers: list[Answer] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def create(cls, opener_factory: Any, mode: str, seed: str | None) -> Table:
        """POST /v1/matches for Rock'em Sock'em in this mode, both seats filled."""
        request: dict[str, Any] = {"game": GAME, "players": 2, "options": {"mode": mode}}
        if seed is not None:
            request["seed"] = seed
        response = opener_factory().open("/v1/matches", method="POST", json=request)
        assert response.status_code == 201, response.get_json()
        body = response.get_json()
        assert body["options"] == {"mode": mode}
        return cls(opener_factory, body["id"], {t["seat"]: t["token"] for t in body["tokens"]}, seed)

    def client(self, seat: int | None) -> SeatClient:
        """A client of one seat (or the public), with its own opener."""
        return SeatClient(self, self.opener_factory(), seat)

    def keep(self, answer: Answer) -> None:
        """Record an answer."""
        with self.lock:
            self.answers.append(answer)

    # --- playing ---------------------------------------------------------------------------------
    def play_threaded(self, per_seat: int = 1) -> dict[str, Any]:
        """Both seats play at once, `per_seat` threads each, every roll unpinned; the final public match."""
        barrier = threading.Barrier(2 * per_seat)
        deadline = time.monotonic() + DEADLINE

        def loop(seat: int) -> int:
            me = self.client(seat)
            barrier.wait()
            sent = 0
            while time.monotonic() < deadline:
                match = me.get("")
                if match["status"] == "finished":
                    return sent
                if seat not in match["to_act"]:
                    time.sleep(0.001)  # rounds mode: wait for the other seat's answer
                    continue
                legal = me.get("/legal-actions")
                action = choose(match["view"], legal["actions"], seat, strict=False) if legal["may_act"] else None
                if action is not None:
                    me.act(action)
                    sent += 1
            raise AssertionError(f"seat {seat}: no knock-out within {DEADLINE}s")

        seats = [seat for seat in (0, 1) for _ in range(per_seat)]
        with ThreadPoolExecutor(len(seats)) as pool:
            sent = list(pool.map(loop, seats))
        assert sum(sent) >= 4
        return self.client(None).get("")

    def play_in_turn(self) -> dict[str, Any]:
        """One request at a time: every seat in `to_act` answers, seat 0 first; the final public match."""
        seats = {seat: self.client(seat) for seat in (0, 1)}
        public = self.client(None)
        for _ in range(2000):
            match = public.get("")
            if match["status"] == "finished":
                return match
            for seat in match["to_act"]:
                me = seats[seat]
                legal = me.get("/legal-actions")
                action = choose(me.get("")["view"], legal["actions"], seat)
                assert action is not None
                status, body = me.act(action)
                assert status == 200, body
                if body["status"] == "finished" or action == FLIP or body["view"]["phase"] == "flip":
                    break
        raise AssertionError("no knock-out in 2000 steps")

    # --- checking --------------------------------------------------------------------------------
    def check_against_replay(self, final: dict[str, Any]) -> list[dict[str, Any]]:
        """The log replayed gives the final view, and each 200 action answer is its version's view.

        Also: log versions are 1..N without gaps, and each applied action is in the log exactly
        once, at the version its answer names. Returns the log entries."""
        log = whole_log(lambda after: self.client(None).get(f"/log?after={after}"))
        assert log["status"] == "finished" and log["seed"] == final["seed"] and final["seed"]
        entries: list[dict[str, Any]] = log["entries"]
        assert (
            [e["version"] for e in entries] == list(range(1, len(entries) + 1)) == list(range(1, final["version"] + 1))
        )
        applied = [a for a in self.answers if a.what == "POST /actions" and a.status == 200]
        assert sorted(a.body["version"] for a in applied) == [e["version"] for e in entries], "a roll lost or doubled"
        for answer in applied:
            entry = entries[answer.body["version"] - 1]
            assert (entry["seat"], entry["action"]) == (answer.viewer, answer.action)
        game = get_game(GAME)
        assert game is not None
        moves = [(e["seat"], e["action"]) for e in entries]
        replayed = game.replay(2, final["options"], final["seed"], moves)
        assert replayed.view(None) == final["view"]
        result = replayed.result()
        assert result is not None and result.to_json() == final["result"]
        by_version = {a.body["version"]: a for a in applied}
        state = game.start(2, final["options"], final["seed"])
        for version, (seat, action) in enumerate(moves, start=1):
            state.play(seat, action)
            assert by_version[version].body["view"] == state.view(seat), f"answer at version {version}"
        return entries

    def refusals(self) -> list[Answer]:
        """Every answer that was not a success."""
        return [a for a in self.answers if a.status not in (200, 201)]


@dataclass
class SeatClient:
    """One seat's client (or the public's): its own token only; every answer recorded."""

    table: Table
    opener: Opener
    seat: int | None

    def headers(self) -> dict[str, str]:
        """This client's Authorization header."""
        return bearer(self.table.tokens[self.seat]) if self.seat is not None else {}

    def get(self, suffix: str) -> dict[str, Any]:
        """GET the match (or a sub-resource); it must answer 200."""
        response = self.opener.open(f"/v1/matches/{self.table.match_id}{suffix}", method="GET", headers=self.headers())
        body = response.get_json()
        self.table.keep(Answer(self.seat, f"GET {suffix or '/'}", None, response.status_code, body))
        assert response.status_code == 200, body
        return dict(body)

    def act(self, action: Any, expected_version: int | None = None) -> tuple[int, dict[str, Any]]:
        """POST an action, unpinned unless a version is given; the status and body."""
        payload: dict[str, Any] = {"action": action}
        if expected_version is not None:
            payload["expected_version"] = expected_version
        response = self.opener.open(
            f"/v1/matches/{self.table.match_id}/actions", method="POST", json=payload, headers=self.headers()
        )
        body = response.get_json()
        self.table.keep(Answer(self.seat, "POST /actions", action, response.status_code, body))
        return response.status_code, body


def assert_refusals_are_reasoned(table: Table) -> Counter[tuple[int, str]]:
    """Every refused action got a 409 or 422 problem with a code and a detail; never a 5xx."""
    seen: Counter[tuple[int, str]] = Counter()
    for answer in table.refusals():
        assert answer.what == "POST /actions", answer
        assert answer.status in (409, 422), answer
        assert answer.body["code"] in ("not-your-turn", "illegal-action", "match-over") and answer.body["detail"]
        seen[(answer.status, answer.body["code"])] += 1
    return seen


def grabs_per_flip(final: dict[str, Any], entries: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """Replay the log one action at a time: exactly one roll ends each coin flip (a grab, or a tie in
    rounds mode) and no roll applies between the end of a round and the next flip. The loser of a
    grab turns exactly one card, except on Down for the Count with mixed colours on the colour side (none). Returns
    (seat, last_round) for every grab."""
    game = get_game(GAME)
    assert game is not None
    state = game.start(2, final["options"], final["seed"])
    assert isinstance(state, RockemSockemState)
    grabs: list[tuple[int, dict[str, Any]]] = []
    ended_this_flip = 0
    for entry in entries:
        before = state.clone()
        state.play(entry["seat"], entry["action"])
        if entry["action"] == FLIP:
            assert before.round == 1 or ended_this_flip == 1, "a flip before the last round ended"
            ended_this_flip = 0
            continue
        assert before.phase == "race" and ended_this_flip == 0, f"a roll applied after the coin was taken: {entry}"
        if state.round != before.round or state.is_over():
            ended_this_flip += 1
            event = state.last_round
            assert event is not None
            if event["grabbed_by"] is None:
                assert event["both_matched"] and final["options"]["mode"] == "rounds"
                continue
            grabber, loser = event["grabbed_by"], 1 - event["grabbed_by"]
            grabs.append((grabber, event))
            shown = [c.hits_shown + c.misses_shown for c in state.corners]
            shown_before = [c.hits_shown + c.misses_shown for c in before.corners]
            dice = [FACES[f] for f in state.corners[grabber].dice or []]
            blocks = all(face["icon"] == BLOCK for face in dice)
            one_colour = len({face["colour"] for face in dice}) == 1
            expected = 0 if blocks and before.coin == "colour" and not one_colour else 1
            assert shown[loser] - shown_before[loser] == expected, (event, before.coin)
            assert (event["turned"] is not None) == (expected == 1)
    assert state.is_over() and ended_this_flip == 1
    return grabs


@pytest.fixture
def opener(app: Flask) -> Any:
    """A fresh Flask test client per thread."""
    return app.test_client


# --- whole matches ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["rounds", "realtime"])
def test_whole_matches_raced_by_both_seats(opener: Any, mode: str) -> None:
    for number in range(4):
        table = Table.create(opener, mode, None if number % 2 else f"whole-{mode}-{number}")
        final = table.play_threaded()
        assert final["status"] == "finished" and final["to_act"] == [] and final["waiting_for"] == []
        result = final["result"]
        (winner,) = result["winners"]
        loser = 1 - winner
        assert result["ranking"] == [[winner], [loser]] and result["scores"][winner] == 1
        assert final["view"]["corners"][loser]["hits_shown"] == 3 > final["view"]["corners"][winner]["hits_shown"]
        assert final["view"]["phase"] is None and final["view"]["last_round"]["grabbed_by"] == winner
        entries = table.check_against_replay(final)
        grabs = grabs_per_flip(final, entries)
        assert sum(1 for e in entries if e["action"] == FLIP) == final["view"]["round"]
        assert grabs[-1][0] == winner
        codes = assert_refusals_are_reasoned(table)
        if mode == "rounds":
            assert not codes, "in rounds mode the bot only acts when it is in to_act, and nobody can take that away"
            if table.seed is not None:
                state, _ = simulate(mode, table.seed)  # the line does not depend on who answers first
                assert final["view"] == state.view(None)


def test_realtime_many_rollers_never_grab_one_coin_twice(opener: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both seats x 3 threads each, all rolling unpinned as fast as they can."""
    refusals: Counter[tuple[int, str]] = Counter()
    commits: Counter[str] = Counter()
    commit_action = service.commit_action

    def counted(*args: Any, **kwargs: Any) -> Any:
        attempt = commit_action(*args, **kwargs)
        commits[attempt.outcome.kind] += 1
        return attempt

    monkeypatch.setattr(service, "commit_action", counted)
    for number in range(4):
        table = Table.create(opener, "realtime", f"hammer-{number}")
        final = table.play_threaded(per_seat=3)
        entries = table.check_against_replay(final)
        grabs = grabs_per_flip(final, entries)
        flips = sum(1 for e in entries if e["action"] == FLIP)
        assert len(grabs) == flips == final["view"]["round"]  # realtime: every flip ends in one grab
        codes = assert_refusals_are_reasoned(table)
        refusals += codes
        # Stale reads: a keep decided on the last round's dice, a second flip, a roll after the grab.
        assert set(codes) <= {(409, "not-your-turn"), (422, "illegal-action"), (409, "match-over")}, codes
        grab_answers = [
            a
            for a in table.answers
            if a.what == "POST /actions" and a.status == 200 and a.action != FLIP and a.body["view"]["phase"] != "race"
        ]
        assert len(grab_answers) == len(grabs), "one 200 answer ends each round"
    print(f"refused while racing: {dict(refusals)}; compare-and-set outcomes: {dict(commits)}")
    assert refusals, "six racers with stale reads are refused sometimes: the race is real"
    assert commits["stale"] > 0, "some unpinned rolls lost a compare-and-set and were retried"


def test_a_tie_is_recorded_in_rounds_mode(opener: Any) -> None:
    """Both seats match in one roll: nobody grabs, no card is turned, the other seat flips next."""
    seed = next(
        f"tie-{n}"
        for n in range(200)
        if {"grabbed_by": None, "both_matched": True} in simulate("rounds", f"tie-{n}")[1]
    )
    table = Table.create(opener, "rounds", seed)
    final = table.play_threaded()
    entries = table.check_against_replay(final)
    grabs_per_flip(final, entries)
    ties = [
        a
        for a in table.answers
        if a.status == 200
        and isinstance(a.body, dict)
        and a.body.get("view", {}).get("last_round") == {"grabbed_by": None, "both_matched": True}
    ]
    assert ties, "the tie shows in last_round"
    tie = ties[0].body["view"]
    assert tie["phase"] == "flip" and all(c["dice"] is not None for c in tie["corners"])


# --- rounds mode: a step resolves when both answered, and hides the first answer ------------------------
def test_rounds_mode_hides_a_keep_until_the_step_resolves(opener: Any) -> None:
    table = Table.create(opener, "rounds", "hidden-keep")
    first, second, public = table.client(0), table.client(1), table.client(None)
    assert first.act(FLIP)[0] == 200
    assert first.act({"type": "roll", "keep": []})[0] == 200
    assert second.act({"type": "roll", "keep": []})[0] == 200  # the first step resolved: both rolled
    step = public.get("")
    assert all(corner["dice"] is not None for corner in step["view"]["corners"]) and step["to_act"] == [0, 1]
    version = step["version"]

    status, answer = first.act({"type": "roll", "keep": [0, 2]})
    assert status == 200 and answer["version"] == version + 1
    assert answer["to_act"] == answer["waiting_for"] == [1] and answer["view"]["my_keep"] == [0, 2]
    assert answer["view"]["answered"] == [True, False]
    assert answer["view"]["corners"] == step["view"]["corners"], "nothing rolled before both answered"
    assert first.act({"type": "roll", "keep": []})[1]["code"] == "not-your-turn"  # one answer per step

    since = len(table.answers)
    for viewer in (second, public):
        seen = viewer.get("")
        assert seen["view"]["my_keep"] is None and seen["view"]["answered"] == [True, False]
        assert seen["view"]["corners"] == step["view"]["corners"]
        log = viewer.get("/log")["entries"]
        assert log[-1]["seat"] == 0 and log[-1]["action"] == {"type": "roll", "keep": None}
        assert viewer.get("")["to_act"] == [1]
    assert second.get("/legal-actions")["may_act"] is True
    own_log = first.get("/log")["entries"]
    assert own_log[-1]["action"] == {"type": "roll", "keep": [0, 2]}
    for answer_ in table.answers[since:]:
        if answer_.viewer != 0 and answer_.what != "GET /legal-actions":  # that lists every keep
            # So do the legal actions a seat's read carries (its own, as GET /legal-actions answers them).
            body = {key: value for key, value in answer_.body.items() if key != "legal_actions"}
            assert "[0, 2]" not in repr(body), f"seat 0's keep leaked to {answer_.viewer}: {answer_.what}"

    status, resolved = second.act({"type": "roll", "keep": [1]})
    assert status == 200 and resolved["view"]["answered"] == [False, False] and resolved["view"]["my_keep"] is None
    before, after = step["view"]["corners"], resolved["view"]["corners"]
    if resolved["view"]["phase"] == "race":
        assert [after[0]["dice"][i] for i in (0, 2)] == [before[0]["dice"][i] for i in (0, 2)]
        assert after[1]["dice"][1] == before[1]["dice"][1]
    log = second.get("/log")["entries"]
    assert log[-2]["action"] == {"type": "roll", "keep": [0, 2]}, "shown once the step resolved"


def test_pinned_rolls_racing_on_one_version_give_stale_version(app: Flask, opener: Any) -> None:
    for mode in ("rounds", "realtime"):
        table = Table.create(opener, mode, f"pinned-{mode}")
        assert table.client(0).act(FLIP)[0] == 200
        match = create_match_shim(table)
        roll = {"type": "roll", "keep": []}
        answers = race(
            app,
            match,
            [
                ({"action": roll, "expected_version": 1}, bearer(table.tokens[0])),
                ({"action": roll, "expected_version": 1}, bearer(table.tokens[1])),
            ],
        )
        assert sorted(status for status, _ in answers) == [200, 409], answers
        loser = next(body for status, body in answers if status == 409)
        assert loser["code"] == "stale-version" and loser["current_version"] == 2
        # The same two rolls unpinned: both apply.
        later = Table.create(opener, mode, f"unpinned-{mode}")
        assert later.client(0).act(FLIP)[0] == 200
        answers = race(
            app,
            create_match_shim(later),
            [({"action": roll}, bearer(later.tokens[0])), ({"action": roll}, bearer(later.tokens[1]))],
        )
        assert sorted(status for status, _ in answers) == [200, 200], answers
        assert sorted(body["version"] for _, body in answers) == [2, 3]


def create_match_shim(table: Table) -> Match:
    """A `tests.api.conftest.Match` for the `race` helper."""
    return Match(table.match_id, table.tokens, {})


# --- refusals and the catalog ----------------------------------------------------------------------------
def test_refused_actions_say_why(client: FlaskClient, opener: Any) -> None:
    table = Table.create(opener, "rounds", "refusals")
    flipper, other = table.client(0), table.client(1)

    def refused(seat: SeatClient, action: Any, status: int, code: str, words: str) -> None:
        got, body = seat.act(action)
        assert (got, body["code"]) == (status, code), (action, body)
        assert words in body["detail"], (action, body["detail"])

    refused(other, FLIP, 409, "not-your-turn", "seats to act: [0]")
    refused(flipper, {"type": "roll", "keep": []}, 422, "illegal-action", "flip")
    refused(flipper, {"type": "flip", "coin": "colour"}, 422, "illegal-action", "flip")
    assert flipper.act(FLIP)[0] == 200
    refused(flipper, FLIP, 422, "illegal-action", "already flipped")
    refused(other, {"type": "roll", "keep": [0]}, 422, "illegal-action", "first roll")
    refused(other, {"type": "roll"}, 422, "illegal-action", "a roll is")
    refused(other, {"type": "roll", "keep": [], "extra": 1}, 422, "illegal-action", "a roll is")
    assert flipper.act({"type": "roll", "keep": []})[0] == 200
    refused(flipper, {"type": "roll", "keep": []}, 409, "not-your-turn", "seats to act: [1]")
    assert other.act({"type": "roll", "keep": []})[0] == 200
    keep: object
    for keep in ([0, 1, 2, 3], [3, 2, 1, 0]):
        refused(other, {"type": "roll", "keep": keep}, 422, "illegal-action", "all four")
    for keep in ([4], [-1], [0, 0], ["0"], [True], [1.0], [None]):
        refused(other, {"type": "roll", "keep": keep}, 422, "illegal-action", "distinct dice")
    refused(other, {"type": "roll", "keep": "0"}, 422, "illegal-action", "a roll is")
    refused(other, {"type": "roll", "keep": {"0": 1}}, 422, "illegal-action", "a roll is")
    bad = client.post(f"/v1/matches/{table.match_id}/actions", json={"action": "roll"}, headers=other.headers())
    assert bad.status_code == 400
    assert public_version(table) == 3, "no refused action changed the match"
    final = table.play_in_turn()
    refused(flipper, FLIP, 409, "match-over", "over")
    assert final["status"] == "finished"


def public_version(table: Table) -> int:
    """The match's version as the public sees it."""
    return int(table.client(None).get("")["version"])


def test_realtime_refusals(opener: Any) -> None:
    table = Table.create(opener, "realtime", "realtime-refusals")
    zero, one = table.client(0), table.client(1)
    assert zero.act({"type": "roll", "keep": []})[1]["code"] == "illegal-action"
    assert zero.act(FLIP)[0] == 200
    status, body = one.act({"type": "roll", "keep": []})
    assert status == 200 and body["to_act"] == [0, 1] and body["view"]["corners"][0]["dice"] is None
    assert one.act({"type": "roll", "keep": [0, 1, 2]})[0] == 200  # rolls again at once: realtime
    assert zero.act({"type": "roll", "keep": [1]})[1]["code"] == "illegal-action"  # its first roll keeps nothing
    assert table.client(None).get("/log")["entries"][-1]["action"] == {"type": "roll", "keep": [0, 1, 2]}


def test_catalog_lists_rockem_sockem(client: FlaskClient) -> None:
    games = client.get("/v1/games").get_json()["items"]
    entry = next(game for game in games if game["id"] == GAME)
    assert client.get(f"/v1/games/{GAME}").get_json() == entry
    assert (entry["min_players"], entry["max_players"], entry["simultaneous"], entry["chance"]) == (2, 2, True, True)
    (mode,) = entry["options"]
    assert mode["name"] == "mode" and mode["type"] == "choice" and mode["default"] == "rounds"
    assert mode["choices"] == ["rounds", "realtime"]
    ids = {assumption["id"] for assumption in entry["assumptions"]}
    assert {"die-faces", "hit-cards", "both-match-in-one-roll", "block-on-colour-side"} <= ids
    assert all(assumption["choice"] and assumption["reason"] for assumption in entry["assumptions"])
    refused = client.post("/v1/matches", json={"game": GAME, "players": 2, "options": {"mode": "turns"}})
    assert refused.status_code == 400 and "mode" in refused.get_json()["errors"]["options"]
    assert client.post("/v1/matches", json={"game": GAME, "players": 3}).status_code == 400
    match = create_match(client, game=GAME, seed="catalog")
    assert match.body["options"] == {"mode": "rounds"}
