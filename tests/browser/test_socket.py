"""The match page plays a seat over its WebSocket (web/socket.js), and over the stream and POST where there is none."""

from __future__ import annotations

from playwright.sync_api import Page, Request

from tests.browser.ui import click_action, create_match, state, wait_for_turn_or_end


def posted_actions(page: Page) -> list[str]:
    """The URLs of the actions the page POSTs, collected as it sends them."""
    posts: list[str] = []

    def seen(request: Request) -> None:
        if request.method == "POST" and request.url.endswith("/actions"):
            posts.append(request.url)

    page.on("request", seen)
    return posts


def test_a_seat_moves_over_its_socket(page: Page) -> None:
    posts = posted_actions(page)
    with page.expect_websocket(lambda socket: socket.url.endswith("/v1/socket")) as opened:
        create_match(page, "icecream", ["human", "human"])
    socket = opened.value
    assert wait_for_turn_or_end(page) == "act"
    before = int(state(page)["version"])
    with socket.expect_event("framereceived", lambda frame: '"type":"result"' in str(frame)):
        click_action(page, lambda actions: 0)
    page.wait_for_selector(f".match-page[data-version='{before + 1}']")
    assert posts == [], "the move went over the socket, not as a POST"


def test_without_a_socket_the_seat_moves_by_post(page: Page) -> None:
    page.route_web_socket("**/v1/socket", lambda socket: socket.close())
    posts = posted_actions(page)
    create_match(page, "icecream", ["human", "human"])
    assert wait_for_turn_or_end(page) == "act"
    before = int(state(page)["version"])
    click_action(page, lambda actions: 0)
    page.wait_for_selector(f".match-page[data-version='{before + 1}']")
    assert len(posts) == 1
