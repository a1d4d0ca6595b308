"""The API reference page: Swagger UI, served by the API itself, draws every operation of the served document."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import yaml
from playwright.sync_api import Page

from tests.browser.conftest import ROOT

METHODS = ("get", "post", "put", "patch", "delete")


def test_the_reference_page_shows_every_operation_of_the_document(
    page: Page, screenshot: Callable[[Page, str], Path]
) -> None:
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    operations = sum(1 for item in spec["paths"].values() for method in item if method in METHODS)
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto("/docs")
    page.wait_for_selector(".opblock-summary")
    assert page.locator(".opblock").count() == operations
    assert page.locator(".info .title").inner_text().startswith(spec["info"]["title"])
    base = page.evaluate("location.origin")
    assert all(url.startswith(base) for url in requests), [url for url in requests if not url.startswith(base)]
    screenshot(page, "docs-desktop")


def test_the_seed_check_hashes_as_python_does(page: Page) -> None:
    """The page's SHA-256 (vendored noble-hashes) agrees with hashlib, on ASCII and on multi-byte text."""
    page.goto("/")
    for text in ("", "a3f" * 30, "seed with ünïcödé and 🍦"):
        digest = page.evaluate("async (text) => (await import('/web/seed-check.js')).sha256Hex(text)", text)
        assert digest == hashlib.sha256(text.encode()).hexdigest()
