"""Robots Love Ice Cream: the game object, its options (solo planets, Challenge Variants A-F, open hands)."""

from __future__ import annotations

from typing import Any

from engine.info import GameInfo
from engine.options import OptionSet, OptionSpec
from engine.protocol import Game, View
from engine.rng import Rng
from engine.robots_love_ice_cream import phases, rebuilding
from engine.robots_love_ice_cream.data import DATA
from engine.robots_love_ice_cream.schema import EFFECTS
from engine.robots_love_ice_cream.state import RobotsState

VARIANTS = (
    "harder_robots",
    "weaponized_sprinkletonium",
    "all_red_spinstons",
    "ice_cream_social",
    "attack_twice",
    "boost_limit",
)
"""The Challenge Variants A to F, in the rulebook's order; any may be combined."""

OPTIONS = OptionSet(
    (
        OptionSpec(
            "solo_planets",
            "choice",
            "2",
            "Solo play: the planet cards used ('the 2 player planet cards'; '3' for 'a harder challenge').",
            choices=("2", "3"),
        ),
        OptionSpec("harder_robots", "bool", False, "Variant A: remove 6 Lil Chips, 2 Peaboties and 2 Punk Rockits."),
        OptionSpec(
            "weaponized_sprinkletonium",
            "bool",
            False,
            "Variant B: a refill may pull one of your Sprinkletonium into your hand as a Brain Freeze.",
        ),
        OptionSpec("all_red_spinstons", "bool", False, "Variant C: all Spinstons are Red Spinston 2.0."),
        OptionSpec(
            "ice_cream_social",
            "bool",
            False,
            "Variant D: after equipping, one face-up card per player; the first player shares them out (or at random).",
        ),
        OptionSpec("attack_twice", "bool", False, "Variant E: players may perform two attacks per turn."),
        OptionSpec("boost_limit", "bool", False, "Variant F: each player may buy only 1 Boost per store phase."),
        OptionSpec(
            "open_hands",
            "bool",
            False,
            "Every hand is shown to every player ('Players are allowed to discuss their plans').",
        ),
        OptionSpec(
            "stop_when_lost",
            "bool",
            False,
            "End the game as soon as more than 3 Ice Cream tokens are captured (the mission can no longer succeed).",
        ),
    )
)

RULES = DATA.rules
SPRINKLETONIUM_CARDS = DATA.components["sprinkletonium"]
TOKENS = DATA.components["ice_cream_tokens"]
BEST_SCORE = RULES.vp_per_token * TOKENS + RULES.vp_per_sprinkletonium * SPRINKLETONIUM_CARDS
"""One seat holding every Ice Cream token and every Sprinkletonium card."""
ATTACKS_PER_TURN = max(RULES.attacks_per_turn, RULES.solo.attacks_per_turn, RULES.variants.attack_twice_attacks) + sum(
    boost.ability.effect == "extra_attack" for boost in DATA.boosts.values()
)  # the regular attacks, then one more per extra-attack upgrade
TURN_ACTIONS = 1 + 1 + ATTACKS_PER_TURN + 1
"""Most actions of a turn besides Boost uses: the catch-up draw's choice, the keep, attacks, `end_turn` or a refill."""
BOOST_USES = sum(EFFECTS[boost.ability.effect].kind == "activated" for boost in DATA.boosts.values())
"""Most Boost uses on one planet: each Boost is used 'only once per planet'."""


def game_length(players: int) -> int:
    """A bound on the actions of a game: five planets of at most three rounds, and the phases between them.

    Between planets no robot is destroyed, so no Sprinkletonium comes in: every buy or flush spends at least one of
    the cards in the game, a bought Boost waits for one choice at most, and each seat stops buying and equips once;
    the Ice Cream Social is shared in one action.
    """
    planets = RULES.planets_per_game
    player_phases = planets * (RULES.rounds_per_planet * players * TURN_ACTIONS + BOOST_USES)
    return player_phases + (planets - 1) * (2 * SPRINKLETONIUM_CARDS + 2 * players + 1)


INFO = GameInfo(
    id="robots_love_ice_cream",
    name="Robots Love Ice Cream",
    min_players=1,
    max_players=4,
    summary="Fire matching sets of weaponized ice cream at invading robots on five planets; save 10 of 13 ice creams.",
    information="imperfect",
    chance=True,
    cooperative=True,
    simultaneous=False,
    min_utility=0,  # victory points: 2 per Ice Cream token saved, 1 per Sprinkletonium held; a give-up scores 0
    max_utility=BEST_SCORE,
    max_game_length=game_length(4),
    options=OPTIONS,
    assumptions=DATA.assumptions,
    cards=tuple(DATA.cards()),
    rules_version=2,  # 2: the Boosts redesigned, levels counted from the top, actions renamed (issue 18)
)


class RobotsLoveIceCream(Game):
    """The Robots Love Ice Cream game object."""

    info = INFO

    def max_game_length(self, players: int, options: dict[str, Any]) -> int | None:
        """The bound of `game_length` at this player count (the variants only lower it)."""
        return game_length(players)

    def new_state_from_rng(self, players: int, options: dict[str, Any], rng: Rng) -> RobotsState:
        """Set up the table and reveal the first planet."""
        state = RobotsState.blank(players, options, rng)
        phases.set_up(state)
        return state

    def rebuild_from_view(self, view: View, seat: int, players: int, options: dict[str, Any], rng: Rng) -> RobotsState:
        """The table the view shows, the cards the seat has not seen dealt at random (rebuilding.py)."""
        return rebuilding.state_from_view(view, seat, players, options, rng)

    def state_from_json(self, data: dict[str, Any]) -> RobotsState:
        """Read back a state written by `to_json`."""
        from engine.errors import CorruptState

        try:
            options = OPTIONS.resolve(data["options"])
        except (KeyError, TypeError, ValueError) as error:
            raise CorruptState(f"not a Robots Love Ice Cream state: {error!r}") from error
        return RobotsState.from_json(data, options)
