"""Robots Love Ice Cream in the browser: a whole co-operative game with a random AI, five planets through the UI."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from tests.browser.conftest import PHONE, PageFactory
from tests.browser.ui import click_action, create_match, wait_for_seed_check, wait_for_turn_or_end

WEIGHTS = {
    "attack": 20.0,
    "buy_boost": 6.0,
    "use_boost_in_play": 3.0,
    "keep_drawn": 1.0,
    "draw_up": 1.0,
    "refill_hand": 1.0,
    "stop_buying": 1.0,
}
"""How much more the test likes each move than the rest (end the turn, flush, decline), so robots get fought."""


def weighted(rng: random.Random, played: list[str]) -> Callable[[list[dict[str, Any]]], int]:
    """Pick an action at random, attacks and purchases far more often than ending the turn."""

    def pick(actions: list[dict[str, Any]]) -> int:
        chosen = rng.choices(range(len(actions)), [WEIGHTS.get(a["type"], 0.3) for a in actions])[0]
        played.append(actions[chosen]["type"])
        return chosen

    return pick


def equip_with_the_picker(page: Page, played: list[str]) -> bool:
    """In the equip phase, press the first upgrade not loaded (if a slot is free) and equip what is pressed."""
    picker = page.locator('.rl-picker[aria-label="Equip your truck"]')
    if picker.count() == 0:
        return False
    free = picker.locator('.rl-toggle[aria-pressed="false"]:not([disabled])')
    if free.count():
        free.first.click()
    pressed = picker.locator('.rl-toggle[aria-pressed="true"]').count()
    button = picker.locator("[data-action]")
    assert len(json.loads(button.get_attribute("data-action") or "{}")["upgrades"]) == pressed
    click_action(page, lambda actions: [a["type"] for a in actions].index("equip_upgrades"))
    played.append("equip_upgrades")
    return True


def share_with_the_picker(page: Page, played: list[str]) -> bool:
    """Variant D: swap the cards the picker offers the first two seats (still one each), then share them out."""
    picker = page.locator('.rl-picker[aria-label="Ice Cream Social"]')
    if picker.count() == 0:
        return False
    selects = picker.locator("select")
    first, second = selects.nth(0).input_value(), selects.nth(1).input_value()
    selects.nth(0).select_option(second)
    selects.nth(1).select_option(first)
    share = json.loads(picker.locator("[data-action]").first.get_attribute("data-action") or "{}")
    assert share["type"] == "share_social_cards"
    assert share["cards"][:2] == [second or None, first or None]
    click_action(page, lambda actions: [a["type"] for a in actions].index("share_social_cards"))
    played.append("share_social_cards")
    return True


def test_a_whole_robots_love_ice_cream_game_with_the_ai(
    page: Page, new_page: PageFactory, screenshot: Callable[[Page, str], Path]
) -> None:
    match_id = create_match(page, "robots_love_ice_cream", ["human", "ai:random"], {"ice_cream_social": True})
    page.wait_for_selector(".rl-column")
    screenshot(page, "robots-love-ice-cream-start-desktop")
    played: list[str]
    rng, played, shots = random.Random(9), [], set()
    while wait_for_turn_or_end(page) == "act":
        assert len(played) < 400, "five planets should be over"
        phase = page.locator(".rl-head .rl-phase").inner_text().split(":")[0]
        if phase not in shots:
            shots.add(phase)
            screenshot(page, f"robots-love-ice-cream-{phase.lower().replace(' ', '-').replace(',', '')}-desktop")
        if not (equip_with_the_picker(page, played) or share_with_the_picker(page, played)):
            click_action(page, weighted(rng, played))

    assert "attack" in played
    assert wait_for_seed_check(page) == "ok"
    assert page.locator("[data-result=shown]").is_visible()
    assert page.locator(".picture [data-action]").count() == 0
    assert page.locator(".rl-head strong").inner_text().startswith(("Group victory", "Mission failed"))
    screenshot(page, "robots-love-ice-cream-over-desktop")
    phone = new_page(PHONE, storage_from=page)
    phone.goto(f"/#/matches/{match_id}")
    phone.wait_for_selector("[data-seed-check=ok]")
    screenshot(phone, "robots-love-ice-cream-over-phone")
