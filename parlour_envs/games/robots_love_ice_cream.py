"""Robots Love Ice Cream as tokens and tensors: an action is its type, then each of its fields, one token each.

The tokens of an action (engine/robots_love_ice_cream/actions.py lists the types), as the seat chooses them:

* `draw_up`, `decline_draw_up`, `end_turn`, `flush_store`, `stop_buying`, `share_social_randomly`: the type alone;
* `keep_drawn`: the type, then each kept card in the engine's sorted order (how many is fixed by the step);
* `attack`: the type, the upgrade giving an extra attack (only for an extra attack: a regular one has no upgrade
  token), the column, the cards of the set in sorted order, then `done` (sets of one attack differ in size when a
  Boost helps one ice cream type);
* `refill_hand`: the type, then `weaponize: no` or `weaponize: yes`;
* `use_boost_in_play` and `resolve_bought_boost`: the type, the Boost, then the Boost's choice field by field in
  the order target (a seat counted clockwise from the chooser), column, card, upgrade;
* `buy_boost`: the type, then the Boost;
* `equip_upgrades`: the type, the upgrades to equip in sorted order, then `done`;
* `share_social_cards`: the type, then the card (or `no card`) of each seat, the chooser first and then clockwise.

So the tokens of one state's legal actions are injective and prefix-free; the default `choices` walks them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from engine.protocol import Action, GameState, View
from engine.robots_love_ice_cream import GAME, RobotsState
from engine.robots_love_ice_cream.actions import STEP_TYPES
from engine.robots_love_ice_cream.data import DATA
from engine.robots_love_ice_cream.game import BEST_SCORE
from engine.robots_love_ice_cream.planet import LEVELS, SPINSTON_LEVEL
from engine.robots_love_ice_cream.schema import SPRINKLETONIUM
from engine.robots_love_ice_cream.table import ACT, DRAW_UP, EQUIP, KEEP, OVER, PLAYER, SOCIAL, STORE
from parlour_envs.encoding import Choice, Encoding, Section, Tensor

RULES = DATA.rules
SEATS = GAME.info.max_players
"""Seat slots of the tensor and target tokens, counted clockwise from the observer (0: itself)."""
ACTION_TYPES = tuple(kind for kinds in STEP_TYPES.values() for kind in kinds)
ICE = tuple(DATA.ice_cream)
"""The Weaponized Ice Cream cards: the four matching types and the wild Brain Freeze."""
CARDS = (*ICE, SPRINKLETONIUM)
"""What a hand may hold: ice cream, and Variant B's weaponized Sprinkletonium."""
BOOSTS = tuple(DATA.boosts)
UPGRADES = tuple(b.id for b in DATA.boosts.values() if b.type == "upgrade")
REMAINING = tuple(b.id for b in DATA.boosts.values() if b.timing == "remains")
"""The game effects that remain in play in front of a player."""
ROBOT_KINDS = ("spinston", "spinston_2", *DATA.robots)
"""A spot's occupant as the tensor shows it: the Spinston models (colours only place them), then the robot kinds."""
COLUMNS = max(len(planet.columns) for cards in DATA.planets.values() for planet in cards)
SPOTS = (SPINSTON_LEVEL, *LEVELS)
PHASES = (PLAYER, STORE, EQUIP, SOCIAL, OVER)
STEPS = (DRAW_UP, KEEP, ACT)
TOKENS = DATA.components["ice_cream_tokens"]
SPRINKLES = DATA.components["sprinkletonium"]
ROBOT_CARDS = sum(robot.count for robot in DATA.robots.values())
TRACK_TOKENS = COLUMNS
"""The most Ice Cream tokens on the track at once: one per Spinston (column) of a planet."""


def _bonus(effect: str) -> int:
    """The most any Boosts together add to a number (each Boost is one unique card)."""
    return sum(b.ability.params["amount"] for b in DATA.boosts.values() if b.ability.effect == effect)


