"""The socket's messages: what a client sends, checked, and what the server sends, written.

Every message is one JSON object with a `type`. The client sends `hello` once, then `action`s (and
`ping`s); the server answers `welcome`, then `event`s as they happen, a `result` or a `problem` per
client message (echoing its `ref`), `heartbeat`s on a quiet socket and `pong`s. An event, a result and a
problem carry verbatim what the same credential's Server-Sent Event, HTTP answer and problem+json carry
(under `data`, `answer` and `problem`), so they are written around the JSON text as it stands.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from model.codec import dumps
from model.refusals import InvalidRequest

HELLO = "hello"
ACTION = "action"
PING = "ping"
CLIENT_TYPES = (HELLO, ACTION, PING)

MAX_REF = 200
"""Characters a client's `ref` may have (it is echoed in the answer)."""
MAX_IDEMPOTENCY_KEY = 200
MAX_ID = 100
"""Characters a match id may have in a message (longer names nothing)."""

# Close codes: the WebSocket standard's, and 4000 + the HTTP status of the problem sent just before.
NORMAL = 1000  # the followed match ended (after its `end` event), or the client closed
GOING_AWAY = 1001  # the server is stopping: reconnect and resume with `after`
INTERNAL_ERROR = 1011  # the store could not be reached: reconnect and resume with `after`
LAGGING = 4000  # the client read too slowly: its messages piled up; reconnect and resume with `after`
BAD_HELLO = 4400
UNAUTHORIZED = 4401  # the token is not (or no longer) valid
FORBIDDEN = 4403
NOT_FOUND = 4404
HELLO_TIMEOUT = 4408
TOO_MANY = 4429  # over a rate limit or a quota when opening
UNAVAILABLE = 4503


def close_code(status: int) -> int:
    """The close code of a problem that ends the socket: 4000 + its HTTP status."""
    return 4000 + status if 400 <= status < 600 else INTERNAL_ERROR


@dataclass(frozen=True)
class Hello:
    """The first message: the credential, where its events resume, and for a bot the match it follows."""

    token: str
    after: int | None
    match: str | None
    seat: int | None


@dataclass(frozen=True)
class ActionMessage:
    """An action to apply, as `POST /v1/matches/{id}/actions` takes it."""

    ref: str | None
    match: str | None
    seat: int | None
    action: Any
    expected_version: Any
    idempotency_key: str | None


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON value")


def parse(text: str | bytes) -> dict[str, Any]:
    """A client message as a JSON object with a known `type`; a 400 refusal naming what is wrong."""
    if isinstance(text, bytes):
        raise InvalidRequest("messages are JSON text, not binary", errors={"_message": ["binary"]})
    try:
        message = json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as error:
        reason = "too deeply nested" if isinstance(error, RecursionError) else str(error)
        raise InvalidRequest(f"the message is not valid JSON: {reason}", errors={"_message": [reason]}) from None
    if not isinstance(message, dict):
        raise InvalidRequest("a message must be a JSON object", errors={"_message": ["not an object"]})
    if message.get("type") not in CLIENT_TYPES:
        raise InvalidRequest(
            f"type must be one of {', '.join(CLIENT_TYPES)}", errors={"type": [f"one of {list(CLIENT_TYPES)}"]}
        )
    return message


def ref_of(message: dict[str, Any]) -> str | None:
    """The message's `ref`, if it is a string of the allowed length (else None: it is not echoed)."""
    ref = message.get("ref")
    return ref if isinstance(ref, str) and len(ref) <= MAX_REF else None


def _optional(message: dict[str, Any], name: str, kind: type, errors: dict[str, list[str]]) -> Any:
    value = message.get(name)
    if value is None:
        return None
    if kind is int and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        errors[name] = ["a whole number from 0"]
        return None
    if kind is str and (not isinstance(value, str) or not 1 <= len(value) <= MAX_ID):
        errors[name] = [f"a string of 1 to {MAX_ID} characters"]
        return None
    return value


def hello_of(message: dict[str, Any]) -> Hello:
    """The `hello` message's fields, checked."""
    errors: dict[str, list[str]] = {}
    if message.get("type") != HELLO:
        errors["type"] = ["the first message must be a hello"]
    token = message.get("token")
    if not isinstance(token, str) or not token:
        errors["token"] = ["a seat or bot token"]
    after = _optional(message, "after", int, errors)
    match = _optional(message, "match", str, errors)
    seat = _optional(message, "seat", int, errors)
    if errors:
        raise InvalidRequest(f"invalid hello: {', '.join(sorted(errors))}", errors=errors)
    return Hello(str(token), after, match, seat)


def action_of(message: dict[str, Any]) -> ActionMessage:
    """The `action` message's fields, checked as far as the socket needs (the action itself as HTTP checks it)."""
    errors: dict[str, list[str]] = {}
    if "ref" in message and ref_of(message) is None:
        errors["ref"] = [f"a string of at most {MAX_REF} characters"]
    match = _optional(message, "match", str, errors)
    seat = _optional(message, "seat", int, errors)
    key = message.get("idempotency_key")
    if key is not None and (not isinstance(key, str) or not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY):
        errors["idempotency_key"] = [f"a string of 1 to {MAX_IDEMPOTENCY_KEY} characters"]
    if errors:
        raise InvalidRequest(f"invalid fields: {', '.join(sorted(errors))}", errors=errors)
    return ActionMessage(
        ref_of(message), match, seat, message.get("action"), message.get("expected_version"), key or None
    )


# --- what the server sends ------------------------------------------------------------------------


def welcome(kind: str, match: str | None, seat: int | None, bot: str | None, heartbeat: float, limit: int) -> str:
    """The answer to a good `hello`: whose socket this is, and its heartbeat and message size."""
    return dumps(
        {
            "type": "welcome",
            "kind": kind,
            "match": match,
            "seat": seat,
            "bot": bot,
            "heartbeat": heartbeat,
            "max_message_bytes": limit,
        }
    )


def result(ref: str | None, answer_json: str) -> str:
    """The answer to an action: `answer` is the HTTP answer's JSON text."""
    return f'{{"type":"result","ref":{dumps(ref)},"answer":{answer_json}}}'


def problem(ref: str | None, body: dict[str, Any]) -> str:
    """A refusal: `problem` is the problem+json body HTTP would answer."""
    return dumps({"type": "problem", "ref": ref, "problem": body})


HEARTBEAT = '{"type":"heartbeat"}'


def pong(ref: str | None) -> str:
    """The answer to a `ping`."""
    return dumps({"type": "pong", "ref": ref})


def event_of_sse(chunk: str | bytes) -> str | None:
    """A Server-Sent Event chunk of a stream (domain/events) as a socket message: an `event` (its id, name and
    data as the stream has them), a `heartbeat` for the stream's comment line; None for its `retry:` line."""
    text = chunk.decode() if isinstance(chunk, bytes) else chunk
    if text.startswith(":"):
        return HEARTBEAT
    event_id = "null"
    name = ""
    data = "null"
    for line in text.split("\n"):
        field, _, value = line.partition(": ")
        if field == "id":
            event_id = value
        elif field == "event":
            name = value
        elif field == "data":
            data = value
    if not name:
        return None
    return f'{{"type":"event","id":{event_id},"event":{dumps(name)},"data":{data}}}'
