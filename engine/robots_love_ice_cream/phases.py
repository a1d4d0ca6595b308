"""The order of play: set-up, preparing a planet, player and robot phases, store, equip, the end.

Each function moves the game on from one decision to the next; the decisions themselves are the
actions of `actions.py`. Every step cites the rulebook sentence it implements.
"""

from __future__ import annotations

from itertools import permutations

from engine.result import Result
from engine.robots_love_ice_cream.data import DATA, Planet
from engine.robots_love_ice_cream.effects import ACTIVATED, ROBOT_ABILITIES, RobotPhase
from engine.robots_love_ice_cream.planet import Column, resolution_order
from engine.robots_love_ice_cream.schema import SPRINKLETONIUM
from engine.robots_love_ice_cream.table import ACT as ACT
from engine.robots_love_ice_cream.table import DRAW_UP as DRAW_UP
from engine.robots_love_ice_cream.table import EQUIP as EQUIP
from engine.robots_love_ice_cream.table import KEEP as KEEP
from engine.robots_love_ice_cream.table import OVER as OVER
from engine.robots_love_ice_cream.table import PLAYER as PLAYER
from engine.robots_love_ice_cream.table import SOCIAL as SOCIAL
from engine.robots_love_ice_cream.table import STORE as STORE
from engine.robots_love_ice_cream.table import Table

RULES = DATA.rules
TOKENS = DATA.components["ice_cream_tokens"]


# --- set-up -------------------------------------------------------------------------------------


def set_up(state: Table) -> None:
    """'Game Setup': decks shuffled, Sprinkletonium nearby, 7 cards each, a first player, the first planet."""
    removed = RULES.variants.harder_robots_removed if state.options["harder_robots"] else {}
    # 'After setting the Spinston and Spinston 2.0 cards aside, shuffle the Robots cards'
    state.robot_deck = [r.id for r in DATA.robots.values() for _ in range(r.count - removed.get(r.id, 0))]
    state.rng.shuffle(state.robot_deck)
    state.ice_deck = [card for card, count in DATA.ice_cream.items() for _ in range(count)]
    state.rng.shuffle(state.ice_deck)
    # Solo: 'Remove the following Boost effect cards from the deck before play'
    solo_removed = RULES.solo.removed_boosts if state.solo else ()
    state.boost_deck = [boost for boost in DATA.boosts if boost not in solo_removed]
    state.rng.shuffle(state.boost_deck)
    state.supply = DATA.components["sprinkletonium"]
    for seat in range(state.players):
        state.add_to_hand(seat, state.draw_ice(state.hand_size()))
    # 'The person who has most recently eaten ice cream is given the First Player card' (assumption first-player)
    state.first_player = state.rng.below(state.players)
    prepare_planet(state)


def planet_cards(state: Table) -> tuple[Planet, ...]:
    """'the grouping of planets corresponding to the number of players'; solo uses the 2 (or 3) player cards."""
    return DATA.planets[state.options["solo_planets"] if state.solo else str(state.players)]


def prepare_planet(state: Table) -> None:
    """I. Preparing the Planet: reveal it, Spinstons atop their columns, robots drawn, tokens on the track."""
    state.phase = PLAYER
    state.planet += 1
    card = planet_cards(state)[state.planet - 1]
    state.planet_card = card.id
    # Variant C: 'All Spinstons are Red Spinston 2.0.'
    red = RULES.variants.all_red_spinston if state.options["all_red_spinstons"] else None
    four_players = state.players == 4
    state.columns = [
        Column(red or column.spinston, [None] * 4, four_players and 4 in column.robots) for column in card.columns
    ]
    for index, column in enumerate(card.columns):
        for level in column.robots:
            state.columns[index].slots[level - 1] = state.draw_robot()
    # 'Place Ice Cream victory tokens, equal to the number of Spinstons on that planet ... at the bottom'
    state.place_tokens(len(card.columns))
    state.used, state.jammed = [], []
    state.round = 1
    state.event(f"planet {state.planet} ({card.id}) is invaded by {len(card.columns)} Spinstons")
    start_round(state)


