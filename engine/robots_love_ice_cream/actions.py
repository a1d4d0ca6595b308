"""What a seat may do, why anything else is refused, and applying an action.

The action vocabulary, by phase (every action is a JSON object with a "type"; * marks the actions
that end the seat's turn, see `ends_turn`):

* player phase, start of a turn (only when the catch-up draw is allowed): `draw_up`, `decline_draw_up`;
* draw step: `{"type": "keep_drawn", "cards": [sorted card ids]}`;
* the rest of the turn: `{"type": "attack", "column": n, "cards": [...], "upgrade": null or an id}`,
  `{"type": "use_boost_in_play", "boost": id, ...its choice}`, `{"type": "refill_hand", "weaponize": bool}`*,
  `end_turn`*;
* store phase: `{"type": "buy_boost", "boost": id}`, `flush_store`, `stop_buying`*, and
  `{"type": "resolve_bought_boost", "boost": id, ...its choice}` for a bought immediate Boost that needs a
  choice (a buy, flush or resolve also ends the buying turn when the buyer can then neither buy nor flush);
* equip phase: `{"type": "equip_upgrades", "upgrades": [sorted ids]}`*;
* Ice Cream Social (Variant D): `{"type": "share_social_cards", "cards": [card or null for each seat]}`*,
  `share_social_randomly`*.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import TYPE_CHECKING, Any

from engine.errors import IllegalAction
from engine.protocol import Action, action_text
from engine.robots_love_ice_cream import phases, sets
from engine.robots_love_ice_cream.data import DATA
from engine.robots_love_ice_cream.effects import ACTIVATED
from engine.robots_love_ice_cream.schema import EFFECTS

if TYPE_CHECKING:
    from engine.robots_love_ice_cream.table import Table

END_TURN: Action = {"type": "end_turn"}
STEP_TYPES = {
    phases.DRAW_UP: ("draw_up", "decline_draw_up"),
    phases.KEEP: ("keep_drawn",),
    phases.ACT: ("attack", "use_boost_in_play", "refill_hand", "end_turn"),
    phases.STORE: ("buy_boost", "flush_store", "stop_buying", "resolve_bought_boost"),
    phases.EQUIP: ("equip_upgrades",),
    phases.SOCIAL: ("share_social_cards", "share_social_randomly"),
}
TURN_ENDERS = frozenset(
    {"end_turn", "refill_hand", "stop_buying", "equip_upgrades", "share_social_cards", "share_social_randomly"}
)
"""The actions that always end the seat's turn (its part of the equip phase or the Social included)."""


def legal_actions(state: Table, seat: int) -> list[Action]:
    """Every action the seat may take now; empty unless it is the seat's decision."""
    if seat not in state.acting_seats():
        return []
    if state.phase == phases.PLAYER:
        if state.step == phases.DRAW_UP:
            return [{"type": "draw_up"}, {"type": "decline_draw_up"}]
        if state.step == phases.KEEP:
            return keep_choices(state, seat)
        return turn_actions(state, seat)
    if state.phase == phases.STORE:
        return store_actions(state, seat)
    if state.phase == phases.EQUIP:
        return [{"type": "equip_upgrades", "upgrades": upgrades} for upgrades in equip_choices(state, seat)]
    cards = phases.social_assignments(state)
    return [*({"type": "share_social_cards", "cards": choice} for choice in cards), {"type": "share_social_randomly"}]


def ends_turn(state: Table, seat: int, action: Action) -> bool:
    """Whether a legal action ends the seat's turn (its buying turn in the store, its part of the equip phase).

    A store action also ends it when the buyer can then neither buy nor flush ('Players may purchase more than one
    card if able'). No Boost costs less than a flush (data.py checks it), so that never depends on the hidden card
    drawn to replace a bought one.
    """
    kind = action["type"]
    if kind == "buy_boost":
        boost = DATA.boosts[action["boost"]]
        pending = boost.timing == "immediate" and phases.waits_for_choice(state, seat, boost.id)
        return not pending and not phases.can_flush(state, seat, spent=boost.price, more=1)
    if kind == "flush_store":
        return not phases.can_flush(state, seat, spent=DATA.rules.flush_cost)
    if kind == "resolve_bought_boost":
        return not phases.can_flush(state, seat)
    return kind in TURN_ENDERS


def default_action(state: Table, seat: int) -> Action:
    """What the waited-for seat does when its time runs out: pass where the step allows it.

    Declines the catch-up draw ('may draw up to 7'), keeps the first choice in sorted card order
    ('choose 1 to discard' has no pass), ends the turn (attacks and the refill are optional), passes
    in the store ('players may choose to purchase') or resolves a bought Boost with its first choice,
    leaves the truck as it is ('may choose to equip'), and shares the Social's cards at random (the
    rulebook's own fallback). See assumption timeout-default-action.
    """
    if state.phase == phases.PLAYER:
        if state.step == phases.DRAW_UP:
            return {"type": "decline_draw_up"}
        if state.step == phases.KEEP:
            return keep_choices(state, seat)[0]
        return dict(END_TURN)
    if state.phase == phases.STORE:
        return store_actions(state, seat)[0] if state.pending is not None else {"type": "stop_buying"}
    if state.phase == phases.EQUIP:
        choices = equip_choices(state, seat)
        unchanged = sorted(state.equipped[seat])
        return {"type": "equip_upgrades", "upgrades": unchanged if unchanged in choices else choices[0]}
    return {"type": "share_social_randomly"}


