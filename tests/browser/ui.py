"""What the browser tests do on the pages: create a match in the lobby, play by clicking `data-action` controls."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

ACTIONS = ".picture [data-action]:not([disabled])"
MATCH_PAGE = ".match-page"
CLICK_MS = 30_000
"""Milliseconds a click may wait for its control to be clickable (Playwright's default): a busy machine is slow."""
VANISH_CLICK_MS = 3_000
"""Milliseconds a click waits for a control the caller said may vanish under it before it counts as gone."""


def create_match(
    page: Page, game: str, seats: list[str], options: dict[str, Any] | None = None, turn_timer: int | None = None
) -> str:
    """Fill the lobby's form (seat choices such as "human", "ai:random", "open") and create; returns the match id."""
    page.goto("/#/")
    page.select_option("#create-game", game)
    players = page.locator("#create-players")
    if players.is_enabled():
        players.fill(str(len(seats)))
        players.dispatch_event("input")
    for name, value in (options or {}).items():
        field = page.locator(f"#option-{game}-{name}")
        if isinstance(value, bool):
            field.set_checked(value)
        elif field.evaluate("element => element.tagName") == "SELECT":
            field.select_option(str(value))
        else:
            field.fill(str(value))
    for seat, choice in enumerate(seats):
        page.select_option(f"#seat-{seat}", choice)
    if turn_timer is not None:
        page.fill("#create-timer", str(turn_timer))
    page.get_by_role("button", name="Create the match").click()
    page.wait_for_selector(f"{MATCH_PAGE}[data-version]")
    return str(page.locator(MATCH_PAGE).get_attribute("data-match"))


def state(page: Page) -> dict[str, str]:
    """The match page's data attributes: version, status, busy, mayAct."""
    return dict(page.locator(MATCH_PAGE).evaluate("element => ({...element.dataset})"))


def wait_for_turn_or_end(page: Page, timeout: float = 60.0) -> str:
    """Wait until the viewer may act ("act") or the match is over ("over")."""
    page.wait_for_function(
        """() => { const m = document.querySelector('.match-page');
                   return m && (['finished', 'aborted'].includes(m.dataset.status) ||
                                (m.dataset.mayAct === 'true' && m.dataset.busy === 'false')); }""",
        timeout=timeout * 1000,
    )
    return "over" if state(page)["status"] in ("finished", "aborted") else "act"


def click_action(
    page: Page, pick: Callable[[list[dict[str, Any]]], int | None], may_vanish: bool = False
) -> dict[str, Any] | None:
    """Click one enabled data-action control of the picture, chosen by `pick` from their actions; None if none.

    `pick` returns None when the action it wants is not offered (any more): a realtime opponent may have moved on.
    A click that cannot land fails the test, unless the caller says the control `may_vanish` under it (a realtime
    race the AI may end between looking and clicking): then it is given VANISH_CLICK_MS and None is returned.
    """
    values = page.locator(ACTIONS).evaluate_all("elements => elements.map(e => e.dataset.action)")
    if not values:
        return None
    actions: list[dict[str, Any]] = [json.loads(value) for value in values]
    index = pick(actions)
    if index is None:
        return None
    before = state(page)["version"]
    control = page.locator(f"{ACTIONS}[data-action={css_string(values[index])}]").first
    if not click(control, may_vanish):
        return None
    page.wait_for_function(
        f"""() => {{ const m = document.querySelector('.match-page');
                    return m.dataset.version !== '{before}' || !document.querySelector('.notice').hidden; }}"""
    )
    return actions[index]


def click(control: Locator, may_vanish: bool = False) -> bool:
    """Click the control; False if it `may_vanish` and vanished. A click that cannot land otherwise fails the test."""
    try:
        control.click(timeout=VANISH_CLICK_MS if may_vanish else CLICK_MS)
    except PlaywrightTimeout as error:
        if may_vanish:
            return False  # the caller said so: the match moved on before the click landed
        raise AssertionError(f"could not click {control} within {CLICK_MS} ms (gone, hidden or disabled)") from error
    return True


def css_string(text: str) -> str:
    """A CSS string literal of `text`, for an attribute selector."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def play_until_over(
    page: Page,
    build: Callable[[Page], bool] | None = None,
    rng: random.Random | None = None,
    max_moves: int = 400,
    timeout: float = 240.0,
) -> int:
    """Play the viewer's seat by clicking random data-action controls until the match is over; returns the moves made.

    `build(page)` may construct an action first (a Sundae Split split) and return True when it clicked one.
    """
    rng = rng or random.Random(15)
    moves = 0
    deadline = time.monotonic() + timeout
    while wait_for_turn_or_end(page) == "act":
        assert time.monotonic() < deadline, "the match did not end in time"
        assert moves < max_moves, f"still playing after {moves} moves"
        if build and build(page):
            moves += 1
            continue
        if click_action(page, lambda actions: rng.randrange(len(actions))) is not None:
            moves += 1
    return moves


def wait_for_seed_check(page: Page) -> str:
    """The seed check's verdict once computed: "ok" or "mismatch"."""
    page.wait_for_selector("[data-seed-check=ok], [data-seed-check=mismatch]")
    return str(page.locator("[data-seed-check]").get_attribute("data-seed-check"))
