"""Schemathesis, over HTTP against a served Parlour, finds every answer as openapi.yaml describes it.

test_fuzz.py hunts for 5xx in process; this reads the answers: the app is served by Werkzeug on the
suite's Redis, Schemathesis loads the document the server serves (`GET /v1/openapi.json`) and sends each
operation generated requests, positive and negative, with exactly the checks `response_schema_conformance`
(the body follows the schema documented for its status and media type: each event of a `text/event-stream`
too, with its JSON `data` against its `contentSchema`) and `content_type_conformance` (the media type is
one the document lists). Requests are aimed at real resources and tokens as test_fuzz.py aims them, so the
answers read are mostly the views behind real ids, not only the 404 of an unknown one; the match's stream
is read on a finished match, whole.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from api.current import ParlourApp
from tests.api.openapi_support import documented_operations, load_document
from tests.api.test_fuzz import MATCH_STREAM, Targets, aim, end_match, make_targets
from tests.serving import served

EXAMPLES = int(os.environ.get("PARLOUR_CONFORMANCE_EXAMPLES", "12"))
"""Cases per operation; set PARLOUR_CONFORMANCE_EXAMPLES higher for a longer hunt."""
OPERATIONS = sorted(documented_operations(load_document()))
CHECKS = [response_schema_conformance, content_type_conformance]


@pytest.fixture
def base_url(app: ParlourApp) -> Iterator[str]:
    """The app served over HTTP by Werkzeug on a free port, in a thread."""
    with served(app) as url:
        yield url


@pytest.mark.parametrize(("path", "method"), OPERATIONS)
def test_every_answer_is_as_documented(path: str, method: str, client: FlaskClient, base_url: str) -> None:
    targets: Targets = make_targets(client)
    if (path, method) == MATCH_STREAM:
        end_match(client, targets)
    operation = schemathesis.openapi.from_url(f"{base_url}/v1/openapi.json")[path][method]
    cases = st.one_of([operation.as_strategy(mode) for mode in GenerationMode])
    turns = itertools.count()

    @given(case=cases)
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def conform(case: schemathesis.Case[Any]) -> None:
        turn = next(turns)
        aim(case, targets, real_ids=turn % 4 != 3, real_token=turn % 2 == 0)
        case.call_and_validate(base_url=base_url, checks=CHECKS, timeout=30)

    conform()


STREAM_ITEMS = {
    "MatchStreamItem": "MatchStreamEvent",
    "BotStreamItem": "BotEvent",
    "AnalysisStreamItem": "AnalysisStreamEvent",
}
"""Each stream's events as sent (what Schemathesis reads) and as an `EventSource` gives them, `data` parsed."""


@pytest.mark.parametrize(("sent", "parsed"), sorted(STREAM_ITEMS.items()))
def test_a_stream_is_described_once_as_sent_and_once_parsed_alike(sent: str, parsed: str) -> None:
    """The two descriptions of one stream name the same events, each with the same `data` and the same `id` rule."""
    schemas = load_document()["components"]["schemas"]

    def events(union: str) -> dict[str, tuple[str, bool]]:
        described = {}
        for name, reference in schemas[union]["discriminator"]["mapping"].items():
            event = schemas[reference.removeprefix("#/components/schemas/")]
            data = event["properties"]["data"]
            described[name] = (data.get("contentSchema", data)["$ref"], "id" in event["required"])
        return described

    assert events(sent) == events(parsed)
