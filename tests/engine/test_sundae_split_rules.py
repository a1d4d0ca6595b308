"""Sundae Split rules, checked on known positions against /work/shared/rules/sundae-split.txt.

Each test quotes the rulebook sentence it checks (or the NOTES.md line, or the data.json
assumption where the rulebook is silent). Cards are picked from the card data by kind, name and
points, so the tests hold for whatever ids the data gives them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from engine import IllegalAction, MatchOver, NotYourTurn, Rng, TooManyActions, get_game
from engine.sundae_split import cards
from engine.sundae_split.cards import (
    CARD_BY_ID,
    CARDS,
    REMOVED_AT_RANDOM,
    ROUND_SIZES,
    RoundSize,
    check_data,
    deck_size,
    rounds,
    starting_deck,
)
from engine.sundae_split.game import INFO, SundaeSplit, SundaeSplitState
from engine.sundae_split.scoring import banana_bonuses, final_result, score_sundaes
from engine.sundae_split.split import check_split, random_split


def registered_game() -> SundaeSplit:
    """The Sundae Split game object from the registry."""
    game = get_game("sundae_split")
    assert isinstance(game, SundaeSplit)
    return game


GAME = registered_game()
PLAYER_COUNTS = (2, 3, 4, 5)


def start(players: int = 3, seed: str | int = 0) -> SundaeSplitState:
    """A new game."""
    state = GAME.start(players, None, seed)
    assert isinstance(state, SundaeSplitState)
    return state


class Picker:
    """Hands out distinct card ids by name (and points), so hand-built positions never reuse a card."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def take(self, name: str, points: int | None = None, count: int = 1) -> list[str]:
        """`count` unused cards of this name (and these points)."""
        found = [
            card.id
            for card in CARDS
            if card.name == name and (points is None or card.points == points) and card.id not in self.used
        ][:count]
        assert len(found) == count, f"the card data has too few {name} cards worth {points}"
        self.used.update(found)
        return found

    def rest(self) -> list[str]:
        """Every card not handed out yet."""
        return [card.id for card in CARDS if card.id not in self.used]


def split_action(hand: Sequence[str], shape: Sequence[tuple[int, int]]) -> dict[str, Any]:
    """A split cutting the hand in order into piles of (face up, face down) card counts."""
    piles, start_at = [], 0
    for up, down in shape:
        piles.append(
            {
                "face_up": list(hand[start_at : start_at + up]),
                "face_down": list(hand[start_at + up : start_at + up + down]),
            }
        )
        start_at += up + down
    return {"type": "split", "piles": piles}


def choose(pile: int) -> dict[str, Any]:
    """The canonical choose action."""
    return {"type": "choose", "pile": pile}


THREE_PLAYER_SHAPE = [(2, 1), (2, 1), (1, 1)]  # 8 cards, 3 face down: a valid 3-player split


def split_phase(players: int = 3, splitter: int = 0, deck_cards: int = 16) -> SundaeSplitState:
    """A hand-built running position at the start of a Split Phase: the Splitter holds a full draw."""
    picker = Picker()
    pool = picker.rest()
    draw = ROUND_SIZES[players].draw
    hand, deck, removed = pool[:draw], pool[draw : draw + deck_cards], pool[draw + deck_cards :]
    state = SundaeSplitState(players, {}, Rng(7), deck, removed, splitter, phase="split", hand=hand)
    state.sundaes = [[] for _ in range(players)]
    return state


def choose_phase(splitter: int = 0, deck_cards: int = 16) -> SundaeSplitState:
    """A 3-player position whose Splitter has just split its 8 cards as THREE_PLAYER_SHAPE."""
    state = split_phase(3, splitter, deck_cards)
    state.play(splitter, split_action(state.hand, THREE_PLAYER_SHAPE))
    return state


def ids_in(view: dict[str, Any]) -> set[str]:
    """Every card id anywhere in a serialized view."""
    text = json.dumps(view)
    return {card.id for card in CARDS if f'"{card.id}"' in text}


def play_out(state: SundaeSplitState, seed: str) -> list[tuple[int, dict[str, Any]]]:
    """Finish a game through the checked path with random legal actions; the log."""
    rng = Rng.from_seed(seed)
    log = []
    while not state.is_over():
        seat = state.acting_seats()[0]
        action = state.sample_action(seat, rng)
        state.play(seat, action)
        log.append((seat, action))
    return log


# --- setup ------------------------------------------------------------------------------------


