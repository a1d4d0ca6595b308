"""The replay page's "Download (export)" link saves a file that `parlour verify` accepts."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page

from domain.matches.verify import VERIFIED, parse_export, run
from tests.browser.conftest import Service


def test_the_replay_page_downloads_an_export_that_verifies(service: Service, page: Page, tmp_path: Path) -> None:
    body = {"game": "icecream", "players": 2, "options": {"turn_limit": 3}, "seed": "download"}
    status, created = service.api("POST", "/v1/matches", body)
    assert status == 201, created
    tokens = {token["seat"]: token["token"] for token in created["tokens"]}
    url = f"/v1/matches/{created['id']}"
    while (match := service.api("GET", url)[1])["status"] == "active":
        seat = match["to_act"][0]
        legal = service.api("GET", f"{url}/legal-actions", token=tokens[seat])[1]
        answer = {"action": legal["actions"][0], "expected_version": legal["version"]}
        assert service.api("POST", f"{url}/actions", answer, token=tokens[seat])[0] == 200
    page.goto(f"/#/matches/{created['id']}/replay")
    link = page.get_by_role("link", name="Download (export)")
    with page.expect_download() as started:
        link.click()
    download = started.value
    assert download.suggested_filename == f"parlour-icecream-{created['id']}.json"
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    assert parse_export(saved.read_text())["result"] == match["result"]
    assert run(str(saved)) == VERIFIED
