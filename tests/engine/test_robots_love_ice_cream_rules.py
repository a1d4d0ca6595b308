"""Robots Love Ice Cream rules, checked on known positions against /work/shared/rules/robots-love-ice-cream.txt.

Each test quotes the rulebook sentence it checks (or the data.json assumption where the rulebook
is silent). The Boost cards, the store and the equip phase are in test_robots_love_ice_cream_boosts.py.
"""

from __future__ import annotations

from collections import Counter

import pytest

from engine import IllegalAction, MatchOver
from engine.robots_love_ice_cream import phases
from engine.robots_love_ice_cream.data import DATA
from engine.robots_love_ice_cream.effects import ROBOT_ABILITIES, RobotPhase
from engine.robots_love_ice_cream.state import RobotsState
from tests.engine.test_robots_love_ice_cream_helpers import (
    attack,
    attacks_listed,
    planet,
    play_randomly,
    start,
    table,
    turn,
)

RULES = DATA.rules
ROBOT_CARDS = sum(robot.count for robot in DATA.robots.values())


def ice_cream_total(state: RobotsState) -> int:
    """Every Weaponized Ice Cream card wherever it is."""
    return (
        len(state.ice_deck)
        + len(state.ice_discard)
        + sum(len(hand) for hand in state.hands)
        + len(state.drawn)
        + len(state.social)
    )


def robot_phase_order(state: RobotsState) -> list[tuple[int, int]]:
    """(column, level) of each robot that attacked in the last robot phase, from the events."""
    found = []
    for event in state.events:
        if event.endswith(" attacks") and "(column " in event:
            inside = event.split("(column ")[1].split(")")[0]
            column, level = inside.split(", level ")
            found.append((int(column), int(level)))
    return found


# --- Game Setup ---------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_set_up_trucks_decks_supply_and_hands(players: int) -> None:
    """'Deal 7 Weaponized Ice Cream cards from the deck to each player'; the decks shuffled; the Sprinkletonium
    deck nearby; 'Solo players begin the game with 8 cards in hand.'"""
    state = start(players, seed=f"setup-{players}")
    hand = 8 if players == 1 else 7
    assert [len(h) for h in state.hands] == [hand] * players
    assert ice_cream_total(state) == DATA.components["weaponized_ice_cream"] == 65
    assert state.supply == DATA.components["sprinkletonium"] == 40 and state.sprinkles == [0] * players
    on_planet = [robot for column in state.columns for robot in column.robots()]
    # 'After setting the Spinston and Spinston 2.0 cards aside, shuffle the Robots cards'
    assert len(state.robot_deck) + len(on_planet) == ROBOT_CARDS == 54
    assert not set(state.robot_deck) & set(DATA.spinstons)
    boosts = 27 - (6 if players == 1 else 0)
    assert len(state.boost_deck) == boosts and state.store_row == []
    # Ice Cream Trucks: two Truck Upgrade slots (three in solo play), nothing on them yet
    assert state.equipped == state.spares == state.effects == [[] for _ in range(players)]
    assert state.upgrade_slots(0) == (3 if players == 1 else 2)
    assert state.tokens == [0] * players and state.captured == 0


def test_decks_are_shuffled_and_the_first_player_is_random() -> None:
    """'Shuffle the Weaponized Ice Cream cards'; 'The person who has most recently eaten ice cream is given the
    First Player card' (assumption first-player: a random seat)."""
    starts = [start(4, seed=f"shuffle-{seed}") for seed in range(24)]
    assert len({tuple(s.ice_deck) for s in starts}) == 24 and len({tuple(s.robot_deck) for s in starts}) == 24
    assert {s.first_player for s in starts} == {0, 1, 2, 3}
    for state in starts:
        assert state.acting_seats() == (state.first_player,)


@pytest.mark.parametrize(("players", "cards"), [(1, "2"), (2, "2"), (3, "3"), (4, "4")])
def test_planets_come_in_order_one_to_five_for_the_player_count(players: int, cards: str) -> None:
    """'Select the grouping of planets corresponding to the number of players, order the planets in a deck from 1
    to 5'; 'Solo players use the 2 player planet cards'."""
    state = start(players, seed=f"planets-{players}")
    seen = [state.planet_card]
    rng_seed = f"planets-play-{players}"
    from engine import Rng

    rng = Rng.from_seed(rng_seed)
    while not state.is_over():
        seat = state.acting_seats()[0]
        state.play(seat, state.sample_action(seat, rng))
        if state.planet_card != seen[-1]:
            seen.append(state.planet_card)
    assert seen == [f"{cards}p-{number}" for number in range(1, 6)]
    assert state.planet == 5


def test_solo_may_use_the_three_player_planets() -> None:
    """'Want a harder challenge? Try the 3 player planet cards!' (option solo_planets)."""
    assert start(1, {"solo_planets": "3"}).planet_card == "3p-1"
    assert start(1).planet_card == "2p-1"