def test_two_players_remove_the_three_plus_cards() -> None:
    """'If playing with 2 players, remove the 20 ingredient cards with "3+" in their lower-left corner.'"""
    three_plus = {card.id for card in CARDS if card.three_plus}
    assert len(three_plus) == 20
    assert len(starting_deck(2)) == len(CARDS) - 20 and not three_plus & set(starting_deck(2))
    for seed in range(10):
        state = start(2, seed)
        assert not three_plus & set(state.deck + state.hand + state.removed)
    for players in (3, 4, 5):
        state = start(players, "all")
        assert sorted(state.deck + state.hand + state.removed) == sorted(card.id for card in CARDS)


@pytest.mark.parametrize(("players", "removed"), [(5, 3), (4, 8), (3, 20), (2, 12)])
def test_random_removal_by_player_count(players: int, removed: int) -> None:
    """'5 players: Remove 3 cards / 4 players: Remove 8 cards / 3 players: Remove 20 cards / 2 players: Remove 12'."""
    assert REMOVED_AT_RANDOM[players] == removed
    removed_sets = set()
    for seed in range(8):
        state = start(players, seed)
        assert len(state.removed) == removed
        assert sorted(state.removed + state.deck + state.hand) == sorted(starting_deck(players))
        removed_sets.add(frozenset(state.removed))
    assert len(removed_sets) > 1, "the removed cards must be drawn at random"


@pytest.mark.parametrize(("players", "size"), [(2, 36), (3, 48), (4, 60), (5, 65)])
def test_deck_size_after_removals(players: int, size: int) -> None:
    """NOTES.md: 'Deck after removals: 36 cards (2 players), 48 (3), 60 (4), 65 (5).'"""
    assert deck_size(players) == size
    state = start(players, "deck")
    assert len(state.deck) + len(state.hand) == size


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_the_deck_divides_into_whole_rounds(players: int) -> None:
    """'The game is over at the end of a round when there are no more cards remaining in the ingredient deck.'"""
    draw = ROUND_SIZES[players].draw
    assert rounds(players) * draw == deck_size(players)
    state = start(players, f"rounds-{players}")
    log = play_out(state, f"rounds-{players}")
    splits = [action for _, action in log if action["type"] == "split"]
    assert len(splits) == rounds(players) and state.round == rounds(players)
    assert all(sum(len(p["face_up"]) + len(p["face_down"]) for p in a["piles"]) == draw for a in splits)
    assert state.deck == [] and sorted(c for sundae in state.sundaes for c in sundae) == sorted(
        set(starting_deck(players)) - set(state.removed)
    )


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_first_splitter_is_random_and_draws(players: int) -> None:
    """'Randomly determine a player who will be the Splitter'; 'the Splitter draws a number of cards'."""
    splitters = set()
    for seed in range(40):
        state = start(players, seed)
        splitters.add(state.splitter)
        assert state.acting_seats() == (state.splitter,) and state.phase == "split"
        assert len(state.hand) == ROUND_SIZES[players].draw
        assert len(state.deck) == deck_size(players) - ROUND_SIZES[players].draw
    assert splitters == set(range(players))


def test_three_players_draw_eight_with_three_face_down_for_six_rounds() -> None:
    """'In a 3-player game, Laura draws 8 cards; she must split those cards into 3 piles with exactly 3 cards face
    down.'
    """
    assert ROUND_SIZES[3] == RoundSize(draw=8, face_down=3)
    assert rounds(3) == 6
    view = start(3, "three").view(None)
    assert (view["draw_per_round"], view["face_down_per_round"], view["rounds"]) == (8, 3, 6)
    assert view["hand_count"] == 8 and view["round"] == 1


# --- card data --------------------------------------------------------------------------------


def test_card_counts() -> None:
    """'30 Ice cream scoop Cards / 9 Vegetable Cards / 29 Topping Cards'; 20 cards carry "3+"."""
    kinds = Counter(card.kind for card in CARDS)
    assert kinds == {"scoop": 30, "vegetable": 9, "topping": 29}
    assert sum(card.three_plus for card in CARDS) == 20
    assert len(CARD_BY_ID) == len(CARDS) == 68
    assert {card.name for card in CARDS if card.kind == "scoop"} == {"vanilla", "chocolate", "strawberry"}
    assert {card.name for card in CARDS if card.kind == "topping"} == {"banana", "cherry", "sprinkles", "whipped cream"}
    assert "broccoli" in {card.name for card in CARDS if card.kind == "vegetable"}


