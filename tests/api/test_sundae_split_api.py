"""Sundae Split over HTTP: whole matches played by per-seat clients, scores counted by hand, no leaks.

Each seat is a client holding only its own token; the public is a client with none. Every answer
any of them gets is recorded, and after the match every face-down card (and every drawn card
before its split) is looked for in every answer a viewer other than its Splitter got while the
card was still hidden from that viewer.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

import jsonschema  # type: ignore[import-untyped]  # no stubs: types-jsonschema is not in the dev extra
import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from engine import Rng, get_game
from tests.api.conftest import bearer

GAME = "sundae_split"
CARD_ID = re.compile(r"(?<![\w-])C\d\d(?![\w-])")  # a card id on its own, not inside a match id
FLAVOURS = ("vanilla", "chocolate", "strawberry")
PILE_RULE = "'Each pile must have at least one card, and no more than four cards.'"
PILE_COUNT_RULE = "'There must be one pile per player.'"
FACE_DOWN_RULE = "must be face down; the rest of the cards must be face up"
# Deck after the removals, cards drawn per round: the rulebook's setup and the engine's round table.
DECK = {2: 36, 3: 48, 4: 60, 5: 65}
DRAW = {2: 6, 3: 8, 4: 10, 5: 13}
ALL_CARDS = [f"C{n:02d}" for n in range(1, 69)]
NOBODY = -1  # the owner of a card nobody may see yet (in the deck, or removed)


# --- building and checking splits from `constraints` (independent of the engine) -------------------
def random_split(constraints: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random valid split built only from `constraints`: any pile sizes, any face-down cards."""
    cards = list(constraints["cards"])
    rng.shuffle(cards)
    low, high = constraints["pile_size"]["min"], constraints["pile_size"]["max"]
    piles = constraints["piles"]
    while True:  # uniform over the allowed size vectors (rejection keeps it simple and unbiased)
        sizes = [rng.randint(low, high) for _ in range(piles)]
        if sum(sizes) == len(cards):
            break
    hidden = set(rng.sample(range(len(cards)), constraints["face_down"]))
    split, start = [], 0
    for size in sizes:
        positions = range(start, start + size)
        split.append(
            {
                "face_up": [cards[i] for i in positions if i not in hidden],
                "face_down": [cards[i] for i in positions if i in hidden],
            }
        )
        start += size
    return {"type": "split", "piles": split}


def assert_valid_split(action: dict[str, Any], legal: dict[str, Any]) -> None:
    """The split follows the answer's JSON Schema and every one of its constraints."""
    jsonschema.Draft202012Validator.check_schema(legal["schema"])
    jsonschema.validate(action, legal["schema"], cls=jsonschema.Draft202012Validator)
    constraints = legal["constraints"]
    placed = [card for pile in action["piles"] for card in pile["face_up"] + pile["face_down"]]
    assert sorted(placed) == sorted(constraints["cards"]), "every drawn card exactly once"
    assert len(action["piles"]) == constraints["piles"]
    for pile in action["piles"]:
        assert constraints["pile_size"]["min"] <= len(pile["face_up"]) + len(pile["face_down"])
        assert len(pile["face_up"]) + len(pile["face_down"]) <= constraints["pile_size"]["max"]
    assert sum(len(pile["face_down"]) for pile in action["piles"]) == constraints["face_down"]


# --- counting a sundae by hand, from the rulebook's scorepad ----------------------------------------
def hand_count(sundaes: list[list[dict[str, Any]]]) -> list[dict[str, int]]:
    """Each seat's scorepad column, counted from the cards as the view shows them."""
    bananas = [sum(card["name"] == "banana" for card in sundae) for sundae in sundaes]
    # 'All players with the most bananas score a bonus 10 points. All players with the second-most
    # bananas score a bonus 5 points.' 'You must have at least 1 banana'; a tie for most leaves
    # second place to the next smaller count (the engine's recorded assumption second-most-bananas).
    places = sorted({count for count in bananas if count >= 1}, reverse=True)
    sheets = []
    for sundae, count in zip(sundaes, bananas, strict=True):
        names = Counter(card["name"] for card in sundae)
        scoops = Counter(card["name"] for card in sundae if card["kind"] == "scoop")
        sheet = {
            "bananas": 10 if places[:1] == [count] else 5 if places[1:2] == [count] else 0,
            "cherries": names["cherry"] * max(scoops[flavour] for flavour in FLAVOURS),
            "flavour_sets": 3 * min(scoops[flavour] for flavour in FLAVOURS),
            "sprinkles_and_whipped_cream": 5 * min(names["sprinkles"], names["whipped cream"]),
            "scoops": sum(card["points"] for card in sundae if card["kind"] == "scoop"),
            "vegetables": -sum(card["points"] for card in sundae if card["kind"] == "vegetable"),
        }
        sheet["total"] = sum(sheet.values())
        sheets.append(sheet)
    return sheets


