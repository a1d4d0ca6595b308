"""Robots Love Ice Cream knowledge: a team policy, settled and pruned choices, playouts to the planet's end, a score.

The game is co-operative: every seat's reward is the team's (+1 when 10 of the 13 Ice Cream tokens
are saved, -1 otherwise), so every seat searches for the team from its own view.

* The policy (`policy_action`) is a rule-based teammate used by the playouts, by the greedy
  baseline and for the settled choices: draw up when allowed; keep the cards that make the
  hand's largest matching group larger (`hand_value`: the sum of the squared group sizes, wild
  cards added to the largest); attack when the kill is worth the cards it costs (`attack_gain`:
  a Spinston's token above all, then the robots shielding a Spinston that still has a token to
  steal, the summoners first); use Sprinkle Rain and Cherry Bomb when they save a card or clear a
  shield, Beam Jammer when a token would leave the track, Sticky Syrup early on the best-shielded
  Spinston; refill a hand two cards short (one on the last planet); buy the
  Boosts worth about their price (`BOOST_VALUE`), flush a poor row, equip the best upgrades. Its
  numbers were tuned on thousands of policy-team games (`python -m lab.ai_team --level greedy`).
* Settled choices (`settled_action`, also the only candidate at a tree node): the store, equip,
  the Ice Cream Social, the catch-up draw, the keep, a Boost use the policy wants, destroying a
  Spinston while a token is on the track, a turn with no attack to weigh. What is searched is
  the rest of a turn: per column, the two attacks that cost the hand least, the policy's Boost
  uses, the refill and ending the turn (attacking a shield now, and with which cards, is where
  the search gains over the policy).
* Playouts follow the policy and stop when the planet is over or its tokens are settled:
  `evaluate` then scores the team's chance of success from the tokens already captured and the
  planets to come, each with the distribution of losses the policy's team had there (a token of a
  3-Spinston planet is nearly always lost), shifted a little by what the team brings to them
  (Sprinkletonium, Boosts, cards in hand).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ai.knowledge import Knowledge
from engine.robots_love_ice_cream import phases
from engine.robots_love_ice_cream.actions import equip_choices, keep_choices
from engine.robots_love_ice_cream.data import DATA, Robot
from engine.robots_love_ice_cream.effects import ACTIVATED
from engine.robots_love_ice_cream.planet import SPINSTON_LEVEL
from engine.robots_love_ice_cream.schema import BRAIN_FREEZE, ICE_CREAM_TYPES, SPRINKLETONIUM
from engine.robots_love_ice_cream.sets import attack_slots, cards_needed
from engine.robots_love_ice_cream.state import RobotsState

if TYPE_CHECKING:
    from engine.protocol import Action, GameState
    from engine.rng import Rng

RULES = DATA.rules
TOKENS = DATA.components["ice_cream_tokens"]
MAY_LOSE = TOKENS - RULES.tokens_for_success
"""Tokens the team may lose and still succeed (3)."""

END_TURN: Action = {"type": "end_turn"}

# --- what things are worth ------------------------------------------------------------------------

BOOST_VALUE: dict[str, float] = {
    "power_pack": 9.0,
    "rapid_pop_special": 3.0,
    "funday_special": 3.0,
    "single_serve_special": 3.0,
    "boomsicle_special": 3.0,
    "hit_em_quick": 6.0,
    "oh_fuuuuuuudge": 5.0,
    "bigger_tires": 2.0,
    "chocolate_shell": 2.0,
    "sprinkle_scoop": 2.5,
    "freezer_chest": 2.5,
    "cone_launcher": 8.0,
    "refill_station": 2.5,
    "sprinkle_vault": 0.5,
    "deflector_shield": 7.0,
    "expanded_capacity": 3.0,
    "line_cutter": 0.5,
    "free_sample": 0.5,
    "team_player": 1.0,
    "sprinkle_rain": 4.0,
    "cherry_bomb": 8.0,
    "beam_jammer": 7.0,
    "sticky_syrup": 5.0,
    "ice_cream_party": 5.0,
    "extra_scoop": 4.0,
    "brain_freeze_delivery": 1.5,
    "yoink": 0.0,
}
"""What a Boost brings the team, in Sprinkletonium (an assumption of this AI, not card data); unknown ids: 1."""
BUY_MARGIN = 2.0
MIN_VALUE = 4.0
"""Boosts worth less than this are never bought: the Sprinkletonium does more as refills (tuned on policy teams)."""
"""A Boost is bought when its value falls short of its price by at most this (buying more helped the policy's team)."""
FLUSH_FROM = 3
"""With nothing worth buying, a buyer holding this much Sprinkletonium flushes the row (once, before buying)."""

SPINSTON_GAIN = 100.0
"""The worth of destroying a Spinston while a token is on the track (always worth its cards)."""
LAST_SHIELD_GAIN = 40.0
SHIELD_GAIN = 22.0
"""Destroying the last robot below a Spinston with a token to steal, or another robot of its column."""
ABILITY_GAIN = {"summon": 10.0, "hop_right": 6.0, "discard_random": 4.0, "lose_sprinkletonium": 3.0}
"""What stopping a robot's ability is worth beyond its column (summoners and hoppers shield other Spinstons)."""
REWARD_GAIN = 1.5
WILD_BONUS = 3.0
"""What a wild card is worth in a hand beyond joining its largest group (see `hand_value`)."""
"""Per Sprinkletonium of a robot's reward."""


def boost_value(boost_id: str) -> float:
    """`BOOST_VALUE`, 1 for a Boost this AI does not know."""
    return BOOST_VALUE.get(boost_id, 1.0)


# --- hands --------------------------------------------------------------------------------------


def hand_value(counts: list[int], wild: int) -> float:
    """The sum of the squared group sizes (`counts` per ice cream type), the wild cards added to the largest.

    A wild card is worth `WILD_BONUS` more, for it may join any group later.
    """
    largest = max(counts)
    return float(sum(size * size for size in counts) + (2 * largest + wild + WILD_BONUS) * wild)


def type_counts(cards: list[str]) -> list[int]:
    """How many cards of each ice cream type (in `ICE_CREAM_TYPES` order)."""
    return [cards.count(kind) for kind in ICE_CREAM_TYPES]


def keep_value(state: RobotsState, seat: int, cards: list[str]) -> float:
    """The hand's value after keeping these cards."""
    hand = [*state.hands[seat], *cards]
    wild = hand.count(BRAIN_FREEZE) + hand.count(SPRINKLETONIUM) + state.weaponized[seat]
    return hand_value(type_counts(hand), wild)


# --- attacks ------------------------------------------------------------------------------------


def set_sizes(state: RobotsState, seat: int, defense: int, upgrade: str | None) -> list[int | None]:
    """Per ice cream type, the cards a set needs against this defense (None: the attack slot forbids that type)."""
    if upgrade is None and not state.equipped[seat] and not state.effects[seat]:
        return [defense] * len(ICE_CREAM_TYPES)  # no Boost in play: 'equal in number to the defense value'
    return [cards_needed(state, seat, defense, kind, upgrade) for kind in ICE_CREAM_TYPES]


def cheapest_sets(
    counts: list[int], freezes: int, sprinkles: int, sizes: list[int | None]
) -> list[tuple[float, list[str]]]:
    """Per ice cream type, the set of the needed size that uses the fewest wild cards, with its cost, cheapest first.

    `counts` are the hand's cards per type, `freezes` its Brain Freezes, `sprinkles` its weaponized
    Sprinkletonium. The cost is what the hand's value loses; sets of wild cards only are listed once.
    """
    before = hand_value(counts, freezes + sprinkles)
    found: list[tuple[float, list[str]]] = []
    all_wild: set[int] = set()
    for index, size in enumerate(sizes):
        if size is None:
            continue
        have = counts[index]
        plain = have if have < size else size
        freeze = min(freezes, size - plain)
        sprinkle = size - plain - freeze
        if sprinkle > sprinkles:
            continue
        if plain == 0:
            if size in all_wild:
                continue
            all_wild.add(size)
        counts[index] = have - plain
        cost = before - hand_value(counts, freezes - freeze + sprinkles - sprinkle)
        counts[index] = have
        cards = sorted([ICE_CREAM_TYPES[index]] * plain + [BRAIN_FREEZE] * freeze + [SPRINKLETONIUM] * sprinkle)
        found.append((cost, cards))
    found.sort(key=lambda item: item[0])
    return found


def attack_gain(state: RobotsState, column: int, level: int, robot: Robot) -> float:
    """What destroying a column's target (at this level) is worth to the team (see the module)."""
    tokens = state.tokens_on_track() > 0
    if level == SPINSTON_LEVEL:
        return SPINSTON_GAIN if tokens else REWARD_GAIN * robot.reward
    gain = REWARD_GAIN * robot.reward
    if state.round < RULES.rounds_per_planet:  # in the last round it acts once more at most, then escapes
        gain += ABILITY_GAIN.get(robot.ability.effect, 0.0)
    if tokens and state.columns[column].spinston is not None:
        shields = len(state.columns[column].robots())
        gain += LAST_SHIELD_GAIN if shields == 1 else SHIELD_GAIN / (shields - 1)
    return gain


def target_of(state: RobotsState, column: int) -> tuple[int, Robot]:
    """The level and robot an attack on the column would hit (the column must have one)."""
    target = state.target(column)
    assert target is not None
    return target


def attack_action(column: int, cards: list[str], upgrade: str | None) -> Action:
    """The canonical attack action."""
    return {"type": "attack", "column": column, "cards": cards, "upgrade": upgrade}


def ranked_attacks(state: RobotsState, seat: int, per_column: int) -> list[tuple[float, Action]]:
    """The seat's attacks now, `per_column` cheapest per column and attack slot, with their worth (gain - cost)."""
    found: list[tuple[float, Action]] = []
    slots = attack_slots(state, seat)
    if not slots:
        return found
    hand = state.hands[seat]
    counts, freezes, sprinkles = type_counts(hand), hand.count(BRAIN_FREEZE), state.weaponized[seat]
    reach = max(counts) + freezes + sprinkles
    if state.equipped[seat] or state.effects[seat]:
        reach += state.passive_amount(seat, "attack_bonus")
    for column in range(len(state.columns)):
        target = state.target(column)
        if target is None:
            continue
        level, robot = target
        if robot.defense > reach:
            continue  # no set of the hand, even with every attack bonus, is large enough
        gain = attack_gain(state, column, level, robot)
        for upgrade in slots:
            sets = cheapest_sets(counts, freezes, sprinkles, set_sizes(state, seat, robot.defense, upgrade))
            found += [(gain - cost, attack_action(column, cards, upgrade)) for cost, cards in sets[:per_column]]
    found.sort(key=lambda item: -item[0])
    return found


# --- Boosts in play -------------------------------------------------------------------------------


def usable_boosts(state: RobotsState, seat: int) -> list[Action]:
    """The Boost uses worth making now, each with its best choice (see `boost_choice`)."""
    found: list[Action] = []
    if not state.effects[seat] and not state.equipped[seat]:
        return found
    for boost in state.active_boosts(seat):
        effect = boost.ability.effect
        if effect not in ACTIVATED or boost.id in state.used or not boost.once_per_planet:
            continue
        choice = boost_choice(state, seat, boost.id)
        if choice is not None:
            found.append({"type": "use_boost_in_play", "boost": boost.id, **choice})
    return found


def boost_choice(state: RobotsState, seat: int, boost_id: str) -> dict[str, Any] | None:
    """The choice a Boost is best used with now, or None when it is better kept for later."""
    boost = DATA.boosts[boost_id]
    effect, params = boost.ability.effect, boost.ability.params
    choices = ACTIVATED[effect].choices(state, seat, params)
    if not choices:
        return None
    tokens = state.tokens_on_track() > 0
    if effect in ("draw_cards", "all_draw", "take_from_discard"):
        return choices[0]
    if effect == "destroy_robot":
        scored = [
            (attack_gain(state, choice["column"], *target_of(state, choice["column"])), choice) for choice in choices
        ]
        best = max(scored, key=lambda item: item[0])
        return best[1] if best[0] >= SHIELD_GAIN or not tokens else None
    if effect == "lower_ice_cream":
        return choices[0] if lowering_keeps_a_token(state) else None
    if effect == "jam_column":
        return sticking_choice(state, choices) if tokens else None
    if effect == "steal_upgrade":
        return max(choices, key=lambda choice: boost_value(choice["upgrade"]))
    return None  # Free Sample and Team Player move cards between teammates: left to the search


def lowering_keeps_a_token(state: RobotsState) -> bool:
    """Beam Jammer: a token leaves the track at the next beam move (or has left), while a Spinston may still fall."""
    live = any(column.spinston is not None for column in state.columns)
    at_risk = state.above > 0 or (state.track_levels[0] > 0 and state.round < RULES.rounds_per_planet)
    return live and at_risk


def sticking_choice(state: RobotsState, choices: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Sticky Syrup: before any token is near the top, the column of the best-shielded live Spinston."""
    if state.track_levels[0] or state.above:
        return None  # a Spinston stuck now no longer keeps its token on the track until the last round
    live = [choice for choice in choices if state.columns[choice["column"]].spinston is not None]
    if not live:
        return None
    return max(live, key=lambda choice: len(state.columns[choice["column"]].robots()))


# --- the store and the truck --------------------------------------------------------------------


def upgrade_worth(state: RobotsState, seat: int, boost_id: str) -> float:
    """An upgrade's worth to a seat: its value if it fits a free slot, else what it adds over the weakest owned one."""
    owned = sorted((boost_value(b) for b in (*state.spares[seat], *state.equipped[seat])), reverse=True)
    slots = state.upgrade_slots(seat)
    value = boost_value(boost_id)
    if len(owned) < slots:
        return value
    return max(0.0, value - owned[slots - 1])


def purchase_worth(state: RobotsState, seat: int, boost_id: str) -> float:
    """What buying a Boost is worth beyond its price (negative: not worth it); less of it as fewer planets remain."""
    boost = DATA.boosts[boost_id]
    if boost_value(boost_id) < MIN_VALUE:
        return -float(boost.price) - BUY_MARGIN - 1.0
    worth = upgrade_worth(state, seat, boost_id) if boost.type == "upgrade" else boost_value(boost_id)
    if boost_id == "expanded_capacity":
        worth = 0.0 if len(state.spares[seat]) + len(state.equipped[seat]) <= state.upgrade_slots(seat) else worth
    planets_left = RULES.planets_per_game - state.planet
    if boost.timing != "immediate":
        worth *= min(1.0, 0.4 + 0.2 * planets_left)
    return worth - boost.price


def store_choice(state: RobotsState, seat: int) -> Action:
    """Buy the Boost most worth its price; flush a poor row when rich; else pass."""
    if state.pending is not None:
        choice = boost_choice(state, seat, state.pending)
        if choice is None:
            boost = DATA.boosts[state.pending]
            choice = ACTIVATED[boost.ability.effect].choices(state, seat, boost.ability.params)[0]
        return {"type": "resolve_bought_boost", "boost": state.pending, **choice}
    buys = [(purchase_worth(state, seat, b), b) for b in phases.affordable(state, seat)]
    if buys:
        worth, best = max(buys)
        if worth + BUY_MARGIN >= 0:
            return {"type": "buy_boost", "boost": best}
    if phases.can_flush(state, seat) and state.sprinkles[seat] >= FLUSH_FROM and state.bought == 0:
        return {"type": "flush_store"}
    return {"type": "stop_buying"}


def equip_choice(state: RobotsState, seat: int) -> Action:
    """The upgrades worth most together (ties: the first listed)."""
    best = max(equip_choices(state, seat), key=lambda chosen: sum(boost_value(b) for b in chosen))
    return {"type": "equip_upgrades", "upgrades": best}


def social_choice(state: RobotsState, seat: int) -> Action:
    """The Ice Cream Social's cards to the seats that hold fewest cards (what everybody sees)."""
    options = phases.social_assignments(state)

    def worth(cards: list[str | None]) -> float:
        return sum(
            (2.0 if card == BRAIN_FREEZE else 1.0) / (1 + state.hand_count(target))
            for target, card in enumerate(cards)
            if card is not None
        )

    return {"type": "share_social_cards", "cards": max(options, key=worth)}


# --- the policy ---------------------------------------------------------------------------------


def keep_choice(state: RobotsState, seat: int) -> Action:
    """The keep that leaves the hand worth most."""
    return max(keep_choices(state, seat), key=lambda action: keep_value(state, seat, action["cards"]))


def wants_refill(state: RobotsState, seat: int, weaponize: bool) -> bool:
    """Refill when two cards short, one on the last planet or when it is free."""
    if not phases.can_refill(state, seat, weaponize):
        return False
    short = state.refill_target(seat) - state.hand_count(seat)
    free = phases.refill_cost(state, seat) == 0
    return short >= 2 or free or state.planet >= RULES.planets_per_game


def turn_choice(state: RobotsState, seat: int, attacks: list[tuple[float, Action]] | None = None) -> Action:
    """A Boost use worth making, the best attack worth its cards, a refill, or the end of the turn."""
    uses = usable_boosts(state, seat)
    if uses:
        return uses[0]
    if attacks is None:
        attacks = ranked_attacks(state, seat, 1)
    if attacks and attacks[0][0] > 0:
        return attacks[0][1]
    weaponize = state.sprinkles[seat] >= 4 and wants_refill(state, seat, True)
    if weaponize or wants_refill(state, seat, False):
        return {"type": "refill_hand", "weaponize": weaponize}
    return END_TURN


def policy_action(state: RobotsState, seat: int) -> Action:
    """The rule-based teammate's action (see the module); the state may be a determinized world."""
    if state.phase == phases.PLAYER:
        if state.step == phases.DRAW_UP:
            return {"type": "draw_up"}
        if state.step == phases.KEEP:
            return keep_choice(state, seat)
        return turn_choice(state, seat)
    if state.phase == phases.STORE:
        return store_choice(state, seat)
    if state.phase == phases.EQUIP:
        return equip_choice(state, seat)
    return social_choice(state, seat)


def settled_turn(state: RobotsState, seat: int, attacks: list[tuple[float, Action]]) -> Action | None:
    """The policy's turn action when it needs no search: a Boost use, a Spinston's token, or no attack to weigh."""
    choice = turn_choice(state, seat, attacks)
    if not attacks or choice["type"] == "use_boost_in_play":
        return choice
    if choice["type"] == "attack" and state.tokens_on_track():
        level = state.columns[choice["column"]].lowest()
        return choice if level == SPINSTON_LEVEL else None
    return None


def settled_action(state: RobotsState, seat: int) -> Action | None:
    """The policy's action where search adds little, else None.

    Everything outside the player phase (store, equip, the Ice Cream Social), the catch-up draw,
    the keep (searching it changed the team's success by nothing measurable, at twice the time),
    using a Boost the policy wants, destroying a Spinston while a token is on the track, and a turn
    with no attack to weigh.
    """
    if state.phase != phases.PLAYER or state.step != phases.ACT:
        return policy_action(state, seat)
    return settled_turn(state, seat, ranked_attacks(state, seat, 2))


def planet_settled(state: RobotsState) -> bool:
    """True when no token is left on the track and none above it can be brought back (by an unused Beam Jammer)."""
    if state.tokens_on_track():
        return False
    if not state.above:
        return True
    return not any(
        boost.ability.effect == "lower_ice_cream" and boost.id not in state.used
        for seat in range(state.players)
        for boost in state.active_boosts(seat)
    )


# --- the score ----------------------------------------------------------------------------------

LOSS_DIST: dict[int, tuple[tuple[float, ...], ...]] = {
    1: (
        (0.950, 0.046, 0.004),
        (0.928, 0.071, 0.001),
        (0.150, 0.832, 0.016, 0.002),
        (0.432, 0.549, 0.016, 0.003),
        (0.136, 0.792, 0.063, 0.009),
    ),
    2: (
        (0.920, 0.059, 0.021),
        (0.771, 0.228, 0.001),
        (0.078, 0.879, 0.041, 0.002),
        (0.300, 0.655, 0.044, 0.001),
        (0.061, 0.772, 0.148, 0.019),
    ),
    3: (
        (0.985, 0.014, 0.001),
        (0.714, 0.285, 0.001),
        (0.566, 0.432, 0.001, 0.001),
        (0.225, 0.733, 0.041, 0.001),
        (0.096, 0.825, 0.078, 0.001),
    ),
    4: (
        (0.993, 0.006, 0.001),
        (0.915, 0.083, 0.002),
        (0.611, 0.387, 0.001, 0.001),
        (0.295, 0.668, 0.036, 0.001),
        (0.081, 0.879, 0.036, 0.004),
    ),
}
"""The chance of losing 0, 1, 2... tokens on each planet, by player count: what the policy's team lost on
400 games per count without variants (smoothed). The planets' Spinstons leave about one token of a
3-Spinston planet out of reach, so the team's fate is in the extra losses."""
TYPICAL_STRENGTH = {
    1: (4.8, 11.8, 20.3, 30.7, 42.3),
    2: (4.2, 6.5, 9.7, 13.0, 16.7),
    3: (4.2, 6.4, 9.2, 12.4, 15.3),
    4: (4.2, 6.2, 9.0, 11.6, 14.2),
}
"""The policy's team's mean `team_strength` at the start of each planet, in those games."""
STRENGTH_SCALE = 0.01
"""The share of each loss count's chance moved one loss down per unit of strength above the typical (up if below)."""
STRENGTH_SHIFT = 0.15
"""The largest share moved."""
MID_PLANET_LOSS = 0.5
"""The chance a token on the track is lost, when a position is scored in the middle of its planet."""


def team_strength(state: RobotsState) -> float:
    """What a seat brings on average to the planets to come, in Sprinkletonium: Boosts, Sprinkletonium and cards."""
    strength = 0.0
    for seat in range(state.players):
        strength += sum(boost_value(b) for b in (*state.equipped[seat], *state.effects[seat]))
        strength += 0.5 * sum(boost_value(b) for b in state.spares[seat])
        strength += 0.8 * state.sprinkles[seat] + 0.6 * state.hand_count(seat)
    return strength / state.players


def shifted(chances: tuple[float, ...], shift: float) -> list[float]:
    """Move `shift` of each loss count's chance one loss down (a negative shift: one loss up)."""
    moved = list(chances)
    if shift > 0:
        for count in range(1, len(chances)):
            moved[count] -= shift * chances[count]
            moved[count - 1] += shift * chances[count]
    elif shift < 0:
        for count in range(len(chances) - 1):
            moved[count] += shift * chances[count]
            moved[count + 1] -= shift * chances[count]
    return moved


def add_losses(dist: list[float], chances: list[float]) -> list[float]:
    """The distribution of the total of losses so far (`dist`, truncated) and one more planet's (`chances`)."""
    total = [0.0] * len(dist)
    for have, p_have in enumerate(dist):
        for more, p_more in enumerate(chances):
            if have + more >= len(total):
                break
            total[have + more] += p_have * p_more
    return total


def success_chance(state: RobotsState) -> float:
    """The team's chance of success: the tokens still at stake against the losses the team may still afford."""
    if state.outcome is not None:
        return 1.0 if state.outcome.team_success else 0.0
    allowed = MAY_LOSE - state.captured - state.above
    if allowed < 0:
        return 0.0
    if sum(state.tokens) >= RULES.tokens_for_success:
        return 1.0
    table = LOSS_DIST[state.players]
    typical = TYPICAL_STRENGTH[state.players]
    strength = team_strength(state)
    dist = [1.0] + [0.0] * allowed
    first = state.planet + 1
    if state.phase == phases.PLAYER:
        columns = len(state.columns)
        if state.round == 1 and state.track_levels[-1] == columns and columns == len(table[state.planet - 1]) - 1:
            first = state.planet  # nothing has happened on this planet yet: score it as one to come
        else:
            for _ in range(state.tokens_on_track()):
                dist = add_losses(dist, [1 - MID_PLANET_LOSS, MID_PLANET_LOSS])
    for planet in range(first, RULES.planets_per_game + 1):
        shift = max(-STRENGTH_SHIFT, min(STRENGTH_SHIFT, STRENGTH_SCALE * (strength - typical[planet - 1])))
        dist = add_losses(dist, shifted(table[planet - 1], shift))
    return sum(dist)


class RobotsLoveIceCreamKnowledge(Knowledge):
    """See the module."""

    exploration = 0.7

    def candidates(self, state: GameState, seat: int, rng: Rng, samples: int) -> list[Action]:
        """The settled action where there is one (see `settled_action`); else the keeps, or the pruned turn."""
        assert isinstance(state, RobotsState)
        if state.phase != phases.PLAYER or state.step != phases.ACT:
            return [policy_action(state, seat)]
        attacks = ranked_attacks(state, seat, 2)
        settled = settled_turn(state, seat, attacks)
        if settled is not None:
            return [settled]
        found = [action for _, action in attacks]
        found += usable_boosts(state, seat)
        found += [{"type": "refill_hand", "weaponize": w} for w in (False, True) if phases.can_refill(state, seat, w)]
        return [*found, END_TURN]

    def key(self, action: Action) -> str:
        """A short text per action."""
        kind = action["type"]
        if kind == "attack":
            return f"a{action['column']}{'.'.join(action['cards'])}{action['upgrade'] or ''}"
        if kind == "keep_drawn":
            cards = action["cards"]
            return "k?" if cards is None else "k" + ".".join(cards)
        if kind == "refill_hand":
            return "rw" if action["weaponize"] else "r"
        if kind in ("use_boost_in_play", "resolve_bought_boost"):
            rest = ",".join(f"{k}={action[k]}" for k in sorted(action) if k not in ("type", "boost"))
            return f"{'u' if kind == 'use_boost_in_play' else 'v'}{action['boost']}{rest}"
        if kind == "buy_boost":
            return f"b{action['boost']}"
        if kind == "equip_upgrades":
            return "e" + ".".join(action["upgrades"])
        if kind == "share_social_cards":
            return "s" + ".".join(card or "-" for card in action["cards"])
        return str(kind)

    def obvious(self, state: GameState, seat: int) -> Action | None:
        """The settled action, if there is one (see `settled_action`)."""
        assert isinstance(state, RobotsState)
        return settled_action(state, seat)

    def playout_action(self, state: GameState, seat: int, rng: Rng) -> Action:
        """The policy's action."""
        assert isinstance(state, RobotsState)
        return policy_action(state, seat)

    def playout_mark(self, state: GameState) -> int:
        """The planet the playout starts on."""
        assert isinstance(state, RobotsState)
        return state.planet

    def cut_off(self, state: GameState, mark: int, steps: int) -> bool:
        """Stop once that planet is over or its tokens are all claimed or lost (the store opens, or the next planet)."""
        assert isinstance(state, RobotsState)
        return state.planet != mark or state.phase != phases.PLAYER or planet_settled(state)

    def evaluate(self, state: GameState) -> list[float]:
        """Every seat's reward: the team's chance of success, mapped to [-1, 1]."""
        assert isinstance(state, RobotsState)
        value = 2.0 * success_chance(state) - 1.0
        return [value] * state.players


KNOWLEDGE = RobotsLoveIceCreamKnowledge()
"""What the search knows of the game (found by `ai.knowledge.knowledge_for`)."""