def test_check_data_accepts_the_shipped_data() -> None:
    """The data file makes a playable game for every player count."""
    check_data()
    assert set(ROUND_SIZES) == set(REMOVED_AT_RANDOM) == set(PLAYER_COUNTS)


@pytest.mark.parametrize(
    ("players", "size", "message"),
    [
        (3, RoundSize(draw=7, face_down=3), "does not divide into rounds of 7"),
        (2, RoundSize(draw=12, face_down=2), "cannot be split into 2 piles"),
        (4, RoundSize(draw=3, face_down=1), "cannot be split into 4 piles"),
        (2, RoundSize(draw=6, face_down=7), "cannot be split into 2 piles"),
    ],
)
def test_check_data_refuses_a_bad_round_table(
    monkeypatch: pytest.MonkeyPatch, players: int, size: RoundSize, message: str
) -> None:
    """'Each pile must have at least one card, and no more than four cards.': the table must allow that."""
    monkeypatch.setattr(cards, "ROUND_SIZES", {**ROUND_SIZES, players: size})
    with pytest.raises(ValueError, match=message):
        check_data()


def test_check_data_refuses_wrong_card_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """'30 Ice cream scoop Cards / 9 Vegetable Cards / 29 Topping Cards' and 20 '3+' cards."""
    monkeypatch.setattr(cards, "CARDS", CARDS[1:])
    with pytest.raises(ValueError, match="expected 30 scoops, 9 vegetables, 29 toppings"):
        check_data()
    groups = [dict(group, three_plus=0) for group in cards.DATA["cards"]]
    monkeypatch.setattr(cards, "CARDS", cards.build_cards(groups))
    with pytest.raises(ValueError, match="exactly 20 cards carry '3\\+'"):
        check_data()


# --- the split rules --------------------------------------------------------------------------


def refused(state: SundaeSplitState, action: Any, match: str | None) -> None:
    """The Splitter's action is refused with IllegalAction matching `match`, and nothing changes."""
    before = state.to_json()
    with pytest.raises(IllegalAction, match=match):
        state.play(state.splitter, action)
    assert state.to_json() == before


def test_one_pile_per_player() -> None:
    """'There must be one pile per player.'"""
    state = split_phase(3)
    refused(state, split_action(state.hand, [(3, 1), (2, 2)]), "exactly 3 piles: 'There must be one pile per player.'")
    refused(state, split_action(state.hand, [(1, 1), (2, 0), (1, 1), (1, 1)]), "one pile per player")


def test_a_pile_may_not_be_empty() -> None:
    """'Each pile must have at least one card, and no more than four cards.' (an empty pile)"""
    state = split_phase(3)
    action = split_action(state.hand, [(3, 1), (0, 0), (2, 2)])
    refused(state, action, "pile 1 has 0 cards: 'Each pile must have at least one card, and no more than four cards.'")


def test_a_pile_may_not_hold_five_cards() -> None:
    """'Each pile must have at least one card, and no more than four cards.' (a five-card pile)"""
    state = split_phase(3)
    refused(state, split_action(state.hand, [(1, 1), (4, 1), (0, 1)]), "pile 1 has 5 cards: 'Each pile must have")


@pytest.mark.parametrize("shape", [[(2, 2), (2, 0), (2, 0)], [(2, 2), (1, 1), (1, 1)], [(3, 0), (3, 0), (2, 0)]])
def test_exactly_the_face_down_count(shape: list[tuple[int, int]]) -> None:
    """'A specific number of cards (based on the number of players; see table below) must be face down'."""
    state = split_phase(3)
    face_down = sum(down for _, down in shape)
    refused(
        state, split_action(state.hand, shape), f"{face_down} cards are face down but exactly 3 must be: .*face down"
    )


def test_a_card_not_drawn() -> None:
    """'The Splitter then chooses how to split the cards': only the drawn cards."""
    state = split_phase(3)
    action = split_action(state.hand, THREE_PLAYER_SHAPE)
    action["piles"][2]["face_up"] = [state.deck[0]]
    refused(state, action, f"pile 2: '{state.deck[0]}' is not one of the cards you drew")


