"""The pages under the server's Content-Security-Policy: the client, each game's picture and /docs draw, none refused.

The policy allows no inline script or style (`api/headers.py`); a page that still needed one would be
broken in the browser only, so each page here is drawn and every violation the browser reports fails the test.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from engine import all_games
from tests.browser.conftest import PageFactory, Service
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


def test_a_replay_with_its_review_and_analysis_draws_under_the_policy(new_page: PageFactory, service: Service) -> None:
    """The replay's review graph (SVG) and the analysis panel's evaluation bar (a width set per element)."""
    seats = [{"type": "ai", "level": "random"}, {"type": "ai", "level": "random"}]
    body = {"game": "icecream", "players": 2, "seats": seats, "options": {"turn_limit": 4}}
    status, created = service.api("POST", "/v1/matches", body)
    assert status == 201, created
    page, console = watched(new_page)
    page.goto(f"/#/matches/{created['id']}?seat=public")
    page.wait_for_selector(".match-page[data-status=finished]", timeout=60_000)
    page.goto(f"/#/matches/{created['id']}/replay")
    page.wait_for_selector(".review[data-review=none], .review[data-review=running], .review[data-review=shown]")
    if page.locator(".review").get_attribute("data-review") == "none":
        page.get_by_role("button", name="Review this match").click()
    page.wait_for_selector(".review[data-review=shown] .review-graph", timeout=120_000)
    page.get_by_role("button", name="Analyse").click()
    page.wait_for_selector(".analysis[data-state=done] .eval-fill", timeout=60_000)
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