# --- A. Player Phase ---------------------------------------------------------------------------


def start_round(state: Table) -> None:
    """'Starting with the first player card holder, each player, in clockwise order, takes a turn.'"""
    state.phase = PLAYER
    state.queue = state.seats_from_first()
    begin_turn(state)


def can_draw_up(state: Table, seat: int) -> bool:
    """'Beginning on the 3rd planet: Players who have zero Ice Cream tokens and zero Sprinkletonium may draw up to 7
    cards at the start of their turn.'"""
    return (
        state.planet >= RULES.catch_up_from_planet
        and state.tokens[seat] == 0
        and state.sprinkles[seat] == 0
        and state.hand_count(seat) < RULES.catch_up_hand_size
        and bool(state.ice_deck or state.ice_discard)
    )


def begin_turn(state: Table) -> None:
    """A turn starts with the optional draw up to 7 (when allowed), then A1 Draw."""
    seat = state.queue[0]
    state.attacks, state.extras = 0, []
    if can_draw_up(state, seat):
        state.step = DRAW_UP
    else:
        draw_step(state)


def draw_up(state: Table, seat: int) -> None:
    """Draw up to 7 cards at the start of the turn."""
    cards = state.draw_ice(RULES.catch_up_hand_size - state.hand_count(seat))
    state.add_to_hand(seat, cards)
    state.event(f"seat {seat} draws up to {state.hand_count(seat)} cards")
    draw_step(state)


def draw_step(state: Table) -> None:
    """A1 Draw: 'Draw 2 Weaponized Ice Cream cards and choose 1 to discard.' (solo: draw 3, keep 2)."""
    seat = state.queue[0]
    state.drawn = sorted(state.draw_ice(state.draw_count(seat)))
    state.event(f"seat {seat} draws {len(state.drawn)} cards")
    if len(state.drawn) <= state.keep_count(seat):
        state.add_to_hand(seat, state.drawn)
        state.drawn = []
        state.step = ACT
    else:
        state.step = KEEP


def keep(state: Table, seat: int, cards: list[str]) -> None:
    """Keep the chosen cards; the others go face up to the discard pile."""
    rest = list(state.drawn)
    for card in cards:
        rest.remove(card)
    state.add_to_hand(seat, cards)
    state.ice_discard += rest
    state.drawn = []
    state.step = ACT
    state.event(f"seat {seat} keeps {len(cards)} and discards {DATA.titles(rest)}")


def refill_cost(state: Table, seat: int) -> int:
    """One Sprinkletonium, or none while a free refill is unused on this planet."""
    free = any(b.ability.effect == "free_refill" and b.id not in state.used for b in state.active_boosts(seat))
    return 0 if free else RULES.refill_cost


def can_refill(state: Table, seat: int, weaponize: bool) -> bool:
    """A4: spend one Sprinkletonium 'to fill their Weaponized Ice Cream hand back up to 7 cards'.

    Variant B: 'the player may additionally weaponize 1 Sprinkletonium by pulling 1 of their own Sprinkletonium into
    their hand rather than drawing a 7th ... card'.
    """
    short = state.refill_target(seat) - state.hand_count(seat)
    cost = refill_cost(state, seat)
    if weaponize:
        return bool(state.options["weaponized_sprinkletonium"]) and short >= 1 and state.sprinkles[seat] >= cost + 1
    return short >= 1 and state.sprinkles[seat] >= cost and bool(state.ice_deck or state.ice_discard)


def refill(state: Table, seat: int, weaponize: bool) -> None:
    """Pay (or use a free refill), fill the hand, and end the turn."""
    cost = refill_cost(state, seat)
    if cost == 0:
        state.use_trigger(seat, "free_refill")
    state.pay(seat, cost)
    target = state.refill_target(seat) - (1 if weaponize else 0)
    state.add_to_hand(seat, state.draw_ice(max(0, target - state.hand_count(seat))))
    if weaponize:
        state.sprinkles[seat] -= 1
        state.add_to_hand(seat, [SPRINKLETONIUM])
    state.event(
        f"seat {seat} refills to {state.hand_count(seat)} cards" + (", one a Sprinkletonium" if weaponize else "")
    )
    end_turn(state)