def expected_ranking(sundaes: list[list[dict[str, Any]]]) -> list[list[int]]:
    """'The player with the most points ... wins'; 'If two or more players are tied for the most points,
    the tied player(s) with the most ice cream scoops wins.' Lower places tied on points share a place.
    """
    totals = [sheet["total"] for sheet in hand_count(sundaes)]
    scoops = [sum(card["kind"] == "scoop" for card in sundae) for sundae in sundaes]
    places = sorted(set(totals), reverse=True)
    tied_first = [seat for seat, total in enumerate(totals) if total == places[0]]
    first = [[s for s in tied_first if scoops[s] == n] for n in sorted({scoops[s] for s in tied_first}, reverse=True)]
    return first + [[seat for seat, total in enumerate(totals) if total == place] for place in places[1:]]


def card(kind: str, name: str, points: int = 0) -> dict[str, Any]:
    """A card as views show it (id and '3+' do not count)."""
    return {"id": "C00", "kind": kind, "name": name, "points": points, "three_plus": False}


def test_hand_count_scores_the_rulebooks_example_2() -> None:
    # 'Nate scores 25 points total - 10 points for his banana bonus; 4 points for cherries (2 cherry
    # cards x 2 vanilla scoops); 3 points for his one set of all 3 ice cream flavors; 5 points for the
    # set of sprinkles and whipped cream; 6 points from ice cream scoops; and -3 points for the broccoli.'
    nate = [card("scoop", "vanilla", 1), card("scoop", "vanilla", 2), card("scoop", "chocolate", 1)]
    nate += [card("scoop", "strawberry", 2), card("topping", "cherry"), card("topping", "cherry")]
    nate += [card("topping", "sprinkles"), card("topping", "whipped cream"), card("topping", "banana")]
    nate += [card("vegetable", "broccoli", 3)]
    other = [card("topping", "banana"), card("topping", "banana"), card("vegetable", "corn", 2)]
    no_bananas = [card("scoop", "vanilla", 3)]
    counted = hand_count([[*nate, card("topping", "banana")], other, nate, no_bananas])
    assert counted[0] == {
        "bananas": 10,
        "cherries": 4,
        "flavour_sets": 3,
        "sprinkles_and_whipped_cream": 5,
        "scoops": 6,
        "vegetables": -3,
        "total": 25,
    }
    assert [sheet["bananas"] for sheet in counted] == [10, 10, 5, 0]
    assert counted[1]["total"] == 10 - 2 and counted[3]["total"] == 3


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_hand_count_agrees_with_many_random_games(players: int) -> None:
    """Many more endings than the HTTP matches reach (banana ties, tied totals), through the engine's views."""
    game = get_game(GAME)
    assert game is not None
    rng = Rng.from_seed(f"hand-count-{players}")
    tied_bananas = tied_totals = 0
    for number in range(150):
        state = game.start(players, {}, f"{players}-{number}")
        while not state.is_over():
            (seat,) = state.acting_seats()
            state.play(seat, state.sample_action(seat, rng))
        view = state.view(None)
        counted = hand_count(view["sundaes"])
        result = state.result()
        assert result is not None and view["scores"] == counted
        assert list(result.scores) == [sheet["total"] for sheet in counted]
        assert [list(group) for group in result.ranking] == expected_ranking(view["sundaes"])
        bananas = [sum(c["name"] == "banana" for c in sundae) for sundae in view["sundaes"]]
        tied_bananas += len(bananas) != len(set(bananas))
        tied_totals += len(result.scores) != len(set(result.scores))
    assert tied_bananas and (tied_totals or players == 2), "the games reach the tie rules"


