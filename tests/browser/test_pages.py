"""The pages around play: a reload resumes the seat, a spectator sees only the public view, a hint, a replay."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from tests.browser.conftest import PHONE, PageFactory, Service
from tests.browser.ui import click_action, create_match, state, wait_for_seed_check, wait_for_turn_or_end


def finished_match(service: Service, body: dict[str, Any], timeout: float = 60.0) -> dict[str, Any]:
    """Create an all-AI match through the API and wait until it is over."""
    status, created = service.api("POST", "/v1/matches", body)
    assert status == 201, created
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, match = service.api("GET", f"/v1/matches/{created['id']}")
        if match["status"] == "finished":
            return dict(match)
        time.sleep(0.2)
    raise AssertionError("the AI match did not finish")


def test_a_reload_resumes_the_seat_and_a_hint_marks_a_move(page: Page, screenshot: Callable[[Page, str], Path]) -> None:
    match_id = create_match(page, "icecream", ["human", "ai:random"])
    assert wait_for_turn_or_end(page) == "act"
    page.get_by_role("button", name="Hint").click()
    page.wait_for_selector(".hint-text strong")
    assert page.locator(".picture .hinted").count() == 1
    screenshot(page, "icecream-hint-desktop")
    click_action(page, lambda actions: 0)
    assert wait_for_turn_or_end(page) == "act"
    version = state(page)["version"]
    page.reload()
    page.wait_for_selector(f".match-page[data-version='{version}']")
    assert page.locator(".badge.mine").inner_text() == "You are Player 1"
    assert wait_for_turn_or_end(page) == "act"
    assert page.locator(".picture [data-action]").count() > 0
    assert page.url.endswith(f"#/matches/{match_id}")


def test_a_spectator_sees_no_hidden_card_and_no_control(
    service: Service, page: Page, new_page: PageFactory, screenshot: Callable[[Page, str], Path]
) -> None:
    status, created = service.api("POST", "/v1/matches", {"game": "sundae_split", "players": 3})
    assert status == 201
    tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
    _, public = service.api("GET", f"/v1/matches/{created['id']}")
    splitter = public["view"]["splitter"]
    _, own = service.api("GET", f"/v1/matches/{created['id']}", token=tokens[splitter])
    secret = [card["id"] for card in own["view"]["hand"]]
    assert len(secret) == 8

    page.goto(f"/#/matches/{created['id']}")
    page.wait_for_selector(".ss-card.back")
    assert page.locator(".badge").inner_text() == "Spectating: the public view"
    assert page.locator(".ss-card.back").count() == 8
    page.get_by_role("button", name="Show debug").click()
    page.wait_for_selector("[data-debug=view]")
    assert not any(card in page.content() for card in secret)
    screenshot(page, "spectator-split-phase-desktop")

    _, legal = service.api("GET", f"/v1/matches/{created['id']}/legal-actions", token=tokens[splitter])
    split = legal["example"]
    status, _ = service.api(
        "POST", f"/v1/matches/{created['id']}/actions", {"action": split, "expected_version": 0}, tokens[splitter]
    )
    assert status == 200
    page.wait_for_selector(".match-page[data-version='1'] .ss-pile")  # the event stream brought the split
    face_down = [card for pile in split["piles"] for card in pile["face_down"]]
    assert page.locator(".ss-pile .ss-card.back").count() == len(face_down)
    assert not any(card in page.content() for card in face_down)
    assert page.locator("[data-action]").count() == 0
    assert page.locator(".hint").is_hidden()
    phone = new_page(PHONE)
    phone.goto(f"/#/matches/{created['id']}")
    phone.wait_for_selector(".ss-pile")
    screenshot(phone, "spectator-choose-phase-phone")


def test_a_finished_match_replays_step_by_step(
    service: Service, page: Page, new_page: PageFactory, screenshot: Callable[[Page, str], Path]
) -> None:
    seats = [{"type": "ai", "level": "random"}, {"type": "ai", "level": "random"}]
    match = finished_match(service, {"game": "icecream", "players": 2, "seats": seats, "options": {"turn_limit": 6}})
    _, log = service.api("GET", f"/v1/matches/{match['id']}/log?limit=500")
    steps = len(log["entries"])
    page.goto(f"/#/matches/{match['id']}/replay")
    page.wait_for_selector(".replay-page[data-step='0'] .ic-cone")
    assert page.get_by_role("button", name="Previous step").is_disabled()
    start = page.locator(".picture").inner_text()
    page.get_by_role("button", name="Next step").click()
    page.wait_for_selector(".replay-page[data-step='1']")
    assert page.locator(".picture").inner_text() != start
    assert "Random AI 1 moved the top scoop" in page.locator(".replay-step").inner_text()
    page.keyboard.press("End")
    page.wait_for_selector(f".replay-page[data-step='{steps}']")
    assert page.locator(".replay-result").inner_text().strip() != ""
    screenshot(page, "replay-end-desktop")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector(f".replay-page[data-step='{steps - 1}']")
    phone = new_page(PHONE)
    phone.goto(f"/#/matches/{match['id']}/replay?step=3")
    phone.wait_for_selector(".replay-page[data-step='3']")
    screenshot(phone, "replay-step-3-phone")


def test_an_open_seat_is_joined_from_the_lobby_and_played_with_the_keyboard(
    page: Page, new_page: PageFactory, screenshot: Callable[[Page, str], Path]
) -> None:
    match_id = create_match(page, "icecream", ["human", "open"], turn_timer=60)
    page.wait_for_selector(".match-page[data-status='waiting']")
    assert "Waiting for players" in page.locator(".turn").inner_text()

    guest = new_page(PHONE)
    guest.goto("/#/")
    guest.get_by_label(f"Your name for match {match_id}").fill("Ada")
    guest.locator(f"#list-waiting ~ .match-list li:has(input[aria-label$='{match_id}']) button").click()
    guest.wait_for_selector(".match-page[data-status='active']")
    assert guest.locator(".badge.mine").inner_text() == "You are Ada"
    page.wait_for_selector(".match-page[data-status='active']")  # the host's page hears of the join live

    assert wait_for_turn_or_end(page) == "act"
    page.locator(".picture").focus()
    for _ in range(20):  # Tab to the first scoop that may move, and press Enter
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.action !== undefined"):
            break
    focused = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert focused.startswith("Move the top scoop")
    page.keyboard.press("Enter")
    guest.wait_for_selector(".match-page[data-version='2'][data-may-act='true']")  # version 1 was the join
    clock = guest.locator(".clock.running")
    assert clock.get_attribute("data-seat") == "1"
    assert clock.locator(".clock-time").inner_text().startswith(("1:00", "0:5"))
    screenshot(guest, "icecream-guest-turn-phone")


def test_a_lost_event_stream_resumes_with_last_event_id(service: Service, page: Page) -> None:
    status, created = service.api("POST", "/v1/matches", {"game": "icecream", "players": 2})
    assert status == 201
    match_id, token = created["id"], created["tokens"][0]["token"]
    _, match = service.api("GET", f"/v1/matches/{match_id}")
    first = {"version": 0, "match": match, "log": [], "log_after": 0, "log_earlier": None}
    streams: list[str | None] = []

    def cut_the_first_stream(route: Any) -> None:
        streams.append(route.request.headers.get("last-event-id"))
        if len(streams) == 1:  # one event, then the connection ends without an `end` event
            body = f"retry: 300\n\nid: 0\nevent: match\ndata: {json.dumps(first)}\n\n"
            route.fulfill(status=200, headers={"Content-Type": "text/event-stream"}, body=body)
        else:
            route.continue_()

    page.route("**/v1/matches/*/events", cut_the_first_stream)
    page.goto(f"/#/matches/{match_id}")
    page.wait_for_selector(".match-page[data-version='0']")
    action = {"action": {"type": "move", "from_cone": 0, "scoops": 1}, "expected_version": 0}
    assert service.api("POST", f"/v1/matches/{match_id}/actions", action, token)[0] == 200
    page.wait_for_selector(".match-page[data-version='1']")
    assert streams[:2] == [None, "0"]


def test_the_owner_aborts_a_waiting_match_and_its_seed_is_checked(page: Page) -> None:
    create_match(page, "sundae_split", ["human", "open", "ai:random"])
    page.wait_for_selector(".match-page[data-status='waiting']")
    page.get_by_role("button", name="Abort this match").click()
    page.wait_for_selector(".match-page[data-status='aborted']")
    assert "aborted by its owner" in page.locator(".result").inner_text()
    assert wait_for_seed_check(page) == "ok"