# --- I. Preparing the Planet ---------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_spinstons_and_robots_go_where_the_planet_card_shows(players: int) -> None:
    """'Arrange the Spinstons as indicated on the current planet card'; 'Draw and place robots ... into the locations
    indicated'; 'Place Ice Cream victory tokens, equal to the number of Spinstons ... onto the card at the bottom'."""
    state = start(players, seed="prepare")
    for number, card in enumerate(DATA.planets[str(players)], start=1):
        state.planet = number - 1
        deck_before = len(state.robot_deck)
        phases.prepare_planet(state)
        assert state.planet == number and state.planet_card == card.id and state.round == 1
        assert [column.spinston for column in state.columns] == [column.spinston for column in card.columns]
        for column, shown in zip(state.columns, card.columns, strict=True):
            occupied = [level for level in (1, 2, 3, 4) if column.slots[level - 1] is not None]
            assert occupied == list(shown.robots)
        assert deck_before - len(state.robot_deck) == sum(len(c.robots) for c in card.columns)
        assert state.track_levels == [0, 0, len(card.columns)] and state.above == 0


def test_the_fourth_level_is_open_only_in_four_player_games_where_shown() -> None:
    """'The lowest row (4th level) is only considered to be open space during 4 player games and only on those rows
    which show a 4th level on the planet setup card.'"""
    state = start(4, seed="fourth")
    state.planet = 4
    phases.prepare_planet(state)
    card = DATA.planets["4"][4]
    assert [column.fourth for column in state.columns] == [4 in column.robots for column in card.columns]
    assert any(column.fourth for column in state.columns)
    for players in (1, 2, 3):
        other = start(players, seed="fourth")
        for number in range(5):
            other.planet = number
            phases.prepare_planet(other)
            assert not any(column.fourth for column in other.columns)


def test_variant_c_all_spinstons_are_red_spinston_2() -> None:
    """Variant C: 'All Spinstons are Red Spinston 2.0.'"""
    state = start(3, {"all_red_spinstons": True})
    assert {column.spinston for column in state.columns} == {"red_spinston_2"}
    assert state.robot(0, 0).defense == DATA.spinstons["red_spinston_2"].defense


# --- A. Player Phase -----------------------------------------------------------------------------


def test_draw_two_keep_one_the_other_is_discarded() -> None:
    """A1: 'Draw 2 Weaponized Ice Cream cards and choose 1 to discard.'"""
    state = start(2, seed="draw")
    seat = state.first_player
    assert state.step == phases.KEEP and len(state.drawn) == 2
    keeps = state.legal_actions(seat)
    assert keeps == [{"type": "keep_drawn", "cards": [card]} for card in sorted(set(state.drawn))]
    kept, other = state.drawn[0], state.drawn[1]
    hand, discard = list(state.hands[seat]), list(state.ice_discard)
    state.play(seat, {"type": "keep_drawn", "cards": [kept]})
    assert state.hands[seat] == sorted([*hand, kept]) and state.ice_discard == [*discard, other]
    assert state.step == phases.ACT and state.drawn == []


def test_keeping_a_card_not_drawn_is_refused() -> None:
    state = start(2, seed="draw")
    seat = state.first_player
    missing = next(card for card in DATA.ice_cream if card not in state.drawn)
    with pytest.raises(IllegalAction, match="keep exactly 1"):
        state.play(seat, {"type": "keep_drawn", "cards": [missing]})
    with pytest.raises(IllegalAction, match="keep exactly 1"):
        state.play(seat, {"type": "keep_drawn", "cards": list(state.drawn)})


def test_solo_draws_three_and_keeps_two() -> None:
    """Solo: 'During the draw step, the solo player will draw 3 Weaponized Ice Cream cards and keep 2.'"""
    state = start(1, seed="solo-draw")
    assert len(state.drawn) == 3
    assert all(len(a["cards"]) == 2 for a in state.legal_actions(0))
    state.play(0, state.legal_actions(0)[0])
    assert len(state.hands[0]) == 10 and len(state.ice_discard) == 1


@pytest.mark.parametrize(("planet_number", "tokens", "sprinkles", "offered"), [
    (3, 0, 0, True), (5, 0, 0, True), (2, 0, 0, False), (3, 1, 0, False), (3, 0, 1, False),
])  # fmt: skip
def test_catch_up_draw_from_the_third_planet(planet_number: int, tokens: int, sprinkles: int, offered: bool) -> None:
    """'Beginning on the 3rd planet: Players who have zero Ice Cream tokens and zero Sprinkletonium may draw up to 7
    cards at the start of their turn.'"""
    state = table(2)
    state.planet = planet_number
    state.tokens[1], state.sprinkles[1] = tokens, sprinkles
    state.hands[1] = ["funday", "funday"]
    state.queue = [1, 0]
    phases.begin_turn(state)
    if not offered:
        assert state.step == phases.KEEP
        return
    assert state.legal_actions(1) == [{"type": "draw_up"}, {"type": "decline_draw_up"}]
    declined = state.clone()
    declined.play(1, {"type": "decline_draw_up"})
    assert len(declined.hands[1]) == 2 and declined.step == phases.KEEP
    state.play(1, {"type": "draw_up"})
    assert len(state.hands[1]) == 7 and state.step == phases.KEEP and len(state.drawn) == 2