# --- per-seat clients, and what each was told ------------------------------------------------------
class Opener(Protocol):
    """What sends requests: a Flask test client, or one that checks answers against openapi.yaml."""

    def open(self, *args: Any, **kwargs: Any) -> TestResponse: ...


@dataclass
class Answer:
    """One answer a viewer got (304s are not kept: they have no body)."""

    index: int
    viewer: int | None
    what: str
    text: str


@dataclass
class Hidden:
    """A card hidden from everyone but `owner` in answers `since` <= index < `until`.

    The owner is the Splitter who drew the card, or NOBODY while it is in the deck (or removed).
    `until` is the index of the answer to the action that showed the card (the split for a face-up
    card, the choice that took its pile for a face-down one, the draw for a card in the deck).
    """

    card: str
    owner: int
    since: int
    until: int | None = None  # None: not revealed yet


@dataclass
class Recorder:
    """Every answer of the match, numbered in the order they were received."""

    answers: list[Answer] = field(default_factory=list)

    @property
    def next_index(self) -> int:
        """The index the next answer will get."""
        return len(self.answers)

    def keep(self, viewer: int | None, what: str, response: TestResponse) -> None:
        """Record an answer; no request of a played match may fail with a 5xx."""
        assert response.status_code < 500, f"{what}: {response.status_code} {response.get_data(as_text=True)}"
        if response.status_code != 304:
            self.answers.append(Answer(self.next_index, viewer, what, response.get_data(as_text=True)))

    def leaks(self, hidden: list[Hidden]) -> list[str]:
        """Every answer that shows a card to a viewer it was hidden from at the time."""
        by_card: dict[str, list[Hidden]] = {}
        for h in hidden:
            by_card.setdefault(h.card, []).append(h)
        found = []
        for answer in self.answers:
            for card_id in sorted(set(CARD_ID.findall(answer.text))):
                for h in by_card.get(card_id, []):
                    until = len(self.answers) if h.until is None else h.until
                    if answer.viewer != h.owner and h.since <= answer.index < until:
                        found.append(f"answer {answer.index} ({answer.what}) to {answer.viewer} shows {card_id}")
        return found


@dataclass
class Player:
    """One seat's client (or the public's, with no seat): its own token only, every answer recorded."""

    client: Opener
    match_id: str
    seat: int | None
    token: str | None
    recorder: Recorder
    etag: str | None = None
    last: dict[str, Any] | None = None

    def call(self, method: str, suffix: str = "", **kwargs: Any) -> TestResponse:
        """One request to the match's URL with this player's token (if any), recorded."""
        headers = {**kwargs.pop("headers", {}), **(bearer(self.token) if self.token else {})}
        url = f"/v1/matches/{self.match_id}{suffix}"
        response = self.client.open(url, method=method, headers=headers, **kwargs)
        self.recorder.keep(self.seat, f"{method} {suffix or '/'} by {self.seat}", response)
        return response

    def read(self) -> dict[str, Any]:
        """The match as this player sees it, polled with If-None-Match (a 304 keeps the last answer)."""
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

    def log(self) -> dict[str, Any]:
        """GET the log as this player may see it."""
        response = self.call("GET", "/log")
        assert response.status_code == 200, response.get_json()
        return dict(response.get_json())

    def act(self, action: dict[str, Any], version: int) -> TestResponse:
        """POST an action stating the version it was decided on."""
        return self.call("POST", "/actions", json={"action": action, "expected_version": version})


# --- the table: what the test knows from its own actions -------------------------------------------
@dataclass
class Round:
    """One round as the test played it: the Splitter, its split, and who took which pile."""

    number: int
    splitter: int
    drawn_at: int
    cards: list[str] = field(default_factory=list)
    split: dict[str, Any] | None = None
    taken_by: dict[int, int] = field(default_factory=dict)