MAX_DEFENSE = max(robot.defense for robot in (*DATA.spinstons.values(), *DATA.robots.values()))
MAX_SLOTS = max(RULES.upgrade_slots, RULES.solo.upgrade_slots) + _bonus("slot_bonus")
MAX_KEEP = max(RULES.keep, RULES.solo.keep) + _bonus("keep_bonus")
MAX_DRAW = max(RULES.draw, RULES.solo.draw) + _bonus("draw_bonus")
MAX_REFILL = max(RULES.hand_size, RULES.solo.hand_size) + _bonus("refill_bonus")
MAX_ATTACKS = max(RULES.attacks_per_turn, RULES.solo.attacks_per_turn, RULES.variants.attack_twice_attacks)
HAND_SCALE = 20
"""A hand's size is shown over this many, at most 1 (a hand starts with 7 or 8 cards and seldom passes 15)."""
BOUGHT_SCALE = 3
"""Boosts one buyer bought in this store, over this many, at most 1."""

# --- the tokens -------------------------------------------------------------------------------------------------
CHOICE_FIELDS = ("target", "column", "card", "upgrade")
"""The fields of a Boost's choice, in the order their tokens come (effects.py's choices use these keys)."""
NAMES: list[str] = [*ACTION_TYPES]
TYPE_TOKEN = {kind: index for index, kind in enumerate(ACTION_TYPES)}
COLUMN_TOKEN = len(NAMES)
NAMES += [f"column {column}" for column in range(COLUMNS)]
CARD_TOKEN = {card: len(NAMES) + index for index, card in enumerate(CARDS)}
NAMES += [f"card {card}" for card in CARDS]
NO_CARD = len(NAMES)
NAMES.append("no card (in a share of the Ice Cream Social)")
DONE = len(NAMES)
NAMES.append("done (ends an attack's set or an equip's upgrades)")
BOOST_TOKEN = {boost: len(NAMES) + index for index, boost in enumerate(BOOSTS)}
NAMES += [f"boost {boost}" for boost in BOOSTS]
TARGET_TOKEN = len(NAMES) - 1  # seat +1 is the first target token
NAMES += [f"seat +{step} (counted clockwise from the chooser)" for step in range(1, SEATS)]
WEAPONIZE = {False: len(NAMES), True: len(NAMES) + 1}
NAMES += ["weaponize: no", "weaponize: yes"]
PLAIN_TYPES = frozenset(
    {"draw_up", "decline_draw_up", "end_turn", "flush_store", "stop_buying", "share_social_randomly"}
)

