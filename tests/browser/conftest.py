"""Browser tests: the whole service (`python -m ops.supervisor`) once per session, and Debian's Chromium driven by
Playwright. Screenshots go to test-artifacts/screenshots/.

Without /usr/bin/chromium every test here is skipped, unless PARLOUR_REQUIRE_BROWSER=1 (CI), where they fail.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, ViewportSize

CHROMIUM = Path(os.environ.get("PARLOUR_CHROMIUM", "/usr/bin/chromium"))
MISSING = "Chromium not installed: apt-get install chromium"
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 375, "height": 740}


@pytest.fixture(scope="session")
def chromium() -> Path:
    """The system Chromium; skips the browser tests without it (fails them when PARLOUR_REQUIRE_BROWSER=1)."""
    problem = None
    if not CHROMIUM.exists():
        problem = MISSING
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = "Playwright for Python is not installed: pip install -e '.[dev]'"
    if problem:
        if os.environ.get("PARLOUR_REQUIRE_BROWSER") == "1":
            pytest.fail(f"PARLOUR_REQUIRE_BROWSER=1 but the browser tests cannot run: {problem}", pytrace=False)
        pytest.skip(problem)
    return CHROMIUM


def free_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Service:
    """`python -m ops.supervisor` as a child process on its own port and data folder (as tests/test_service.py does)."""

    def __init__(self, data_dir: Path, port: int) -> None:
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        env.update(
            PORT=str(port),
            PARLOUR_DATA_DIR=str(data_dir),
            PARLOUR_AI_WORKERS="1",
            PARLOUR_AI_WARM_UP="0",
            PARLOUR_LIMITS="0",  # one test address creates many matches and streams in a minute
            WEB_CONCURRENCY="2",
        )
        self.base = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ops.supervisor"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, process_group=0
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Return once the API answers its health check."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the service exited with {self.process.returncode}")
            try:
                with urllib.request.urlopen(f"{self.base}/v1/health", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the service did not become healthy")

    def stop(self) -> None:
        """SIGTERM the service's process group; SIGKILL it if it lingers."""
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def api(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        """Call the API directly (for setting up and checking): the status and the JSON answer."""
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
        request = urllib.request.Request(f"{self.base}{path}", data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")


@pytest.fixture(scope="session")
def service(chromium: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """The whole service (API, embedded Redis, one AI worker, the timer worker) for the session."""
    started = Service(tmp_path_factory.mktemp("browser-service") / "data", free_port())
    try:
        started.wait_ready()
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="session")
def browser(chromium: Path) -> Iterator[Browser]:
    """Headless system Chromium for the session."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(chromium), args=["--no-sandbox"])
        yield launched
        launched.close()


PageFactory = Callable[..., "Page"]


@pytest.fixture
def new_page(browser: Browser, service: Service) -> Iterator[PageFactory]:
    """Open pages in fresh browser contexts (own localStorage); fails the test on any uncaught page error."""
    contexts = []
    errors: list[str] = []

    def open_page(viewport: ViewportSize | None = None, storage_from: Page | None = None) -> Page:
        state = storage_from.context.storage_state() if storage_from else None
        # Reduced motion: a pulsing control is never "stable" to Playwright's click while it pulses.
        context = browser.new_context(
            viewport=viewport or DESKTOP, base_url=service.base, storage_state=state, reduced_motion="reduce"
        )
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert not errors, f"uncaught errors in the page: {errors}"


@pytest.fixture
def page(new_page: PageFactory) -> Page:
    """A desktop-sized page on the service."""
    return new_page()


@pytest.fixture
def screenshot() -> Callable[[Page, str], Path]:
    """Save a full-page screenshot as test-artifacts/screenshots/<name>.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page: Page, name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