def test_a_card_twice() -> None:
    """'The Splitter then chooses how to split the cards into piles': each card goes in one place."""
    state = split_phase(3)
    action = split_action(state.hand, THREE_PLAYER_SHAPE)
    action["piles"][2]["face_up"] = [state.hand[0]]
    refused(state, action, f"pile 2: '{state.hand[0]}' is in more than one place")
    same_pile = split_action(state.hand, THREE_PLAYER_SHAPE)
    same_pile["piles"][0]["face_down"] = [state.hand[0]]
    refused(state, same_pile, "in more than one place")


def test_a_drawn_card_left_out() -> None:
    """'The Splitter then chooses how to split the cards into piles': every drawn card is split."""
    state = split_phase(3)
    action = split_action(state.hand, [(2, 1), (2, 1), (0, 1)])
    refused(state, action, f"not placed: \\['{state.hand[-1]}'\\]")


MALFORMED: list[Any] = [
    {"type": "split"},
    {"type": "split", "piles": "three"},
    {"type": "split", "piles": None},
    {"type": "split", "piles": {"0": {"face_up": [], "face_down": []}}},
    {"type": "split", "piles": [[], [], []]},
    {"type": "split", "piles": [None, None, None]},
    {"type": "split", "piles": [{"face_up": []}, {"face_up": []}, {"face_up": []}]},
    {"type": "split", "piles": [{"face_up": [], "face_down": [], "extra": 1}] * 3},
    {"type": "split", "piles": [{"face_up": [1], "face_down": []}] * 3},
    {"type": "split", "piles": [{"face_up": [None], "face_down": []}] * 3},
    {"type": "split", "piles": [{"face_up": [["C01"]], "face_down": []}] * 3},
    {"type": "split", "piles": [{"face_up": [{"id": "C01"}], "face_down": []}] * 3},
    {"type": "split", "piles": [{"face_up": "C01", "face_down": []}] * 3},
    {"type": "split", "piles": [{"face_up": [], "face_down": None}] * 3},
    {"type": "split", "piles": [], "extra": True},
    {"type": "choose", "pile": 0},
    {"type": None},
    {"type": ["split"]},
    {"type": {"split": 1}},
    {},
    [],
    "split",
    None,
]


@pytest.mark.parametrize("action", MALFORMED, ids=[f"malformed-{i}" for i in range(len(MALFORMED))])
def test_malformed_splits_are_illegal_actions(action: Any) -> None:
    """A split is one JSON shape; anything else is refused as IllegalAction, never another exception."""
    refused(split_phase(3), action, None)


def test_malformed_pile_names_the_pile() -> None:
    """A malformed pile is refused with the pile's index."""
    state = split_phase(3)
    action = split_action(state.hand, THREE_PLAYER_SHAPE)
    action["piles"][1] = {"face_up": [5], "face_down": []}
    refused(state, action, "pile 1: face_up and face_down are lists of card ids")
    action["piles"][1] = {"face_up": []}
    refused(state, action, "pile 1 must be")


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_action_space_describes_the_split(players: int) -> None:
    """'There must be one pile per player. Each pile must have at least one card, and no more than four cards.'"""
    state = split_phase(players, splitter=players - 1)
    with pytest.raises(TooManyActions):
        state.legal_actions(state.splitter)
    assert state.legal_actions(0) == []
    space = state.action_space(state.splitter)
    assert space["kind"] == "constructed"
    assert space["constraints"] == {
        "cards": state.hand,
        "piles": players,
        "pile_size": {"min": 1, "max": 4},
        "face_down": ROUND_SIZES[players].face_down,
        "every_card_exactly_once": True,
    }
    assert (
        space["schema"]["properties"]["piles"]["minItems"]
        == players
        == space["schema"]["properties"]["piles"]["maxItems"]
    )
    example = space["example"]
    state.check_action(state.splitter, example)
    state.play(state.splitter, example)
    assert state.phase == "choose"


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_random_splits_are_always_valid(players: int) -> None:
    """Every random split keeps the three rules of the Split Phase."""
    size = ROUND_SIZES[players]
    hand = [card.id for card in CARDS][: size.draw]
    sizes_seen = set()
    for seed in range(300):
        action = random_split(hand, players, size, Rng.from_seed(seed))
        piles = check_split(action, hand, players, size)
        sizes_seen.add(tuple(len(up) + len(down) for up, down in piles))
    assert len(sizes_seen) > 1, "random splits should vary the pile sizes"


# --- the Choose Phase -------------------------------------------------------------------------