# --- the tensor ---------------------------------------------------------------------------------------------------
COLUMN_SIZE = 1 + len(SPOTS) * len(ROBOT_KINDS) + 1 + 1 + len(SPOTS) + 1
SEAT_SIZE = 2 + len(ICE) + 7 + 2 * len(UPGRADES) + len(REMAINING)
SECTIONS = (
    Section("phase", len(PHASES), "one-hot: player, store, equip, social (Variant D), over"),
    Section("step", len(STEPS), "in the player phase, one-hot: draw_up (the catch-up draw), keep, act"),
    Section("planet", RULES.planets_per_game, "one-hot: planet 1 to 5"),
    Section("round", RULES.rounds_per_planet, "one-hot: round 1 to 3 of the planet"),
    Section("my_turn", 1, "1 when this seat is to act"),
    Section("first_player", SEATS, "one-hot: the First Player card's holder, seats counted clockwise from this one"),
    Section(
        "queue",
        SEATS * SEATS,
        "for each seat (clockwise from this one), one-hot its place in the queue of this phase (0: acting now); "
        "zeros when it is not in the queue",
    ),
    Section(
        "columns",
        COLUMNS * COLUMN_SIZE,
        f"for each column 0 to {COLUMNS - 1}: 1 if the planet has it; for the Spinston (level 0) and levels 1 to 4, "
        f"one-hot the occupant {', '.join(ROBOT_KINDS)} (zeros when empty); 1 if the 4th level is open; 1 if jammed "
        f"(Sticky Syrup); one-hot the target level 0 to 4; the target's defense over {MAX_DEFENSE}",
    ),
    Section(
        "track",
        RULES.track_levels + 3,
        f"Ice Cream tokens on the Spinston Beam Track's levels 1 (top) to 3 and above it, over {TRACK_TOKENS}; "
        f"tokens captured, then saved, over {TOKENS}",
    ),
    Section(
        "seats",
        SEATS * SEAT_SIZE,
        "for each seat clockwise from this one: 1 if it plays; 1 if its hand is shown; its hand's cards of each type "
        f"({', '.join(ICE)}) over that type's copies; its hand size over {HAND_SCALE} (at most 1); weaponized "
        f"Sprinkletonium in hand, then Sprinkletonium, over {SPRINKLES}; Ice Cream tokens over {TOKENS}; victory "
        f"points over {BEST_SCORE}; upgrade slots over {MAX_SLOTS}; the refill's hand size over {MAX_REFILL}; "
        f"1 for each upgrade equipped, then spare ({', '.join(UPGRADES)}); 1 for each effect in play "
        f"({', '.join(REMAINING)})",
    ),
    Section(
        "draw",
        len(ICE) + 2,
        f"the acting seat's draw waiting for its keep: cards of each type over {MAX_DRAW} (when this seat may see "
        f"them), the number drawn over {MAX_DRAW}, 1 if shown",
    ),
    Section(
        "turn",
        1 + len(UPGRADES) + len(BOOSTS),
        f"regular attacks made this turn over {MAX_ATTACKS} (at most 1); 1 for each upgrade whose extra attack "
        "was used this turn; 1 for each Boost used on this planet (Boosts in data order)",
    ),
    Section(
        "decks",
        3 + len(ICE) + len(ROBOT_KINDS) + 1 + len(BOOSTS),
        f"Sprinkletonium in the supply over {SPRINKLES}; the ice cream deck over its {sum(DATA.ice_cream.values())} "
        "cards; the ice cream discard pile's cards of each type over that type's copies; the robot deck over "
        f"{ROBOT_CARDS}; the robot discard pile's robots of each kind over that kind's copies (Spinstons: zeros); "
        f"the Boost deck over {len(BOOSTS)}; 1 for each Boost in the Boost discard pile",
    ),
    Section(
        "store",
        len(BOOSTS) + 1 + len(BOOSTS),
        f"1 for each Boost face up in the store; Boosts the buyer bought in this store over {BOUGHT_SCALE} "
        "(at most 1); one-hot the bought Boost waiting for its buyer's choice",
    ),
    Section("social", len(ICE), f"the Ice Cream Social's face-up cards of each type (Variant D) over {SEATS}"),
)
OFFSET: dict[str, int] = {}
_start = 0
for _section in SECTIONS:
    OFFSET[_section.name] = _start
    _start += _section.size
BODY = _start

ICE_INDEX = {card: index for index, card in enumerate(ICE)}
ICE_COPIES = [float(DATA.ice_cream[card]) for card in ICE]
BOOST_INDEX = {boost: index for index, boost in enumerate(BOOSTS)}
UPGRADE_INDEX = {boost: index for index, boost in enumerate(UPGRADES)}
REMAINING_INDEX = {boost: index for index, boost in enumerate(REMAINING)}
PHASE_INDEX = {phase: index for index, phase in enumerate(PHASES)}
STEP_INDEX = {step: index for index, step in enumerate(STEPS)}
KIND_INDEX = {
    **{robot.id: ROBOT_KINDS.index(robot.model) for robot in DATA.spinstons.values()},
    **{robot: ROBOT_KINDS.index(robot) for robot in DATA.robots},
}
DEFENSE = {robot.id: robot.defense for robot in (*DATA.spinstons.values(), *DATA.robots.values())}
ICE_CARDS = sum(ICE_COPIES)
ROBOT_COPIES = {KIND_INDEX[robot.id]: float(robot.count) for robot in DATA.robots.values()}


