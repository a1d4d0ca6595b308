"""Flask's JSON provider writing the answers with orjson (`model.codec`)."""

from __future__ import annotations

from typing import Any, cast

from flask.json.provider import DefaultJSONProvider
from flask.wrappers import Response

from model.codec import encode


class FastJSONProvider(DefaultJSONProvider):
    """Flask's JSON provider writing with orjson (Flask's `default` for what orjson does not know)."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        """JSON text; the standard library when asked for its formatting options (indent, sort_keys...)."""
        if kwargs.keys() - {"separators"}:
            return super().dumps(obj, **kwargs)
        return encode(obj, self.default).decode()

    def response(self, *args: Any, **kwargs: Any) -> Response:
        """A JSON answer, written as bytes in one call."""
        if self._app.debug or self.compact is False:
            return cast(Response, super().response(*args, **kwargs))
        body = encode(self._prepare_response_obj(args, kwargs), self.default)
        response_class = cast("type[Response]", self._app.response_class)  # a Flask app's: it takes a body
        return response_class(body + b"\n", mimetype=self.mimetype)