def test_choosers_start_left_of_the_splitter_and_go_clockwise() -> None:
    """'Starting with the player to the left of the Splitter and continuing clockwise, each player chooses'."""
    state = choose_phase(splitter=1)
    assert state.acting_seats() == (2,) and state.chooser == 2
    assert state.legal_actions(1) == [] and state.legal_actions(0) == []
    with pytest.raises(NotYourTurn):
        state.play(0, choose(0))
    with pytest.raises(NotYourTurn):
        state.play(1, choose(0))
    state.play(2, choose(1))
    assert state.acting_seats() == (0,), "clockwise wraps from the last seat to seat 0"


def test_a_taken_pile_cannot_be_chosen_again() -> None:
    """'each player chooses one of the piles': a pile taken is no longer there to choose."""
    state = choose_phase(splitter=0)
    state.play(1, choose(0))
    assert state.legal_actions(2) == [choose(1), choose(2)]
    with pytest.raises(IllegalAction, match=r"pile 0 is not open; open piles: \[1, 2\]"):
        state.play(2, choose(0))
    for bad in (
        choose(3),
        choose(-1),
        {"type": "choose", "pile": True},
        {"type": "choose", "pile": "1"},
        {"type": "choose"},
    ):
        with pytest.raises(IllegalAction):
            state.play(2, bad)
    with pytest.raises(IllegalAction, match="this is the choose phase"):
        state.play(2, split_action(state.deck[:8], THREE_PLAYER_SHAPE))


def test_the_splitter_takes_the_last_pile_automatically() -> None:
    """'Note: This means that the Splitter takes the last remaining pile every round.'"""
    state = choose_phase(splitter=0)
    piles = [pile.cards() for pile in state.piles]
    state.play(1, choose(2))
    state.play(2, choose(0))
    assert state.sundaes == [piles[1], piles[2], piles[0]]
    assert state.round == 2 and state.phase == "split"


def test_the_splitter_passes_left() -> None:
    """'the current Splitter passes the ingredient deck ... to the player on their left, and that player becomes the
    Splitter for the next round.'
    """
    state = choose_phase(splitter=2)
    deck_top = state.deck[-8:]
    state.play(0, choose(0))
    state.play(1, choose(1))
    assert state.splitter == 0 and state.acting_seats() == (0,)
    assert state.hand == deck_top and len(state.deck) == 8
    assert state.view(None)["piles"] == []


@pytest.mark.parametrize(("players", "splits"), [(2, [3, 3]), (3, [2, 2, 2]), (4, [2, 2, 1, 1]), (5, [1] * 5)])
def test_how_often_each_seat_splits(players: int, splits: list[int]) -> None:
    """'the current Splitter passes the ingredient deck ... to the player on their left' until the deck 'is empty'.

    With 4 players the 6 rounds go round the table one and a half times (assumption
    four-player-splitters): the first Splitter and the player to their left split twice.
    """
    state = start(players, seed="splitters")
    first, counts = state.splitter, Counter[int]()
    while not state.is_over():
        if state.phase == "split":
            counts[state.splitter] += 1
        seat = state.acting_seats()[0]
        state.play(seat, state.default_action(seat))
    assert [counts[(first + k) % players] for k in range(players)] == splits
    assert "four-player-splitters" in {a.id for a in INFO.assumptions}


def test_the_game_ends_when_the_deck_is_empty() -> None:
    """'After each player has chosen a pile, the round is over. If the ingredient deck is empty, the game is over'."""
    state = choose_phase(splitter=0, deck_cards=0)
    state.play(1, choose(0))
    assert not state.is_over(), "the round is not over until every player has a pile"
    state.play(2, choose(1))
    assert state.is_over() and state.acting_seats() == ()
    with pytest.raises(MatchOver):
        state.play(0, choose(2))


# --- scoring ----------------------------------------------------------------------------------


def test_most_bananas_score_ten_each_when_tied() -> None:
    """'All players with the most bananas score a bonus 10 points. ... each tied player receives the bonus.'"""
    assert banana_bonuses([3, 1, 3]) == [10, 5, 10]
    picker = Picker()
    sundaes = [picker.take("banana", count=2), picker.take("banana", count=2), picker.take("banana")]
    assert [sheet["bananas"] for sheet in score_sundaes(sundaes)] == [10, 10, 5]


def test_second_most_bananas_score_five_each_when_tied() -> None:
    """'All players with the second-most bananas score a bonus 5 points.' (every tied player)"""
    assert banana_bonuses([4, 2, 2, 1]) == [10, 5, 5, 0]
    assert banana_bonuses([2, 1, 1, 1, 1]) == [10, 5, 5, 5, 5]


