"""Freeze Factory in the browser: a whole match against a random AI, sliding tiles with the machine's arrows."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from engine import get_game
from engine.freeze_factory import FreezeFactoryState
from engine.protocol import Action
from tests.browser.conftest import PHONE, PageFactory, Service
from tests.browser.ui import ACTIONS, click_action, create_match, wait_for_seed_check, wait_for_turn_or_end

TURN_LIMIT = 16  # eight turns each: the match ends on time if the pile does not run out first


def pick_move(rng: random.Random, played: list[str]) -> Callable[[list[dict[str, Any]]], int]:
    """FREEZE! and fulfil whenever offered; otherwise mostly slide, sometimes end the turn early."""

    def pick(actions: list[dict[str, Any]]) -> int:
        by_type: dict[str, list[int]] = {}
        for index, action in enumerate(actions):
            by_type.setdefault(action["type"], []).append(index)
        for wanted in ("freeze", "fulfil"):
            if wanted in by_type:
                chosen = by_type[wanted][0]
                break
        else:
            slides = by_type.get("slide", [])
            if slides and rng.random() < 0.85:
                chosen = rng.choice(slides)
            else:
                chosen = rng.choice([i for i in range(len(actions)) if i not in slides] or slides)
        played.append(actions[chosen]["type"])
        return chosen

    return pick


def pick_slide(rng: random.Random, played: list[str]) -> Callable[[list[dict[str, Any]]], int]:
    """One of the slides offered (a chosen space's tiles among them)."""

    def pick(actions: list[dict[str, Any]]) -> int:
        played.append("slide")
        return rng.choice([index for index, action in enumerate(actions) if action["type"] == "slide"])

    return pick


def choose_a_space(page: Page, rng: random.Random) -> bool:
    """Sometimes press an empty space several tiles can slide into (its tiles then become the slide buttons).

    Never while FREEZE! or Fulfil is offered (those come first), and not every time, so turns also end."""
    choosers = page.locator(".ff-choose:not([disabled])")
    offered = page.locator(".ff-freeze-live, .ff-hand [data-action]").count()
    if offered or not choosers.count() or rng.random() < 0.3:
        return False
    choosers.nth(rng.randrange(choosers.count())).click()
    return True


def assert_controls_are_named(page: Page) -> None:
    """Every action control is a real button with an accessible name."""
    names = page.locator(ACTIONS).evaluate_all(
        "elements => elements.map(e => [e.tagName, (e.getAttribute('aria-label') || e.textContent).trim()])"
    )
    assert names and all(tag == "BUTTON" and name for tag, name in names), names


def test_a_whole_freeze_factory_match_against_the_ai(
    page: Page, new_page: PageFactory, screenshot: Callable[[Page, str], Path]
) -> None:
    match_id = create_match(page, "freeze_factory", ["human", "ai:random"], {"turn_limit": TURN_LIMIT})
    page.wait_for_selector(".ff-machine")
    assert wait_for_turn_or_end(page) == "act"
    assert_controls_are_named(page)
    screenshot(page, "freeze-factory-start-desktop")

    page.get_by_role("button", name="Don't roll: 3 points").focus()  # the keyboard plays too
    page.keyboard.press("Enter")
    page.wait_for_selector(".ff-choose, .ff-arrow")
    assert_controls_are_named(page)
    screenshot(page, "freeze-factory-slides-desktop")

    rng, played = random.Random(15), ["no_roll"]
    while wait_for_turn_or_end(page) == "act":
        assert len(played) < 300, "the match should end by its turn limit"
        if not choose_a_space(page, rng):
            click_action(page, pick_move(rng, played))
            continue
        page.wait_for_selector(".ff-source")
        click_action(page, pick_slide(rng, played))

    assert "slide" in played
    assert wait_for_seed_check(page) == "ok"
    assert page.locator("[data-result=shown]").is_visible()
    assert page.locator(".picture [data-action]").count() == 0
    assert page.locator(".ff-seat").count() == 2
    screenshot(page, "freeze-factory-over-desktop")
    phone = new_page(PHONE, storage_from=page)
    phone.goto(f"/#/matches/{match_id}")
    phone.wait_for_selector(".ff-machine")
    phone.wait_for_selector("[data-seed-check=ok]")
    screenshot(phone, "freeze-factory-over-phone")


def slides_until(
    state: FreezeFactoryState, done: Callable[[FreezeFactoryState], bool], depth: int = 2
) -> list[Action] | None:
    """Seat 0's slides (within its turn) after which `done` holds; None if there are none within `depth`."""
    if done(state):
        return []
    if depth == 0:
        return None
    for action in state.legal_actions(0):
        if action["type"] != "slide":
            continue
        after = state.clone()
        after.apply_trusted(0, action)
        found = slides_until(after, done, depth - 1) if after.waiting_for() == (0,) else None
        if found is not None:
            return [action, *found]
    return None


def a_prepared_match(
    service: Service, done: Callable[[FreezeFactoryState], bool], depth: int = 2
) -> tuple[str, list[str]]:
    """A two-human match where seat 0 took 3 points and slid (`depth` slides at most) until `done` holds; its id and
    both tokens."""
    game = get_game("freeze_factory")
    assert game is not None
    for attempt in range(100):
        seed = f"browser-freeze-{attempt}"
        state = game.new_state(2, game.info.options.resolve({}), seed)
        assert isinstance(state, FreezeFactoryState)
        state.apply_trusted(0, {"type": "no_roll"})
        path = slides_until(state, done, depth)
        if path:
            break
    else:
        raise AssertionError("no seed gives the wanted position")
    return a_created_match(service, seed, [{"type": "no_roll"}, *path])


def open_as(page: Page, match_id: str, seat: int, token: str) -> None:
    """Open the match page holding one seat, the way the lobby remembers a created match."""
    page.goto("/#/")
    page.evaluate(
        "([id, seat, token]) => import('/web/seats.js').then(m => m.rememberMatch(id, "
        "{game: 'freeze_factory', tokens: [{seat, token}]}))",
        [match_id, seat, token],
    )
    page.goto(f"/#/matches/{match_id}?seat={seat}")
    page.wait_for_selector(".ff-machine")


def test_freeze_is_called_from_the_picture_out_of_turn(
    page: Page, service: Service, screenshot: Callable[[Page, str], Path]
) -> None:
    match_id, tokens = a_prepared_match(service, lambda state: bool(state.claimable(1)))
    open_as(page, match_id, 1, tokens[1])
    freeze = page.locator(".ff-freeze-live")
    freeze.wait_for()
    assert freeze.count() == 1
    assert "FREEZE!" in (freeze.get_attribute("aria-label") or "")
    screenshot(page, "freeze-factory-freeze-desktop")
    click_action(page, lambda actions: [a["type"] for a in actions].index("freeze"))
    page.wait_for_selector(".ff-freeze-live", state="detached")
    you = page.locator(".ff-seat", has_text="You")
    assert "1 cone fulfilled" in you.inner_text()


def test_fulfil_lays_a_matched_cone_face_up(
    page: Page, service: Service, screenshot: Callable[[Page, str], Path]
) -> None:
    match_id, tokens = a_prepared_match(service, lambda state: bool(state.fulfillable()))
    open_as(page, match_id, 0, tokens[0])
    page.wait_for_selector(".ff-yours")
    screenshot(page, "freeze-factory-fulfil-desktop")
    click_action(page, lambda actions: [a["type"] for a in actions].index("fulfil"))
    you = page.locator(".ff-seat", has_text="You")
    you.filter(has_text="1 cone fulfilled").wait_for()


def test_a_spent_turn_that_waits_says_why_to_both_seats(page: Page, service: Service) -> None:
    """Assumption turn-end: a turn whose points are spent waits 'unless ...': when it waits, the page says so to the
    player (who ends it with End turn) and to the other seat, whatever either holds."""

    def waits_spent(state: FreezeFactoryState) -> bool:
        return (state.phase, state.points_left, state.waiting_for()) == ("move", 0, (0,))

    match_id, tokens = a_prepared_match(service, waits_spent, depth=3)
    open_as(page, match_id, 1, tokens[1])
    assert "the turn waits for its player" in page.locator(".ff-turn").inner_text()
    open_as(page, match_id, 0, tokens[0])
    assert "waits for you to fulfil or end it" in page.locator(".ff-turn").inner_text()
    page.get_by_role("button", name="End turn").click()
    page.locator(".ff-turn", has_text="Turn 2").wait_for()


def a_created_match(service: Service, seed: str, moves: list[Action]) -> tuple[str, list[str]]:
    """A two-human match with the seed, seat 0 having played the moves; its id and both tokens."""
    body = {"game": "freeze_factory", "players": 2, "seed": seed, "seats": [{"type": "human"}, {"type": "human"}]}
    status, created = service.api("POST", "/v1/matches", body)
    assert status == 201, created
    tokens = [entry["token"] for entry in created["tokens"]]
    version = created["version"]
    for action in moves:
        status, answer = service.api(
            "POST", f"/v1/matches/{created['id']}/actions", {"action": action, "expected_version": version}, tokens[0]
        )
        assert status == 200, answer
        version = answer["version"]
    return created["id"], tokens


def test_the_extra_cone_is_chosen_in_the_picture(
    page: Page, service: Service, screenshot: Callable[[Page, str], Path]
) -> None:
    """'you may take one more cone': after the die's symbol (seed `symbol-11`) seat 0 takes it or leaves it."""
    match_id, tokens = a_created_match(service, "symbol-11", [{"type": "roll"}])
    open_as(page, match_id, 0, tokens[0])
    take = page.get_by_role("button", name="Take one more cone")
    take.wait_for()
    assert page.get_by_role("button", name="Leave the cone").is_visible()
    assert "one more cone may be taken" in page.locator(".ff-turn").inner_text()
    screenshot(page, "freeze-factory-extra-cone-desktop")
    take.click()
    page.get_by_role("button", name="Take one more cone").wait_for(state="detached")
    page.locator(".ff-cone-card").nth(1).wait_for()
    assert page.locator(".ff-cone-card").count() == 2


def test_the_next_player_calls_freeze_before_rolling(page: Page, service: Service) -> None:
    """A line formed by a turn's last slide stays open until the next player rolls or not (assumption freeze-window)."""
    match_id, tokens = a_prepared_match(service, lambda state: bool(state.claimable(1)))
    status, match = service.api("GET", f"/v1/matches/{match_id}", None, tokens[0])
    assert status == 200, match
    if match["view"]["active"] == 0:
        status, answer = service.api(
            "POST",
            f"/v1/matches/{match_id}/actions",
            {"action": {"type": "end_turn"}, "expected_version": match["version"]},
            tokens[0],
        )
        assert status == 200, answer
    open_as(page, match_id, 1, tokens[1])
    freeze = page.locator(".ff-freeze-live")
    freeze.wait_for()
    assert page.get_by_role("button", name="Roll the die").is_visible()
    click_action(page, lambda actions: [a["type"] for a in actions].index("freeze"))
    page.wait_for_selector(".ff-freeze-live", state="detached")
    assert "1 cone fulfilled" in page.locator(".ff-seat", has_text="You").inner_text()