@dataclass
class Table:
    """A Sundae Split match played by one client per seat, with the public watching."""

    client: Opener
    players: int
    match_id: str
    seats: list[Player]
    public: Player
    recorder: Recorder
    rng: random.Random
    rounds: list[Round] = field(default_factory=list)
    hidden: list[Hidden] = field(default_factory=list)
    sundaes: list[list[str]] = field(default_factory=list)
    moves: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    splits_by_example: int = 0

    @classmethod
    def create(cls, client: Opener, players: int, seed: str | None, rng: random.Random) -> Table:
        """Create the match; hand each seat its own token."""
        request: dict[str, Any] = {"game": GAME, "players": players}
        if seed is not None:
            request["seed"] = seed
        response = client.open("/v1/matches", method="POST", json=request)
        assert response.status_code == 201, response.get_json()
        created = response.get_json()
        tokens = {seat["seat"]: seat["token"] for seat in created["tokens"]}
        assert created["status"] == "active" and sorted(tokens) == list(range(players))
        recorder = Recorder()
        seats = [Player(client, created["id"], seat, tokens[seat], recorder) for seat in range(players)]
        public = Player(client, created["id"], None, None, recorder)
        return cls(client, players, created["id"], seats, public, recorder, rng, sundaes=[[] for _ in range(players)])

    @property
    def current(self) -> Round:
        """The round being played."""
        return self.rounds[-1]

    def play(self) -> dict[str, Any]:
        """Every seat polls and acts when told to, the public watches; the final public match."""
        start = self.public.read()
        self.rounds.append(Round(1, start["view"]["splitter"], drawn_at=0))
        steps = DECK[self.players] // DRAW[self.players] * self.players  # one split + (players-1) choices
        for _ in range(steps + 1):
            public = self.public.read()
            self.check_seat_view(None, public["view"])
            self.check_public_log(self.public.log())
            if public["status"] == "finished":
                assert len(self.moves) == steps
                return public
            acted = 0
            for player in self.rng.sample(self.seats, len(self.seats)):
                seen = player.read()
                legal = player.legal()
                assert legal["version"] == seen["version"]
                assert legal["may_act"] == (player.seat in seen["to_act"])
                self.check_seat_view(player.seat, seen["view"])
                if self.rng.random() < 0.3:
                    self.check_seat_log(player.seat, player.log())
                if legal["may_act"]:
                    assert len(seen["to_act"]) == 1, f"one seat acts at a time: {seen['to_act']}"
                    acted += 1
                    self.take_turn(player, legal)
            assert acted, "nobody could act in an active match"
        raise AssertionError("the match did not end")

    def take_turn(self, player: Player, legal: dict[str, Any]) -> None:
        """The Splitter splits (its own random split, or the example); a chooser takes an open pile."""
        assert player.seat is not None
        now = self.current
        if legal["kind"] == "constructed":
            assert player.seat == now.splitter and now.split is None
            assert legal["constraints"]["piles"] == self.players and legal["constraints"]["every_card_exactly_once"]
            assert len(legal["constraints"]["cards"]) == DRAW[self.players]
            assert player.last is not None
            assert [c["id"] for c in player.last["view"]["hand"]] == legal["constraints"]["cards"]
            assert_valid_split(legal["example"], legal)
            use_example = now.number == 1 or self.rng.random() < 0.2
            action = legal["example"] if use_example else random_split(legal["constraints"], self.rng)
            self.splits_by_example += use_example
            assert_valid_split(action, legal)
            self.record_split(legal["constraints"]["cards"], action)
        else:
            assert now.split is not None, "a chooser before the split"
            chooser = (now.splitter + 1 + len(now.taken_by)) % self.players
            assert player.seat == chooser, "choosers go clockwise from the Splitter's left"
            open_piles = [i for i in range(self.players) if i not in now.taken_by]
            assert legal["actions"] == [{"type": "choose", "pile": i} for i in open_piles]
            action = self.rng.choice(legal["actions"])
        index = self.recorder.next_index
        response = player.act(action, legal["version"])
        assert response.status_code == 200, response.get_json()
        answer = response.get_json()
        assert answer["viewer"] == player.seat and answer["version"] == legal["version"] + 1
        self.moves.append((player.seat, action))
        if action["type"] == "split":
            self.mark_split(index, answer)
        else:
            self.mark_choice(player.seat, action["pile"], index)
        assert response.headers["ETag"] == f'"{answer["version"]}"'
        assert player.read() == answer, "the action's answer is the seat's view of the new version"

    def record_split(self, drawn: list[str], action: dict[str, Any]) -> None:
        """Remember the drawn cards and the split the Splitter sent."""
        now = self.current
        now.cards, now.split = list(drawn), action

    def mark_split(self, index: int, answer: dict[str, Any]) -> None:
        """The drawn cards were hidden until the split; the face-down ones stay hidden until taken."""
        now = self.current
        assert now.split is not None
        face_down = {c for pile in now.split["piles"] for c in pile["face_down"]}
        for card_id in now.cards:
            until = None if card_id in face_down else index  # face-up cards are shown from the split on
            self.hidden.append(Hidden(card_id, NOBODY, 0, now.drawn_at))  # in the deck until drawn
            self.hidden.append(Hidden(card_id, now.splitter, now.drawn_at, until))
        # The Splitter's own answer shows its face-down cards.
        shown = [[c["id"] for c in pile["face_down"]] for pile in answer["view"]["piles"]]
        assert shown == [pile["face_down"] for pile in now.split["piles"]]
        assert answer["view"]["hand"] == [] and answer["view"]["phase"] == "choose"

    def mark_choice(self, seat: int, pile: int, index: int) -> None:
        """The pile is revealed; after the last chooser the Splitter takes the last pile and a round ends."""
        now = self.current
        assert now.split is not None
        now.taken_by[pile] = seat
        taken = [(pile, seat)]
        if len(now.taken_by) == self.players - 1:
            # 'This means that the Splitter takes the last remaining pile every round.'
            (last,) = [i for i in range(self.players) if i not in now.taken_by]
            now.taken_by[last] = now.splitter
            taken.append((last, now.splitter))
        for number, taker in taken:
            sent = now.split["piles"][number]
            self.sundaes[taker] += sent["face_up"] + sent["face_down"]
            for h in self.hidden:
                if h.card in sent["face_down"] and h.owner == now.splitter:
                    h.until = index  # from the answer to the choice on
        if len(now.taken_by) == self.players and len(self.rounds) * DRAW[self.players] < DECK[self.players]:
            # The next round's cards are drawn by the action that ended this one.
            self.rounds.append(Round(now.number + 1, (now.splitter + 1) % self.players, drawn_at=index))

    # --- what each viewer is shown while the match runs -------------------------------------------
    def check_seat_view(self, seat: int | None, view: dict[str, Any]) -> None:
        """Piles and sundaes as the test knows them; face-down cards only for their Splitter."""
        now = self.current
        assert view["round"] == now.number and view["splitter"] == now.splitter
        assert [sorted(c["id"] for c in sundae) for sundae in view["sundaes"]] == [sorted(s) for s in self.sundaes]
        if now.split is None:
            assert view["piles"] == [] and view["phase"] == "split"
            assert view["hand_count"] == DRAW[self.players]
            assert len(view["hand"]) == (DRAW[self.players] if seat == now.splitter else 0)
            return
        over = len(now.taken_by) == self.players  # only the last round ends without a next one
        assert view["phase"] == (None if over else "choose") and view["hand"] == [] and view["hand_count"] == 0
        for number, (pile, sent) in enumerate(zip(view["piles"], now.split["piles"], strict=True)):
            assert pile["taken_by"] == now.taken_by.get(number)
            assert [c["id"] for c in pile["face_up"]] == sent["face_up"]
            assert pile["face_down_count"] == len(sent["face_down"])
            sees = seat == now.splitter or number in now.taken_by
            assert [c["id"] for c in pile["face_down"]] == (sent["face_down"] if sees else [])

    def check_public_log(self, log: dict[str, Any]) -> None:
        """While the match runs, a split's face-down cards are null until their pile is taken."""
        assert (log["seed"] is None) == (log["status"] != "finished"), "the seed is revealed at the end only"
        assert [e["version"] for e in log["entries"]] == list(range(1, len(self.moves) + 1))
        self.check_redacted(log["entries"], viewer=None)

    def check_seat_log(self, seat: int | None, log: dict[str, Any]) -> None:
        """A seat's log: its own splits in full, the others' redacted like the public's."""
        assert log["viewer"] == seat
        self.check_redacted(log["entries"], viewer=seat)

    def check_redacted(self, entries: list[dict[str, Any]], viewer: int | None) -> None:
        """Each logged split as `viewer` may see it now."""
        revealed = {c for sundae in self.sundaes for c in sundae}
        splits = [(seat, action) for seat, action in self.moves if action["type"] == "split"]
        logged = [(e["seat"], e["action"]) for e in entries if e["action"]["type"] == "split"]
        assert len(logged) == len(splits)
        for (seat, sent), (logged_seat, shown) in zip(splits, logged, strict=True):
            assert logged_seat == seat
            if viewer == seat:
                assert shown == sent
                continue
            expected = [
                {"face_up": p["face_up"], "face_down": [c if c in revealed else None for c in p["face_down"]]}
                for p in sent["piles"]
            ]
            assert shown == {"type": "split", "piles": expected}
        choices = [(e["seat"], e["action"]) for e in entries if e["action"]["type"] == "choose"]
        assert choices == [(seat, action) for seat, action in self.moves if action["type"] == "choose"]