def test_attack_the_lowest_robot_of_a_column_with_a_set_equal_to_its_defense() -> None:
    """A2: 'attack a single robot in the lowest occupied position of any column'; 'the set must be equal in number to
    the defense value indicated on the targeted robot'."""
    state = table(2)
    planet(state, ("blue_spinston", ["lil_chip", "scrambles"]), ("green_spinston", []))
    turn(state, 0, ["funday", "funday", "funday", "funday", "rapid_pop"])
    listed = attacks_listed(state, 0)
    # column 0: Scrambles (defense 2) on level 2 is the target, not Lil Chip above it; column 1: the Spinston (4)
    assert attack(0, ["funday", "funday"]) in listed and attack(0, ["rapid_pop"]) not in listed
    assert attack(1, ["funday"] * 4) in listed
    assert {len(a["cards"]) for a in listed if a["column"] == 0} == {2}
    with pytest.raises(IllegalAction, match="defense 2"):
        state.clone().play(0, attack(0, ["funday"] * 3))
    with pytest.raises(IllegalAction, match="matching sets"):
        state.clone().play(0, attack(0, ["funday", "rapid_pop"]))
    with pytest.raises(IllegalAction, match="do not hold"):
        state.clone().play(0, attack(0, ["boomsicle", "boomsicle"]))
    with pytest.raises(IllegalAction, match="sorted order"):
        state.clone().play(0, {"type": "attack", "column": 0, "cards": ["funday", "brain_freeze"], "upgrade": None})
    state.play(0, attack(0, ["funday", "funday"]))
    assert state.columns[0].slots[:2] == ["lil_chip", None] and state.target(0) == (1, state.robot(0, 1))


def test_brain_freeze_is_wild() -> None:
    """'Brain Freeze cards are wild and can be used as any type.'"""
    state = table(2)
    planet(state, ("blue_spinston", []), ("green_spinston", ["pewboty"]))
    turn(state, 0, ["brain_freeze", "brain_freeze", "boomsicle", "funday"])
    listed = attacks_listed(state, 0)
    assert attack(1, ["boomsicle", "brain_freeze", "brain_freeze"]) in listed
    assert attack(1, ["brain_freeze", "brain_freeze", "funday"]) in listed
    assert attack(0, ["boomsicle", "brain_freeze", "brain_freeze", "funday"]) not in listed  # mixed types
    state.play(0, attack(1, ["brain_freeze", "brain_freeze", "funday"]))
    assert state.hands[0] == ["boomsicle"] and state.ice_discard[-3:] == ["brain_freeze", "brain_freeze", "funday"]


def test_a_spinston_is_shielded_by_the_robots_below_it() -> None:
    """The Spinston tops the column: it is the lowest occupied position only once its column is empty."""
    state = table(2)
    planet(state, ("blue_spinston", ["lil_chip"]), ("green_spinston", []))
    turn(state, 0, ["single_serve"] * 4)
    assert [a["column"] for a in attacks_listed(state, 0) if len(a["cards"]) == 4] == [1]
    assert attack(0, ["single_serve"]) in attacks_listed(state, 0)


def test_one_attack_per_turn() -> None:
    """'Use matching sets ... to attack a single robot'; a second attack needs Variant E, solo play or an upgrade."""
    state = table(2)
    planet(state, ("blue_spinston", ["lil_chip", "lil_chip"]), ("green_spinston", []))
    turn(state, 0, ["rapid_pop", "rapid_pop"])
    state.play(0, attack(0, ["rapid_pop"]))
    assert attacks_listed(state, 0) == []
    with pytest.raises(IllegalAction, match="no attack left"):
        state.play(0, attack(0, ["rapid_pop"]))


@pytest.mark.parametrize(("players", "options"), [(2, {"attack_twice": True}), (1, {}), (1, {"attack_twice": True})])
def test_two_attacks_in_variant_e_and_solo(players: int, options: dict[str, bool]) -> None:
    """Variant E: 'players may perform two attacks instead of one. There is no drawing of new cards between the two
    attacks.' Solo: 'Solo player may attack twice per turn.'"""
    state = table(players, options)
    planet(state, ("blue_spinston", ["lil_chip", "lil_chip", "lil_chip"]), ("green_spinston", []))
    turn(state, 0, ["rapid_pop"] * 3)
    state.play(0, attack(0, ["rapid_pop"]))
    state.play(0, attack(0, ["rapid_pop"]))
    assert state.hands[0] == ["rapid_pop"] and state.drawn == []
    assert attacks_listed(state, 0) == []


