"""Every robot ability and Boost effect the data may name, each implemented once (see schema.py).

Robot abilities run in the robot phase: `ROBOT_ABILITIES[name](state, phase, column, level, params)`.
Activated Boosts (bought as immediate effects, or used once per planet) list their choices and
resolve one: `ACTIVATED[name].choices(state, seat, params)` and `.resolve(state, seat, params,
choice)`; a choice is the part of the action beyond `{"type": "use_boost_in_play", "boost": id}` (or
`resolve_bought_boost`).
Passive Boosts are read where the rule they change is applied: `attack_bonus` and
`extra_attack_allows` here, the amounts and guards through `Table.passive_amount`,
`has_passive` and `use_trigger`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.robots_love_ice_cream.data import DATA
from engine.robots_love_ice_cream.planet import ABOVE_TRACK, open_space_for_hop, open_space_for_summon
from engine.robots_love_ice_cream.schema import ANY, EFFECTS, SPRINKLETONIUM

if TYPE_CHECKING:
    from engine.robots_love_ice_cream.table import Table

Params = dict[str, Any]
Choice = dict[str, Any]


@dataclass
class RobotPhase:
    """What one robot phase remembers: spots filled during it (a robot moved or summoned there acts no more)."""

    filled: set[tuple[int, int]] = field(default_factory=set)


# --- robot abilities ----------------------------------------------------------------------------


def advance_ice_cream(state: Table, phase: RobotPhase, column: int, level: int, params: Params) -> None:
    """Spinston: 'Move an Ice Cream token up one level.' (a Deflector Shield may turn a move off the track down)."""
    for _ in range(params["levels"]):
        token_level = state.token_level(params["token"])
        if token_level is None:
            state.event("no Ice Cream token is left on the track to move")
            return
        if token_level == 1 and _deflected(state):
            continue
        state.advance_token(params["token"])
        state.event(f"an Ice Cream token moves up one level ({state.track_text()})")


def _deflected(state: Table) -> bool:
    """Deflector Shield: a token about to leave the top of the track moves down one level instead (once per planet)."""
    shield = next((s for s in state.seats_from_first() if state.use_trigger(s, "deflect_advance")), None)
    if shield is None:
        return False
    state.move_token(1, 2)
    state.event(f"seat {shield}'s Deflector Shield deflects the beam: an Ice Cream token moves down one level")
    return True


def hop_right(state: Table, phase: RobotPhase, column: int, level: int, params: Params) -> None:
    """Lil Chip 'moves to the highest open space available in a different column' to the right, else stays."""
    name = state.robot(column, level).name
    spot = open_space_for_hop(state.columns, column)
    if spot is None:
        state.event(f"{name} finds no open space and stays in place")
        return
    to_column, to_level = spot
    robot = state.columns[column].slots[level - 1]
    state.columns[column].slots[level - 1] = None
    state.columns[to_column].slots[to_level - 1] = robot
    phase.filled.add(spot)
    state.event(f"{name} moves from column {column} level {level} to column {to_column} level {to_level}")


def summon(state: Table, phase: RobotPhase, column: int, level: int, params: Params) -> None:
    """Lil Chunk: 'Summon new additional robot' into its column if possible, else the next open space rightwards."""
    for _ in range(params["count"]):
        spot = open_space_for_summon(state.columns, column)
        if spot is None:
            state.event("no open space is available: no robot is summoned")
            return
        if params["source"] == "deck":
            robot = state.draw_robot()
        else:
            robot = state.robot_discard.pop() if state.robot_discard else None
        if robot is None:
            state.event(f"no robot is summoned: the robot {params['source']} is empty")
            return
        to_column, to_level = spot
        state.columns[to_column].slots[to_level - 1] = robot
        phase.filled.add(spot)
        state.event(f"a {state.robot(to_column, to_level).name} is summoned to column {to_column} level {to_level}")


def _players_hit(state: Table, who: str) -> list[int]:
    """all: every player; first_player: the First Player card's holder; most_cards: those with the most cards."""
    if who == "first_player":
        return [state.first_player]
    seats = list(range(state.players))
    if who == "most_cards":
        most = max(state.hand_count(seat) for seat in seats)
        return [seat for seat in seats if most and state.hand_count(seat) == most]
    return seats


def discard_random(state: Table, phase: RobotPhase, column: int, level: int, params: Params) -> None:
    """Scrambles: 'All players discard a random Weaponized Ice Cream card.' (others hit fewer players)."""
    for seat in _players_hit(state, params["who"]):
        if state.has_passive(seat, "hand_guard"):
            state.event(f"seat {seat}'s hand is guarded and discards nothing")
            continue
        for _ in range(params["count"]):
            card = state.random_card(seat)
            if card is None:
                break
            state.discard(seat, card)
            state.event(f"seat {seat} discards a random card: {DATA.title(card)}")