def end_turn(state: Table) -> None:
    """'Once all players have taken their turn, the robot phase begins.'"""
    state.queue.pop(0)
    state.step = ""
    if state.queue:
        begin_turn(state)
    else:
        robot_phase(state)


# --- B. Robot Phase ----------------------------------------------------------------------------


def robot_phase(state: Table) -> None:
    """B1 every robot's ability in the printed order, B2 the beam moves up, B3 or B4."""
    phase = RobotPhase()
    for column, level in list(resolution_order(state.columns)):
        robot_id = state.columns[column].robot_at(level)
        if robot_id is None or (column, level) in phase.filled:
            continue  # moved away, or moved / summoned here this phase: each robot acts once (assumption)
        robot = DATA.robot(robot_id)
        if column in state.jammed:
            state.event(f"{robot.name} (column {column}) is stuck in Sticky Syrup")
            continue
        state.event(f"{robot.name} (column {column}, level {level}) attacks")
        ROBOT_ABILITIES[robot.ability.effect](state, phase, column, level, robot.ability.params)
    # B2: 'The man holding the crate and the remaining Ice Cream tokens move together up the track.'
    state.move_beam_up()
    state.event(f"the beam moves up: {state.track_text()}")
    # B3: 'If any Ice Cream tokens remain on the track, a new player phase begins'
    if state.round < RULES.rounds_per_planet and state.tokens_on_track():
        state.round += 1
        start_round(state)
    else:
        end_planet(state)


def end_planet(state: Table) -> None:
    """B4 Escape: tokens above the track are captured; 'All remaining robots on the planet escape'."""
    lost = state.above + state.tokens_on_track()  # a token left below the top is lost too (assumption planet-end)
    state.captured += lost
    state.place_tokens(0)
    for column in state.columns:
        state.robot_discard += column.robots()
    state.columns = []
    state.event(f"planet {state.planet} ends: {lost} Ice Cream tokens captured, the robots escape")
    if state.planet >= RULES.planets_per_game:
        finish(state, "the fifth planet is over")
    elif state.options["stop_when_lost"] and state.captured > TOKENS - RULES.tokens_for_success:
        finish(state, f"{state.captured} tokens are captured: the group can no longer save {RULES.tokens_for_success}")
    else:
        start_store(state)


# --- 3. The Store Phase --------------------------------------------------------------------------


def start_store(state: Table) -> None:
    """'At the start of the store phase, 3 Boost cards are drawn and placed face up in a row.'"""
    state.phase = STORE
    state.step = ""
    state.store_row = [b for b in (state.draw_boost() for _ in range(RULES.store_row)) if b is not None]
    state.queue = buying_order(state)
    state.bought, state.pending = 0, None
    next_buyer(state)


def buying_order(state: Table) -> list[int]:
    """'from the player having the least Sprinkletonium to the player having the most. In case of a tie, the player
    sitting closest to the first player in counter-clockwise order goes first.' Line Cutters go before the rest."""
    return sorted(
        range(state.players),
        key=lambda seat: (
            not state.has_passive(seat, "buy_first"),
            state.sprinkles[seat],
            (state.first_player - seat) % state.players,
        ),
    )


def purchase_allowed(state: Table, more: int = 0) -> bool:
    """Variant F: 'players may only purchase 1 Boost card' per store phase (after `more` purchases, if given)."""
    return not state.options["boost_limit"] or state.bought + more < RULES.variants.boost_purchase_limit


def can_flush(state: Table, seat: int, spent: int = 0, more: int = 0) -> bool:
    """'Pay 1 Sprinkletonium to discard the face up Boost cards and draw 3 new' (under F only before purchasing).

    `spent` and `more`: after spending that much and buying that many more Boosts.
    """
    return state.sprinkles[seat] - spent >= RULES.flush_cost and purchase_allowed(state, more)