def test_clean_up_rewards_and_the_robot_discard_pile() -> None:
    """A3: 'Place destroyed robots in the robot discard pile'; 'The active player collects Sprinkletonium in an amount
    indicated by the destroyed robot.'"""
    state = table(2)
    planet(state, ("blue_spinston", ["pewboty"]), ("green_spinston", []))
    turn(state, 1, ["boomsicle"] * 3)
    state.robot_discard = []
    state.play(1, attack(0, ["boomsicle"] * 3))
    assert state.sprinkles[1] == DATA.robots["pewboty"].reward and state.supply == 40 - DATA.robots["pewboty"].reward
    assert state.robot_discard == ["pewboty"]


def test_a_destroyed_spinston_gives_an_ice_cream_token_and_is_set_aside() -> None:
    """A3: 'If a Spinston was destroyed, the player additionally claims 1 Ice Cream token from the Spinston Beam
    Track'; 'setting aside the Spinstons for use on future planets'. Assumption claim-token: the highest token."""
    state = table(2)
    planet(state, ("blue_spinston", []), ("green_spinston", []))
    state.track_levels = [0, 1, 1]
    turn(state, 0, ["funday"] * 4)
    state.robot_discard = []
    state.play(0, attack(0, ["funday"] * 4))
    assert state.tokens[0] == 1 and state.track_levels == [0, 0, 1]
    assert state.sprinkles[0] == DATA.spinstons["blue_spinston"].reward == 3
    assert state.columns[0].spinston is None and state.robot_discard == []


def test_no_sprinkletonium_is_drawn_from_an_empty_supply() -> None:
    """'Should a player need to draw Sprinkletonium and there is none available in the deck, they simply do not
    receive any that turn.'"""
    state = table(2)
    planet(state, ("blue_spinston", ["scrambles"]))
    turn(state, 0, ["funday", "funday"])
    state.supply, state.sprinkles = 1, [0, 39]
    state.play(0, attack(0, ["funday", "funday"]))
    assert state.sprinkles[0] == 1 and state.supply == 0


def test_spend_one_sprinkletonium_to_refill_to_seven_and_end_the_turn() -> None:
    """A4: 'the active player may choose to spend one of them at the end of their turn to fill their Weaponized Ice
    Cream hand back up to 7 cards.' Sprinkletonium spent goes 'back in the deck'."""
    state = table(2)
    planet(state, ("blue_spinston", ["scrambles"]))
    turn(state, 0, ["funday", "funday", "rapid_pop"])
    state.sprinkles[0], state.supply = 2, 38
    assert {"type": "refill_hand", "weaponize": False} in state.legal_actions(0)
    state.play(0, {"type": "refill_hand", "weaponize": False})
    assert len(state.hands[0]) == 7 and state.sprinkles[0] == 1 and state.supply == 39
    assert state.acting_seats() == (1,)  # the turn ended


def test_refill_is_refused_without_sprinkletonium_or_with_a_full_hand() -> None:
    state = table(2)
    planet(state, ("blue_spinston", ["scrambles"]))
    turn(state, 0, ["funday"] * 3)
    with pytest.raises(IllegalAction, match="costs 1 Sprinkletonium"):
        state.clone().play(0, {"type": "refill_hand", "weaponize": False})
    state.sprinkles[0] = 1
    state.hands[0] = ["funday"] * 7
    with pytest.raises(IllegalAction, match="already holds 7"):
        state.play(0, {"type": "refill_hand", "weaponize": False})


def test_solo_refills_to_eight() -> None:
    """Solo: 'Discarding Sprinkletonium to refill your hand will also draw up to 8 cards instead of 7.'"""
    state = table(1)
    planet(state, ("blue_spinston", ["pewboty"]))
    turn(state, 0, ["funday"])
    state.sprinkles[0] = 1
    state.play(0, {"type": "refill_hand", "weaponize": False})
    assert len(state.hands[0]) == 8 and state.round == 2


def test_turns_go_clockwise_from_the_first_player_then_the_robots() -> None:
    """'Starting with the first player card holder, each player, in clockwise order, takes a turn.' A5: 'Once all
    players have taken their turn, the robot phase begins.'"""
    state = start(3, seed="clockwise")
    first = state.first_player
    order = []
    while state.round == 1 and state.planet == 1:
        seat = state.acting_seats()[0]
        if state.step == phases.KEEP:
            order.append(seat)
            state.play(seat, state.legal_actions(seat)[0])
        state.play(seat, {"type": "end_turn"})
    assert order == [first, (first + 1) % 3, (first + 2) % 3]
    assert any(event.startswith("the beam moves up") for event in state.events)


# --- B. Robot Phase ------------------------------------------------------------------------------


def test_robots_attack_lowest_row_first_left_to_right_spinstons_last() -> None:
    """B1: 'starting with the robots on the lowest row and going from left to right, followed by robots from the next
    lowest row and going from left to right'."""
    state = table(2)
    planet(
        state,
        ("blue_spinston", ["pewboty", "pewboty"]),
        ("green_spinston", ["pewboty"]),
        ("red_spinston", ["pewboty", "pewboty", "pewboty"]),
    )
    state.round = 1
    phases.robot_phase(state)
    assert robot_phase_order(state) == [(2, 3), (0, 2), (2, 2), (0, 1), (1, 1), (2, 1), (0, 0), (1, 0), (2, 0)]


