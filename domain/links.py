"""The links the domain writes into its answers and events, and the pages they name."""

from __future__ import annotations

from urllib.parse import urlencode

LOG_PAGE_SIZE = 100
"""Log entries a page holds unless `limit` says otherwise."""
LOG_PAGE_MAX = 500
"""The largest `limit` of a log page."""


def with_query(path: str, **params: int | str | None) -> str:
    """`path` with these query parameters, those that are None left out."""
    query = urlencode({name: value for name, value in params.items() if value is not None})
    return f"{path}?{query}" if query else path