def affordable(state: Table, seat: int) -> list[str]:
    """The face-up Boosts the seat may buy now."""
    if not purchase_allowed(state):
        return []
    return [b for b in state.store_row if DATA.boosts[b].price <= state.sprinkles[seat]]


def next_buyer(state: Table) -> None:
    """Move to the next buyer who can do anything; after the last, the store closes."""
    while (
        state.queue
        and state.pending is None
        and not (affordable(state, state.queue[0]) or can_flush(state, state.queue[0]))
    ):
        state.queue.pop(0)
        state.bought = 0
    if not state.queue:
        end_store(state)


def buy(state: Table, seat: int, boost_id: str) -> None:
    """'Purchase 1 card from the face up cards'; 'a new Boost card is drawn to replace' it; immediate ones resolve."""
    boost = DATA.boosts[boost_id]
    state.pay(seat, boost.price)
    index = state.store_row.index(boost_id)
    replacement = state.draw_boost()
    if replacement is None:
        del state.store_row[index]
    else:
        state.store_row[index] = replacement
    state.bought += 1
    state.event(f"seat {seat} buys {boost.title} for {boost.price} Sprinkletonium")
    if boost.type == "upgrade":
        state.spares[seat] = sorted([*state.spares[seat], boost_id])
    elif boost.timing == "remains":
        state.effects[seat] = sorted([*state.effects[seat], boost_id])
    else:
        # 'Any play immediately effects are resolved at the time of purchase.'
        if waits_for_choice(state, seat, boost_id):
            state.pending = boost_id
            return
        if ACTIVATED[boost.ability.effect].choices(state, seat, boost.ability.params):
            resolve_immediate(state, seat, boost_id, {})
            return
        state.event(f"{boost.title} has nothing to act on")
        state.boost_discard.append(boost_id)
    next_buyer(state)


def waits_for_choice(state: Table, seat: int, boost_id: str) -> bool:
    """Whether an immediate Boost bought now waits for its buyer's choice (it has more than the one plain way)."""
    boost = DATA.boosts[boost_id]
    choices = ACTIVATED[boost.ability.effect].choices(state, seat, boost.ability.params)
    return bool(choices) and choices != [{}]


def resolve_immediate(state: Table, seat: int, boost_id: str, choice: dict[str, object]) -> None:
    """Resolve a bought immediate Boost with its buyer's choice; the card is then discarded."""
    boost = DATA.boosts[boost_id]
    ACTIVATED[boost.ability.effect].resolve(state, seat, boost.ability.params, choice)
    state.boost_discard.append(boost_id)
    state.pending = None
    next_buyer(state)


def flush(state: Table, seat: int) -> None:
    """Pay 1 to discard the face-up Boosts and draw 3 new ones."""
    state.pay(seat, RULES.flush_cost)
    state.boost_discard += state.store_row
    state.store_row = []
    state.store_row = [b for b in (state.draw_boost() for _ in range(RULES.store_row)) if b is not None]
    state.event(f"seat {seat} pays {RULES.flush_cost} to flush the store")
    next_buyer(state)


def stop_buying(state: Table) -> None:
    """The buyer is done; the next one buys."""
    state.queue.pop(0)
    state.bought = 0
    next_buyer(state)


def end_store(state: Table) -> None:
    """'After all players have had a chance to purchase Boosts, remaining Boost cards are sent to the discard pile.'"""
    state.boost_discard += state.store_row
    state.store_row = []
    start_equip(state)


# --- 4. The Equip Phase --------------------------------------------------------------------------


def start_equip(state: Table) -> None:
    """Players with truck upgrades choose which to equip, one after the other from the first player."""
    state.phase = EQUIP
    state.queue = [seat for seat in state.seats_from_first() if state.spares[seat] or state.equipped[seat]]
    if not state.queue:
        after_equip(state)


