"""The effect vocabulary the card data may name: each effect's kind and parameters.

Robot abilities and Boost effects are written in data.json as `{"effect": name, "params": {...}}`.
This module says which names exist and which parameters each takes, so the loader can refuse a
card that names an unknown effect or gives it a wrong parameter; `effects.py` implements each one
once. A corrected card list that only reuses these effects needs no code change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

ICE_CREAM_TYPES = ("single_serve", "rapid_pop", "boomsicle", "funday")
"""The four matching types; Brain Freeze is wild."""
BRAIN_FREEZE = "brain_freeze"
SPRINKLETONIUM = "sprinkletonium"  # a weaponized Sprinkletonium in hand (Variant B): wild like Brain Freeze
ANY = "any"

EffectKind = Literal["robot", "passive", "activated"]
"""robot: a robot's attack ability; passive: a Boost that changes a rule while in play;
activated: a Boost that does something once, when bought (immediate) or when used (once per planet)."""

_NO_DEFAULT = object()


@dataclass(frozen=True)
class Param:
    """One parameter of an effect: its type, default (or required) and allowed values."""

    kind: type
    default: Any = _NO_DEFAULT
    choices: tuple[Any, ...] = ()
    minimum: int | None = None

    @property
    def required(self) -> bool:
        """True when the card data must give this parameter."""
        return self.default is _NO_DEFAULT

    def problem(self, value: Any) -> str | None:
        """What is wrong with a value for this parameter, or None."""
        if self.kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            return f"must be an integer, got {value!r}"
        if self.kind is not int and not isinstance(value, self.kind):
            return f"must be a {self.kind.__name__}, got {value!r}"
        if self.minimum is not None and value < self.minimum:
            return f"must be at least {self.minimum}, got {value!r}"
        if self.choices and value not in self.choices:
            return f"must be one of {list(self.choices)}, got {value!r}"
        return None


@dataclass(frozen=True)
class EffectSpec:
    """An effect name: what kind it is, its parameters, and whether it needs a planet in play."""

    name: str
    kind: EffectKind
    summary: str
    params: dict[str, Param] = field(default_factory=dict)
    needs_planet: bool = False
    trigger: bool = False  # a passive effect that fires now and then: its card must limit it (once per planet)

    def resolve(self, given: dict[str, Any]) -> dict[str, Any]:
        """The parameters with defaults filled in; ValueError naming the first bad one."""
        unknown = sorted(set(given) - set(self.params))
        if unknown:
            raise ValueError(f"effect {self.name!r} takes no parameter {unknown[0]!r} (it takes {sorted(self.params)})")
        resolved: dict[str, Any] = {}
        for name, param in self.params.items():
            if name not in given:
                if param.required:
                    raise ValueError(f"effect {self.name!r} needs the parameter {name!r}")
                resolved[name] = param.default
                continue
            problem = param.problem(given[name])
            if problem:
                raise ValueError(f"params.{name} {problem}")
            resolved[name] = given[name]
        return resolved


AMOUNT = Param(int, minimum=1)
COUNT = Param(int, 1, minimum=1)
PLAYERS_HIT = Param(str, "all", ("all", "first_player", "most_cards"))
TYPE_OR_ANY = Param(str, ANY, (ANY, *ICE_CREAM_TYPES))

EFFECTS: dict[str, EffectSpec] = {
    spec.name: spec
    for spec in (
        # --- robot abilities -------------------------------------------------------------------
        EffectSpec(
            "advance_ice_cream",
            "robot",
            "move an Ice Cream token on the Spinston Beam Track up `levels` levels (the lowest or highest token)",
            {"levels": COUNT, "token": Param(str, "lowest", ("lowest", "highest"))},
        ),
        EffectSpec("hop_right", "robot", "Lil Chip: move to the highest open space of the next column to the right"),
        EffectSpec(
            "summon",
            "robot",
            "place `count` new robots from the robot deck (or the top of the robot discard pile) as Lil Chunk does",
            {"count": COUNT, "source": Param(str, "deck", ("deck", "discard"))},
        ),
        EffectSpec(
            "discard_random",
            "robot",
            "the players hit (all, the first player, or those with the most cards) discard `count` random cards",
            {"who": PLAYERS_HIT, "count": COUNT},
        ),
        EffectSpec(
            "lose_sprinkletonium",
            "robot",
            "the players hit lose `count` Sprinkletonium each, back to the supply",
            {"who": PLAYERS_HIT, "count": COUNT},
        ),
        # --- Boost effects that change a rule while in play ---------------------------------------
        EffectSpec(
            "attack_bonus",
            "passive",
            "add `amount` to the attack value of sets of a type (or any) against robots in a defense range",
            {
                "amount": AMOUNT,
                "min_defense": Param(int, 0, minimum=0),
                "max_defense": Param(int, 99, minimum=0),
                "ice_cream": TYPE_OR_ANY,
                "on_extra_attacks": Param(bool, True),
            },
        ),
        EffectSpec(
            "extra_attack",
            "passive",
            "once per turn, after the regular attacks, one more attack (limited by defense or ice cream type)",
            {"max_defense": Param(int, 99, minimum=0), "ice_cream": TYPE_OR_ANY},
        ),
        EffectSpec("draw_bonus", "passive", "draw `amount` more cards in the draw step", {"amount": AMOUNT}),
        EffectSpec("keep_bonus", "passive", "keep `amount` more of the drawn cards", {"amount": AMOUNT}),
        EffectSpec(
            "refill_bonus", "passive", "a Sprinkletonium refill fills the hand `amount` higher", {"amount": AMOUNT}
        ),
        EffectSpec(
            "reward_bonus", "passive", "collect `amount` more Sprinkletonium per robot destroyed", {"amount": AMOUNT}
        ),
        EffectSpec("slot_bonus", "passive", "equip `amount` more truck upgrades", {"amount": AMOUNT}),
        EffectSpec("hand_guard", "passive", "robot abilities cannot make this player discard"),
        EffectSpec("sprinkletonium_guard", "passive", "robot abilities cannot make this player lose Sprinkletonium"),
        EffectSpec(
            "free_refill", "passive", "a Sprinkletonium refill costs nothing (limited by the card)", trigger=True
        ),
        EffectSpec(
            "deflect_advance",
            "passive",
            "when a Spinston would move an Ice Cream token above the track, move it down one level instead (limited "
            "by the card)",
            trigger=True,
        ),
        EffectSpec("buy_first", "passive", "buy before players without it in the store phase"),
        # --- Boost effects that act once -----------------------------------------------------------
        EffectSpec("take_random_card", "activated", "take one random card from another player's hand"),
        EffectSpec("give_card", "activated", "give one card from your hand to another player"),
        EffectSpec("draw_cards", "activated", "draw `count` Weaponized Ice Cream cards", {"count": COUNT}),
        EffectSpec("all_draw", "activated", "every player draws `count` Weaponized Ice Cream cards", {"count": COUNT}),
        EffectSpec(
            "take_from_discard",
            "activated",
            "take up to `count` cards of a type from the Weaponized Ice Cream discard pile",
            {"ice_cream": Param(str, BRAIN_FREEZE, (*ICE_CREAM_TYPES, BRAIN_FREEZE)), "count": COUNT},
        ),
        EffectSpec("steal_upgrade", "activated", "take one spare truck upgrade from another player"),
        EffectSpec(
            "destroy_robot",
            "activated",
            "destroy the lowest robot of a column if its defense is at most `max_defense`",
            {"max_defense": Param(int, minimum=0)},
            needs_planet=True,
        ),
        EffectSpec(
            "lower_ice_cream",
            "activated",
            "move the highest Ice Cream token (above the track included) `levels` levels down",
            {"levels": COUNT},
            needs_planet=True,
        ),
        EffectSpec(
            "jam_column",
            "activated",
            "the robots of a column (its Spinston included) skip their abilities until the planet ends",
            needs_planet=True,
        ),
    )
}
