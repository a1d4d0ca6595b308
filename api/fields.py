"""marshmallow fields the request schemas share."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields

from model.names import MAX_NAME, name_problem


class Name(fields.String):
    """A marshmallow field for a display name, checked by `name_problem` (at most `max_length` characters)."""

    def __init__(self, max_length: int = MAX_NAME, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_length = max_length

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        problem = name_problem(text, self.max_length)
        if problem is not None:
            raise ValidationError(problem)
        return text
