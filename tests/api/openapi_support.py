"""Check real API answers against openapi.yaml with openapi-core.

`ContractClient` sends requests through the Flask test client and validates every answer
against the document: the status must be documented for the operation, the body must match
the documented schema for its content type, documented headers must be present and match, a
response documented without content must have no body, and an error's `code` must be one of the
codes the document lists for that response (`x-problem-codes`). An event stream is a string to
openapi-core; its events, parsed as an `EventSource` would, must also follow the `contentSchema`
the document gives for the stream.

Validation is stricter than the published contract in one way: objects that do not say
`additionalProperties` are treated as closed, so an undocumented response field fails the tests
(clients are told to ignore unknown fields; the document must still list every field sent).
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from flask import Flask
from flask.testing import EnvironBuilder, FlaskClient
from jsonschema import ValidationError, validators  # type: ignore[import-untyped]  # no stubs in the dev extra
from jsonschema.exceptions import best_match  # type: ignore[import-untyped]
from openapi_core import Config, OpenAPI
from openapi_core.contrib.werkzeug import WerkzeugOpenAPIRequest, WerkzeugOpenAPIResponse
from openapi_core.deserializing.media_types.util import json_loads, plain_loads
from openapi_schema_validator import OAS31Validator
from referencing import Registry, Resource
from werkzeug.exceptions import HTTPException
from werkzeug.test import TestResponse
from werkzeug.wrappers import Request

from api.current import ParlourApp

_DOCUMENT_URI = "urn:parlour:openapi"
SPEC_PATH = Path(__file__).resolve().parents[2] / "openapi.yaml"
PROBLEM_JSON = "application/problem+json"
EVENT_STREAM = "text/event-stream"
YAML = "application/yaml"
HTTP_METHODS = frozenset({"get", "put", "post", "delete", "patch", "options", "head", "trace"})
IGNORED_METHODS = frozenset({"HEAD", "OPTIONS"})
_RULE_ARGUMENT = re.compile(r"<(?:[a-zA-Z_][a-zA-Z0-9_]*(?:\([^)]*\))?:)?([a-zA-Z_][a-zA-Z0-9_]*)>")


@functools.cache
def _load_document() -> dict[str, Any]:
    with SPEC_PATH.open(encoding="utf-8") as handle:
        document: dict[str, Any] = yaml.safe_load(handle)
    return document


def load_document() -> dict[str, Any]:
    """A fresh copy of openapi.yaml as a dict (callers may change it)."""
    return copy.deepcopy(_load_document())


def build_openapi(document: dict[str, Any]) -> OpenAPI:
    """An openapi-core OpenAPI for the document, closed objects, problem+json, event streams and YAML understood."""
    document = open_allof_parts(copy.deepcopy(document))
    config = Config(
        additional_properties_default_policy="forbid",
        extra_media_type_deserializers={PROBLEM_JSON: json_loads, EVENT_STREAM: plain_loads, YAML: yaml_loads},
    )
    return OpenAPI.from_dict(document, config=config)


def yaml_loads(value: str | bytes) -> Any:
    """A YAML body as its data (the document's schema for YAML describes the parsed value, as for JSON)."""
    return yaml.safe_load(value)


def open_allof_parts(node: Any) -> Any:
    """The document with every inline part of an `allOf` open to other properties (in place).

    Objects are closed where they do not say otherwise, but an inline part of an `allOf` (a game's
    match narrowing `game`, `options` and `view` of `Match`) lists only what it narrows: the
    object is closed by the component it extends, which lists every field.
    """
    if isinstance(node, dict):
        for part in node.get("allOf", ()):
            if isinstance(part, dict) and "$ref" not in part:
                part.setdefault("additionalProperties", True)
        for value in node.values():
            open_allof_parts(value)
    elif isinstance(node, list):
        for value in node:
            open_allof_parts(value)
    return node


def rule_to_template(rule: str) -> str:
    """A Werkzeug rule as an OpenAPI path template: `/v1/matches/<match_id>` -> `/v1/matches/{match_id}`."""
    return _RULE_ARGUMENT.sub(r"{\1}", rule)


API_PREFIX = "/v1/"
"""The API's paths; the web client's page, its files and the reference page (`/`, `/web/...`, `/docs`) are not."""


def app_operations(app: Flask) -> set[tuple[str, str]]:
    """Every (path template, METHOD) of the API the app routes, HEAD and OPTIONS left out."""
    operations = set()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith(API_PREFIX) or rule.websocket:  # a WebSocket (GET /v1/socket) is no HTTP operation
            continue
        for method in rule.methods or ():
            if method not in IGNORED_METHODS:
                operations.add((rule_to_template(rule.rule), method))
    return operations


def documented_operations(document: dict[str, Any]) -> set[tuple[str, str]]:
    """Every (path template, METHOD) the document describes."""
    return {
        (path, method.upper())
        for path, item in document.get("paths", {}).items()
        for method in item
        if method in HTTP_METHODS
    }


def iter_operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(path, METHOD, operation object) for every documented operation."""
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in HTTP_METHODS:
                yield path, method.upper(), operation


def resolve(document: dict[str, Any], node: Any) -> Any:
    """Follow a local `$ref` (repeatedly) to the object it names."""
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/"), f"only local references are used: {ref}"
        target: Any = document
        for part in ref[2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def pointer_validator(document: dict[str, Any], pointer: str) -> OAS31Validator:
    """A JSON Schema validator for the schema at a JSON pointer in the document (e.g. `/components/schemas/Match`)."""
    registry: Registry[Any] = Registry().with_resource(_DOCUMENT_URI, Resource.opaque(document))
    return OAS31Validator({"$ref": f"{_DOCUMENT_URI}#{pointer}"}, registry=registry)


def _content_schema(validator: Any, content_schema: Any, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    """`contentSchema` asserted: a JSON string's parsed value must follow it (JSON Schema only annotates)."""
    if not isinstance(instance, str) or schema.get("contentMediaType") != "application/json":
        return
    try:
        value = json.loads(instance)
    except ValueError as error:
        yield ValidationError(f"not JSON: {error}")
        return
    yield from validator.descend(value, content_schema)


ContentValidator = validators.extend(OAS31Validator, {"contentSchema": _content_schema})


def content_validator(document: dict[str, Any], pointer: str) -> Any:
    """A validator for the schema at a JSON pointer that also checks JSON strings against their `contentSchema`."""
    registry: Registry[Any] = Registry().with_resource(_DOCUMENT_URI, Resource.opaque(document))
    return ContentValidator({"$ref": f"{_DOCUMENT_URI}#{pointer}"}, registry=registry)


def component_validator(document: dict[str, Any], name: str) -> OAS31Validator:
    """A validator for `#/components/schemas/<name>` (references inside it resolved)."""
    return pointer_validator(document, f"/components/schemas/{name}")


@dataclass
class Exchange:
    """One request sent and the answer, with where it sits in the document."""

    method: str
    url: str
    template: str | None
    response: TestResponse

    @property
    def status(self) -> int:
        """The HTTP status of the answer."""
        return self.response.status_code

    @property
    def json(self) -> Any:
        """The answer's body as JSON."""
        return self.response.get_json(force=True)


@dataclass
class ContractClient:
    """A test client whose every answer is checked against the OpenAPI document."""

    app: ParlourApp
    client: FlaskClient
    document: dict[str, Any] = field(default_factory=load_document)
    seen: set[tuple[str, str, int]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.openapi = build_openapi(self.document)

    # --- sending --------------------------------------------------------------------------------
    def get(self, url: str, **kwargs: Any) -> Exchange:
        """GET, checked."""
        return self.call("GET", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> Exchange:
        """POST, checked."""
        return self.call("POST", url, **kwargs)

    def call(
        self,
        method: str,
        url: str,
        *,
        expect: int | None = None,
        request_valid: bool | None = None,
        **kwargs: Any,
    ) -> Exchange:
        """Send a request and check the answer against the document.

        `expect` asserts the status. `request_valid` asserts that the document accepts (True) or
        refuses (False) the request itself; None skips that check (e.g. a well-formed but wrong
        token, which no document can tell apart from a right one).
        """
        request = self._request_copy(method, url, **kwargs)
        response = self.client.open(url, method=method, **kwargs)
        exchange = Exchange(method, url, self._template(method, request.path), response)
        if expect is not None:
            assert exchange.status == expect, (
                f"{method} {url}: expected {expect}, got {exchange.status}: {response.get_data(as_text=True)[:500]}"
            )
        if request_valid is not None:
            self.check_request(request, request_valid)
        self.check_response(request, exchange)
        return exchange

    def _request_copy(self, method: str, url: str, **kwargs: Any) -> Request:
        """The request as the server receives it, with a body that can still be read."""
        builder = EnvironBuilder(self.app, url, method=method, **kwargs)
        try:
            return Request(builder.get_environ())
        finally:
            builder.close()

    def _template(self, method: str, path: str) -> str | None:
        """The documented path template the app routes this path to, if any."""
        adapter = self.app.url_map.bind("localhost")
        try:
            rule, _ = adapter.match(path, method=method, return_rule=True)
        except HTTPException:  # NotFound, MethodNotAllowed
            return None
        return rule_to_template(rule.rule)

    # --- checking -------------------------------------------------------------------------------
    def check_request(self, request: Request, valid: bool) -> None:
        """Assert that the document accepts (or refuses) the request."""
        errors = list(self.openapi.iter_request_errors(WerkzeugOpenAPIRequest(request)))
        where = f"{request.method} {request.full_path}"
        if valid:
            assert not errors, f"the document refuses a request the server accepts: {where}: {_describe(errors)}"
        else:
            assert errors, f"the document accepts a request the server refuses: {where}"

    def check_response(self, request: Request, exchange: Exchange) -> None:
        """Assert that the answer is one the document describes."""
        response = exchange.response
        where = f"{exchange.method} {exchange.url} -> {exchange.status}"
        if exchange.template is None:
            # No route: the app's generic 404/405, which the document describes in prose only.
            assert exchange.status in (404, 405), f"{where}: unrouted request answered with {exchange.status}"
            self.check_problem(exchange, {"not-found", "method-not-allowed"})
            return
        self.seen.add((exchange.template, exchange.method, exchange.status))
        errors = list(
            self.openapi.iter_response_errors(WerkzeugOpenAPIRequest(request), WerkzeugOpenAPIResponse(response))
        )
        assert not errors, (
            f"{where}: the answer does not match openapi.yaml, which does not describe it: {_describe(errors)}"
        )
        documented = self.documented_response(exchange.template, exchange.method, exchange.status)
        if response.mimetype == EVENT_STREAM:
            self.check_events(exchange)
        if "content" not in documented:
            assert response.get_data() == b"", f"{where}: documented without a body, but has one"
        if PROBLEM_JSON in documented.get("content", {}):
            codes = documented.get("x-problem-codes")
            assert codes, f"{where}: a problem response must list its codes in x-problem-codes"
            self.check_problem(exchange, set(codes))
        else:
            assert exchange.response.mimetype != PROBLEM_JSON, f"{where}: an undocumented problem answer"

    def check_events(self, exchange: Exchange) -> None:
        """An event stream: every event it carries follows the stream's documented events.

        Two ways of describing them are read: a `contentSchema` on the stream's text, an array of the
        events as `parse_event_stream` gives them; or a schema that also holds for each event as OpenAPI
        3.2 models a Server-Sent Event (`event`, `data`, `id`, as text), whose JSON `data` must follow
        its `contentSchema`.
        """
        assert exchange.template is not None
        where = f"{exchange.method} {exchange.url} -> {exchange.status}"
        documented = self.documented_response(exchange.template, exchange.method, exchange.status)
        schema = documented["content"][EVENT_STREAM]["schema"]
        path = exchange.template.replace("~", "~0").replace("/", "~1")
        pointer = f"/paths/{path}/{exchange.method.lower()}/responses/{exchange.status}/content/text~1event-stream"
        text = exchange.response.get_data(as_text=True)
        if "contentSchema" in schema:
            validator = pointer_validator(self.document, f"{pointer}/schema/contentSchema")
            events = parse_event_stream(text)
            problems = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(events)]
        else:
            assert any("$ref" in option for option in schema.get("anyOf", ())), f"{where}: describe its events"
            validator = content_validator(self.document, f"{pointer}/schema")
            problems = [
                f"event {index}: {error.message}"
                for index, event in enumerate(parse_sent_events(text))
                if (error := best_match(validator.iter_errors(event))) is not None
            ]
        assert not problems, f"{where}: the document does not describe these events: {problems}"

    def check_problem(self, exchange: Exchange, codes: set[str]) -> None:
        """An error body: problem+json, valid against Problem, a code listed for it, consistent fields."""
        where = f"{exchange.method} {exchange.url} -> {exchange.status}"
        assert exchange.response.mimetype == PROBLEM_JSON, f"{where}: errors are {PROBLEM_JSON}"
        body = exchange.json
        validator = component_validator(self.document, "Problem")
        problems = [error.message for error in validator.iter_errors(body)]
        assert not problems, f"{where}: not a Problem: {problems}"
        assert body["code"] in codes, f"{where}: code {body['code']!r} is not among the documented {sorted(codes)}"
        assert body["status"] == exchange.status, f"{where}: body status {body['status']} differs"
        assert body["type"] == f"https://parlour.dev/problems/{body['code']}", f"{where}: type {body['type']!r}"

    def documented_response(self, template: str, method: str, status: int) -> dict[str, Any]:
        """The response object the document gives for an operation and status."""
        operation = self.document["paths"][template][method.lower()]
        responses = operation["responses"]
        assert str(status) in responses, f"{method} {template}: status {status} is not documented"
        return dict(resolve(self.document, responses[str(status)]))


def parse_event_stream(text: str) -> list[dict[str, Any]]:
    """The events of a Server-Sent Events body as an `EventSource` dispatches them: `event` (default
    `message`), `data` (its lines joined) parsed as JSON, and `id` as a number when the event has one.

    Comment lines and `retry` are not events; a block without `data` dispatches nothing."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, list[str]] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields.setdefault(name, []).append(value.removeprefix(" "))
        if "data" not in fields:
            continue
        event: dict[str, Any] = {
            "event": fields.get("event", ["message"])[-1],
            "data": json.loads("\n".join(fields["data"])),
        }
        if "id" in fields:
            event["id"] = int(fields["id"][-1])
        events.append(event)
    return events


def parse_sent_events(text: str) -> list[dict[str, str]]:
    """The events of a Server-Sent Events body as OpenAPI 3.2 models them: `event` (default `message`),
    `data` (its lines joined) and `id` (the last one the stream sent, if any), all text.

    Comment lines and `retry` are not events; a block without `data` dispatches nothing."""
    events, last_id = [], None
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, list[str]] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields.setdefault(name, []).append(value.removeprefix(" "))
        if "id" in fields:
            last_id = fields["id"][-1]
        if "data" not in fields:
            continue
        event = {"event": fields.get("event", ["message"])[-1], "data": "\n".join(fields["data"])}
        if last_id is not None:
            event["id"] = last_id
        events.append(event)
    return events


def _describe(errors: list[Exception]) -> str:
    """Readable messages of openapi-core errors, including their causes."""
    lines = []
    for error in errors:
        lines.append(f"{type(error).__name__}: {_short(error)}")
        for detail in getattr(error, "schema_errors", ()) or ():
            lines.append(f"    {'/'.join(map(str, detail.absolute_path)) or '<root>'}: {_short(detail)}")
        cause = error.__cause__
        while cause is not None:
            lines.append(f"    caused by {type(cause).__name__}: {_short(cause)}")
            for detail in getattr(cause, "schema_errors", ()) or ():
                lines.append(f"        {'/'.join(map(str, detail.absolute_path)) or '<root>'}: {_short(detail)}")
            cause = cause.__cause__
    return "\n" + "\n".join(lines)


def _short(error: BaseException, limit: int = 300) -> str:
    """An error's message, cut short (openapi-core repeats the whole body in it)."""
    text = str(getattr(error, "message", error))
    return text if len(text) <= limit else f"{text[:limit]}..."
