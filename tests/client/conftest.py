"""Fixtures for the Python client's tests: a real Parlour served on a loopback port, and the client package.

The client is its own distribution (`clients/python`); the suite imports it from its source folder."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from api.current import ParlourApp
from tests.api.conftest import app, settings  # noqa: F401

CLIENT_SOURCE = Path(__file__).resolve().parents[2] / "clients" / "python" / "src"
if str(CLIENT_SOURCE) not in sys.path:
    sys.path.insert(0, str(CLIENT_SOURCE))


def serve(served: ParlourApp) -> Iterator[str]:
    """Serve `served` on a free loopback port in a thread (threaded, so streams and requests run side by side);
    its base URL until the test ends."""
    server = make_server("127.0.0.1", 0, served, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join()


@pytest.fixture
def base_url(app: ParlourApp) -> Iterator[str]:  # noqa: F811
    """The base URL of the test app, served over real HTTP."""
    yield from serve(app)
