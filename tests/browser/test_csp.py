"""The pages under the server's Content-Security-Policy: the client, each game's picture and /docs draw, none refused.

The policy allows no inline script or style (`api/headers.py`); a page that still needed one would be
broken in the browser only, so each page here is drawn and every violation the browser reports fails the test.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from engine import all_games
from tests.browser.conftest import PageFactory
from tests.browser.ui import create_match, wait_for_turn_or_end

LISTEN = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  const where = `${event.sourceFile}:${event.lineNumber}`;
  window.__violations.push(`${event.effectiveDirective} refused ${event.blockedURI} (${where})`);
});
"""
"""Runs before the page's own scripts (an init script is the browser's, not the page's: the policy does not apply)."""
REPORTED = "() => new Promise((done) => setTimeout(() => done(window.__violations), 0))"
"""The violations reported so far, read one task later: the browser queues each report as a task."""


def watched(new_page: PageFactory) -> tuple[Page, list[str]]:
    """A page whose policy violations are collected, from its events and from its console."""
    page = new_page()
    console: list[str] = []
    page.add_init_script(LISTEN)
    page.on(
        "console", lambda message: console.append(message.text) if "Content Security Policy" in message.text else None
    )
    return page, console


def violations(page: Page, console: list[str]) -> list[str]:
    """Every violation the page reported (events and console messages)."""
    return [*page.evaluate(REPORTED), *console]


def test_the_reference_page_draws_under_the_policy(new_page: PageFactory) -> None:
    page, console = watched(new_page)
    response = page.goto("/docs")
    assert response is not None and "frame-ancestors 'none'" in response.headers["content-security-policy"]
    page.wait_for_selector(".opblock-summary")
    page.locator(".opblock-summary").first.click()  # an operation opens (Swagger UI's scripts run)
    page.wait_for_selector(".opblock.is-open")
    assert violations(page, console) == []
    assert page.locator(".topbar-note").evaluate("element => getComputedStyle(element).paddingTop") == "8px"


@pytest.mark.parametrize("game", [game.info.id for game in all_games()])
def test_each_games_picture_draws_under_the_policy(new_page: PageFactory, game: str) -> None:
    """The lobby's form, then the match page with the game's own styles and per-element colours."""
    page, console = watched(new_page)
    create_match(page, game, ["human", "ai:random"])
    wait_for_turn_or_end(page)
    assert page.locator(".picture *").count() > 0
    assert violations(page, console) == []


def test_the_other_pages_of_the_client_draw_under_the_policy(new_page: PageFactory) -> None:
    page, console = watched(new_page)
    for route, marker in (
        ("#/tournaments", "main h1, main h2"),
        ("#/leaderboard", "main h1, main h2"),
        ("#/bots", "main h1, main h2"),
    ):
        page.goto(f"/{route}")
        page.wait_for_selector(marker)
    assert violations(page, console) == []


def test_a_violation_is_seen_when_there_is_one(new_page: PageFactory) -> None:
    """The watch itself works: an inline script and an inline style are refused and reported."""
    page, console = watched(new_page)
    page.goto("/")
    page.wait_for_selector("main#app > :not(.loading)")
    page.evaluate("""() => {
        const script = document.createElement("script");
        script.textContent = "window.__ran = true";
        document.body.append(script);
        document.body.setAttribute("style", "color: red");
    }""")
    found = violations(page, console)
    assert page.evaluate("window.__ran === undefined")
    assert any("script-src" in line for line in found) and any("style-src" in line for line in found), found