# --- whole matches ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("players", "seed"), [(2, "two"), (3, None), (4, "four"), (5, None), (3, "three")])
def test_whole_match_by_separate_seats(client: FlaskClient, players: int, seed: str | None) -> None:
    table = Table.create(client, players, seed, random.Random(f"{players}-{seed}"))
    final = table.play()
    assert final["status"] == "finished" and final["to_act"] == [] and final["view"]["phase"] is None
    assert table.splits_by_example >= 1 and table.splits_by_example < len(table.rounds)
    assert len(table.rounds) == DECK[players] // DRAW[players] == final["view"]["rounds"]
    assert final["view"]["deck_count"] == 0

    # Every card dealt went to exactly one sundae, as the test itself tracked.
    dealt = [c for r in table.rounds for c in r.cards]
    assert len(dealt) == len(set(dealt)) == DECK[players]
    sundaes = final["view"]["sundaes"]
    assert [sorted(c["id"] for c in s) for s in sundaes] == [sorted(s) for s in table.sundaes]

    # The scores, counted by hand from the public view's sundaes.
    counted = hand_count(sundaes)
    assert final["view"]["scores"] == counted
    assert final["result"]["scores"] == [sheet["total"] for sheet in counted]
    ranking = expected_ranking(sundaes)
    assert final["result"]["ranking"] == ranking and final["result"]["winners"] == ranking[0]
    assert final["result"]["draw"] == (len(ranking) == 1)

    # No leak: no viewer was shown a card while it was hidden from them, nor ever a removed card.
    removed = [Hidden(card_id, NOBODY, 0) for card_id in ALL_CARDS if card_id not in dealt]
    assert table.recorder.leaks(table.hidden + removed) == []
    assert len(table.recorder.answers) > 20 * players

    # After the end: the seed, and the log in full.
    log = table.public.log()
    assert log["status"] == "finished" and log["seed"] == final["seed"] is not None
    assert hashlib.sha256(log["seed"].encode()).hexdigest() == log["seed_commitment"] == final["seed_commitment"]
    if seed is not None:
        assert log["seed"] == seed
    assert [(e["seat"], e["action"]) for e in log["entries"]] == table.moves
    for player in table.seats:
        assert [(e["seat"], e["action"]) for e in player.log()["entries"]] == table.moves

    # The seed and the log replay the match to the very views the seats and the public got.
    game = get_game(GAME)
    assert game is not None
    replayed = game.replay(players, final["options"], log["seed"], table.moves)
    result = replayed.result()
    assert result is not None and result.to_json() == final["result"]
    assert replayed.view(None) == final["view"]
    for player in table.seats:
        assert replayed.view(player.seat) == player.read()["view"]


