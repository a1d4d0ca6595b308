"""A Robots Love Ice Cream state from what one seat sees (viewing.py's view, read back).

Everything on the table is shown, and so is the seat's own hand (every hand, with open_hands). What is not, is
dealt at random from the cards nobody has seen: the ice cream deck, the other hands and the active player's draw
from the ice cream cards not on the table or in a hand the seat sees; the robot deck from the robots neither on the
planet nor discarded; the Boost deck from the Boosts not in the store, on a truck, waiting or discarded.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from engine.errors import ViewMismatch
from engine.protocol import View
from engine.rng import Rng
from engine.robots_love_ice_cream import phases
from engine.robots_love_ice_cream.data import DATA
from engine.robots_love_ice_cream.planet import Column
from engine.robots_love_ice_cream.state import RobotsState
from engine.robots_love_ice_cream.table import EQUIP, OVER, PLAYER, RULES, SOCIAL, SOLO, STORE
from engine.robots_love_ice_cream.viewing import sees_hand
from engine.view_reading import seat_index, whole


def state_from_view(view: View, seat: int, players: int, options: dict[str, Any], rng: Rng) -> RobotsState:
    """The table the view shows, the unseen cards dealt at random; ViewMismatch if the cards do not add up."""
    seats = view["seats"]
    if len(seats) != players or any(shown["seat"] != index for index, shown in enumerate(seats)):
        raise ViewMismatch(f"the view shows {len(seats)} seats for {players} players")
    state = RobotsState.blank(players, options, Rng(rng.next_u64()))
    _read_table(state, view)
    _read_seats(state, seats)
    active = state.queue[0] if state.queue else None
    if view["active"] != active:
        raise ViewMismatch("the active player is the first of the queue")
    if active is not None and sees_hand(state, seat, active):
        state.drawn = list(view["drawn"])
    _deal_ice_cream(state, view, seat, rng)
    robots = _minus(_robots(state), _robots_seen(state), "robot")
    state.robot_deck = _deal(robots, view["robot_deck_count"], "robot", rng)
    boosts = _minus(_boosts(state), _boosts_seen(state), "Boost")
    state.boost_deck = _deal(boosts, view["boost_deck_count"], "Boost", rng)
    if state.phase == OVER:
        ended = state.clone()
        phases.finish(ended, "the game ended")  # as the last action set it off; the view shows its events already
        state.outcome = ended.outcome
    return state


def _read_table(state: RobotsState, view: View) -> None:
    """The public table: planet, rounds, turn order, track, store, discards and what the last action set off."""
    state.phase, state.step = view["phase"], view["step"] or ""
    if state.phase not in (PLAYER, STORE, EQUIP, SOCIAL, OVER):
        raise ViewMismatch(f"{state.phase!r} is no phase of the game")
    state.planet = whole(view["planet"], "planet", RULES.planets_per_game)
    state.planet_card, state.round = view["planet_card"], whole(view["round"], "round")
    state.first_player = seat_index(view["first_player"], state.players, "first_player")
    state.queue = [seat_index(seat, state.players, "a seat in the queue") for seat in view["queue"]]
    if len(set(state.queue)) != len(state.queue):
        raise ViewMismatch("each player takes one turn in a phase: the queue names a seat once")
    state.columns = [Column(c["spinston"], list(c["robots"]), bool(c["fourth_level_open"])) for c in view["columns"]]
    if any(column.spinston not in (None, *DATA.spinstons) for column in state.columns):
        raise ViewMismatch("a column shows a Spinston the game does not have")
    state.jammed = [index for index, column in enumerate(view["columns"]) if column["jammed"] is True]
    state.track_levels = [whole(tokens, "tokens on a track level") for tokens in view["track_levels"]]
    state.above, state.captured = whole(view["above_track"], "above_track"), whole(view["captured"], "captured")
    state.attacks, state.extras = whole(view["attacks_made"], "attacks_made"), list(view["extra_attacks_used"])
    state.used, state.supply = list(view["used_this_planet"]), whole(view["sprinkletonium_supply"], "Sprinkletonium")
    state.ice_discard, state.robot_discard = list(view["ice_cream_discard"]), list(view["robot_discard"])
    state.boost_discard, state.store_row = list(view["boost_discard"]), list(view["store_row"])
    state.bought, state.pending = view["bought_this_store"], view["pending_boost"]
    state.social, state.events = list(view["social"]), list(view["events"])
    if any(len(column.slots) != 4 for column in state.columns):
        raise ViewMismatch("a column has four levels below its Spinston")
    if len(state.track_levels) != RULES.track_levels:
        raise ViewMismatch(f"'Place the {RULES.track_levels} Spinston Beam Track cards'")


def _read_seats(state: RobotsState, seats: list[dict[str, Any]]) -> None:
    """Each seat's Sprinkletonium, tokens and truck; its hand only where the view shows it (dealt later)."""
    for index, shown in enumerate(seats):
        state.weaponized[index] = whole(shown["weaponized_sprinkletonium"], "weaponized_sprinkletonium")
        state.sprinkles[index] = whole(shown["sprinkletonium"], "Sprinkletonium")
        state.tokens[index] = whole(shown["tokens"], "tokens")
        state.equipped[index], state.spares[index] = list(shown["equipped"]), list(shown["spare_upgrades"])
        state.effects[index] = list(shown["effects"])
        if shown["hand"] is not None:
            state.hands[index] = sorted(shown["hand"])
    total = state.supply + sum(state.sprinkles) + sum(state.weaponized)
    if total != DATA.components["sprinkletonium"]:
        raise ViewMismatch(f"the {DATA.components['sprinkletonium']} Sprinkletonium cards are in the supply or held")