@pytest.mark.parametrize(("which", "after"), [("lowest", [0, 1, 1]), ("highest", [1, 0, 1])])
def test_spinston_moves_an_ice_cream_token_up_one_level(which: str, after: list[int]) -> None:
    """Spinston: 'Move an Ice Cream token up one level.' (assumption spinston-token: the lowest one)."""
    state = table(2)
    planet(state, ("blue_spinston", []))
    state.track_levels = [0, 0, 2] if which == "lowest" else [0, 1, 1]
    ROBOT_ABILITIES["advance_ice_cream"](state, RobotPhase(), 0, 0, {"levels": 1, "token": which})
    assert state.track_levels == after
    assert DATA.spinstons["blue_spinston"].ability.params == {"levels": 1, "token": "lowest"}


def test_a_token_moved_off_the_top_is_above_the_track() -> None:
    state = table(2)
    state.track_levels = [1, 0, 0]
    ROBOT_ABILITIES["advance_ice_cream"](state, RobotPhase(), 0, 0, {"levels": 1, "token": "lowest"})
    assert state.track_levels == [0, 0, 0] and state.above == 1


def test_lil_chip_moves_to_the_highest_open_space_of_the_column_to_the_right() -> None:
    """Lil Chip: 'he moves to the highest open space available in a different column, starting with the column to the
    right of its current position. Little Chip can move to different rows.'"""
    state = table(2)
    planet(state, ("blue_spinston", ["lil_chip"]), ("green_spinston", ["pewboty"]), ("red_spinston", []))
    ROBOT_ABILITIES["hop_right"](state, RobotPhase(), 0, 1, {})
    assert state.columns[0].slots[0] is None and state.columns[1].slots[:2] == ["pewboty", "lil_chip"]


def test_lil_chip_wraps_round_and_skips_columns_without_a_spinston() -> None:
    """'Available columns must have a Spinston to be considered a valid open space.' (assumption lil-chip-wrap)."""
    state = table(2)
    planet(state, ("blue_spinston", []), (None, []), ("red_spinston", ["pewboty", "lil_chip"]))
    ROBOT_ABILITIES["hop_right"](state, RobotPhase(), 2, 2, {})
    assert state.columns[0].slots[0] == "lil_chip" and state.columns[1].slots[0] is None


def test_lil_chip_stays_when_no_other_column_is_open() -> None:
    """'If no other columns are available, Lil Chip stays in place.'"""
    state = table(2)
    planet(state, ("blue_spinston", ["lil_chip"]), ("green_spinston", ["pewboty"] * 3))
    ROBOT_ABILITIES["hop_right"](state, RobotPhase(), 0, 1, {})
    assert state.columns[0].slots[0] == "lil_chip"
    assert "stays in place" in state.events[-1]


def test_lil_chip_takes_a_fourth_level_only_where_the_card_shows_one_in_four_player_games() -> None:
    """'The lowest row (4th level) is only considered to be open space during 4 player games and only on those rows
    which show a 4th level'."""
    state = table(4)
    planet(
        state, ("blue_spinston", ["lil_chip"]), ("green_spinston", ["pewboty"] * 3), ("red_spinston", ["pewboty"] * 3)
    )
    state.columns[2].fourth = True
    ROBOT_ABILITIES["hop_right"](state, RobotPhase(), 0, 1, {})
    assert state.columns[1].slots[3] is None and state.columns[2].slots[3] == "lil_chip"


def test_a_moved_robot_does_not_act_twice_in_one_robot_phase() -> None:
    """Assumption robot-order: each robot acts once; Lil Chip moving into a later spot does not act again."""
    state = table(2)
    planet(state, ("blue_spinston", ["lil_chip"]), ("green_spinston", []))
    state.track_levels, state.round = [0, 0, 0], 1
    phases.robot_phase(state)
    lil_chip_turns = [e for e in state.events if e.startswith("Lil Chip (column")]
    assert len(lil_chip_turns) == 1
    assert [e for e in state.events if e.startswith("Lil Chip moves")] == [
        "Lil Chip moves from column 0 level 1 to column 1 level 1"
    ]


def test_lil_chunk_summons_into_its_own_column_first() -> None:
    """Lil Chunk: 'the summoned robot is placed in the same column as Lil Chunk if possible'."""
    state = table(2)
    planet(state, ("blue_spinston", ["lil_chunk"]), ("green_spinston", []))
    state.robot_deck = ["ray", "scrambles"]
    ROBOT_ABILITIES["summon"](state, RobotPhase(), 0, 1, {"count": 1, "source": "deck"})
    assert state.columns[0].slots[:2] == ["lil_chunk", "scrambles"] and state.robot_deck == ["ray"]


