"""A small HTTP client of the tournaments API (standard library only)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from model.match import TurnTimerRequest
from model.tournament import EntrantRequest

if TYPE_CHECKING:
    from domain.tournaments.director import TournamentJson

TIMEOUT = 30.0


class TournamentBody(TypedDict):
    """The body of POST /v1/tournaments as the `parlour` command sends it: what was not given is left out."""

    game: str
    entrants: list[EntrantRequest]
    format: str
    options: dict[str, Any]
    seed: NotRequired[str]
    players: NotRequired[int]
    rounds: NotRequired[int]
    games_per_pairing: NotRequired[int]
    parallel: NotRequired[int]
    turn_timer: NotRequired[TurnTimerRequest]


class ServerError(Exception):
    """The server refused a request (its problem+json detail) or could not be reached."""


class TournamentClient:
    """Creates and reads tournaments on one Parlour server."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")

    def create(self, request: TournamentBody) -> tuple[TournamentJson, str]:
        """POST /v1/tournaments; the created tournament and its owner token (which the answer shows this once)."""
        answer = self.call("POST", "/v1/tournaments", request)
        owner_token: str = answer.pop("owner_token")
        created: TournamentJson = answer
        return created, owner_token

    def get(self, tournament_id: str) -> TournamentJson:
        """GET /v1/tournaments/{id}."""
        answer: TournamentJson = self.call("GET", f"/v1/tournaments/{tournament_id}")
        return answer

    def cancel(self, tournament_id: str, owner_token: str) -> TournamentJson:
        """POST /v1/tournaments/{id}/cancel with the tournament's owner token; the cancelled tournament."""
        answer: TournamentJson = self.call("POST", f"/v1/tournaments/{tournament_id}/cancel", token=owner_token)
        return answer

    def call(self, method: str, path: str, body: TournamentBody | None = None, token: str | None = None) -> Any:
        """One request; its JSON answer as it came (the server's documented shape), or ServerError with the detail."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                return json.loads(response.read())
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