def lose_sprinkletonium(state: Table, phase: RobotPhase, column: int, level: int, params: Params) -> None:
    """The players hit lose Sprinkletonium, which goes back to the deck."""
    for seat in _players_hit(state, params["who"]):
        if state.has_passive(seat, "sprinkletonium_guard"):
            state.event(f"seat {seat}'s Sprinkletonium is guarded")
            continue
        lost = min(params["count"], state.sprinkles[seat])
        state.pay(seat, lost)
        state.event(f"seat {seat} loses {lost} Sprinkletonium")


RobotAbility = Callable[["Table", RobotPhase, int, int, Params], None]
ROBOT_ABILITIES: dict[str, RobotAbility] = {
    "advance_ice_cream": advance_ice_cream,
    "hop_right": hop_right,
    "summon": summon,
    "discard_random": discard_random,
    "lose_sprinkletonium": lose_sprinkletonium,
}


# --- passive Boosts read by the rules -----------------------------------------------------------


def attack_bonus(state: Table, seat: int, defense: int, ice_cream: str, extra: bool) -> int:
    """What the seat's Boosts add to an attack value: 'Add 1 to any attack value against a robot with ...'.

    'Rapid Pop Special and Sunday Special upgrades cannot be used to boost the second attack using either Hit Em
    Quick and Oh Fuuuuuuudge upgrades': bonuses with on_extra_attacks false skip those attacks.
    """
    total = 0
    for boost in state.active_boosts(seat):
        params = boost.ability.params
        if boost.ability.effect != "attack_bonus" or (extra and not params["on_extra_attacks"]):
            continue
        if params["min_defense"] <= defense <= params["max_defense"] and params["ice_cream"] in (ANY, ice_cream):
            total += params["amount"]
    return total


def extra_attack_allows(params: Params, defense: int, ice_cream: str) -> bool:
    """Whether an extra attack (Hit Em Quick, Oh Fuuuuuuudge) may hit this robot with this type of set."""
    return defense <= params["max_defense"] and params["ice_cream"] in (ANY, ice_cream)


# --- activated Boosts ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Activated:
    """An activated effect: what the user may choose, and how one choice resolves."""

    choices: Callable[[Table, int, Params], list[Choice]]
    resolve: Callable[[Table, int, Params, Choice], None]


def _others(state: Table, seat: int) -> list[int]:
    return [other for other in range(state.players) if other != seat]


def _hand_kinds(state: Table, seat: int) -> list[str]:
    """The different cards in a hand, Sprinkletonium included."""
    return sorted(set(state.hands[seat]) | ({SPRINKLETONIUM} if state.weaponized[seat] else set()))


def _take_random_choices(state: Table, seat: int, params: Params) -> list[Choice]:
    return [{"target": other} for other in _others(state, seat) if state.hand_count(other)]


def _take_random(state: Table, seat: int, params: Params, choice: Choice) -> None:
    """Free Sample: 'Take one random Weaponized Ice Cream card from any player.'"""
    target = choice["target"]
    card = state.random_card(target)
    if card is None:
        return
    state.remove_from_hand(target, card)
    state.add_to_hand(seat, [card])
    shown = "a Sprinkletonium" if card == SPRINKLETONIUM else "a random card"
    state.event(f"seat {seat} takes {shown} from seat {target}")


def _give_choices(state: Table, seat: int, params: Params) -> list[Choice]:
    return [{"target": other, "card": card} for other in _others(state, seat) for card in _hand_kinds(state, seat)]


def _give(state: Table, seat: int, params: Params, choice: Choice) -> None:
    """Team Player: give one card from your hand to another player."""
    state.remove_from_hand(seat, choice["card"])
    state.add_to_hand(choice["target"], [choice["card"]])
    state.event(f"seat {seat} gives a card to seat {choice['target']}")


def _always(state: Table, seat: int, params: Params) -> list[Choice]:
    return [{}]


def _draw(state: Table, seat: int, params: Params, choice: Choice) -> None:
    """Draw cards into the hand."""
    cards = state.draw_ice(params["count"])
    state.add_to_hand(seat, cards)
    state.event(f"seat {seat} draws {len(cards)} cards")


def _all_draw(state: Table, seat: int, params: Params, choice: Choice) -> None:
    """Ice Cream Party: every player draws, the user first and then clockwise."""
    for step in range(state.players):
        _draw(state, (seat + step) % state.players, params, choice)


