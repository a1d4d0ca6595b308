"""The bots list, a bot's page and the leaderboard in the browser, after two bots played a match over the API."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from tests.api.test_openapi import WINNING_LINE
from tests.browser.conftest import Service


def bot(service: Service, name: str) -> dict[str, Any]:
    """Register a bot that accepts every challenge; its registration answer."""
    status, body = service.api("POST", "/v1/bots", {"name": name})
    assert status == 201, body
    status, changed = service.api("PATCH", f"/v1/bots/{body['id']}", {"policy": "anyone"}, token=body["token"])
    assert status == 200, changed
    return dict(body)


def test_the_bots_list_a_bots_page_and_the_leaderboard(
    service: Service, page: Page, screenshot: Callable[[Page, str], Path]
) -> None:
    prefix = f"ui{secrets.token_hex(3)}"
    winner, loser = bot(service, f"{prefix}-win"), bot(service, f"{prefix}-lose")
    seats = [{"type": "bot", "bot": winner["id"]}, {"type": "bot", "bot": loser["id"]}]
    status, match = service.api("POST", "/v1/matches", {"game": "icecream", "players": 2, "seats": seats})
    assert status == 201, match
    tokens = [winner["token"], loser["token"]]
    for version, (seat, action) in enumerate(WINNING_LINE):
        body = {"action": action, "expected_version": version}
        status, answer = service.api("POST", f"/v1/matches/{match['id']}/actions", body, token=tokens[seat])
        assert status == 200, answer

    page.goto("/#/")
    page.get_by_role("link", name="Bots").click()
    page.fill("#bot-search", prefix.upper())
    page.wait_for_selector(f".bot-list li[data-bot='{loser['id']}']")
    assert page.locator(".bot-list li").count() == 2
    page.get_by_role("link", name=f"{prefix}-win").click()
    page.wait_for_selector(".bot-page table.bot-ratings tbody tr")
    assert page.locator(".bot-history li[data-status='finished']").inner_text().endswith("won")
    screenshot(page, "bot-page-desktop")
    page.locator(".bot-ratings a", has_text="icecream").click()
    page.wait_for_selector(f"table.leaderboard[data-game='icecream'] a:has-text('{prefix}-win')")
    rows = page.locator("table.leaderboard tbody tr")
    assert page.locator("table.leaderboard tr[data-kind='ai']").count() >= 4
    ratings = [float(rows.nth(index).locator("td").nth(3).inner_text()) for index in range(rows.count())]
    assert ratings == sorted(ratings, reverse=True)
    screenshot(page, "leaderboard-desktop")