def test_the_splitter_sees_its_face_down_cards_and_others_do_not(client: FlaskClient) -> None:
    table = Table.create(client, 4, "own-cards", random.Random(4))
    public = table.public.read()
    splitter = table.seats[public["view"]["splitter"]]
    legal = splitter.legal()
    assert [c["id"] for c in splitter.read()["view"]["hand"]] == legal["constraints"]["cards"]
    action = random_split(legal["constraints"], table.rng)
    answer = splitter.act(action, legal["version"]).get_json()
    face_down = [c for pile in action["piles"] for c in pile["face_down"]]
    assert [c["id"] for pile in answer["view"]["piles"] for c in pile["face_down"]] == face_down
    again = splitter.read()["view"]["piles"]
    assert [c["id"] for pile in again for c in pile["face_down"]] == face_down
    own_log = splitter.log()["entries"]
    assert own_log[0]["action"] == action
    for other in [*table.seats, table.public]:
        if other is splitter:
            continue
        text = other.call("GET").get_data(as_text=True) + other.call("GET", "/log").get_data(as_text=True)
        assert not set(CARD_ID.findall(text)) & set(face_down)
        logged = other.log()["entries"][0]["action"]
        assert [p["face_down"] for p in logged["piles"]] == [[None] * len(p["face_down"]) for p in action["piles"]]


