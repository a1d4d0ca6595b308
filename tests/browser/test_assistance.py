"""The AI's help in the browser: fair play refuses a hint in a match between people, analysis shows its best lines
where a match allows it, a match between two easy AI seats is watched move by move, and a finished match's replay
draws its review graph.

Server endpoints each test needs: the hint refusal reads the match JSON's `assistance` and POST .../ai-move (403
`assistance-forbidden`); the analysis, POST /v1/matches/{id}/analysis and GET /v1/jobs/{id}/events (or /v1/jobs/{id});
the watched match, the match option `ai_pace`; the review, GET and POST /v1/matches/{id}/review and the job's events.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, Route

from tests.browser.conftest import PageFactory, Service
from tests.browser.ui import MATCH_PAGE, create_match, wait_for_turn_or_end

PHONE_390 = {"width": 390, "height": 844}


def test_a_match_between_two_people_refuses_a_hint_and_says_why(
    page: Page, service: Service, screenshot: Callable[[Page, str], Path]
) -> None:
    match_id = create_match(page, "icecream", ["human", "human"])
    assert wait_for_turn_or_end(page) == "act"
    match = page.request.get(f"/v1/matches/{match_id}").json()
    assert match["assistance"] == "forbidden"  # the fair-play default for two people
    hint = page.locator(".hint")
    assert hint.is_visible() and hint.get_attribute("data-assistance") == "forbidden"
    assert page.locator(".hint-button").is_disabled()
    assert "forbids the AI's help" in page.locator(".hint-text").inner_text()
    analysis = page.locator(".analysis")
    assert analysis.get_attribute("data-state") == "off"
    assert "fair play" in analysis.inner_text() and page.locator(".analyse-button").is_hidden()
    # The server refuses it too, whatever a client shows: 403 assistance-forbidden, with the detail the page would show.
    token = page.evaluate(f"() => import('/web/seats.js').then(m => m.seatsHeld('{match_id}')[0])")
    status, problem = service.api("POST", f"/v1/matches/{match_id}/ai-move", {"level": "easy", "apply": False}, token)
    assert (status, problem["code"]) == (403, "assistance-forbidden"), problem
    screenshot(page, "hint-refused-desktop")


def test_a_hint_the_server_refuses_shows_its_reason(page: Page) -> None:
    """A client that did not know (here: the match JSON read without its `assistance`, and no live stream to correct
    it) asks anyway; the server's 403 assistance-forbidden comes back and the page shows its detail."""
    match_id = create_match(page, "icecream", ["human", "human"])
    assert wait_for_turn_or_end(page) == "act"

    def without_assistance(route: Route) -> None:
        answer = route.fetch()
        match = answer.json()
        match.pop("assistance", None)
        route.fulfill(response=answer, json=match)

    page.route(f"**/v1/matches/{match_id}", without_assistance)
    page.route(f"**/v1/matches/{match_id}/events*", lambda route: route.abort())
    page.route_web_socket("**/v1/socket", lambda socket: socket.close())  # nor the seat's socket (web/socket.js)
    page.reload()
    page.wait_for_selector(f"{MATCH_PAGE}[data-version]")
    assert wait_for_turn_or_end(page) == "act"
    page.get_by_role("button", name="Hint").click()
    refusal = page.locator(".hint-text .assistance-off")
    refusal.wait_for()
    assert "forbids hints and analysis" in refusal.inner_text()  # the problem's detail, in the server's words


def test_analysis_shows_the_best_lines_in_a_match_that_allows_it(
    page: Page, screenshot: Callable[[Page, str], Path]
) -> None:
    match_id = create_match(page, "icecream", ["human", "ai:easy"])
    assert wait_for_turn_or_end(page) == "act"
    assert page.request.get(f"/v1/matches/{match_id}").json()["assistance"] == "allowed"
    page.get_by_role("button", name="Analyse").click()
    page.wait_for_selector(".analysis[data-state=done] .best-lines li", timeout=60_000)
    lines = page.locator(".best-lines li")
    assert lines.count() >= 1
    assert lines.first.locator(".line-move").inner_text().startswith("Move the top")  # the game's words, not JSON
    assert "{" not in page.locator(".analysis").inner_text()
    bar = page.locator(".eval-bar")
    assert 0 <= int(bar.get_attribute("aria-valuenow") or -1) <= 100
    screenshot(page, "analysis-best-lines-desktop")