def test_lil_chunk_summons_into_the_next_open_space_to_the_right() -> None:
    """'or in the first open space available starting with the highest open position in the column to the right of
    Lil Chunk. Available columns must still have a Spinston.'"""
    state = table(2)
    planet(
        state, (None, []), ("green_spinston", ["pewboty", "pewboty", "lil_chunk"]), (None, []), ("blue_spinston", [])
    )
    state.robot_deck = ["scrambles"]
    ROBOT_ABILITIES["summon"](state, RobotPhase(), 1, 3, {"count": 1, "source": "deck"})
    assert state.columns[3].slots[0] == "scrambles" and state.columns[2].slots[0] is None


def test_lil_chunk_places_nothing_without_open_space() -> None:
    """'If no open space is available, no new robots are placed.'"""
    state = table(2)
    planet(state, ("green_spinston", ["pewboty", "pewboty", "lil_chunk"]))
    state.robot_deck = ["scrambles"]
    ROBOT_ABILITIES["summon"](state, RobotPhase(), 0, 3, {"count": 1, "source": "deck"})
    assert state.robot_deck == ["scrambles"] and state.columns[0].robots() == ["pewboty", "pewboty", "lil_chunk"]


def test_a_summoned_robot_does_not_act_in_the_phase_it_arrives() -> None:
    """Assumption robot-order: a robot summoned during the robot phase first acts in the next one."""
    state = table(2)
    planet(state, ("blue_spinston", ["lil_chunk"]))
    state.round = 1
    state.robot_deck = ["scrambles"]
    state.hands = [["funday"], ["funday"]]
    phases.robot_phase(state)
    assert state.columns[0].slots[1] == "scrambles" and state.hands == [["funday"], ["funday"]]


def test_scrambles_makes_every_player_discard_a_random_card() -> None:
    """Scrambles: 'All players discard a random Weaponized Ice Cream card.'"""
    state = table(3)
    state.hands = [["funday", "rapid_pop"], [], ["boomsicle"]]
    ROBOT_ABILITIES["discard_random"](state, RobotPhase(), 0, 1, DATA.robots["scrambles"].ability.params)
    assert [len(hand) for hand in state.hands] == [1, 0, 0]
    assert sorted(state.ice_discard[-2:]) in (["boomsicle", "funday"], ["boomsicle", "rapid_pop"])


def test_random_discards_are_random() -> None:
    kept = set()
    for seed in range(20):
        state = table(2, seed=f"random-discard-{seed}")
        state.hands = [["funday", "rapid_pop"], []]
        ROBOT_ABILITIES["discard_random"](state, RobotPhase(), 0, 1, {"who": "all", "count": 1})
        kept.add(state.hands[0][0])
    assert kept == {"funday", "rapid_pop"}


def test_peaboty_hits_the_first_player() -> None:
    """Peaboty (data assumption): the player holding the First Player card discards a random card."""
    state = table(3)
    state.first_player = 2
    state.hands = [["funday"], ["funday"], ["funday"]]
    ROBOT_ABILITIES["discard_random"](state, RobotPhase(), 0, 1, DATA.robots["peaboty"].ability.params)
    assert state.hands == [["funday"], ["funday"], []]


def test_punk_rockit_hits_the_fullest_hands() -> None:
    """Punk Rockit (data assumption): the player(s) with the most cards discard a random card."""
    state = table(3)
    state.hands = [["funday"] * 3, ["funday"], ["rapid_pop"] * 2]
    state.weaponized = [0, 0, 1]
    ROBOT_ABILITIES["discard_random"](state, RobotPhase(), 0, 1, DATA.robots["punk_rockit"].ability.params)
    assert state.hand_count(0) == 2 and state.hand_count(1) == 1 and state.hand_count(2) == 2


def test_pewboty_takes_sprinkletonium_back_to_the_supply() -> None:
    """Pewboty (data assumption): each player loses 1 Sprinkletonium; lost Sprinkletonium goes back to the deck."""
    state = table(3)
    state.sprinkles, state.supply = [2, 0, 1], 37
    ROBOT_ABILITIES["lose_sprinkletonium"](state, RobotPhase(), 0, 1, DATA.robots["pewboty"].ability.params)
    assert state.sprinkles == [1, 0, 0] and state.supply == 39


def test_ray_rebuilds_the_top_robot_of_the_discard_pile() -> None:
    """Ray (data assumption): the robot on top of the robot discard pile comes back as a summoned robot."""
    state = table(2)
    planet(state, ("blue_spinston", ["ray"]))
    state.robot_discard = ["lil_chip", "pewboty"]
    ROBOT_ABILITIES["summon"](state, RobotPhase(), 0, 1, DATA.robots["ray"].ability.params)
    assert state.columns[0].slots[:2] == ["ray", "pewboty"] and state.robot_discard == ["lil_chip"]
    state.robot_discard = []
    ROBOT_ABILITIES["summon"](state, RobotPhase(), 0, 1, DATA.robots["ray"].ability.params)
    assert state.columns[0].slots[2] is None


