"""The guide at /guide: the MkDocs site built from docs/, served as files under the same headers as every page.

The site is built once for the module into a temporary folder (not strict: tests/test_docs.py checks the links),
and the app is pointed at it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

import api.web
from api.headers import CONTENT_SECURITY_POLICY
from tests.api.test_errors import assert_problem

ROOT = Path(__file__).resolve().parents[2]
SCRIPT_TAG = re.compile(r"<script(?P<attributes>[^>]*)>(?P<body>.*?)</script>", re.DOTALL)


@pytest.fixture(scope="module")
def built_guide(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The guide, built from this checkout."""
    site = tmp_path_factory.mktemp("guide") / "site"
    command = [sys.executable, "-m", "mkdocs", "build", "--no-strict", "--quiet", "--site-dir", str(site)]
    command += ["--config-file", str(ROOT / "mkdocs.yml")]
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return site


@pytest.fixture
def guide(built_guide: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The app serving the built guide."""
    monkeypatch.setattr(api.web, "GUIDE_DIR", built_guide)
    yield built_guide


def test_guide_redirects_to_its_first_page(client: FlaskClient, guide: Path) -> None:
    response = client.get("/guide")
    assert response.status_code == 302
    assert response.headers["Location"] == "/guide/index.html"


def test_first_page_is_html_under_the_pages_policy(client: FlaskClient, guide: Path) -> None:
    response = client.get("/guide/index.html")
    assert response.status_code == 200
    assert response.mimetype == "text/html" and response.mimetype_params["charset"] == "utf-8"
    assert response.headers["Cache-Control"] == "no-cache"
    assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "Where to go" in response.get_data(as_text=True)


def test_reference_pages_carry_what_the_hooks_generate(client: FlaskClient, guide: Path) -> None:
    expected = {
        "reference/settings.html": "PARLOUR_FINISHED_TTL",
        "reference/http-api.html": 'id="postAction"',
        "reference/parlour-command.html": "--games-per-pairing",
        "reference/events.html": "token-rotated",
        "reference/games.html": "sundae_split",
    }
    for page, text in expected.items():
        response = client.get(f"/guide/{page}")
        assert response.status_code == 200, page
        assert text in response.get_data(as_text=True), page


def test_every_page_runs_only_scripts_of_its_own_origin(guide: Path) -> None:
    """No inline script (the hook moved them into files), no inline style, nothing from another origin."""
    pages = sorted(guide.rglob("*.html"))
    assert guide / "index.html" in pages and guide / "reference" / "http-api.html" in pages
    for page in pages:
        html = page.read_text(encoding="utf-8")
        for script in SCRIPT_TAG.finditer(html):
            attributes = script["attributes"]
            if 'type="application/json"' in attributes:
                continue  # data, not run
            assert script["body"].strip() == "", f"inline script in {page}"
            source = re.search(r'src="([^"]+)"', attributes)
            assert source and not re.match(r"[a-z]+:|//", source[1]), f"{page}: {attributes}"
        assert " style=" not in html and "<style" not in html, page
        assert not re.search(r'<link[^>]+href="(https?:)?//', html), page


def test_scripts_and_styles_are_served_with_their_types(client: FlaskClient, guide: Path) -> None:
    script = next(guide.glob("assets/javascripts/bundle.*.min.js")).relative_to(guide)
    inline = next(guide.glob("assets/javascripts/inline/*.js")).relative_to(guide)
    style = next(guide.glob("assets/stylesheets/main.*.min.css")).relative_to(guide)
    for path, mimetype in ((script, "text/javascript"), (inline, "text/javascript"), (style, "text/css")):
        response = client.get(f"/guide/{path}")
        assert response.status_code == 200 and response.mimetype == mimetype, path
        assert "max-age=60" in response.headers["Cache-Control"]


def test_a_missing_page_is_a_404_problem(client: FlaskClient, guide: Path) -> None:
    body = assert_problem(client.get("/guide/reference/nope.html"), 404, "not-found")
    assert "/guide/index.html" in body["detail"]
    for path in ("/guide/../api/app.py", "/guide/%2e%2e/api/app.py", "/guide/..%2fapi/app.py"):
        assert_problem(client.get(path), 404, "not-found")


def test_a_folder_path_is_a_404_like_every_trailing_slash(client: FlaskClient, guide: Path) -> None:
    for path in ("/guide/", "/guide/reference/", "/guide/reference//settings.html"):
        response = client.get(path)
        body = assert_problem(response, 404, "not-found")
        assert "Location" not in response.headers and "trailing slash" in body["detail"], path


def test_an_unbuilt_guide_says_how_to_build_it(
    client: FlaskClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(api.web, "GUIDE_DIR", tmp_path / "site")
    for path in ("/guide", "/guide/index.html"):
        body = assert_problem(client.get(path), 404, "not-found")
        assert "make docs" in body["detail"], path


def test_the_web_client_links_the_guide(client: FlaskClient) -> None:
    html = client.get("/").get_data(as_text=True)
    assert '<a href="/guide">Guide</a>' in html and '<a href="/docs">API reference</a>' in html