# --- refusals --------------------------------------------------------------------------------------
def problem(response: TestResponse, status: int, code: str) -> str:
    """The answer is a problem with this status and code; its detail."""
    body = response.get_json()
    assert response.status_code == status and body["code"] == code, body
    return str(body["detail"])


def test_refused_splits_name_the_rule_and_the_pile(client: FlaskClient) -> None:
    table = Table.create(client, 3, "refusals", random.Random(3))
    splitter_seat = table.public.read()["view"]["splitter"]
    splitter = table.seats[splitter_seat]
    first, second = (table.seats[(splitter_seat + n) % 3] for n in (1, 2))
    legal = splitter.legal()
    c, version = legal["constraints"]["cards"], legal["version"]
    assert len(c) == 8 and legal["constraints"]["face_down"] == 3
    not_drawn = next(f"C{n:02d}" for n in range(1, 69) if f"C{n:02d}" not in c)

    def split(*piles: tuple[list[str], list[str]]) -> dict[str, Any]:
        return {"type": "split", "piles": [{"face_up": up, "face_down": down} for up, down in piles]}

    # Each refused split breaks one rule only; the detail names it, and the pile where there is one.
    refusals = [
        (split((c[3:5], c[0:3]), (c[5:7], []), (c[7:8], [])), ["pile 0 has 5 cards", PILE_RULE]),
        (split((c[3:4], c[0:3]), (c[4:8], []), ([], [])), ["pile 2 has 0 cards", PILE_RULE]),
        (split((c[2:4], c[0:2]), (c[4:6], []), (c[6:8], [])), ["2 cards are face down but exactly 3", FACE_DOWN_RULE]),
        (split((c[4:5], c[0:3]), (c[5:7], [c[3]]), (c[7:8], [])), ["4 cards are face down", FACE_DOWN_RULE]),
        (split((c[3:4], c[0:3]), ([*c[4:6], not_drawn], []), (c[6:8], [])), [f"pile 1: '{not_drawn}' is not one"]),
        (split((c[3:4], c[0:3]), (c[4:7], []), ([c[7], c[1]], [])), [f"pile 2: '{c[1]}' is in more than one place"]),
        (split((c[3:4], c[0:3]), (c[4:6], []), ([c[6]], [])), [f"not placed: ['{c[7]}']"]),
        (split((c[3:4], c[0:3]), (c[4:8], [])), ["make exactly 3 piles", PILE_COUNT_RULE]),
        (split((c[3:4], c[0:3]), (c[4:6], []), (c[6:7], []), (c[7:8], [])), ["make exactly 3 piles", PILE_COUNT_RULE]),
        ({"type": "split", "piles": {}}, ["make exactly 3 piles"]),
        ({"type": "split", "piles": [{"face_up": c}, {}, {}]}, ["pile 0 must be"]),
        ({"type": "split", "piles": [{"face_up": [1], "face_down": []}, {}, {}]}, ["pile 0: face_up and face_down"]),
        ({**legal["example"], "note": 1}, ['a split is {"type": "split"']),
        ({"type": "choose", "pile": 0}, ["this is the split phase"]),
    ]
    for action, phrases in refusals:
        detail = problem(splitter.act(action, version), 422, "illegal-action")
        for phrase in phrases:
            assert phrase in detail, f"{action}: {detail!r} lacks {phrase!r}"

    # Out of turn, and at a stale version; nothing was applied.
    assert "may not act now" in problem(first.act(legal["example"], version), 409, "not-your-turn")
    problem(splitter.act(legal["example"], version + 1), 409, "stale-version")
    assert splitter.legal() == legal
    assert table.public.log()["entries"] == [] and table.public.read()["version"] == version

    # A valid split, then choices out of turn, of taken or absent piles, and malformed ones.
    action = random_split(legal["constraints"], table.rng)
    split_at = table.recorder.next_index
    assert splitter.act(action, version).status_code == 200
    for watcher in (first, second, table.public):
        watcher.read(), watcher.log()
    choose = {"type": "choose", "pile": 0}
    assert "may not act now" in problem(second.act(choose, version + 1), 409, "not-your-turn")
    problem(splitter.act(choose, version + 1), 409, "not-your-turn")
    first_at = table.recorder.next_index
    assert first.act(choose, version + 1).status_code == 200
    for watcher in (first, second, table.public):
        watcher.read(), watcher.log()
    for pile in (0, 3, -1):
        detail = problem(second.act({"type": "choose", "pile": pile}, version + 2), 422, "illegal-action")
        assert f"pile {pile} is not open; open piles: [1, 2]" in detail
    for bad in ({"type": "choose", "pile": "1"}, {"type": "choose", "pile": True}, {**choose, "x": 0}, {"type": "x"}):
        problem(second.act(bad, version + 2), 422, "illegal-action")
    assert "this is the choose phase" in problem(second.act(action, version + 2), 422, "illegal-action")
    problem(first.act({"type": "choose", "pile": 1}, version + 2), 409, "not-your-turn")
    second_at = table.recorder.next_index
    assert second.act({"type": "choose", "pile": 2}, version + 2).status_code == 200
    final_view = second.read()["view"]
    assert [p["taken_by"] for p in final_view["piles"]] == [] and final_view["round"] == 2

    # No answer to another seat or the public showed a drawn card before the split, or a face-down
    # card before its pile was taken (pile 0 by the first chooser, the others at the second choice).
    secrets = []
    for number, pile in enumerate(action["piles"]):
        secrets += [Hidden(card_id, splitter_seat, 0, split_at) for card_id in pile["face_up"]]
        until = first_at if number == 0 else second_at
        secrets += [Hidden(card_id, splitter_seat, 0, until) for card_id in pile["face_down"]]
    assert len(secrets) == 8
    assert table.recorder.leaks(secrets) == []
    assert sum(answer.viewer != splitter_seat for answer in table.recorder.answers) > 20