def test_a_banana_is_needed_for_a_bonus() -> None:
    """'You must have at least 1 banana to be eligible to score a banana bonus.'"""
    assert banana_bonuses([0, 0]) == [0, 0]
    assert banana_bonuses([1, 0]) == [10, 0]
    assert banana_bonuses([0, 2, 0, 0, 0]) == [0, 10, 0, 0, 0]


def test_second_most_after_a_tie_for_most() -> None:
    """Assumption second-most-bananas: 'the next smaller count after the most, even when several players tie'."""
    assert "second-most-bananas" in {a.id for a in INFO.assumptions}
    assert banana_bonuses([3, 3, 1]) == [10, 10, 5]
    assert banana_bonuses([2, 2, 2]) == [10, 10, 10]


def test_cherries_times_scoops_of_the_most_scooped_flavour() -> None:
    """'Select the ice cream flavor for which you have the most scoops. Score points for cherries x scoops of that
    flavor.'
    """
    picker = Picker()
    sundae = picker.take("cherry", count=3) + picker.take("chocolate", count=3) + picker.take("vanilla", count=2)
    assert score_sundaes([sundae])[0]["cherries"] == 9
    tied_flavours = picker.take("cherry") + picker.take("strawberry", count=2) + picker.take("vanilla", count=2)
    assert score_sundaes([tied_flavours])[0]["cherries"] == 2


def test_cherries_without_scoops_score_nothing() -> None:
    """'Score points for cherries x scoops of that flavor.': no scoops, nothing to multiply."""
    picker = Picker()
    assert score_sundaes([picker.take("cherry", count=4)])[0]["cherries"] == 0
    assert score_sundaes([picker.take("vanilla", count=3)])[0]["cherries"] == 0


def test_three_points_per_complete_flavour_set() -> None:
    """'Score 3 points for each complete set of flavors: vanilla, chocolate, strawberry.'"""
    picker = Picker()
    two_sets = picker.take("vanilla", count=3) + picker.take("chocolate", count=2) + picker.take("strawberry", count=2)
    assert score_sundaes([two_sets])[0]["flavour_sets"] == 6
    no_strawberry = picker.take("vanilla", count=2) + picker.take("chocolate", count=2)
    assert score_sundaes([no_strawberry])[0]["flavour_sets"] == 0


def test_five_points_per_sprinkles_and_whipped_cream() -> None:
    """'Score 5 points for each set of sprinkles and whipped cream.'"""
    picker = Picker()
    sundae = picker.take("sprinkles", count=3) + picker.take("whipped cream", count=2)
    assert score_sundaes([sundae])[0]["sprinkles_and_whipped_cream"] == 10
    assert score_sundaes([picker.take("sprinkles", count=2)])[0]["sprinkles_and_whipped_cream"] == 0


def test_scoop_points_and_vegetable_penalty() -> None:
    """'Score the points shown on all your ice cream scoops.' / 'Subtract from your score the points shown on all your
    vegetables.'
    """
    picker = Picker()
    scoops = picker.take("vanilla", 3) + picker.take("chocolate", 2) + picker.take("strawberry", 1)
    vegetables = picker.take("broccoli", 3) + picker.take("corn", 2) + picker.take("carrot", 1)
    sheet = score_sundaes([scoops + vegetables])[0]
    assert sheet["scoops"] == 6 and sheet["vegetables"] == -6
    assert sheet["total"] == 6 + 3 - 6  # scoops, one flavour set, vegetables


def test_total_adds_every_category() -> None:
    """'Tally the points earned by each player.'"""
    picker = Picker()
    sundaes = [
        picker.take("banana", count=2)
        + picker.take("cherry")
        + picker.take("vanilla", 3)
        + picker.take("sprinkles")
        + picker.take("whipped cream")
        + picker.take("corn", 2),
        picker.take("banana"),
    ]
    first, second = score_sundaes(sundaes)
    assert first == {
        "bananas": 10,
        "cherries": 1,
        "flavour_sets": 0,
        "sprinkles_and_whipped_cream": 5,
        "scoops": 3,
        "vegetables": -2,
        "total": 17,
    }
    assert second["total"] == second["bananas"] == 5


def test_most_points_wins() -> None:
    """'The player with the most points made the best sundae and wins the game!'"""
    picker = Picker()
    result = final_result([picker.take("vanilla", 2), picker.take("chocolate", 3), picker.take("carrot", 1)])
    assert result.scores == (2, 3, -1)
    assert result.winners == (1,) and result.ranking == ((1,), (0,), (2,))


