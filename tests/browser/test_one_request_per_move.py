"""The match page's moves cost one request: the legal actions come with the answer to the seat's action and with
its events (over its socket or its stream), so it never reads `legal-actions` once the page is up."""

from __future__ import annotations

import random

from playwright.sync_api import Page, Request

from tests.browser.ui import create_match, play_until_over, wait_for_seed_check


def test_a_whole_match_reads_no_legal_actions(page: Page) -> None:
    page.goto("/")
    page.wait_for_selector(".game-card[data-game=icecream]")
    create_match(page, "icecream", ["human", "ai:random"], {"turn_limit": 8})
    page.wait_for_selector(".ic-cone")
    read: list[str] = []

    def count(request: Request) -> None:
        if request.url.endswith("/legal-actions"):
            read.append(request.url)

    page.on("request", count)
    moves = play_until_over(page, rng=random.Random(7))
    assert moves > 0
    assert wait_for_seed_check(page) == "ok"
    assert read == [], f"{len(read)} legal-actions reads over {moves} moves"
