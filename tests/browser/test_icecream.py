"""IceCream in the browser: a whole match against a random AI, by clicking scoops."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page

from tests.browser.conftest import PHONE, PageFactory
from tests.browser.ui import create_match, play_until_over, wait_for_seed_check


def test_a_whole_icecream_match_against_the_ai(
    page: Page, new_page: PageFactory, screenshot: Callable[[Page, str], Path]
) -> None:
    page.goto("/")
    page.wait_for_selector(".game-card[data-game=icecream]")
    screenshot(page, "lobby-desktop")
    match_id = create_match(page, "icecream", ["human", "ai:random"], {"turn_limit": 12})
    page.wait_for_selector(".ic-cone")
    screenshot(page, "icecream-start-desktop")
    moves = play_until_over(page, rng=random.Random(4))
    assert moves > 0
    assert wait_for_seed_check(page) == "ok"
    assert page.locator("[data-result=shown]").is_visible()
    assert page.locator(".picture [data-action]").count() == 0
    screenshot(page, "icecream-over-desktop")
    phone = new_page(PHONE, storage_from=page)
    phone.goto(f"/#/matches/{match_id}")
    phone.wait_for_selector("[data-seed-check=ok]")
    screenshot(phone, "icecream-over-phone")
    phone.goto("/")
    phone.wait_for_selector(".game-card[data-game=icecream]")
    screenshot(phone, "lobby-phone")