def test_a_match_between_two_easy_ai_seats_is_watched_move_by_move(
    page: Page, screenshot: Callable[[Page, str], Path]
) -> None:
    page.goto("/#/")
    page.select_option("#create-game", "icecream")
    page.select_option("#seat-0", "ai:easy")
    page.select_option("#seat-1", "ai:easy")
    assert page.locator("#create-pace").input_value() == "watched", "every seat an AI seat: a pace by default"
    # Every version the match page draws, recorded as it is drawn, from before the page exists: a MutationObserver on
    # the document sees the page added with its first version, then each value of its data-version it replaces.
    page.evaluate(
        """() => { window.__drawn = new Set();
                   const note = (node) => { if (node instanceof Element) for (const page of
                     [node, ...node.querySelectorAll('.match-page')]) if (page.matches('.match-page[data-version]'))
                       window.__drawn.add(page.dataset.version); };
                   new MutationObserver((records) => { for (const record of records) {
                     if (record.type === 'childList') record.addedNodes.forEach(note);
                     else if (record.target.matches('.match-page')) {
                       if (record.oldValue !== null) window.__drawn.add(record.oldValue);
                       note(record.target); } } })
                   .observe(document.body, {subtree: true, childList: true, attributes: true,
                                            attributeOldValue: true, attributeFilter: ['data-version']}); }"""
    )
    page.get_by_role("button", name="Create the match").click()
    page.wait_for_selector(f"{MATCH_PAGE}[data-version]")
    match_id = page.locator(MATCH_PAGE).get_attribute("data-match")
    page.wait_for_selector(f"{MATCH_PAGE}[data-status=finished]", timeout=180_000)
    drawn = page.evaluate("() => [...window.__drawn].map(Number).sort((a, b) => a - b)")
    final = page.request.get(f"/v1/matches/{match_id}").json()
    assert final["ai_pace"] == {"milliseconds": 800, "when": "watched"}
    assert final["version"] in drawn
    assert len(drawn) >= min(final["version"], 5) and len(drawn) >= 0.75 * final["version"], (
        f"only versions {drawn} of {final['version']} were drawn: the match was not watched move by move"
    )
    screenshot(page, "watched-ai-match-over-desktop")


def test_a_finished_match_replay_draws_its_review_graph(
    service: Service, new_page: PageFactory, screenshot: Callable[[Page, str], Path]
) -> None:
    seats = [{"type": "ai", "level": "random"}, {"type": "ai", "level": "random"}]
    status, created = service.api(
        "POST", "/v1/matches", {"game": "icecream", "players": 2, "seats": seats, "options": {"turn_limit": 8}}
    )
    assert status == 201, created
    page = new_page()
    page.goto(f"/#/matches/{created['id']}?seat=public")
    page.wait_for_selector(f"{MATCH_PAGE}[data-status=finished]", timeout=60_000)
    page.goto(f"/#/matches/{created['id']}/replay")
    page.wait_for_selector(".replay-page[data-step='0']")
    review = page.locator(".review")
    page.wait_for_selector(".review[data-review=none], .review[data-review=running], .review[data-review=shown]")
    if review.get_attribute("data-review") == "none":
        page.get_by_role("button", name="Review this match").click()
    page.wait_for_selector(".review[data-review=shown] .review-graph", timeout=120_000)
    assert page.locator(".review-graph .review-line").count() == 2
    assert page.locator(".review-seats tbody tr").count() == 2
    marks = page.locator(".review-mark")
    if marks.count():  # a marked move goes to its step
        step = marks.first.get_attribute("data-step")
        marks.first.locator("circle").first.click()
    else:  # a point of the line goes to its step: the graph's right end is the last step
        step = page.locator(".replay-page").get_attribute("data-steps")
        graph = page.locator(".review-graph")
        box = graph.bounding_box()
        assert box is not None
        graph.click(position={"x": box["width"] - 2, "y": box["height"] / 2})
    page.wait_for_selector(f".replay-page[data-step='{step}']")
    screenshot(page, "review-graph-desktop")
    phone = new_page(PHONE_390)
    phone.goto(f"/#/matches/{created['id']}/replay")
    phone.wait_for_selector(".review[data-review=shown] .review-graph")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE_390["width"], "the page scrolls sideways"
    screenshot(phone, "review-graph-phone")


def test_watch_the_ai_play_starts_a_paced_match_to_watch(page: Page) -> None:
    page.goto("/#/")
    page.locator(".game-card[data-game=rockem_sockem]").get_by_role("button", name="Watch the AI play").click()
    page.wait_for_selector(f"{MATCH_PAGE}[data-version]")
    assert page.locator(".badge").inner_text() == "Spectating: the public view"
    match_id = page.locator(MATCH_PAGE).get_attribute("data-match")
    match = page.request.get(f"/v1/matches/{match_id}").json()
    assert match["ai_pace"] == {"milliseconds": 800, "when": "watched"}
    assert [(seat["type"], seat["level"]) for seat in match["seats"]] == [("ai", "easy"), ("ai", "easy")]
    first = int(page.locator(MATCH_PAGE).get_attribute("data-version") or 0)
    # The next move arrives (the one AI worker may still be busy with an earlier test's job: a long wait).
    page.wait_for_function(
        f"() => {{ const m = document.querySelector('{MATCH_PAGE}'); return Number(m.dataset.version) > {first}; }}",
        timeout=90_000,
    )