def _deal_ice_cream(state: RobotsState, view: View, seat: int, rng: Rng) -> None:
    """The ice cream deck, the hands and the draw the seat cannot see, from the ice cream it has not seen."""
    seen = Counter(state.ice_discard) + Counter(state.social) + Counter(state.drawn)
    for hand in state.hands:
        seen += Counter(hand)
    unseen = _minus(Counter(DATA.ice_cream), seen, "ice cream")
    rng.shuffle(unseen)
    hidden = [index for index in range(state.players) if not sees_hand(state, seat, index)]
    for index in hidden:
        count = view["seats"][index]["hand_count"] - state.weaponized[index]
        state.hands[index] = sorted(_take(unseen, count))
    active = state.queue[0] if state.queue else None
    if active is not None and not sees_hand(state, seat, active):
        state.drawn = sorted(_take(unseen, view["drawn_count"]))
    state.ice_deck = _take(unseen, view["ice_cream_deck_count"])
    if unseen:
        raise ViewMismatch(f"{len(unseen)} ice cream cards are nowhere: the counts shown do not add up")


def _robots(state: RobotsState) -> Counter[str]:
    """Every robot card of the game: 'After setting the Spinston and Spinston 2.0 cards aside' (Variant A's removed)."""
    removed = phases.RULES.variants.harder_robots_removed if state.options["harder_robots"] else {}
    return Counter({robot.id: robot.count - removed.get(robot.id, 0) for robot in DATA.robots.values()})


def _robots_seen(state: RobotsState) -> Counter[str]:
    """The robots on the planet (below the Spinstons) and in the discard pile."""
    return Counter([robot for column in state.columns for robot in column.robots()]) + Counter(state.robot_discard)


def _boosts(state: RobotsState) -> Counter[str]:
    """Every Boost card of the game; solo: 'Remove the following Boost effect cards from the deck before play'."""
    removed = SOLO.removed_boosts if state.solo else ()
    return Counter(boost for boost in DATA.boosts if boost not in removed)


def _boosts_seen(state: RobotsState) -> Counter[str]:
    """The Boosts in the store, waiting, on the trucks and in the discard pile."""
    pending = [] if state.pending is None else [state.pending]  # a name the game lacks: counted, so refused
    seen = Counter(state.store_row) + Counter(state.boost_discard) + Counter(pending)
    for cards in (*state.equipped, *state.spares, *state.effects):
        seen += Counter(cards)
    return seen


def _deal(cards: list[str], count: int, what: str, rng: Rng) -> list[str]:
    """A deck of the unseen cards in a random order; ViewMismatch unless they are exactly as many as it shows."""
    if len(cards) != count:
        raise ViewMismatch(f"the {what} deck shows {count} cards but {len(cards)} {what} cards are unseen")
    rng.shuffle(cards)
    return cards


def _minus(every: Counter[str], seen: Counter[str], what: str) -> list[str]:
    """The cards of `every` not in `seen`, sorted; ViewMismatch if `seen` holds a card more than the game has."""
    if seen - every:
        raise ViewMismatch(f"the view shows {what} cards the game does not have so many of: {sorted(seen - every)}")
    return sorted((every - seen).elements())


def _take(cards: list[str], count: int) -> list[str]:
    """The first `count` cards, taken out of the list; ViewMismatch if it has fewer."""
    whole(count, f"a count of cards dealt from the {len(cards)} left unseen", len(cards))
    taken = cards[:count]
    del cards[:count]
    return taken
