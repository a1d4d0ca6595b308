"""Fixtures for the Python client's tests: a real Parlour served on a loopback port, and the client package.

The client is its own distribution (`clients/python`); the suite imports it from its source folder."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.current import ParlourApp
from tests.api.conftest import app, settings  # noqa: F401
from tests.serving import served

CLIENT_SOURCE = Path(__file__).resolve().parents[2] / "clients" / "python" / "src"
if str(CLIENT_SOURCE) not in sys.path:
    sys.path.insert(0, str(CLIENT_SOURCE))


@pytest.fixture
def base_url(app: ParlourApp) -> Iterator[str]:  # noqa: F811
    """The base URL of the test app, served over real HTTP."""
    with served(app) as url:
        yield url
