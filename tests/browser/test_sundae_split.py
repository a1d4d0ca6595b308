"""Sundae Split in the browser: a whole match against a random AI, splits built card by card in the split builder."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page

from tests.browser.conftest import PHONE, PageFactory
from tests.browser.ui import create_match, play_until_over, wait_for_seed_check

shots: set[str] = set()


def build_split(page: Page, screenshot: Callable[[Page, str], Path] | None = None) -> bool:
    """As the Splitter, place every drawn card in turn (round the piles, the first ones face down) and split."""
    builder = page.locator(".ss-builder")
    if builder.count() == 0:
        return False
    piles = int(builder.get_attribute("data-piles") or 0)
    face_down = int(builder.get_attribute("data-face-down") or 0)
    split = page.get_by_role("button", name="Split (every rule must hold)")
    assert split.is_disabled()
    cards = page.locator(".ss-builder [data-card]").evaluate_all("elements => elements.map(e => e.dataset.card)")
    for index, card in enumerate(cards):
        page.locator(f'.ss-builder [data-card="{card}"]').click()
        side = "face_down" if index < face_down else "face_up"
        page.locator(f'.ss-builder [data-pile="{index % piles}"][data-side="{side}"]').click()
        if index == 0 and screenshot and "builder" not in shots:
            shots.add("builder")
            screenshot(page, "sundae-split-builder-half-desktop")
    assert page.locator(".ss-rules li.todo").count() == 0
    if screenshot and "built" not in shots:
        shots.add("built")
        screenshot(page, "sundae-split-builder-ready-desktop")
    before = page.locator(".match-page").get_attribute("data-version")
    page.get_by_role("button", name="Split!").click()
    page.wait_for_function(f"() => document.querySelector('.match-page').dataset.version !== '{before}'")
    return True


def test_a_whole_sundae_split_match_against_the_ai(
    page: Page, new_page: PageFactory, screenshot: Callable[[Page, str], Path]
) -> None:
    match_id = create_match(page, "sundae_split", ["human", "ai:random"])
    page.wait_for_selector(".sundae")
    screenshot(page, "sundae-split-start-desktop")
    moves = play_until_over(page, build=lambda p: build_split(p, screenshot), rng=random.Random(7))
    assert moves >= 6  # six rounds for two: three splits and three choices
    assert wait_for_seed_check(page) == "ok"
    assert page.locator(".ss-scorepad").is_visible()
    screenshot(page, "sundae-split-over-desktop")
    phone = new_page(PHONE, storage_from=page)
    phone.goto(f"/#/matches/{match_id}")
    phone.wait_for_selector("[data-seed-check=ok]")
    screenshot(phone, "sundae-split-over-phone")