def test_a_tie_on_points_goes_to_the_most_scoops() -> None:
    """'If two or more players are tied for the most points, the tied player(s) with the most ice cream scoops wins.'"""
    picker = Picker()
    one_scoop = picker.take("vanilla", 2)
    two_scoops = picker.take("chocolate", 1) + picker.take("strawberry", 1)
    result = final_result([one_scoop, two_scoops])
    assert result.scores == (2, 2) and result.winners == (1,)
    assert "most scoops" in result.reason


def test_several_winners_when_still_tied() -> None:
    """'the tied player(s) with the most ice cream scoops wins': equal points and scoops share the win."""
    picker = Picker()
    result = final_result([picker.take("vanilla", 2), picker.take("chocolate", 2), picker.take("banana")])
    assert result.scores == (2, 2, 10)
    assert result.winners == (2,)
    tied = final_result([picker.take("vanilla", 2), picker.take("chocolate", 2), picker.take("carrot", 1)])
    assert tied.winners == (0, 1) and tied.ranking == ((0, 1), (2,))


def test_only_a_tie_for_first_is_broken_by_scoops() -> None:
    """'If two or more players are tied for the most points, the tied player(s) with the most ice cream scoops
    wins.': the rule breaks ties for the win only; lower places tied on points share their place and reward.
    """
    picker = Picker()
    winner = picker.take("vanilla", 3)
    one_scoop = picker.take("chocolate", 2)
    two_scoops = picker.take("strawberry", 1) + picker.take("strawberry", 1)
    result = final_result([winner, one_scoop, two_scoops])
    assert result.scores == (3, 2, 2)
    assert result.ranking == ((0,), (1, 2))
    assert result.rewards()[1] == result.rewards()[2]


def test_example_two_scores_twenty_five() -> None:
    """'Example 2: Nate scores 25 points total - 10 points for his banana bonus; 4 points for cherries (2 cherry cards
    x 2 vanilla scoops); 3 points for his one set of all 3 ice cream flavors; 5 points for the set of sprinkles and
    whipped cream; 6 points from ice cream scoops; and -3 points for the broccoli.'
    """
    picker = Picker()
    nate = (
        picker.take("banana", count=2)
        + picker.take("cherry", count=2)
        + picker.take("vanilla", 1)
        + picker.take("vanilla", 2)
        + picker.take("chocolate", 1)
        + picker.take("strawberry", 2)
        + picker.take("sprinkles")
        + picker.take("whipped cream")
        + picker.take("broccoli")
    )
    opponent = picker.take("banana")
    nate_sheet = score_sundaes([nate, opponent])[0]
    assert nate_sheet == {
        "bananas": 10,
        "cherries": 4,
        "flavour_sets": 3,
        "sprinkles_and_whipped_cream": 5,
        "scoops": 6,
        "vegetables": -3,
        "total": 25,
    }


# --- hidden information -----------------------------------------------------------------------


def test_only_the_splitter_sees_the_drawn_cards() -> None:
    """'The Splitter looks at all the drawn cards, keeping them hidden from the other players.'"""
    state = split_phase(3, splitter=1)
    assert [card["id"] for card in state.view(1)["hand"]] == state.hand
    for viewer in (0, 2, None):
        view = state.view(viewer)
        assert view["hand"] == [] and view["hand_count"] == 8
        assert not ids_in(view) & set(state.hand)


def test_face_down_cards_only_for_the_splitter() -> None:
    """'Players cannot look at any of the face-down cards before choosing'; the Splitter made the piles."""
    state = choose_phase(splitter=0)
    face_down = {card for pile in state.piles for card in pile.face_down}
    face_up = {card for pile in state.piles for card in pile.face_up}
    splitter_view = state.view(0)
    assert [[c["id"] for c in p["face_down"]] for p in splitter_view["piles"]] == [p.face_down for p in state.piles]
    for viewer in (1, 2, None):
        view = state.view(viewer)
        assert [p["face_down"] for p in view["piles"]] == [[], [], []]
        assert [p["face_down_count"] for p in view["piles"]] == [1, 1, 1]
        assert [[c["id"] for c in p["face_up"]] for p in view["piles"]] == [p.face_up for p in state.piles]
        assert not ids_in(view) & face_down, "no face-down id anywhere in another seat's view"
        assert ids_in(view) == face_up