def _take_from_discard(state: Table, seat: int, params: Params, choice: Choice) -> None:
    """Take cards of one type from the Weaponized Ice Cream discard pile (the most recent first)."""
    taken = 0
    while taken < params["count"] and params["ice_cream"] in state.ice_discard:
        index = len(state.ice_discard) - 1 - state.ice_discard[::-1].index(params["ice_cream"])
        state.add_to_hand(seat, [state.ice_discard.pop(index)])
        taken += 1
    state.event(f"seat {seat} takes {taken} {DATA.title(params['ice_cream'])} from the discard pile")


def _steal_choices(state: Table, seat: int, params: Params) -> list[Choice]:
    return [
        {"target": other, "upgrade": upgrade}
        for other in _others(state, seat)
        for upgrade in sorted(state.spares[other])
    ]


def _steal(state: Table, seat: int, params: Params, choice: Choice) -> None:
    """Yoink!!: take a spare truck upgrade from another player."""
    state.spares[choice["target"]].remove(choice["upgrade"])
    state.spares[seat].append(choice["upgrade"])
    state.spares[seat].sort()
    state.event(f"seat {seat} takes {DATA.title(choice['upgrade'])} from seat {choice['target']}")


def _destroy_choices(state: Table, seat: int, params: Params) -> list[Choice]:
    found = []
    for column in range(len(state.columns)):
        target = state.target(column)
        if target is not None and target[1].defense <= params["max_defense"]:
            found.append({"column": column})
    return found


def _destroy(state: Table, seat: int, params: Params, choice: Choice) -> None:
    """Cherry Bomb: destroy the lowest robot of a column, with the usual clean up."""
    target = state.target(choice["column"])
    assert target is not None
    state.destroy(seat, choice["column"], target[0])


def _lower_choices(state: Table, seat: int, params: Params) -> list[Choice]:
    return [{}] if state.above or any(state.track_levels[:-1]) else []


def _lower(state: Table, seat: int, params: Params, choice: Choice) -> None:
    """Beam Jammer: move the highest token (above the track included) `levels` levels down, to the bottom at most."""
    level = ABOVE_TRACK if state.above else state.token_level("highest")
    assert level is not None
    state.move_token(level, level + params["levels"])
    state.event(f"seat {seat} lowers an Ice Cream token ({state.track_text()})")


def _jam_choices(state: Table, seat: int, params: Params) -> list[Choice]:
    return [
        {"column": column}
        for column in range(len(state.columns))
        if column not in state.jammed and state.columns[column].lowest() is not None
    ]


def _jam(state: Table, seat: int, params: Params, choice: Choice) -> None:
    """Sticky Syrup: the column's robots, its Spinston included, skip their abilities until the planet ends."""
    state.jammed = sorted({*state.jammed, choice["column"]})
    state.event(f"seat {seat} pours Sticky Syrup on column {choice['column']}: its robots are stuck on this planet")


ACTIVATED: dict[str, Activated] = {
    "take_random_card": Activated(_take_random_choices, _take_random),
    "give_card": Activated(_give_choices, _give),
    "draw_cards": Activated(_always, _draw),
    "all_draw": Activated(_always, _all_draw),
    "take_from_discard": Activated(_always, _take_from_discard),
    "steal_upgrade": Activated(_steal_choices, _steal),
    "destroy_robot": Activated(_destroy_choices, _destroy),
    "lower_ice_cream": Activated(_lower_choices, _lower),
    "jam_column": Activated(_jam_choices, _jam),
}

PASSIVE_READ_BY_RULES = frozenset(
    {
        "attack_bonus",  # effects.attack_bonus
        "extra_attack",  # effects.extra_attack_allows, sets.attack_slots
        "draw_bonus",  # Table.draw_count
        "keep_bonus",  # Table.keep_count
        "refill_bonus",  # Table.refill_target
        "reward_bonus",  # Table.destroy
        "slot_bonus",  # Table.upgrade_slots
        "hand_guard",  # discard_random
        "sprinkletonium_guard",  # lose_sprinkletonium
        "free_refill",  # phases.refill
        "deflect_advance",  # advance_ice_cream
        "buy_first",  # phases.buying_order
    }
)

_IMPLEMENTED = {**dict.fromkeys(ROBOT_ABILITIES), **dict.fromkeys(ACTIVATED), **dict.fromkeys(PASSIVE_READ_BY_RULES)}
if set(_IMPLEMENTED) != set(EFFECTS):
    raise RuntimeError(f"effects implemented {sorted(_IMPLEMENTED)} differ from the schema {sorted(EFFECTS)}")
