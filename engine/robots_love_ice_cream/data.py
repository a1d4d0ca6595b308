"""Robots Love Ice Cream's cards, planets and printed numbers: the schema and the loader of data.json.

The loader refuses bad data with one message naming the file, the entry and what is wrong with it
(`DataError`), so an operator correcting the card list from the physical cards sees at once what to
fix. Entries the rulebook does not print carry an `assumed` reason; each becomes a catalog
assumption.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, NoReturn

from engine.info import Assumption
from engine.robots_love_ice_cream.schema import BRAIN_FREEZE, EFFECTS, ICE_CREAM_TYPES, SPRINKLETONIUM

DATA_FILE = "data.json"
PLAYER_SETS = ("2", "3", "4")  # planet cards exist for 2, 3 and 4 players; solo uses the 2 (or 3) player cards
SPINSTON_MODELS = ("spinston", "spinston_2")
MAX_LEVEL = 4  # the 4th level exists only on 4-player planet cards
WEAPONIZED_TITLE = "Weaponized Sprinkletonium"


class DataError(ValueError):
    """The card data breaks the schema; the message names the file, the entry and the problem."""


@dataclass(frozen=True)
class Ability:
    """An effect named in the data, with its parameters resolved (defaults filled in)."""

    effect: str
    params: dict[str, Any]


@dataclass(frozen=True)
class Robot:
    """A robot card: Spinstons (model spinston / spinston_2, one per colour) and the robot deck's kinds."""

    id: str
    name: str
    defense: int
    reward: int
    ability: Ability
    text: str
    model: str = "robot"
    colour: str | None = None
    count: int = 1
    assumed: bool = False

    @property
    def is_spinston(self) -> bool:
        """Spinstons top the columns and carry the Ice Cream tokens."""
        return self.model != "robot"

    def to_json(self) -> dict[str, Any]:
        """The card as the catalog shows it (views name it by id)."""
        data: dict[str, Any] = {"id": self.id, "deck": "robot", "title": self.name, "type": self.model}
        data |= {"defense": self.defense, "reward": self.reward, "count": self.count, "text": self.text}
        if self.colour:
            data["colour"] = self.colour
        return {**data, "assumed": self.assumed}


@dataclass(frozen=True)
class Boost:
    """A Boost card: a truck upgrade (equipped) or a game effect (immediate, or remains in play)."""

    id: str
    title: str
    type: str
    price: int
    timing: str
    ability: Ability
    once_per_planet: bool
    text: str
    assumed: bool = False

    def to_json(self) -> dict[str, Any]:
        """The card as the catalog shows it (views name it by id)."""
        return {
            "id": self.id,
            "deck": "boost",
            "title": self.title,
            "type": self.type,
            "price": self.price,
            "timing": self.timing,
            "once_per_planet": self.once_per_planet,
            "text": self.text,
            "assumed": self.assumed,
        }


@dataclass(frozen=True)
class IceCream:
    """A Weaponized Ice Cream card: one of the four matching types or the wild Brain Freeze."""

    id: str
    name: str
    count: int
    wild: bool
    text: str

    def to_json(self) -> dict[str, Any]:
        """The card as the catalog shows it (views name it by id)."""
        kind = "wild" if self.wild else "matching"
        data = {"id": self.id, "deck": "ice_cream", "title": self.name, "type": kind, "count": self.count}
        return {**data, "text": self.text, "assumed": False}


@dataclass(frozen=True)
class Column:
    """A planet card's column: its Spinston and the levels where robots are drawn (1 is just below it)."""

    spinston: str
    robots: tuple[int, ...]


@dataclass(frozen=True)
class Planet:
    """A planet card."""

    id: str
    columns: tuple[Column, ...]


@dataclass(frozen=True)
class Solo:
    """The solo play changes."""

    hand_size: int
    draw: int
    keep: int
    attacks_per_turn: int
    upgrade_slots: int
    removed_boosts: tuple[str, ...]


@dataclass(frozen=True)
class Variants:
    """The numbers of the challenge variants."""

    harder_robots_removed: dict[str, int]
    all_red_spinston: str
    attack_twice_attacks: int
    boost_purchase_limit: int


@dataclass(frozen=True)
class Rules:
    """The printed numbers."""

    planets_per_game: int
    rounds_per_planet: int
    track_levels: int
    hand_size: int
    draw: int
    keep: int
    attacks_per_turn: int
    upgrade_slots: int
    catch_up_from_planet: int
    catch_up_hand_size: int
    refill_cost: int
    store_row: int
    flush_cost: int
    tokens_for_success: int
    vp_per_token: int
    vp_per_sprinkletonium: int
    solo: Solo
    variants: Variants


