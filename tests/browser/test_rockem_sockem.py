"""Rock'em Sock'em in the browser: whole matches against a random AI in both modes, dice kept with the picker."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import PHONE, PageFactory
from tests.browser.ui import click, click_action, create_match, wait_for_seed_check, wait_for_turn_or_end

ROLL_BUTTON = ".rs-mine [data-action]"
KEPT_AND_ROLL = """mine => ({
    pressed: [...mine.querySelectorAll('.rs-die-toggle')].flatMap(
        (e, i) => e.getAttribute('aria-pressed') === 'true' ? [i] : []),
    roll: mine.querySelector('[data-action]')?.dataset.action ?? null,
})"""


def only(kind: str) -> Callable[[list[dict[str, Any]]], int | None]:
    """Pick the one action of this type (the picture shows one flip or one roll at a time); None if it is gone."""

    def pick(actions: list[dict[str, Any]]) -> int | None:
        kinds = [action["type"] for action in actions]
        return kinds.index(kind) if kind in kinds else None

    return pick


def keep_the_largest_match_and_roll(page: Page, realtime: bool) -> None:
    """Press "Keep the largest match" when the dice are out, check the roll button carries the kept dice, roll.

    In realtime the AI's knock-out may end the race between looking and clicking: the controls `may_vanish`.
    """
    best = page.locator(".rs-mine").get_by_role("button", name="Keep the largest match")
    if best.count() and best.is_enabled():
        if not click(best, may_vanish=realtime):
            return  # the race ended under us: the caller looks again
        picker = page.locator(".rs-mine").evaluate(KEPT_AND_ROLL)  # one read, so no re-render can fall between
        if picker["roll"] is None and realtime:
            return
        assert json.loads(picker["roll"]) == {"type": "roll", "keep": picker["pressed"]}
    click_action(page, only("roll"), may_vanish=realtime)


def play_the_match(page: Page, realtime: bool) -> dict[str, int]:
    """Flip when it is our flip, otherwise keep and roll, until the knock-out; counts each kind of move."""
    made = {"flip": 0, "roll": 0}
    while wait_for_turn_or_end(page) == "act":
        assert made["roll"] < 400, "the match should end in a knock-out"
        if page.locator(".rs-coin-panel [data-action]").count():
            click_action(page, only("flip"), may_vanish=realtime)
            made["flip"] += 1
        elif page.locator(ROLL_BUTTON).count():
            keep_the_largest_match_and_roll(page, realtime)
            made["roll"] += 1
    return made


@pytest.mark.parametrize("mode", ["rounds", "realtime"])
def test_a_whole_rockem_sockem_match_against_the_ai(
    mode: str, page: Page, new_page: PageFactory, screenshot: Callable[[Page, str], Path]
) -> None:
    match_id = create_match(page, "rockem_sockem", ["human", "ai:random"], {"mode": mode})
    page.wait_for_selector(".rs-coin")
    screenshot(page, f"rockem-sockem-{mode}-start-desktop")
    made = play_the_match(page, realtime=mode == "realtime")
    assert made["flip"] >= 1  # seat 0 flips the first coin
    assert wait_for_seed_check(page) == "ok"
    assert page.locator("[data-result=shown]").is_visible()
    assert page.locator(".picture [data-action]").count() == 0
    assert "KNOCKED OUT" in page.locator(".rs-coin-text").inner_text()
    screenshot(page, f"rockem-sockem-{mode}-over-desktop")
    phone = new_page(PHONE, storage_from=page)
    phone.goto(f"/#/matches/{match_id}")
    phone.wait_for_selector("[data-seed-check=ok]")
    screenshot(phone, f"rockem-sockem-{mode}-over-phone")


def test_the_keep_picker_builds_the_roll(page: Page, screenshot: Callable[[Page, str], Path]) -> None:
    create_match(page, "rockem_sockem", ["human", "ai:random"], {"mode": "rounds"})
    toggles = page.locator(".rs-mine .rs-die-toggle")
    while toggles.count() != 4:  # flip, and roll all four, until our dice are out in a running race
        assert wait_for_turn_or_end(page) == "act"
        if toggles.count() == 4:
            break
        click_action(page, only("flip") if page.locator(".rs-coin-panel [data-action]").count() else only("roll"))
    for die in (2, 0, 1, 3):
        toggles.nth(die).press("Enter")  # a keyboard press; the picture keeps focus on the die
        assert page.evaluate("document.activeElement.dataset.focusKey") == f"rs-die-{die}"
    assert page.locator(ROLL_BUTTON).count() == 0  # all four kept is not a roll: the button is disabled
    assert page.get_by_role("button", name="Keep at most three").is_disabled()
    toggles.nth(1).click()
    assert json.loads(page.locator(ROLL_BUTTON).get_attribute("data-action") or "{}") == {
        "type": "roll",
        "keep": [0, 2, 3],
    }
    screenshot(page, "rockem-sockem-keep-picker-desktop")
    assert click_action(page, only("roll")) == {"type": "roll", "keep": [0, 2, 3]}
