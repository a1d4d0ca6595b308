"""GET /v1/socket: the WebSocket upgrade (flask-sock, on simple-websocket), for a seat or a bot.

The token comes in the first message, never in the URL (a URL is logged). A message longer than
`PARLOUR_MAX_BODY_BYTES` closes the socket with 1009, as a longer body is a 413. The server offers
no compression: the messages are small, and deflating each would cost the CPU a move is measured by.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request
from flask.blueprints import BlueprintSetupState
from flask_sock import Sock  # type: ignore[import-untyped]

from api.current import ParlourApp
from api.socket.channel import Channel

blueprint = Blueprint("socket", __name__, url_prefix="/v1")
sock = Sock()


@blueprint.record_once
def configure(state: BlueprintSetupState) -> None:
    """Cap a client message at the size of a request body."""
    app = state.app
    assert isinstance(app, ParlourApp)
    options = app.config.setdefault("SOCK_SERVER_OPTIONS", {})
    options.setdefault("max_message_size", app.services.settings.max_body_bytes)


@blueprint.before_request
def no_compression() -> None:
    """Leave out the client's offer of permessage-deflate, so the upgrade accepts none."""
    request.environ.pop("HTTP_SEC_WEBSOCKET_EXTENSIONS", None)


@sock.route("/socket", bp=blueprint)  # type: ignore[untyped-decorator]
def open_socket(ws: Any) -> None:
    """One socket: `hello` with a seat or bot token, then events and actions as JSON messages."""
    Channel(ws).run()