@dataclass(frozen=True)
class GameData:
    """Everything data.json holds, checked."""

    components: dict[str, int]
    rules: Rules
    ice_cream: dict[str, int]  # type -> copies in the deck
    ice_cream_cards: dict[str, IceCream]
    spinstons: dict[str, Robot]
    robots: dict[str, Robot]  # the robot deck's kinds
    boosts: dict[str, Boost]
    planets: dict[str, tuple[Planet, ...]]
    assumptions: tuple[Assumption, ...]

    def robot(self, robot_id: str) -> Robot:
        """Any robot card by id, Spinstons included."""
        return self.robots.get(robot_id) or self.spinstons[robot_id]

    def title(self, card_id: str) -> str:
        """A card's title (a robot's name), for the events."""
        if card_id in self.boosts:
            return self.boosts[card_id].title
        if card_id in self.ice_cream_cards:
            return self.ice_cream_cards[card_id].name
        return WEAPONIZED_TITLE if card_id == SPRINKLETONIUM else self.robot(card_id).name

    def titles(self, card_ids: list[str]) -> str:
        """Cards' titles in a list for the events ('nothing' for none)."""
        return ", ".join(self.title(card_id) for card_id in card_ids) or "nothing"

    def cards(self) -> list[dict[str, Any]]:
        """Every card as the catalog lists it: ice cream, Variant B's weaponized Sprinkletonium, robots, Boosts."""
        cards = [card.to_json() for card in self.ice_cream_cards.values()]
        cards.append(weaponized_card(self.components["sprinkletonium"]))
        cards += [robot.to_json() for robot in (*self.spinstons.values(), *self.robots.values())]
        return cards + [boost.to_json() for boost in self.boosts.values()]


def weaponized_card(count: int) -> dict[str, Any]:
    """Variant B's Sprinkletonium in a hand, as the catalog lists it (views name it `sprinkletonium`)."""
    text = "Variant B: pulled into the hand by a refill; it 'behaves identically to a Brain Freeze card'."
    data = {"id": SPRINKLETONIUM, "deck": "sprinkletonium", "title": WEAPONIZED_TITLE, "type": "wild"}
    return {**data, "count": count, "text": text, "assumed": False}


class _Reader:
    """Reads one JSON value at a path, failing with the file, the entry and the problem."""

    def __init__(self, source: str, path: str, value: Any) -> None:
        self.source, self.path, self.value = source, path, value

    def fail(self, problem: str) -> NoReturn:
        """Raise DataError for this entry."""
        raise DataError(f"{self.source}: {self.path}: {problem}")

    def at(self, key: str | int, label: str = "") -> _Reader:
        """The entry under a key (or index), which must exist."""
        if isinstance(key, int):
            if not isinstance(self.value, list) or key >= len(self.value):
                self.fail(f"has no item {key}")
            return _Reader(self.source, f"{self.path}[{key}]{label}", self.value[key])
        if not isinstance(self.value, dict):
            self.fail("must be a JSON object")
        if key not in self.value:
            self.fail(f"is missing {key!r}")
        return _Reader(self.source, f"{self.path}.{key}" if self.path else key, self.value[key])

    def keys(self, required: set[str], optional: set[str] | frozenset[str] = frozenset()) -> None:
        """The entry is an object with exactly these keys (optional ones may be absent)."""
        if not isinstance(self.value, dict):
            self.fail("must be a JSON object")
        missing = sorted(required - set(self.value))
        if missing:
            self.fail(f"is missing {missing[0]!r}")
        unknown = sorted(set(self.value) - required - optional)
        if unknown:
            self.fail(f"has an unknown key {unknown[0]!r} (allowed: {sorted(required | optional)})")

    def items(self) -> list[_Reader]:
        """The entries of a list."""
        if not isinstance(self.value, list):
            self.fail("must be a JSON list")
        return [self.at(i, _label(v)) for i, v in enumerate(self.value)]

    def integer(self, minimum: int = 0) -> int:
        """An integer of at least `minimum`."""
        value = self.value
        if not isinstance(value, int) or isinstance(value, bool):
            self.fail(f"must be an integer, got {value!r}")
        if value < minimum:
            self.fail(f"must be at least {minimum}, got {value}")
        return value

    def text(self, choices: tuple[str, ...] = ()) -> str:
        """A non-empty string, one of `choices` if given."""
        value = self.value
        if not isinstance(value, str) or not value:
            self.fail(f"must be a non-empty string, got {value!r}")
        if choices and value not in choices:
            self.fail(f"must be one of {list(choices)}, got {value!r}")
        return value

    def flag(self) -> bool:
        """true or false."""
        value = self.value
        if not isinstance(value, bool):
            self.fail(f"must be true or false, got {value!r}")
        return value

    def ability(self, kinds: tuple[str, ...]) -> Ability:
        """An {"effect": name, "params": {...}} of one of these effect kinds."""
        self.keys({"effect", "params"})
        name = self.at("effect").text()
        spec = EFFECTS.get(name)
        if spec is None:
            self.fail(f"names an unknown effect {name!r} (known: {sorted(EFFECTS)})")
        if spec.kind not in kinds:
            self.fail(f"effect {name!r} is a {spec.kind} effect; here it must be {' or '.join(kinds)}")
        params = self.at("params")
        if not isinstance(params.value, dict):
            params.fail("must be a JSON object")
        try:
            return Ability(name, spec.resolve(params.value))
        except ValueError as error:
            self.fail(str(error))


