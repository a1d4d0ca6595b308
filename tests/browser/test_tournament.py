"""A tournament from the browser: created in the form, followed to its end, standings, crosstable and ratings."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page

from tests.browser.conftest import PHONE, PageFactory, Service


def test_a_tournament_between_ai_levels(
    page: Page, new_page: PageFactory, screenshot: Callable[[Page, str], Path]
) -> None:
    page.goto("/#/tournaments")
    page.select_option("#tournament-game", "sundae_split")
    page.fill("#entrant-random", "2")
    page.fill("#entrant-easy", "1")
    page.fill("#entrant-medium", "0")
    page.get_by_role("button", name="Start the tournament").click()
    page.wait_for_selector(".tournament-page[data-total='6']")
    page.wait_for_selector(".tournament-page[data-status='finished']", timeout=90_000)
    assert page.locator(".standings tbody tr").first.is_visible()
    assert page.locator("table.standings").first.locator("tbody tr").count() == 3
    assert page.locator("svg.ratings-chart .rating-row").count() == 3
    assert page.locator(".crosstable tbody tr").count() == 3
    assert page.locator(".tournament-page [data-seed-check=ok]").count() == 1
    screenshot(page, "tournament-finished-desktop")
    phone = new_page(PHONE)
    phone.goto(page.url)
    phone.wait_for_selector("svg.ratings-chart")
    screenshot(phone, "tournament-finished-phone")


def test_a_tournament_names_each_challenged_bot_and_links_to_its_page(service: Service, page: Page) -> None:
    name = f"ui{secrets.token_hex(3)}-entrant"
    status, bot = service.api("POST", "/v1/bots", {"name": name})  # asks before each challenge: stays pending
    assert status == 201, bot
    entrants = [{"type": "bot", "bot": bot["id"]}, {"type": "ai", "level": "random"}]
    status, tournament = service.api("POST", "/v1/tournaments", {"game": "icecream", "entrants": entrants})
    assert status == 201, tournament

    page.goto(f"/#/tournaments/{tournament['id']}")
    link = page.locator(f".challenges a[data-bot='{bot['id']}']")
    link.wait_for()
    assert link.inner_text() == name
    assert page.locator(".challenges").inner_text() == f"Bots: {name} pending"
    link.click()
    page.wait_for_url(f"**/#/bots/{bot['id']}")
    status, _ = service.api("POST", f"/v1/tournaments/{tournament['id']}/cancel", token=tournament["owner_token"])
    assert status == 200
