"""Robots Love Ice Cream: what each seat sees, redacted logs, determinization, storage and the checked path."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from engine import CorruptState, IllegalAction, NotYourTurn, Rng
from engine.robots_love_ice_cream import phases
from engine.robots_love_ice_cream.state import RobotsState
from tests.engine.test_robots_love_ice_cream_helpers import GAME, planet, play_randomly, start, table, turn


def canon(value: object) -> object:
    return json.loads(json.dumps(value))


def test_each_seat_sees_its_own_hand_and_the_whole_table() -> None:
    """'each seat's hand is its own'; everything on the table is public (Sprinkletonium, tokens, trucks, planet)."""
    state = start(3, seed="views")
    active = state.acting_seats()[0]
    for viewer in (None, 0, 1, 2):
        seen = state.view(viewer)
        for seat, entry in enumerate(seen["seats"]):
            assert entry["hand"] == (state.hands[seat] if seat == viewer else None)
            assert entry["hand_count"] == len(state.hands[seat])
        assert seen["drawn"] == (state.drawn if viewer == active else None) and seen["drawn_count"] == 2
        assert (
            seen["columns"]
            and seen["track_levels"] == state.track_levels
            and seen["ice_cream_deck_count"] == len(state.ice_deck)
        )
        assert "rng" not in json.dumps(seen) and "ice_deck" not in seen


def test_open_hands_shows_every_hand() -> None:
    """Option open_hands: 'Players are allowed to discuss their plans with each other prior to taking their turns.'"""
    state = start(3, {"open_hands": True}, seed="open")
    for viewer in (None, 0, 2):
        seen = state.view(viewer)
        assert [entry["hand"] for entry in seen["seats"]] == state.hands and seen["drawn"] == state.drawn


def test_what_a_seat_kept_is_hidden_from_the_others() -> None:
    """Draw 2 keep 1: the card discarded goes face up (assumption discard-face-up); the card kept is the seat's."""
    state = start(2, seed="keep")
    seat = state.acting_seats()[0]
    action = state.legal_actions(seat)[0]
    state.play(seat, action)
    assert state.redact_action(seat, action, seat) == action
    assert state.redact_action(seat, action, 1 - seat) == {"type": "keep_drawn", "cards": None}
    assert state.redact_action(seat, action, None) == {"type": "keep_drawn", "cards": None}
    assert state.redact_log([(seat, action), (seat, {"type": "end_turn"})], None)[1] == {"type": "end_turn"}
    opened = start(2, {"open_hands": True}, seed="keep")
    assert opened.redact_action(seat, action, None) == action


def test_a_card_given_away_is_seen_only_by_giver_and_receiver() -> None:
    state = table(3)
    action = {"type": "use_boost_in_play", "boost": "team_player", "target": 2, "card": "funday"}
    assert state.redact_action(0, action, 0) == action and state.redact_action(0, action, 2) == action
    assert state.redact_action(0, action, 1) == {**action, "card": None}
    sprinkle = {**action, "card": "sprinkletonium"}  # a Sprinkletonium card back is public
    assert state.redact_action(0, sprinkle, 1) == sprinkle


def test_determinize_keeps_the_view_and_deals_the_unseen_cards() -> None:
    """'deck orders and the RNG are seen by nobody': a determinization re-deals the deck and the other hands."""
    state = start(3, seed="det")
    viewer = 1
    unknown = Counter(state.ice_deck) + Counter(state.hands[0]) + Counter(state.hands[2])
    if viewer != state.acting_seats()[0]:
        unknown += Counter(state.drawn)
    samples = [state.determinize(viewer, Rng.from_seed(f"sample-{i}")) for i in range(6)]
    for guess in samples:
        assert canon(guess.view(viewer)) == canon(state.view(viewer))
        assert guess.hands[viewer] == state.hands[viewer]
        dealt = Counter(guess.ice_deck) + Counter(guess.hands[0]) + Counter(guess.hands[2])
        dealt += Counter(guess.drawn) if viewer != state.acting_seats()[0] else Counter()
        assert dealt == unknown
        assert Counter(guess.robot_deck) == Counter(state.robot_deck)
        assert guess.rng.state != state.rng.state
    assert len({tuple(g.hands[0]) for g in samples}) > 1 and len({tuple(g.robot_deck) for g in samples}) > 1


