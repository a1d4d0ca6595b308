"""The one error the client raises for an answer the server refused: problem+json as an exception."""

from __future__ import annotations

from typing import Any


class ProblemError(Exception):
    """The server answered an error (RFC 9457 problem details with Parlour's stable `code`)."""

    def __init__(self, status: int, code: str, detail: str, problem: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.problem: dict[str, Any] = problem or {}

    @classmethod
    def from_answer(cls, status: int, body: Any) -> ProblemError:
        """The error of an answer's status and decoded body (a problem, or anything else a proxy sent)."""
        if isinstance(body, dict) and isinstance(body.get("code"), str):
            return cls(status, body["code"], str(body.get("detail", "")), body)
        return cls(status, f"http-{status}", str(body)[:200] if body else "")