class RobotsLoveIceCreamEncoding(Encoding):
    """Each action as its type token, then a token for each field (see the module's docstring)."""

    game = GAME

    def __init__(self, players: int, options: dict[str, Any]) -> None:
        super().__init__(players, options)
        self._observed: dict[int, tuple[View, Tensor]] = {}
        self._trie: dict[tuple[int, ...], dict[int, Choice]] = {}
        self._trie_of: tuple[GameState | None, int, tuple[Any, ...]] = (None, -1, ())

    # --- actions ----------------------------------------------------------------------------------------------
    def name_tokens(self) -> Sequence[str]:
        return NAMES

    def encode(self, state: GameState, seat: int, action: Action) -> tuple[int, ...]:
        kind = action["type"]
        head = TYPE_TOKEN[kind]
        if kind in PLAIN_TYPES:
            return (head,)
        if kind == "attack":
            upgrade = () if action["upgrade"] is None else (BOOST_TOKEN[action["upgrade"]],)
            cards = tuple(CARD_TOKEN[card] for card in action["cards"])
            return (head, *upgrade, COLUMN_TOKEN + action["column"], *cards, DONE)
        if kind == "keep_drawn":
            return (head, *(CARD_TOKEN[card] for card in action["cards"]))
        if kind == "refill_hand":
            return (head, WEAPONIZE[action["weaponize"]])
        if kind == "buy_boost":
            return (head, BOOST_TOKEN[action["boost"]])
        if kind == "equip_upgrades":
            return (head, *(BOOST_TOKEN[boost] for boost in action["upgrades"]), DONE)
        if kind == "share_social_cards":
            cards = action["cards"]
            given = (cards[(seat + step) % self.players] for step in range(self.players))
            return (head, *(NO_CARD if card is None else CARD_TOKEN[card] for card in given))
        return (head, BOOST_TOKEN[action["boost"]], *self._choice(seat, action))

    def _choice(self, seat: int, action: Action) -> list[int]:
        """The tokens of a Boost's choice (`use_boost_in_play`, `resolve_bought_boost`), field by field."""
        tokens = []
        for field in CHOICE_FIELDS:
            if field not in action:
                continue
            value = action[field]
            if field == "target":
                tokens.append(TARGET_TOKEN + (value - seat) % self.players)
            elif field == "column":
                tokens.append(COLUMN_TOKEN + value)
            elif field == "card":
                tokens.append(CARD_TOKEN[value])
            else:
                tokens.append(BOOST_TOKEN[value])
        if len(tokens) + 2 != len(action):
            raise ValueError(f"a Boost choice with a field the tokens do not write: {action!r}")
        return tokens

    def choices(self, state: GameState, seat: int, chosen: tuple[int, ...]) -> dict[int, Choice]:
        """The default's trie of the encoded legal actions, built once per decision: at its first token, and again
        whenever the state is another one or has moved on since (`_decision`)."""
        decision = _decision(state, seat)
        if not chosen or self._trie_of[0] is not state or self._trie_of[1:] != (seat, decision):
            self._trie = {}
            for action in state.legal_actions(seat):
                tokens = self.encode(state, seat, action)
                last = len(tokens) - 1
                for depth, token in enumerate(tokens):
                    self._trie.setdefault(tokens[:depth], {})[token] = action if depth == last else None
            self._trie_of = (state, seat, decision)
        return dict(self._trie.get(chosen, {}))

    def next_seat(self, state: GameState, passed: frozenset[int]) -> int | None:
        """The one acting seat: every decision of the game has at least one action (a pass or a default)."""
        seats = state.acting_seats()
        return seats[0] if seats else None

    def max_tokens(self) -> int:
        attack = 1 + 1 + 1 + MAX_DEFENSE + 1  # type, extra-attack upgrade, column, the largest set, done
        equip = 1 + MAX_SLOTS + 1
        keep = 1 + MAX_KEEP
        social = 1 + SEATS
        boost = 2 + len(CHOICE_FIELDS)
        return max(attack, equip, keep, social, boost)

    # --- observations -----------------------------------------------------------------------------------------
    def sections(self) -> Sequence[Section]:
        return SECTIONS

    def observe(self, view: View, seat: int) -> Tensor:
        """The tensor of a view; the last one of each seat is kept, since a decision of several tokens observes one
        view again and again (a view is never changed in place: the environment makes a new one after each action)."""
        cached = self._observed.get(seat)
        if cached is not None and cached[0] is view:
            return cached[1].copy()
        index: list[int] = []
        value: list[float] = []
        self._header(index, value, view, seat)
        for number, column in enumerate(view["columns"]):
            _column(index, value, OFFSET["columns"] + number * COLUMN_SIZE, column)
        for shown in view["seats"]:
            _seat(index, value, OFFSET["seats"] + ((shown["seat"] - seat) % self.players) * SEAT_SIZE, shown)
        _turn(index, value, view)
        _tables(index, value, view)
        out = np.zeros(BODY, dtype=np.float32)
        out[index] = value
        self._observed[seat] = (view, out)
        return out.copy()

    def _header(self, index: list[int], value: list[float], view: View, seat: int) -> None:
        """Phase, step, planet, round, whose turn, the first player, the queue and the track."""
        players = self.players
        index.append(OFFSET["phase"] + PHASE_INDEX[view["phase"]])
        value.append(1.0)
        for name, number in (
            ("step", STEP_INDEX.get(view["step"])),
            ("planet", view["planet"] - 1),
            ("round", view["round"] - 1),
        ):
            if number is not None and number >= 0:
                index.append(OFFSET[name] + number)
                value.append(1.0)
        index += [OFFSET["my_turn"], OFFSET["first_player"] + (view["first_player"] - seat) % players]
        value += [float(view["active"] == seat), 1.0]
        for place, queued in enumerate(view["queue"]):
            index.append(OFFSET["queue"] + ((queued - seat) % players) * SEATS + place)
            value.append(1.0)
        at = OFFSET["track"]
        index += range(at, at + RULES.track_levels + 3)
        value += [count / TRACK_TOKENS for count in view["track_levels"]]
        value += [view["above_track"] / TRACK_TOKENS, view["captured"] / TOKENS, view["saved"] / TOKENS]

    # --- text -------------------------------------------------------------------------------------------------
    def render(self, view: View) -> str:
        return "\n".join(render_lines(view))


