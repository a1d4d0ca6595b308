"""A2 Fire Ice Cream Weapons: which matching sets may attack which robot.

'the set must be equal in number to the defense value indicated on the targeted robot. Brain Freeze
cards are wild and can be used as any type.' Boosts add to the attack value, so a set needs
max(1, defense - bonus) cards (assumption exact-set): fewer cards are never worse, so bonuses
always apply, and at least one ice cream is fired.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from engine.robots_love_ice_cream.data import DATA
from engine.robots_love_ice_cream.effects import attack_bonus, extra_attack_allows
from engine.robots_love_ice_cream.schema import BRAIN_FREEZE, ICE_CREAM_TYPES, SPRINKLETONIUM

if TYPE_CHECKING:
    from engine.robots_love_ice_cream.table import Table

WILD = (BRAIN_FREEZE, SPRINKLETONIUM)


def attack_slots(state: Table, seat: int) -> list[str | None]:
    """None for a regular attack while the turn has one left; else each unused extra-attack upgrade."""
    if state.attacks < state.regular_attacks():
        return [None]
    return [
        boost.id
        for boost in state.active_boosts(seat)
        if boost.ability.effect == "extra_attack" and boost.id not in state.extras
    ]


def cards_needed(state: Table, seat: int, defense: int, ice_cream: str, upgrade: str | None) -> int | None:
    """How many cards a set of this type needs against this defense, or None if the attack slot forbids it."""
    if upgrade is not None and not extra_attack_allows(DATA.boosts[upgrade].ability.params, defense, ice_cream):
        return None
    return max(1, defense - attack_bonus(state, seat, defense, ice_cream, upgrade is not None))


def matching_sets(hand: Counter[str], wild_sprinkles: int, ice_cream: str, size: int) -> list[list[str]]:
    """Every distinct set of `size` cards of one type, Brain Freeze and weaponized Sprinkletonium filling in."""
    found = []
    for freeze in range(min(hand[BRAIN_FREEZE], size) + 1):
        for sprinkles in range(min(wild_sprinkles, size - freeze) + 1):
            plain = size - freeze - sprinkles
            if plain <= hand[ice_cream]:
                found.append(sorted([ice_cream] * plain + [BRAIN_FREEZE] * freeze + [SPRINKLETONIUM] * sprinkles))
    return found


def legal_attacks(state: Table, seat: int) -> list[dict[str, Any]]:
    """Every attack the seat may make now, one per (column, cards, upgrade giving the extra attack)."""
    hand = Counter(state.hands[seat])
    found: list[dict[str, Any]] = []
    for upgrade in attack_slots(state, seat):
        for column in range(len(state.columns)):
            target = state.target(column)
            if target is None:
                continue
            defense = target[1].defense
            seen: list[list[str]] = []
            for ice_cream in ICE_CREAM_TYPES:
                size = cards_needed(state, seat, defense, ice_cream, upgrade)
                if size is None:
                    continue
                for cards in matching_sets(hand, state.weaponized[seat], ice_cream, size):
                    if cards not in seen:
                        seen.append(cards)
            found += [{"type": "attack", "column": column, "cards": cards, "upgrade": upgrade} for cards in seen]
    return found


def set_type(cards: list[str]) -> str | None:
    """The one ice cream type of a set's plain cards; None if it has none (all wild) or mixes types."""
    plain = {card for card in cards if card not in WILD}
    return plain.pop() if len(plain) == 1 else None


def why_not(state: Table, seat: int, action: dict[str, Any]) -> str:
    """Why an attack that is not among the legal ones is refused, citing the rule it breaks."""
    column, cards, upgrade = action.get("column"), action.get("cards"), action.get("upgrade", "missing")
    if set(action) != {"type", "column", "cards", "upgrade"} or upgrade == "missing":
        return 'an attack is {"type": "attack", "column": n, "cards": [card ids, sorted], "upgrade": null or an id}'
    if type(column) is not int or not 0 <= column < len(state.columns):
        return f"there is no column {column!r}; columns are 0 to {len(state.columns) - 1}"
    if not isinstance(cards, list) or not cards or not all(isinstance(card, str) for card in cards):
        return "cards must be a non-empty list of card names"
    if cards != sorted(cards):
        return f"list the cards in sorted order: {sorted(cards)}"
    slots = attack_slots(state, seat)
    if upgrade not in slots:
        if not slots:
            return "you have no attack left this turn ('attack a single robot'; extra attacks come from upgrades)"
        if upgrade is None:
            return f"your regular attacks are used; a second attack needs an upgrade: one of {slots}"
        return f"{upgrade!r} gives no attack now; attack with 'upgrade': {slots[0]!r}"
    target = state.target(column)
    if target is None:
        return f"column {column} has no robot left to attack"
    have = Counter(state.hands[seat]) + Counter({SPRINKLETONIUM: state.weaponized[seat]})
    missing = Counter(cards) - have
    if missing:
        return f"you do not hold {sorted(missing.elements())}"
    kinds = {card for card in cards if card not in WILD}
    if len(kinds) > 1:
        return "use matching sets: all cards of one type ('Brain Freeze cards are wild and can be used as any type')"
    robot = target[1]
    types = [set_type(cards)] if kinds else list(ICE_CREAM_TYPES)
    needs = {cards_needed(state, seat, robot.defense, t, upgrade) for t in types if t is not None}
    if needs == {None}:
        return f"the upgrade {upgrade!r} does not allow this attack: {DATA.boosts[str(upgrade)].text}"
    sizes = sorted(n for n in needs if n is not None)
    return (
        f"{robot.name} has defense {robot.defense}: 'the set must be equal in number to the defense value' "
        f"(with your Boosts: {' or '.join(map(str, sizes))} cards), not {len(cards)}"
    )