def _label(value: Any) -> str:
    """' (id)' for an entry that has an id, to name it in messages."""
    return f" ({value['id']})" if isinstance(value, dict) and isinstance(value.get("id"), str) else ""


def _unique(entries: list[_Reader], what: str) -> None:
    seen: set[str] = set()
    for entry in entries:
        entry_id = entry.at("id").text()
        if entry_id in seen:
            entry.fail(f"repeats the {what} id {entry_id!r}")
        seen.add(entry_id)


def _assumed(entry: _Reader, kind: str, choice: str) -> Assumption | None:
    """The entry's `assumed` reason as a catalog assumption, if it has one."""
    if not isinstance(entry.value, dict) or "assumed" not in entry.value:
        return None
    reason = entry.at("assumed").text()
    return Assumption(f"{kind}:{entry.value['id']}", choice, reason)


def _robot(entry: _Reader, spinston: bool) -> tuple[Robot, Assumption | None]:
    common = {"id", "name", "defense", "reward", "ability", "text"}
    if spinston:
        entry.keys(common | {"model", "colour"}, {"assumed"})
    else:
        entry.keys(common | {"count"}, {"assumed"})
    robot = Robot(
        id=entry.at("id").text(),
        name=entry.at("name").text(),
        defense=entry.at("defense").integer(1),
        reward=entry.at("reward").integer(0),
        ability=entry.at("ability").ability(("robot",)),
        text=entry.at("text").text(),
        model=entry.at("model").text(SPINSTON_MODELS) if spinston else "robot",
        colour=entry.at("colour").text() if spinston else None,
        count=1 if spinston else entry.at("count").integer(1),
        assumed="assumed" in entry.value,
    )
    choice = f"{robot.name}{f' ({robot.colour})' if robot.colour else ''}: defense {robot.defense}, "
    choice += f"reward {robot.reward}, '{robot.text}'"
    return robot, _assumed(entry, "robot", choice)


def _boost(entry: _Reader) -> tuple[Boost, Assumption | None]:
    entry.keys({"id", "title", "type", "price", "timing", "effect", "params", "text"}, {"once_per_planet", "assumed"})
    kind = entry.at("type").text(("upgrade", "effect"))
    timing = entry.at("timing").text(("equipped",) if kind == "upgrade" else ("immediate", "remains"))
    ability = _Reader(entry.source, entry.path, {"effect": entry.value["effect"], "params": entry.value["params"]})
    spec_kinds = ("activated",) if timing == "immediate" else ("passive", "activated")
    once = entry.at("once_per_planet").flag() if "once_per_planet" in entry.value else False
    boost = Boost(
        id=entry.at("id").text(),
        title=entry.at("title").text(),
        type=kind,
        price=entry.at("price").integer(1),
        timing=timing,
        ability=ability.ability(spec_kinds),
        once_per_planet=once,
        text=entry.at("text").text(),
        assumed="assumed" in entry.value,
    )
    spec = EFFECTS[boost.ability.effect]
    if timing == "immediate" and spec.needs_planet:
        entry.fail(f"effect {spec.name!r} needs robots on a planet, but an immediate Boost resolves in the store")
    if timing != "immediate" and (spec.kind == "activated" or spec.trigger) and not once:
        entry.fail(f"the effect {spec.name!r} acts once each time: set once_per_planet to true")
    if once and (timing == "immediate" or (spec.kind == "passive" and not spec.trigger)):
        entry.fail(f"once_per_planet does not apply to the effect {spec.name!r} played this way")
    choice = f"{boost.title} ({'Truck Upgrade' if kind == 'upgrade' else 'Game Effect'}, price {boost.price}): "
    return boost, _assumed(entry, "boost", choice + boost.text)


