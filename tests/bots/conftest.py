"""The bot runner is imported from the client distribution's source folder, as tests/client does."""

from __future__ import annotations

from tests.client.conftest import CLIENT_SOURCE

__all__ = ["CLIENT_SOURCE"]
