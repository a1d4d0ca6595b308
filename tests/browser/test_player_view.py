"""The web client as a player sees it: each game on a phone (the board first and in view, every control at least
44 px), seats named by their players in every banner and event, the form's defaults and the hint level kept."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import PageFactory, Service
from tests.browser.ui import MATCH_PAGE, click_action, create_match, wait_for_turn_or_end

PHONE_390 = {"width": 390, "height": 844}
SMALLEST = 44
"""Pixels a control measures at least each way (WCAG 2.5.5's target size), on a phone as on a desktop."""
SEATS = {
    "icecream": ["human", "ai:random"],
    "rockem_sockem": ["human", "ai:random"],
    "freeze_factory": ["human", "ai:random"],
    "sundae_split": ["human", "ai:random", "ai:random"],
    "robots_love_ice_cream": ["human", "ai:random", "ai:random", "ai:random"],
}
CONTROLS = ", ".join(f".match-page {kind}" for kind in ("button", "select", "input", "[data-action]", "[role=button]"))
SMALL_CONTROLS = f"""() => [...document.querySelectorAll('{CONTROLS}')]
    .filter((element) => !element.closest('[hidden], #debug-panel') && element.getClientRects().length)
    .map((element) => [element, element.getBoundingClientRect()])
    .filter(([, box]) => box.width < {SMALLEST} || box.height < {SMALLEST})
    .map(([element, box]) => `${{element.tagName}}.${{element.className}} "${{(element.getAttribute('aria-label')
        || element.textContent).trim().slice(0, 40)}}" ${{Math.round(box.width)}}x${{Math.round(box.height)}}`)"""
RAW = re.compile(r"\bseats? \[?\d|[\[\]{}]|\bcolumn 0\b|\bcone 0\b|\bpile 0\b", re.IGNORECASE)
"""What a player should never read: a seat number, a raw JSON list or object, a column, cone or pile counted from 0."""


@pytest.mark.parametrize("game", list(SEATS))
def test_each_game_on_a_phone_shows_the_board_first_with_44px_controls(
    new_page: PageFactory, screenshot: Callable[[Page, str], Path], game: str
) -> None:
    page = new_page(PHONE_390)
    create_match(page, game, SEATS[game])
    assert wait_for_turn_or_end(page) == "act"
    if game == "freeze_factory":
        page.get_by_role("button", name="Don't roll: 3 points").click()
        page.wait_for_selector(".ff-choose, .ff-arrow")
        assert wait_for_turn_or_end(page) == "act"
        chooser = page.locator(".ff-choose").first
        if chooser.count():  # a space several tiles can slide into: its tiles become the slide buttons
            chooser.click()
            page.wait_for_selector(".ff-source")
    board = page.locator(".picture").bounding_box()
    assert board is not None
    assert 0 <= board["y"] < PHONE_390["height"] / 2, f"the board starts {board['y']} px down"
    for later in (".side .hint", ".recent"):
        box = page.locator(later).bounding_box()
        assert box is None or box["y"] > board["y"], f"{later} comes before the board"
    # The seat's choices drawn (a redraw may follow): a move to click, or, for Sundae Split's Splitter, the split
    # builder (its "Split!" carries an action only once every rule holds).
    page.wait_for_selector(".picture [data-action]:not([disabled]), .picture .ss-builder [data-build]:not([disabled])")
    assert page.evaluate(SMALL_CONTROLS) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_390["width"], "the page scrolls sideways"
    screenshot(page, f"phone-390-{game}")


def test_a_finished_match_names_its_players_and_never_shows_raw_lists(
    service: Service, page: Page, screenshot: Callable[[Page, str], Path]
) -> None:
    """Sundae Split's result ("seat 1 has the most points") and every text of the page read with names."""
    seats = [
        {"type": "ai", "level": "random"},
        {"type": "ai", "level": "random", "name": "Bo"},
        {"type": "human", "name": "Ada"},
    ]
    status, created = service.api("POST", "/v1/matches", {"game": "sundae_split", "players": 3, "seats": seats})
    assert status == 201, created
    page.goto("/#/")
    page.evaluate(
        "([id, tokens]) => import('/web/seats.js').then(m => m.rememberMatch(id, {game: 'sundae_split', tokens}))",
        [created["id"], created["tokens"]],
    )
    page.goto(f"/#/matches/{created['id']}")
    build = page.locator(".ss-builder")
    token = created["tokens"][0]["token"]
    while wait_for_turn_or_end(page) == "act":
        if build.count():  # the Splitter's split: the server's example split, sent through the API
            _, legal = service.api("GET", f"/v1/matches/{created['id']}/legal-actions", token=token)
            body = {"action": legal["example"], "expected_version": legal["version"]}
            service.api("POST", f"/v1/matches/{created['id']}/actions", body, token)
            page.wait_for_selector(f"{MATCH_PAGE}:not([data-version='{legal['version']}'])")
            continue
        click_action(page, lambda actions: 0)
    page.wait_for_selector("[data-result=shown]")
    shown = page.locator(MATCH_PAGE).inner_text()  # the debug panel (raw JSON on purpose) is closed
    assert not RAW.search(shown), RAW.search(shown)
    result = page.locator(".result-area").inner_text()
    assert any(name in result for name in ("Random AI", "Bo", "Ada")), result
    screenshot(page, "named-result-desktop")


def test_robots_love_ice_cream_events_count_from_one_and_name_the_seats(
    service: Service, page: Page, screenshot: Callable[[Page, str], Path]
) -> None:
    """Every step of a replayed match: its events as the board labels columns, with the seats' names."""
    seats = [{"type": "ai", "level": "random", "name": name} for name in ("Ada", "Bo")]
    body = {"game": "robots_love_ice_cream", "players": 2, "seats": seats}
    status, created = service.api("POST", "/v1/matches", body)
    assert status == 201, created
    page.goto(f"/#/matches/{created['id']}?seat=public")
    page.wait_for_selector(f"{MATCH_PAGE}[data-status=finished]", timeout=120_000)
    page.goto(f"/#/matches/{created['id']}/replay")
    page.wait_for_selector(".replay-page[data-step='0'] .rl")
    steps = int(page.locator(".replay-page").get_attribute("data-steps") or 0)
    events_seen = 0
    for step in range(1, steps + 1):
        page.keyboard.press("ArrowRight")
        page.wait_for_selector(f".replay-page[data-step='{step}'] .rl")
        events = page.locator(".rl-events")
        if events.count():
            events_seen += 1
            text = events.inner_text()
            assert not RAW.search(text), f"step {step}: {text}"
            assert not re.search(r"\(column \d+, level 0\)", text), text
    assert events_seen > 0
    page.keyboard.press("End")
    page.wait_for_selector(f".replay-page[data-step='{steps}']")
    assert not RAW.search(page.locator(".replay-result").inner_text())
    screenshot(page, "robots-love-ice-cream-replay-end-desktop")


def test_the_form_offers_a_full_table_and_the_hint_level_is_kept(page: Page) -> None:
    page.goto("/#/")
    page.select_option("#create-game", "robots_love_ice_cream")
    assert page.locator("#create-players").input_value() == "4", "a co-operative game defaults to a full table"
    assert page.locator("#seat-3").count() == 1
    create_match(page, "icecream", ["human", "ai:random"])
    assert wait_for_turn_or_end(page) == "act"
    page.select_option("#hint-level", "medium")
    page.reload()
    page.wait_for_selector(f"{MATCH_PAGE}[data-version]")
    assert wait_for_turn_or_end(page) == "act"
    assert page.locator("#hint-level").input_value() == "medium"