def _planet(entry: _Reader, players: str, spinstons: dict[str, Robot]) -> Planet:
    entry.keys({"id", "columns"})
    columns = []
    column_entries = entry.at("columns").items()
    if not column_entries:
        entry.fail("needs at least one column")
    used: set[str] = set()
    for column in column_entries:
        column.keys({"spinston", "robots"})
        spinston = column.at("spinston").text(tuple(spinstons))
        if spinston in used:
            column.fail(f"uses the Spinston card {spinston!r} twice on one planet")
        used.add(spinston)
        levels_entry = column.at("robots")
        levels = tuple(level.integer(1) for level in levels_entry.items())
        if list(levels) != sorted(set(levels)) or any(level > MAX_LEVEL for level in levels):
            levels_entry.fail(f"must list distinct levels 1 to {MAX_LEVEL} in increasing order, got {list(levels)}")
        if MAX_LEVEL in levels and players != "4":
            levels_entry.fail("the 4th level exists only on 4-player planet cards")
        columns.append(Column(spinston, levels))
    return Planet(entry.at("id").text(), tuple(columns))


def _rules(entry: _Reader, boosts: dict[str, Boost], robots: dict[str, Robot], spinstons: dict[str, Robot]) -> Rules:
    names = [name for name in Rules.__dataclass_fields__ if name not in ("solo", "variants")]
    entry.keys({*names, "solo", "variants"})
    values = {name: entry.at(name).integer(1) for name in names}
    solo_entry = entry.at("solo")
    solo_names = [name for name in Solo.__dataclass_fields__ if name != "removed_boosts"]
    solo_entry.keys({*solo_names, "removed_boosts"})
    removed = tuple(item.text(tuple(boosts)) for item in solo_entry.at("removed_boosts").items())
    solo = Solo(**{name: solo_entry.at(name).integer(1) for name in solo_names}, removed_boosts=removed)
    variants_entry = entry.at("variants")
    variants_entry.keys({"harder_robots_removed", "all_red_spinston", "attack_twice_attacks", "boost_purchase_limit"})
    removed_robots = variants_entry.at("harder_robots_removed")
    removed_robots.keys(set(), set(robots))
    harder = {robot_id: removed_robots.at(robot_id).integer(1) for robot_id in removed_robots.value}
    for robot_id, count in harder.items():
        if count > robots[robot_id].count:
            removed_robots.at(robot_id).fail(f"removes {count} but the deck has {robots[robot_id].count}")
    variants = Variants(
        harder,
        variants_entry.at("all_red_spinston").text(tuple(spinstons)),
        variants_entry.at("attack_twice_attacks").integer(1),
        variants_entry.at("boost_purchase_limit").integer(1),
    )
    return Rules(**values, solo=solo, variants=variants)