def test_deck_and_removed_cards_are_in_no_view() -> None:
    """'Put these removed cards back in the box; they will not be used.' and the deck stays face down."""
    for state in (start(3, "secret"), choose_phase(splitter=2)):
        secret = set(state.deck) | set(state.removed)
        for viewer in (0, 1, 2, None):
            view = state.view(viewer)
            assert not ids_in(view) & secret
            assert view["deck_count"] == len(state.deck) and view["removed_count"] == len(state.removed)
            assert "deck" not in view and "removed" not in view and "rng" not in view


def test_a_chosen_pile_is_revealed_to_all() -> None:
    """'When you choose a pile, take those cards and immediately reveal them.'"""
    state = choose_phase(splitter=0)
    pile = state.piles[1].cards()
    state.play(1, choose(1))
    for viewer in (0, 1, 2, None):
        view = state.view(viewer)
        shown = view["piles"][1]
        assert shown["taken_by"] == 1
        assert [c["id"] for c in shown["face_up"] + shown["face_down"]] == pile
        assert [c["id"] for c in view["sundaes"][1]] == pile
        if viewer != 0:
            assert view["piles"][0]["face_down"] == [] and view["piles"][2]["face_down"] == []


def test_redacted_split_hides_face_down_cards_until_taken() -> None:
    """'Players cannot look at any of the face-down cards before choosing'; taken cards are revealed."""
    state = split_phase(3, splitter=0)
    action = split_action(state.hand, THREE_PLAYER_SHAPE)
    state.play(0, action)
    assert state.redact_action(0, action, 0) == action
    for viewer in (1, 2, None):
        redacted = state.redact_action(0, action, viewer)
        assert [p["face_up"] for p in redacted["piles"]] == [p["face_up"] for p in action["piles"]]
        assert [p["face_down"] for p in redacted["piles"]] == [[None], [None], [None]]
    state.play(1, choose(2))
    for viewer in (1, 2, None):
        redacted = state.redact_action(0, action, viewer)
        assert [p["face_down"] for p in redacted["piles"]] == [[None], [None], action["piles"][2]["face_down"]]
    state.play(2, choose(0))  # the round ends: every card of the split now sits in a sundae
    for viewer in (1, 2, None):
        assert state.redact_action(0, action, viewer) == action
    assert state.redact_action(1, choose(2), None) == choose(2)


def test_determinize_keeps_the_view_and_reshuffles_the_unseen() -> None:
    """'keeping them hidden from the other players': a determinization re-deals only what a viewer cannot see."""
    for state in (split_phase(3, splitter=1), choose_phase(splitter=1)):
        all_cards = sorted(state.deck + state.removed + state.hand + [c for p in state.piles for c in p.cards()])
        for viewer in (0, 1, 2, None):
            changed: Counter[str] = Counter()
            for seed in range(6):
                copy = state.determinize(viewer, Rng.from_seed(seed))
                assert copy.view(viewer) == state.view(viewer), (viewer, seed)
                copy_cards = copy.deck + copy.removed + copy.hand + [c for p in copy.piles for c in p.cards()]
                assert sorted(copy_cards) == all_cards
                assert copy.sundaes == state.sundaes
                changed["deck"] += copy.deck != state.deck
                changed["removed"] += copy.removed != state.removed
                changed["hand"] += copy.hand != state.hand
                changed["face_down"] += [p.face_down for p in copy.piles] != [p.face_down for p in state.piles]
            assert changed["deck"] and changed["removed"], viewer
            if viewer == state.splitter:
                assert changed["hand"] == changed["face_down"] == 0, "the Splitter knows its own cards"
            elif state.phase == "split":
                assert changed["hand"], viewer
            else:
                assert changed["face_down"], viewer


# --- a finished game --------------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_finished_game(players: int) -> None:
    """'Tally the points earned by each player. The player with the most points made the best sundae and wins'."""
    state = start(players, f"finish-{players}")
    log = play_out(state, f"finish-{players}")
    result = state.result()
    assert result is not None and state.is_over()
    assert list(result.scores) == [sheet["total"] for sheet in score_sundaes(state.sundaes)]
    assert result == final_result(state.sundaes)
    view = state.view(None)
    assert view["phase"] is None and view["deck_count"] == 0
    assert state.acting_seats() == ()
    replayed = GAME.replay(players, None, f"finish-{players}", log)
    assert replayed.to_json() == state.to_json()