def _decision(state: GameState, seat: int) -> tuple[Any, ...]:
    """What tells one decision of a seat from the next: every action changes one of these."""
    table = cast(RobotsState, state)
    return (
        table.planet,
        table.round,
        table.phase,
        table.step,
        tuple(table.queue),
        table.attacks,
        tuple(table.extras),
        tuple(table.used),
        tuple(table.hands[seat]),
        table.weaponized[seat],
        table.sprinkles[seat],
        table.pending,
        tuple(table.store_row),
        tuple(table.drawn),
    )


# --- the tensor's parts: each appends (index, value) pairs, written into the tensor at once -------------------------
def _counts(cards: Sequence[str], table: dict[str, int]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for card in cards:
        counts[table[card]] = counts.get(table[card], 0) + 1
    return counts


def _column(index: list[int], value: list[float], at: int, column: dict[str, Any]) -> None:
    index.append(at)
    value.append(1.0)
    for spot, robot in enumerate((column["spinston"], *column["robots"])):
        if robot is not None:
            index.append(at + 1 + spot * len(ROBOT_KINDS) + KIND_INDEX[robot])
            value.append(1.0)
    at += 1 + len(SPOTS) * len(ROBOT_KINDS)
    index += (at, at + 1)
    value += (float(column["fourth_level_open"]), float(column["jammed"]))
    target = column["target_level"]
    if target is not None:
        occupant = column["spinston"] if target == SPINSTON_LEVEL else column["robots"][target - 1]
        index += (at + 2 + target, at + 2 + len(SPOTS))
        value += (1.0, DEFENSE[occupant] / MAX_DEFENSE)


def _seat(index: list[int], value: list[float], at: int, seat: dict[str, Any]) -> None:
    index.append(at)
    value.append(1.0)
    hand = seat["hand"]
    if hand is not None:
        index.append(at + 1)
        value.append(1.0)
        for kind, count in _counts(hand, ICE_INDEX).items():
            index.append(at + 2 + kind)
            value.append(count / ICE_COPIES[kind])
    at += 2 + len(ICE)
    index += range(at, at + 7)
    value += (
        min(seat["hand_count"], HAND_SCALE) / HAND_SCALE,
        seat["weaponized_sprinkletonium"] / SPRINKLES,
        seat["sprinkletonium"] / SPRINKLES,
        seat["tokens"] / TOKENS,
        seat["victory_points"] / BEST_SCORE,
        seat["upgrade_slots"] / MAX_SLOTS,
        seat["refill_to"] / MAX_REFILL,
    )
    at += 7
    for offset, cards, table in (
        (at, seat["equipped"], UPGRADE_INDEX),
        (at + len(UPGRADES), seat["spare_upgrades"], UPGRADE_INDEX),
        (at + 2 * len(UPGRADES), seat["effects"], REMAINING_INDEX),
    ):
        for card in cards:
            index.append(offset + table[card])
            value.append(1.0)


def _turn(index: list[int], value: list[float], view: View) -> None:
    at = OFFSET["draw"]
    if view["drawn"] is not None:
        for kind, count in _counts(view["drawn"], ICE_INDEX).items():
            index.append(at + kind)
            value.append(count / MAX_DRAW)
        index.append(at + len(ICE) + 1)
        value.append(1.0)
    index.append(at + len(ICE))
    value.append(view["drawn_count"] / MAX_DRAW)
    at = OFFSET["turn"]
    index.append(at)
    value.append(min(view["attacks_made"], MAX_ATTACKS) / MAX_ATTACKS)
    for upgrade in view["extra_attacks_used"]:
        index.append(at + 1 + UPGRADE_INDEX[upgrade])
        value.append(1.0)
    at += 1 + len(UPGRADES)
    for boost in view["used_this_planet"]:
        index.append(at + BOOST_INDEX[boost])
        value.append(1.0)


def _tables(index: list[int], value: list[float], view: View) -> None:
    at = OFFSET["decks"]
    index += (at, at + 1)
    value += (view["sprinkletonium_supply"] / SPRINKLES, view["ice_cream_deck_count"] / ICE_CARDS)
    for kind, count in _counts(view["ice_cream_discard"], ICE_INDEX).items():
        index.append(at + 2 + kind)
        value.append(count / ICE_COPIES[kind])
    at += 2 + len(ICE)
    index.append(at)
    value.append(view["robot_deck_count"] / ROBOT_CARDS)
    for kind, count in _counts(view["robot_discard"], KIND_INDEX).items():
        index.append(at + 1 + kind)
        value.append(count / ROBOT_COPIES[kind])
    at += 1 + len(ROBOT_KINDS)
    index.append(at)
    value.append(view["boost_deck_count"] / len(BOOSTS))
    for boost in view["boost_discard"]:
        index.append(at + 1 + BOOST_INDEX[boost])
        value.append(1.0)
    at = OFFSET["store"]
    for boost in view["store_row"]:
        index.append(at + BOOST_INDEX[boost])
        value.append(1.0)
    index.append(at + len(BOOSTS))
    value.append(min(view["bought_this_store"], BOUGHT_SCALE) / BOUGHT_SCALE)
    if view["pending_boost"] is not None:
        index.append(at + len(BOOSTS) + 1 + BOOST_INDEX[view["pending_boost"]])
        value.append(1.0)
    for kind, count in _counts(view["social"], ICE_INDEX).items():
        index.append(OFFSET["social"] + kind)
        value.append(count / SEATS)


def _cards(cards: Sequence[str]) -> str:
    counts: dict[str, int] = {}
    for card in cards:
        counts[card] = counts.get(card, 0) + 1
    return (
        ", ".join(f"{count}x {DATA.title(card)}" if count > 1 else DATA.title(card) for card, count in counts.items())
        or "-"
    )


def render_lines(view: View) -> list[str]:
    """A view as lines of text: the planet's columns, the track, every truck, the store and the last events."""
    step = f" ({view['step']})" if view["step"] else ""
    turn = f", seat {view['active']} to act" if view["active"] is not None else ""
    lines = [
        f"planet {view['planet']} ({view['planet_card']}), round {view['round']}: {view['phase']} phase{step}{turn}; "
        f"first player seat {view['first_player']}"
    ]
    if view["columns"]:
        lines.append("columns, Spinston first, then levels 1 down (* the target, [defense]):")
    for index, column in enumerate(view["columns"]):
        spots = [
            f"{'*' if level == column['target_level'] else ''}{_robot(robot)}"
            for level, robot in enumerate((column["spinston"], *column["robots"]))
            if level < LEVELS[-1] or column["fourth_level_open"]
        ]
        jammed = " (jammed)" if column["jammed"] else ""
        lines.append(f"column {index}{jammed}: " + " | ".join(spots))
    levels = " ".join(str(count) for count in view["track_levels"])
    lines.append(
        f"track: {view['above_track']} above, levels 1-{len(view['track_levels'])}: {levels}; "
        f"saved {view['saved']} of {view['tokens_needed']} needed, captured {view['captured']}"
    )
    for seat in view["seats"]:
        hand = _cards(seat["hand"]) if seat["hand"] is not None else "hidden"
        weaponized = (
            f" + {seat['weaponized_sprinkletonium']} Sprinkletonium" if seat["weaponized_sprinkletonium"] else ""
        )
        lines.append(
            f"seat {seat['seat']}: {seat['hand_count']} cards ({hand}{weaponized}); {seat['sprinkletonium']} "
            f"Sprinkletonium, {seat['tokens']} tokens, {seat['victory_points']} VP"
        )
        trucks = (("equipped", "equipped"), ("spare", "spare_upgrades"), ("effects", "effects"))
        boosts = "; ".join(f"{label} {_cards(seat[key])}" for label, key in trucks if seat[key])
        if boosts:
            lines[-1] += f"; {boosts}"
    if view["drawn_count"]:
        drawn = _cards(view["drawn"]) if view["drawn"] is not None else "hidden"
        lines.append(f"drawn: {view['drawn_count']} ({drawn})")
    if view["store_row"] or view["pending_boost"]:
        pending = f"; waiting: {DATA.title(view['pending_boost'])}" if view["pending_boost"] else ""
        row = ", ".join(f"{DATA.title(b)} ({DATA.boosts[b].price})" for b in view["store_row"]) or "-"
        lines.append(f"store: {row}{pending}")
    if view["social"]:
        lines.append(f"ice cream social: {_cards(view['social'])}")
    lines.append(
        f"decks: ice cream {view['ice_cream_deck_count']} (discard {len(view['ice_cream_discard'])}), robots "
        f"{view['robot_deck_count']}, boosts {view['boost_deck_count']}, Sprinkletonium {view['sprinkletonium_supply']}"
    )
    lines += [f"> {event}" for event in view["events"]]
    return lines


def _robot(robot: str | None) -> str:
    if robot is None:
        return "."
    return f"{DATA.robot(robot).name} [{DEFENSE[robot]}]"