def load(raw: Any, source: str = DATA_FILE) -> GameData:
    """Check raw data (parsed JSON) against the schema and build the game data; DataError says what is wrong."""
    root = _Reader(source, "", raw)
    root.keys({"components", "rules", "ice_cream", "spinstons", "robots", "boosts", "planets", "assumptions"})
    components_entry = root.at("components")
    component_names = {"weaponized_ice_cream", "robots", "boosts", "sprinkletonium", "ice_cream_tokens", "planets"}
    components_entry.keys(component_names, {"trucks"})
    components = {name: components_entry.at(name).integer(1) for name in components_entry.value}

    ice_entries = root.at("ice_cream").items()
    ice_cream: dict[str, int] = {}
    cards: dict[str, IceCream] = {}
    for entry in ice_entries:
        entry.keys({"id", "name", "count", "wild", "text"})
        ice_id = entry.at("id").text((*ICE_CREAM_TYPES, BRAIN_FREEZE))
        if ice_id in ice_cream:
            entry.fail(f"repeats the ice cream {ice_id!r}")
        if entry.at("wild").flag() != (ice_id == BRAIN_FREEZE):
            entry.at("wild").fail(
                "only Brain Freeze is wild ('Brain Freeze cards are wild and can be used as any type')"
            )
        ice_cream[ice_id] = entry.at("count").integer(1)
        cards[ice_id] = IceCream(
            ice_id, entry.at("name").text(), ice_cream[ice_id], ice_id == BRAIN_FREEZE, entry.at("text").text()
        )
    if sorted(ice_cream) != sorted((*ICE_CREAM_TYPES, BRAIN_FREEZE)):
        root.at("ice_cream").fail(f"must give exactly {[*ICE_CREAM_TYPES, BRAIN_FREEZE]}")
    if sum(ice_cream.values()) != components["weaponized_ice_cream"]:
        root.at("ice_cream").fail(
            f"counts add up to {sum(ice_cream.values())}, not {components['weaponized_ice_cream']}"
        )

    assumptions: list[Assumption] = []
    robot_sets: list[dict[str, Robot]] = []
    for key, spinston in (("spinstons", True), ("robots", False)):
        entries = root.at(key).items()
        _unique(entries, "robot")
        found: dict[str, Robot] = {}
        for entry in entries:
            robot, assumption = _robot(entry, spinston)
            found[robot.id] = robot
            assumptions += [assumption] if assumption else []
        robot_sets.append(found)
    spinstons, robots = robot_sets
    if set(spinstons) & set(robots):
        root.at("robots").fail(f"reuses a Spinston id: {sorted(set(spinstons) & set(robots))[0]!r}")
    robot_cards = len(spinstons) + sum(robot.count for robot in robots.values())
    if robot_cards != components["robots"]:
        root.at("robots").fail(f"Spinstons and robot counts add up to {robot_cards}, not {components['robots']}")

    boost_entries = root.at("boosts").items()
    _unique(boost_entries, "boost")
    boosts: dict[str, Boost] = {}
    for entry in boost_entries:
        boost, assumption = _boost(entry)
        boosts[boost.id] = boost
        assumptions += [assumption] if assumption else []
    if len(boosts) != components["boosts"]:
        root.at("boosts").fail(f"lists {len(boosts)} unique Boost cards, not {components['boosts']}")

    rules = _rules(root.at("rules"), boosts, robots, spinstons)
    cheapest = min(boosts.values(), key=lambda boost: boost.price)
    if cheapest.price < rules.flush_cost:
        # A buyer who cannot flush can then buy nothing either, whatever card is drawn: legal actions say publicly
        # whether a store action ends the buying turn (actions.ends_turn).
        root.at("boosts").fail(f"{cheapest.title} costs less than a flush ({rules.flush_cost}); no Boost may")
    planets_entry = root.at("planets")
    planets_entry.keys(set(PLAYER_SETS))
    planets: dict[str, tuple[Planet, ...]] = {}
    for players in PLAYER_SETS:
        entries = planets_entry.at(players).items()
        _unique(entries, "planet")
        if len(entries) != rules.planets_per_game:
            planets_entry.at(players).fail(f"must hold {rules.planets_per_game} planets, in order 1 to 5")
        planets[players] = tuple(_planet(entry, players, spinstons) for entry in entries)
        tokens = sum(len(planet.columns) for planet in planets[players])
        if tokens != components["ice_cream_tokens"]:
            planets_entry.at(players).fail(
                f"shows {tokens} Spinstons, but each Spinston brings one of the {components['ice_cream_tokens']} tokens"
            )
    if sum(len(group) for group in planets.values()) != components["planets"]:
        planets_entry.fail(f"must hold {components['planets']} planet cards")

    for entry in root.at("assumptions").items():
        entry.keys({"id", "choice", "reason"})
        assumptions.append(Assumption(entry.at("id").text(), entry.at("choice").text(), entry.at("reason").text()))
    ids = [assumption.id for assumption in assumptions]
    if len(set(ids)) != len(ids):
        root.at("assumptions").fail(f"repeats an assumption id: {sorted(i for i in ids if ids.count(i) > 1)[0]!r}")
    return GameData(components, rules, ice_cream, cards, spinstons, robots, boosts, planets, tuple(assumptions))


def load_packaged() -> GameData:
    """The data.json shipped beside this module."""
    text = resources.files(__package__).joinpath(DATA_FILE).read_text()
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise DataError(f"{DATA_FILE}: not valid JSON: {error}") from error
    return load(raw, DATA_FILE)


DATA = load_packaged()
