"""What each viewer may see: the table is public, a hand is its owner's, deck orders nobody's.

'everything on the table is public': the planet, the track, the Sprinkletonium, trucks and
Boosts, and the face-up discard piles (so the card discarded from a draw is seen by all, the one
kept is not). A weaponized Sprinkletonium in a hand shows its own card back, so its count is public.
The option `open_hands` shows every hand, since 'Players are allowed to discuss their plans'.

Cards are named by id; the catalog (`GameInfo.cards`) gives each card's title, type, price, text.
Levels count down from the top, on the planet and on the track alike (see planet.py).
"""

from __future__ import annotations

from typing import Any, TypeVar

from engine.protocol import Action, View
from engine.rng import Rng
from engine.robots_love_ice_cream import phases
from engine.robots_love_ice_cream.data import DATA
from engine.robots_love_ice_cream.planet import LEVELS
from engine.robots_love_ice_cream.schema import SPRINKLETONIUM
from engine.robots_love_ice_cream.table import Table

T = TypeVar("T", bound=Table)
"""A table, or a game state made of one: what determinize deals anew it gives back as it came."""


def sees_hand(state: Table, viewer: int | None, seat: int) -> bool:
    """Whether the viewer may see the seat's hand (and its pending draw)."""
    return bool(state.options["open_hands"]) or viewer == seat


def view(state: Table, viewer: int | None) -> View:
    """Everything on the table, the viewer's own hand, and counts of what it cannot see."""
    active = state.queue[0] if state.queue else None
    points = phases.victory_points(state)
    return {
        "phase": state.phase,
        "step": state.step or None,
        "planet": state.planet,
        "planet_card": state.planet_card,
        "round": state.round,
        "first_player": state.first_player,
        "active": active,
        "queue": list(state.queue),
        "columns": [_column(state, index) for index in range(len(state.columns))],
        "track_levels": list(state.track_levels),
        "above_track": state.above,
        "captured": state.captured,
        "saved": sum(state.tokens),
        "tokens_needed": DATA.rules.tokens_for_success,
        "seats": [_seat(state, viewer, seat, points[seat]) for seat in range(state.players)],
        "drawn": list(state.drawn) if active is not None and sees_hand(state, viewer, active) else None,
        "drawn_count": len(state.drawn),
        "attacks_made": state.attacks,
        "extra_attacks_used": list(state.extras),
        "used_this_planet": list(state.used),
        "sprinkletonium_supply": state.supply,
        "ice_cream_deck_count": len(state.ice_deck),
        "ice_cream_discard": list(state.ice_discard),
        "robot_deck_count": len(state.robot_deck),
        "robot_discard": list(state.robot_discard),
        "boost_deck_count": len(state.boost_deck),
        "boost_discard": list(state.boost_discard),
        "store_row": list(state.store_row),
        "bought_this_store": state.bought,
        "pending_boost": state.pending,
        "social": list(state.social),
        "events": list(state.events),
    }


def _column(state: Table, index: int) -> dict[str, Any]:
    column = state.columns[index]
    return {
        "spinston": column.spinston,
        "robots": [column.robot_at(level) for level in LEVELS],
        "fourth_level_open": column.fourth,
        "target_level": column.lowest(),
        "jammed": index in state.jammed,
    }


def _seat(state: Table, viewer: int | None, seat: int, points: int) -> dict[str, Any]:
    return {
        "seat": seat,
        "hand": list(state.hands[seat]) if sees_hand(state, viewer, seat) else None,
        "hand_count": state.hand_count(seat),
        "weaponized_sprinkletonium": state.weaponized[seat],
        "sprinkletonium": state.sprinkles[seat],
        "tokens": state.tokens[seat],
        "victory_points": points,
        "equipped": list(state.equipped[seat]),
        "spare_upgrades": list(state.spares[seat]),
        "effects": list(state.effects[seat]),
        "upgrade_slots": state.upgrade_slots(seat),
        "refill_to": state.refill_target(seat),
    }


def redact_action(state: Table, seat: int, action: Action, viewer: int | None) -> Action:
    """The kept cards of a draw, and a card given away, are hidden from the other seats."""
    if sees_hand(state, viewer, seat):
        return action
    if action.get("type") == "keep_drawn":
        return {"type": "keep_drawn", "cards": None}
    gift = action.get("type") == "use_boost_in_play" and "card" in action and action["card"] != SPRINKLETONIUM
    if gift and viewer != action.get("target"):
        return {**action, "card": None}
    return action


def determinize(state: T, viewer: int | None, rng: Rng) -> T:
    """Deal the unseen ice cream (deck, others' hands, others' draw) at random; reshuffle robot and Boost decks.

    Like the other games, the sample starts from the sorted unknown pool, so it never depends on where the hidden
    cards really are. What the viewer remembers beyond its view (a card it gave away, the social's cards) is not used.
    """
    copy = state.clone()
    copy.rng = Rng(rng.next_u64())
    hidden = [copy.ice_deck]
    hidden += [copy.hands[seat] for seat in range(copy.players) if not sees_hand(copy, viewer, seat)]
    if copy.queue and not sees_hand(copy, viewer, copy.queue[0]):
        hidden.append(copy.drawn)
    pool = sorted(card for cards in hidden for card in cards)
    rng.shuffle(pool)
    for cards in hidden:
        cards[:], pool = pool[: len(cards)], pool[len(cards) :]
        if cards is not copy.ice_deck:
            cards.sort()
    for deck in (copy.robot_deck, copy.boost_deck):
        deck.sort()
        rng.shuffle(deck)
    return copy