def test_ray_rebuilds_the_robot_destroyed_last_into_its_own_column() -> None:
    """Ray (data assumption): 'Rebuild the robot on top of the robot discard pile (the last one destroyed, or the last
    to escape) and place it as a summoned robot.' A3: 'Place destroyed robots in the robot discard pile', so in the
    robot phase the top is the team's last kill, and it comes back where Lil Chunk places a summon: Ray's column."""
    state = table(2)
    planet(state, ("blue_spinston", ["ray"]), ("green_spinston", ["lil_chip"]))
    state.robot_discard = ["pewboty"]  # an older kill
    turn(state, 0, ["funday"])
    state.play(0, attack(1, ["funday"]))
    state.play(0, {"type": "end_turn"})
    if state.step == phases.KEEP:
        state.play(1, state.legal_actions(1)[0])
    state.play(1, {"type": "end_turn"})
    assert state.columns[0].slots[:2] == ["ray", "lil_chip"] and state.columns[1].robots() == []
    assert state.robot_discard == ["pewboty"]


def test_every_robot_in_the_data_has_an_implemented_ability() -> None:
    for robot in [*DATA.robots.values(), *DATA.spinstons.values()]:
        assert robot.ability.effect in ROBOT_ABILITIES


# --- the Spinston Beam Track, capture and escape ---------------------------------------------------


def test_the_beam_moves_the_remaining_tokens_up_each_round() -> None:
    """B2: 'The man holding the crate and the remaining Ice Cream tokens move together up the track.' (assumption
    beam-track)."""
    state = table(2)
    state.track_levels, state.above = [0, 1, 2], 0
    state.move_beam_up()
    assert state.track_levels == [1, 2, 0]
    state.move_beam_up()
    assert state.track_levels == [2, 0, 0] and state.above == 1


def test_tokens_are_captured_after_the_third_round_and_the_robots_escape() -> None:
    """'After the 3rd round the Ice Cream token at the top of the beam are moved above the track.' B4: 'any Ice Cream
    tokens that were moved above the track are captured ... All remaining robots on the planet escape to the robot
    discard pile. Place the Spinston cards off to the side'."""
    state = table(2)
    planet(state, ("blue_spinston", ["pewboty"]))
    state.jammed = [0]  # Sticky Syrup keeps the Spinston from moving the token in round 1
    state.robot_discard = []
    for round_number in (1, 2, 3):
        state.round = round_number
        state.queue = [0, 1]
        phases.robot_phase(state)
        if round_number < 3:
            assert state.phase == phases.PLAYER and state.round == round_number + 1
            state.jammed = [0]
    # nobody has Sprinkletonium to shop or upgrades to equip: the next planet comes at once
    assert state.captured == 1 and state.robot_discard == ["pewboty"] and state.planet == 2
    assert "planet 1 ends: 1 Ice Cream tokens captured, the robots escape" in state.events


def test_a_planet_ends_early_when_no_token_is_left_on_the_track() -> None:
    """B3: 'If any Ice Cream tokens remain on the track, a new player phase begins' (and otherwise the planet ends)."""
    state = table(2)
    planet(state, ("blue_spinston", []), ("green_spinston", []))
    state.round = 1
    phases.robot_phase(state)
    assert state.track_levels == [2, 0, 0] and state.round == 2  # both tokens moved once, then the beam moved
    phases.robot_phase(state)
    assert state.captured == 2 and state.planet == 2


def test_claimed_tokens_end_the_planet_after_the_robot_phase() -> None:
    state = table(2)
    planet(state, ("blue_spinston", []))
    turn(state, 0, ["funday"] * 4)
    state.play(0, attack(0, ["funday"] * 4))
    assert state.tokens[0] == 1 and state.tokens_on_track() == 0
    state.play(0, {"type": "end_turn"})
    if state.step == phases.KEEP:
        state.play(1, state.legal_actions(1)[0])
    state.play(1, {"type": "end_turn"})
    assert state.phase == phases.STORE and state.captured == 0 and state.acting_seats() == (0,)


# --- Clarifications ------------------------------------------------------------------------------


def test_decks_are_reshuffled_only_when_empty() -> None:
    """'The robots, Weaponized Ice Cream, and Boost cards are shuffled when each of the decks are depleted. Do not
    reshuffle the discards if there are still cards remaining in the draw piles.'"""
    state = table(2)
    state.ice_deck, state.ice_discard = ["funday"], ["rapid_pop", "boomsicle"]
    assert state.draw_ice(1) == ["funday"] and state.ice_discard == ["rapid_pop", "boomsicle"]
    assert sorted(state.draw_ice(1) + state.ice_deck) == ["boomsicle", "rapid_pop"] and state.ice_discard == []
    state.robot_deck, state.robot_discard = ["ray"], ["pewboty"]
    assert state.draw_robot() == "ray" and state.robot_discard == ["pewboty"]
    assert state.draw_robot() == "pewboty" and state.robot_discard == [] and state.draw_robot() is None
    state.boost_deck, state.boost_discard = [], ["yoink"]
    assert state.draw_boost() == "yoink" and state.draw_boost() is None


