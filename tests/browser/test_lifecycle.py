"""Around play in the browser: resign (with its confirm step), a rematch, an unlisted match's invite link."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page

from tests.browser.conftest import PageFactory
from tests.browser.ui import MATCH_PAGE, create_match, state


def wait_for_status(page: Page, status: str) -> None:
    """Wait until the match page shows the match with `status`."""
    page.wait_for_selector(f"{MATCH_PAGE}[data-status={status}]")


def test_resigning_asks_first_then_ends_the_match(page: Page, screenshot: Callable[[Page, str], Path]) -> None:
    create_match(page, "icecream", ["human", "ai:random"])
    wait_for_status(page, "active")
    page.get_by_role("button", name="Resign").click()
    page.get_by_role("group", name="Confirm resigning").wait_for(state="visible")
    page.get_by_role("button", name="Cancel").click()
    assert state(page)["status"] == "active", "cancelling keeps the match going"
    page.get_by_role("button", name="Resign").click()
    screenshot(page, "resign-confirm-desktop")
    page.get_by_role("button", name="Yes, resign").click()
    wait_for_status(page, "finished")
    page.wait_for_selector("[data-result=shown]")
    assert "Player 1 (you) resigned" in page.locator(".result-area").inner_text()  # named, never "seat 0"
    page.wait_for_selector(".recent li:has-text('resigned')")
    assert page.get_by_role("button", name="Resign").count() == 0
    turn = page.locator(".ic-turn").inner_text()
    assert "the match is over (Player 1 resigned)" in turn and "to move" not in turn, (
        "the board no longer waits for a move"
    )
    screenshot(page, "resigned-desktop")


def test_a_rematch_takes_both_players_to_the_new_match(
    page: Page, new_page: PageFactory, screenshot: Callable[[Page, str], Path]
) -> None:
    """The accepting side goes to the rematch at once (its answer), the offering side once it starts (its stream)."""
    match_id = create_match(page, "icecream", ["human", "human"])
    wait_for_status(page, "active")
    page.get_by_role("button", name="Resign").click()
    page.get_by_role("button", name="Yes, resign").click()
    wait_for_status(page, "finished")
    page.get_by_role("button", name="Offer a rematch").click()
    page.wait_for_selector(".rematch:has-text('waiting for')")
    guest = new_page(storage_from=page)  # another browser holding the other seat
    guest.goto(f"/#/matches/{match_id}?seat=1")
    guest.wait_for_selector(f"{MATCH_PAGE}[data-status=finished]")
    guest.get_by_role("button", name="Accept the rematch").click()
    for player in (guest, page):
        player.wait_for_function(f"() => document.querySelector('{MATCH_PAGE}')?.dataset.match !== '{match_id}'")
        wait_for_status(player, "active")
        # The page draws the seat's controls once it has read the seat: wait for them (a timeout fails the test).
        player.get_by_role("button", name="Resign").wait_for(state="visible")  # it holds its seat in the rematch
    rematch_id = page.locator(MATCH_PAGE).get_attribute("data-match")
    assert rematch_id and rematch_id != match_id
    assert guest.locator(MATCH_PAGE).get_attribute("data-match") == rematch_id
    assert page.locator(".badge.mine").inner_text() != guest.locator(".badge.mine").inner_text(), "two seats"
    screenshot(guest, "rematch-started-desktop")


def test_an_unlisted_match_shows_its_invite_link_and_stays_out_of_the_lobby(page: Page) -> None:
    page.goto("/#/")
    page.select_option("#create-game", "icecream")
    page.select_option("#seat-0", "human")
    page.select_option("#seat-1", "open")
    page.check("#create-unlisted")
    page.get_by_role("button", name="Create the match").click()
    page.wait_for_selector(f"{MATCH_PAGE}[data-status=waiting]")
    match_id = str(page.locator(MATCH_PAGE).get_attribute("data-match"))
    invite = page.locator(".invite-link")
    assert invite.input_value().endswith(f"#/matches/{match_id}")
    page.get_by_role("button", name="Leave this seat").click()
    page.wait_for_function("() => location.hash.endsWith('seat=public')")
    listed = page.request.get("/v1/matches?status=waiting").json()["items"]
    assert match_id not in [item["id"] for item in listed]


def test_resigning_a_co_operative_seat_hands_it_to_the_ai(page: Page) -> None:
    match_id = create_match(page, "robots_love_ice_cream", ["human", "human"])
    wait_for_status(page, "active")
    page.get_by_role("button", name="Resign").click()
    assert "easy AI takes over" in page.get_by_role("group", name="Confirm resigning").inner_text()
    page.get_by_role("button", name="Yes, resign").click()
    page.wait_for_function("() => location.hash.endsWith('seat=public')")
    seats = page.request.get(f"/v1/matches/{match_id}").json()["seats"]
    assert (seats[0]["type"], seats[0]["level"], seats[1]["type"]) == ("ai", "easy", "human")
    page.goto(f"/#/matches/{match_id}")
    page.wait_for_selector(f"{MATCH_PAGE}[data-status=active]")
    page.get_by_role("button", name="Resign").wait_for(state="visible")  # the browser still holds seat 1