def equip(state: Table, seat: int, upgrades: list[str]) -> None:
    """'equip their truck with a maximum of two upgrades'; 'Unused upgrades ... may be saved'."""
    owned = sorted([*state.spares[seat], *state.equipped[seat]])
    for upgrade in upgrades:
        owned.remove(upgrade)
    state.equipped[seat], state.spares[seat] = sorted(upgrades), owned
    state.event(f"seat {seat} equips {DATA.titles(sorted(upgrades))}")
    state.queue.pop(0)
    if not state.queue:
        after_equip(state)


def after_equip(state: Table) -> None:
    """Variant D's Ice Cream Social, then the First Player card passes clockwise and the next planet comes."""
    if state.options["ice_cream_social"]:
        # 'a number of Weaponized Ice Cream cards equal to the number of players are drawn and placed face-up'
        state.social = sorted(state.draw_ice(state.players))
        if len(social_assignments(state)) > 1:
            state.phase, state.queue = SOCIAL, [state.first_player]
            return
        if state.social:
            share(state, social_assignments(state)[0])
    next_planet(state)


def social_assignments(state: Table) -> list[list[str | None]]:
    """Every distinct way to give the social's cards out, one each (None: that seat gets nothing)."""
    cards: list[str | None] = [*state.social, *([None] * (state.players - len(state.social)))]
    return [list(p) for p in sorted(set(permutations(cards)), key=lambda p: [c or "" for c in p])]


def share(state: Table, cards: list[str | None]) -> None:
    """'The group then decides which card goes to each player.'"""
    for seat, card in enumerate(cards):
        if card is not None:
            state.add_to_hand(seat, [card])
    given = "; ".join(f"seat {seat}: {DATA.title(card) if card else 'nothing'}" for seat, card in enumerate(cards))
    state.event(f"the Ice Cream Social gives {given}")
    state.social = []


def share_randomly(state: Table) -> None:
    """'all of the Ice Cream Social cards are shuffled and randomly distributed among the players'."""
    cards: list[str | None] = [*state.social, *([None] * (state.players - len(state.social)))]
    state.rng.shuffle(cards)
    share(state, cards)


def next_planet(state: Table) -> None:
    """'After completing the equip phase, pass the first player card clockwise to the next player.'"""
    state.first_player = (state.first_player + 1) % state.players
    state.event(f"the First Player card passes to seat {state.first_player}")
    prepare_planet(state)


# --- 5. End of Game -----------------------------------------------------------------------------


def victory_points(state: Table) -> list[int]:
    """'Each Ice Cream saved counts as 2 VPs and each Sprinkletonium counts as 1 VP.'"""
    return [
        RULES.vp_per_token * tokens + RULES.vp_per_sprinkletonium * sprinkles
        for tokens, sprinkles in zip(state.tokens, state.sprinkles, strict=True)
    ]


def finish(state: Table, why: str) -> None:
    """Group victory at 10 saved tokens; the Champion of the Galaxy by VP, then tokens; else co-champions."""
    state.phase, state.step, state.queue, state.drawn = OVER, "", [], []
    points = victory_points(state)
    keys = {seat: (points[seat], state.tokens[seat]) for seat in range(state.players)}
    ranking = tuple(
        tuple(seat for seat in range(state.players) if keys[seat] == key)
        for key in sorted(set(keys.values()), reverse=True)
    )
    saved = sum(state.tokens)
    success = saved >= RULES.tokens_for_success
    if success:
        champions = ranking[0]
        title = "co-champions of the galaxy" if len(champions) > 1 else "Champion of the Galaxy"
        reason = f"{why}: {saved} of {TOKENS} Ice Cream tokens saved, group victory; seats {list(champions)}: {title}"
    else:
        champions = ()
        reason = f"{why}: only {saved} of {TOKENS} Ice Cream tokens saved ({RULES.tokens_for_success} needed)"
    state.outcome = Result(tuple(float(p) for p in points), ranking, champions, reason, team_success=success)
    state.event(reason)
