"""Quick match in the lobby: two people in two browsers enter IceCream's pool for 2 and land in the same match,
on different seats, each holding its own seat; a waiting ticket can be cancelled."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page

from tests.browser.conftest import PageFactory
from tests.browser.ui import MATCH_PAGE


def quick_match(page: Page, name: str) -> None:
    """Fill the lobby's Quick match card for IceCream and 2 players, and enter."""
    page.goto("/#/")
    page.select_option("#quick-game", "icecream")
    page.fill("#quick-name", name)
    page.get_by_role("button", name="Find a match").click()


def seat_of(page: Page) -> tuple[str, str]:
    """The match and seat the match page shows once its seat's controls are drawn."""
    page.wait_for_selector(f"{MATCH_PAGE}[data-status=active]")
    page.get_by_role("button", name="Resign").wait_for(state="visible")  # the page holds this browser's seat
    match_id = str(page.locator(MATCH_PAGE).get_attribute("data-match"))
    seat = page.evaluate("() => new URLSearchParams(location.hash.split('?')[1]).get('seat')")
    return match_id, str(seat)


def test_two_browsers_quick_match_into_one_match_on_different_seats(
    new_page: PageFactory, screenshot: Callable[[Page, str], Path]
) -> None:
    ann, bob = new_page(), new_page()
    quick_match(ann, "Ann")
    ann.wait_for_selector("#quick-match[data-state=waiting]")
    screenshot(ann, "quick-match-waiting-desktop")
    quick_match(bob, "Bob")
    bob_match, bob_seat = seat_of(bob)
    ann_match, ann_seat = seat_of(ann)
    assert ann_match == bob_match and {ann_seat, bob_seat} == {"0", "1"}
    names = ann.locator(MATCH_PAGE).inner_text()
    assert "Ann" in names and "Bob" in names
    screenshot(ann, "quick-match-seated-desktop")


def test_a_waiting_quick_match_is_cancelled(page: Page) -> None:
    page.goto("/#/")
    page.select_option("#quick-game", "sundae_split")
    page.fill("#quick-players", "5")
    page.fill("#quick-name", "Lou")
    page.get_by_role("button", name="Find a match").click()
    page.wait_for_selector("#quick-match[data-state=waiting]")
    page.get_by_role("button", name="Cancel").click()
    page.wait_for_selector("#quick-match[data-state=idle]:has-text('Cancelled.')")
    assert page.evaluate("() => localStorage.getItem('parlour.quickmatch.v1')") is None