def keep_choices(state: Table, seat: int) -> list[Action]:
    """Each distinct choice of the cards to keep from the draw."""
    kept = sorted({tuple(c) for c in combinations(state.drawn, state.keep_count(seat))})
    return [{"type": "keep_drawn", "cards": list(cards)} for cards in kept]


def boost_uses(state: Table, seat: int) -> list[Action]:
    """Once-per-planet Boosts in play that the seat may use now, with each of their choices."""
    found: list[Action] = []
    for boost in state.active_boosts(seat):
        if EFFECTS[boost.ability.effect].kind != "activated" or boost.id in state.used:
            continue
        for choice in ACTIVATED[boost.ability.effect].choices(state, seat, boost.ability.params):
            found.append({"type": "use_boost_in_play", "boost": boost.id, **choice})
    return found


def turn_actions(state: Table, seat: int) -> list[Action]:
    """Attacks, Boost uses, refills and ending the turn."""
    found = [*sets.legal_attacks(state, seat), *boost_uses(state, seat)]
    found += [{"type": "refill_hand", "weaponize": w} for w in (False, True) if phases.can_refill(state, seat, w)]
    return [*found, END_TURN]


def store_actions(state: Table, seat: int) -> list[Action]:
    """The buyer's purchases, flush and pass; or the choice a bought immediate Boost needs."""
    if state.pending is not None:
        boost = DATA.boosts[state.pending]
        choices = ACTIVATED[boost.ability.effect].choices(state, seat, boost.ability.params)
        return [{"type": "resolve_bought_boost", "boost": boost.id, **choice} for choice in choices]
    found: list[Action] = [{"type": "buy_boost", "boost": boost} for boost in phases.affordable(state, seat)]
    if phases.can_flush(state, seat):
        found.append({"type": "flush_store"})
    return [*found, {"type": "stop_buying"}]


def equip_choices(state: Table, seat: int) -> list[list[str]]:
    """Every set of owned upgrades that fits the truck's slots (the empty set included)."""
    owned = sorted([*state.spares[seat], *state.equipped[seat]])
    slots = min(state.upgrade_slots(seat), len(owned))
    return [list(chosen) for size in range(slots + 1) for chosen in combinations(owned, size)]


# --- refusing, with the rule ------------------------------------------------------------------


def check_action(state: Table, seat: int, action: Action) -> None:
    """IllegalAction naming the rule, unless the action is one of the seat's legal actions."""
    legal = legal_actions(state, seat)
    # Compared as JSON text, so true is not 1 and 1.0 is not 1: only the canonical form is accepted.
    if _text(action) in {_text(choice) for choice in legal}:
        return
    raise IllegalAction(why_illegal(state, seat, action, legal))


def _text(action: Action) -> str:
    """The canonical JSON text of an action (unserialisable values never match a legal action)."""
    try:
        return action_text(action)
    except (TypeError, ValueError):
        return ""


def why_illegal(state: Table, seat: int, action: Action, legal: list[Action]) -> str:
    """The reason an action is refused: the step's expected actions, or the rule it breaks."""
    kind = action.get("type")
    step = state.step if state.phase == phases.PLAYER else state.phase
    if kind not in STEP_TYPES[step]:
        where = f"the {state.phase} phase" + (f" ({state.step} step)" if state.step else "")
        return f"during {where} you may send: {', '.join(STEP_TYPES[step])}"
    if kind == "keep_drawn":
        choices = [a["cards"] for a in legal if a["type"] == "keep_drawn"]
        return f"keep exactly {state.keep_count(seat)} of the cards you drew, sorted: one of {choices}"
    if kind == "attack":
        return sets.why_not(state, seat, action)
    if kind in ("use_boost_in_play", "resolve_bought_boost"):
        return _why_not_boost(state, seat, action)
    if kind == "refill_hand":
        return _why_not_refill(state, seat, action)
    if kind in ("flush_store", "stop_buying") and state.pending is not None:
        return f"first resolve {DATA.boosts[state.pending].title}, which you just bought"
    if kind == "flush_store":
        if not phases.purchase_allowed(state):
            return "Variant F: 'You may still use a Sprinkletonium to flush the cards before purchasing.'"
        return "flushing the store costs 1 Sprinkletonium"
    if kind == "buy_boost":
        if state.pending is not None:
            return f"first resolve {DATA.boosts[state.pending].title}, which you just bought"
        boost = DATA.boosts.get(str(action.get("boost")))
        if set(action) != {"type", "boost"} or boost is None or boost.id not in state.store_row:
            return f"buy one of the face-up Boosts: {state.store_row}"
        if not phases.purchase_allowed(state):
            return "Variant F: 'During each store phase, players may only purchase 1 Boost card.'"
        return f"{boost.title} costs {boost.price} Sprinkletonium; you have {state.sprinkles[seat]}"
    if kind == "equip_upgrades":
        return (
            f"equip at most {state.upgrade_slots(seat)} of your upgrades "
            f"{sorted([*state.spares[seat], *state.equipped[seat]])}, listed once each in sorted order"
        )
    return f"send one of the listed actions; {action!r} is not one of them"