def test_sprinkletonium_has_no_discard_pile() -> None:
    """'Sprinkletonium cards do not have a discard pile. Lost or spent Sprinkletonium cards are simply placed back in
    the deck.'"""
    for players in (1, 2, 3, 4):
        state = start(players, seed=f"sprinkles-{players}")
        play_randomly(state, f"sprinkles-{players}")
        assert state.supply + sum(state.sprinkles) + sum(state.weaponized) == 40


# --- 5. End of Game ------------------------------------------------------------------------------


def ended(tokens: list[int], sprinkles: list[int]) -> RobotsState:
    """A game finished with these tokens and Sprinkletonium."""
    state = table(len(tokens))
    state.tokens, state.sprinkles = list(tokens), list(sprinkles)
    phases.finish(state, "test")
    return state


def test_group_victory_at_ten_tokens_and_the_champion_of_the_galaxy() -> None:
    """'If the players were able to collectively defend a total of 10 or more Ice Cream tokens ... they share in
    glorious group victory.' 'Each Ice Cream saved counts as 2 VPs and each Sprinkletonium counts as 1 VP.'"""
    state = ended([4, 3, 3], [1, 6, 2])
    result = state.result()
    assert result is not None and result.team_success is True
    assert result.scores == (9.0, 12.0, 8.0)
    assert result.winners == (1,) and result.ranking == ((1,), (0,), (2,))
    assert state.rewards() == [1.0, 1.0, 1.0]


def test_a_tie_on_points_goes_to_the_most_ice_cream() -> None:
    """'In the event of a tie, the Champion of the Galaxy is the player with the most Ice Cream tokens.'"""
    result = ended([5, 4, 1], [0, 2, 8]).result()
    assert result is not None and result.scores == (10.0, 10.0, 10.0)
    assert result.ranking == ((0,), (1,), (2,)) and result.winners == (0,)


def test_co_champions() -> None:
    """'If their Ice Cream total is also equal, then the tied players revel in becoming co-champions of the galaxy!'"""
    result = ended([5, 5], [3, 3]).result()
    assert result is not None and result.winners == (0, 1) and "co-champions" in result.reason


def test_fewer_than_ten_tokens_is_a_group_loss_without_a_champion() -> None:
    """'The group's mission is a success if you can save a combined 10 out of 13 possible Ice Cream tokens.'
    Assumption champion-on-success: VP are scored only 'if your group has saved at least 10 ice creams'."""
    state = ended([5, 4], [9, 0])
    result = state.result()
    assert result is not None and result.team_success is False and result.winners == ()
    assert result.ranking == ((0,), (1,)) and state.rewards() == [-1.0, -1.0]
    with pytest.raises(MatchOver):
        state.play(0, {"type": "end_turn"})


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_the_game_ends_after_the_fifth_planet(players: int) -> None:
    """'After completion of the fifth and final planet, Victory Points (VP) are counted.'"""
    state = start(players, seed=f"end-{players}")
    play_randomly(state, f"end-{players}")
    result = state.result()
    assert result is not None and state.planet == 5 and state.phase == phases.OVER
    assert sum(state.tokens) + state.captured == 13
    assert result.team_success == (sum(state.tokens) >= 10)


def test_stop_when_lost_ends_once_four_tokens_are_captured() -> None:
    """Option stop_when_lost: the mission cannot succeed once more than 13 - 10 tokens are captured."""
    state = table(2, {"stop_when_lost": True})
    planet(state, ("blue_spinston", []))
    state.captured, state.above, state.track_levels = 3, 1, [0, 0, 0]
    phases.end_planet(state)
    result = state.result()
    assert result is not None and result.team_success is False and state.planet == 1
    assert "can no longer save" in result.reason


def test_play_on_after_the_mission_is_lost_by_default() -> None:
    state = table(2)
    planet(state, ("blue_spinston", []))
    state.captured, state.above, state.track_levels = 3, 1, [0, 0, 0]
    phases.end_planet(state)
    assert state.result() is None and state.captured == 4


def test_whole_games_keep_every_card() -> None:
    for players in (1, 2, 3, 4):
        state = start(players, {"weaponized_sprinkletonium": True, "ice_cream_social": True}, seed=f"keep-{players}")
        play_randomly(state, f"keep-{players}")
        assert ice_cream_total(state) == 65
        owned = [
            b for seat in range(players) for b in (*state.equipped[seat], *state.spares[seat], *state.effects[seat])
        ]
        boosts = Counter([*state.boost_deck, *state.boost_discard, *state.store_row, *owned])
        assert sum(boosts.values()) == (21 if players == 1 else 27) and max(boosts.values()) == 1