def test_a_determinization_does_not_depend_on_where_hidden_cards_are() -> None:
    state = start(2, seed="fair")
    twin = state.clone()
    twin.hands[1], twin.ice_deck[: len(twin.hands[1])] = twin.ice_deck[: len(twin.hands[1])], twin.hands[1]
    twin.hands[1].sort()
    twin.robot_deck.reverse()
    assert twin.hands[1] != state.hands[1] and canon(state.view(0)) == canon(twin.view(0))
    first = state.determinize(0, Rng.from_seed("same")).to_json()
    second = twin.determinize(0, Rng.from_seed("same")).to_json()
    assert canon(first) == canon(second)


def test_json_round_trip_and_replay() -> None:
    """A state is a function of (game, options, seed, actions): storing the seed and the log rebuilds it."""
    options = {"attack_twice": True, "ice_cream_social": True, "weaponized_sprinkletonium": True}
    state = start(3, options, seed="round-trip")
    log = play_randomly(state, "round-trip")
    back = GAME.state_from_json(json.loads(json.dumps(state.to_json())))
    assert canon(back.to_json()) == canon(state.to_json()) and back.result() == state.result()
    again = GAME.replay(3, options, "round-trip", log)
    assert canon(again.to_json()) == canon(state.to_json())


def test_a_broken_state_is_refused() -> None:
    data = start(2).to_json()
    for broken in ({k: v for k, v in data.items() if k != "hands"}, {**data, "hands": [[]]}, {**data, "options": 3}):
        with pytest.raises(CorruptState):
            GAME.state_from_json(broken)


def test_the_checked_path_names_the_step_and_refuses_other_seats() -> None:
    state = table(2)
    planet(state, ("blue_spinston", ["pewboty"]))
    turn(state, 0, ["funday"])
    with pytest.raises(NotYourTurn):
        state.play(1, {"type": "end_turn"})
    with pytest.raises(IllegalAction, match="you may send: attack, use_boost_in_play, refill_hand, end_turn"):
        state.play(0, {"type": "buy_boost", "boost": "power_pack"})
    with pytest.raises(IllegalAction, match="is not in play in front of you"):
        state.play(0, {"type": "use_boost_in_play", "boost": "free_sample", "target": 1})
    with pytest.raises(IllegalAction, match="an attack is"):
        state.play(0, {"type": "attack", "column": 0})
    with pytest.raises(IllegalAction, match="there is no column 5"):
        state.play(0, {"type": "attack", "column": 5, "cards": ["funday"], "upgrade": None})


def test_acting_seats_follow_the_phases() -> None:
    """One seat decides at a time: the active player, the buyer, the player equipping, the first player (social)."""
    state = start(2, seed="acting")
    steps: Counter[str] = Counter()
    rng = Rng.from_seed("acting")
    while not state.is_over():
        seats = state.acting_seats()
        assert len(seats) == 1 and state.waiting_for() == seats
        steps[state.step or state.phase] += 1
        state.play(seats[0], state.sample_action(seats[0], rng))
    assert state.acting_seats() == () and {phases.KEEP, phases.ACT} <= set(steps)
    assert isinstance(state, RobotsState)


def test_only_the_canonical_form_is_accepted() -> None:
    """What legal-actions lists is exactly what play accepts: true is not 1, 1.0 is not 1."""
    state = table(2)
    planet(state, ("blue_spinston", ["lil_chip"]), ("green_spinston", ["lil_chip"]))
    turn(state, 0, ["funday"])
    state.sprinkles[0] = 1
    for wrong in (
        {"type": "attack", "column": True, "cards": ["funday"], "upgrade": None},
        {"type": "attack", "column": 1.0, "cards": ["funday"], "upgrade": None},
        {"type": "refill_hand", "weaponize": 0},
        {"type": "end_turn", "extra": 1},
    ):
        with pytest.raises(IllegalAction):
            state.clone().play(0, wrong)
    state.play(0, {"type": "attack", "column": 1, "cards": ["funday"], "upgrade": None})