def _why_not_boost(state: Table, seat: int, action: Action) -> str:
    boost = DATA.boosts.get(str(action.get("boost")))
    if boost is None:
        return f"there is no Boost {action.get('boost')!r}"
    if action["type"] == "resolve_bought_boost" and state.pending is None:
        return "resolve_bought_boost answers the choice of an immediate Boost you just bought; none waits for one"
    if state.pending is not None and boost.id != state.pending:
        return f"first resolve {DATA.boosts[state.pending].title}, which you just bought"
    if state.pending is None and boost not in state.active_boosts(seat):
        return f"{boost.title} is not in play in front of you"
    if EFFECTS[boost.ability.effect].kind != "activated":
        return f"{boost.title} works by itself: {boost.text}"
    if boost.id in state.used:
        return f"{boost.title} was already used on this planet ('Effect may only be used once per planet')"
    choices = ACTIVATED[boost.ability.effect].choices(state, seat, boost.ability.params)
    if not choices:
        return f"{boost.title} has nothing to act on now"
    return f"{boost.title} takes one of these choices: {choices}"


def _why_not_refill(state: Table, seat: int, action: Action) -> str:
    if set(action) != {"type", "weaponize"} or not isinstance(action["weaponize"], bool):
        return 'a refill is {"type": "refill_hand", "weaponize": false} (true for Variant B)'
    if action["weaponize"] and not state.options["weaponized_sprinkletonium"]:
        return "weaponizing Sprinkletonium is Variant B, which this game does not use"
    if state.hand_count(seat) >= state.refill_target(seat):
        return f"your hand already holds {state.refill_target(seat)} cards: 'fill their ... hand back up to 7'"
    return "refilling costs 1 Sprinkletonium ('spend one of them'; to weaponize one more is needed)"


# --- applying ---------------------------------------------------------------------------------


def apply_action(state: Table, seat: int, action: Action) -> None:
    """Apply a legal action and run the game on to the next decision."""
    APPLY[action["type"]](state, seat, action)


def attack(state: Table, seat: int, action: Action) -> None:
    """Discard the set, then A3 Clean Up for the destroyed robot."""
    for card in action["cards"]:
        state.discard(seat, card)
    if action["upgrade"] is None:
        state.attacks += 1
    else:
        state.extras.append(action["upgrade"])
    column = action["column"]
    target = state.target(column)
    assert target is not None
    state.destroy(seat, column, target[0])


def boost_choice(action: Action) -> dict[str, Any]:
    """The part of a Boost action beyond its type and Boost: the Boost's choice."""
    return {key: value for key, value in action.items() if key not in ("type", "boost")}


def use_boost_in_play(state: Table, seat: int, action: Action) -> None:
    """Use a once-per-planet Boost in play with its choice."""
    boost = DATA.boosts[action["boost"]]
    state.used.append(boost.id)
    ACTIVATED[boost.ability.effect].resolve(state, seat, boost.ability.params, boost_choice(action))


def share_social_cards(state: Table, seat: int, action: Action) -> None:
    """'The group then decides which card goes to each player.', then the next planet."""
    phases.share(state, list(action["cards"]))
    phases.next_planet(state)


def share_social_randomly(state: Table, seat: int, action: Action) -> None:
    """'randomly distributed among the players', then the next planet."""
    phases.share_randomly(state)
    phases.next_planet(state)


APPLY: dict[str, Callable[[Table, int, Action], None]] = {
    "draw_up": lambda state, seat, action: phases.draw_up(state, seat),
    "decline_draw_up": lambda state, seat, action: phases.draw_step(state),
    "keep_drawn": lambda state, seat, action: phases.keep(state, seat, list(action["cards"])),
    "attack": attack,
    "use_boost_in_play": use_boost_in_play,
    "refill_hand": lambda state, seat, action: phases.refill(state, seat, bool(action["weaponize"])),
    "end_turn": lambda state, seat, action: phases.end_turn(state),
    "buy_boost": lambda state, seat, action: phases.buy(state, seat, action["boost"]),
    "flush_store": lambda state, seat, action: phases.flush(state, seat),
    "stop_buying": lambda state, seat, action: phases.stop_buying(state),
    "resolve_bought_boost": lambda state, seat, action: phases.resolve_immediate(
        state, seat, action["boost"], boost_choice(action)
    ),
    "equip_upgrades": lambda state, seat, action: phases.equip(state, seat, list(action["upgrades"])),
    "share_social_cards": share_social_cards,
    "share_social_randomly": share_social_randomly,
}
"""How each action type is applied (every type of STEP_TYPES)."""