def test_the_leak_check_finds_a_card_shown_too_early() -> None:
    recorder = Recorder()
    for viewer, text in ((1, '{"id": "C07x", "hand": []}'), (0, '["C07"]'), (1, '{"face_down": ["C07"]}')):
        recorder.answers.append(Answer(recorder.next_index, viewer, "GET", text))
    assert recorder.leaks([Hidden("C07", owner=0, since=0, until=3)]) == ["answer 2 (GET) to 1 shows C07"]
    assert recorder.leaks([Hidden("C07", owner=0, since=0, until=2)]) == []
    assert recorder.leaks([Hidden("C07", owner=1, since=0)]) == ["answer 1 (GET) to 0 shows C07"]
    assert recorder.leaks([Hidden("C07", owner=1, since=2)]) == []
    assert len(recorder.leaks([Hidden("C07", owner=NOBODY, since=0, until=1), Hidden("C07", 1, 1)])) == 1


def test_create_refuses_player_counts_outside_2_to_5(client: FlaskClient) -> None:
    for players in (1, 6):
        response = client.post("/v1/matches", json={"game": GAME, "players": players})
        assert response.status_code == 400 and "players" in response.get_json()["errors"]
    for players in range(2, 6):
        assert client.post("/v1/matches", json={"game": GAME, "players": players}).status_code == 201


def test_catalog_lists_sundae_split(client: FlaskClient) -> None:
    items = client.get("/v1/games").get_json()["items"]
    entry = next(item for item in items if item["id"] == GAME)
    assert entry["name"] == "Sundae Split"
    assert (entry["min_players"], entry["max_players"]) == (2, 5)
    assert entry["information"] == "imperfect" and entry["chance"] is True
    assert entry["cooperative"] is False and entry["simultaneous"] is False and entry["options"] == []
    ids = {a["id"] for a in entry["assumptions"]}
    assert ids >= {"scoop-cards", "vegetable-cards", "round-table", "second-most-bananas", "clockwise-is-seat-order"}
    assert all(a["choice"] and a["reason"] for a in entry["assumptions"])
    assert client.get(f"/v1/games/{GAME}").get_json() == entry
