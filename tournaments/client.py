"""A small HTTP client of the tournaments API (standard library only)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

TIMEOUT = 30.0


class ServerError(Exception):
    """The server refused a request (its problem+json detail) or could not be reached."""


class TournamentClient:
    """Creates and reads tournaments on one Parlour server."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")

    def create(self, request: dict[str, Any]) -> dict[str, Any]:
        """POST /v1/tournaments; the created tournament."""
        return self.call("POST", "/v1/tournaments", request)

    def get(self, tournament_id: str) -> dict[str, Any]:
        """GET /v1/tournaments/{id}."""
        return self.call("GET", f"/v1/tournaments/{tournament_id}")

    def cancel(self, tournament_id: str, owner_token: str) -> dict[str, Any]:
        """POST /v1/tournaments/{id}/cancel with the tournament's owner token; the cancelled tournament."""
        return self.call("POST", f"/v1/tournaments/{tournament_id}/cancel", token=owner_token)

    def call(
        self, method: str, path: str, body: dict[str, Any] | None = None, token: str | None = None
    ) -> dict[str, Any]:
        """One request; its JSON answer, or ServerError with the problem's detail."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                answer: dict[str, Any] = json.loads(response.read())
                return answer
        except urllib.error.HTTPError as error:
            raise ServerError(problem_text(error)) from None
        except (urllib.error.URLError, OSError) as error:
            raise ServerError(f"cannot reach {self.base}: {error}") from None


def problem_text(error: urllib.error.HTTPError) -> str:
    """`<status> <detail>` from a problem+json answer (or the raw body)."""
    raw = error.read().decode(errors="replace")
    try:
        problem = json.loads(raw)
        return f"{error.code} {problem.get('code', '')}: {problem.get('detail', raw)}"
    except ValueError:
        return f"{error.code}: {raw[:200]}"
