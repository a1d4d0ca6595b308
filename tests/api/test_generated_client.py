"""A Python client generated from openapi.yaml by openapi-python-client, used against a real server.

The generator must take the document as it is, without a warning (a warning means some schema or
response was dropped from the client) and without a configuration telling it how to read the document.
The generated package then plays a whole IceCream match over HTTP against the app served by Werkzeug
on the suite's Redis, with every answer parsed into the generated models: the match as `IceCreamMatch`
with an `IceCreamView`, legal actions as `IceCreamAction`s, and a stale action's 409 as a `Problem`,
not `None`.

An event stream comes out of the generated function as one text: openapi-python-client reads a `text/*`
body whole (`response.text`) and knows no streams, and the OpenAPI 3.1 it takes (it refuses 3.2) has no
schema for one item of a stream. What it does generate are the events' models: the stream's schema also
describes each event (`MatchStreamItem`, as Schemathesis reads it), so a client parses the text as
Server-Sent Events into `MatchStreamMatchItem` / `MatchStreamEndItem` and their `data` into `MatchEvent`
/ `EndEvent`.
"""

from __future__ import annotations

import importlib
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
import yaml
from flask.testing import FlaskClient

from api.current import ParlourApp
from tests.api.openapi_support import SPEC_PATH, ContractClient, load_document, parse_sent_events
from tests.serving import served

PACKAGE = "parlour_api_client"
"""openapi-python-client names the package after the document's title, Parlour API."""
GENERATOR_CONFIG = "post_hooks: []\n"
"""No formatter hooks (speed: the generated code is only imported); nothing about reading the document. The
generator knows no YAML media type: of `GET /v1/openapi.yaml`'s answers it takes the `text/plain` one."""


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, ModuleType]]:
    """The generator's output and the imported client package (removed from the import system afterwards)."""
    where = tmp_path_factory.mktemp("generated")
    config = where / "config.yaml"
    config.write_text(GENERATOR_CONFIG, encoding="utf-8")
    output = where / "client"
    command = [sys.executable, "-m", "openapi_python_client", "generate", "--path", str(SPEC_PATH)]
    command += ["--output-path", str(output), "--config", str(config)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    sys.path.insert(0, str(output))
    try:
        yield said, importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(output))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


@pytest.fixture
def base_url(app: ParlourApp) -> Iterator[str]:
    """The app served over HTTP by Werkzeug on a free port, in a thread."""
    with served(app) as url:
        yield url


def part(package: ModuleType, name: str) -> Any:
    """A module of the generated package, e.g. `api.matches.post_action` or `models`."""
    return importlib.import_module(f"{package.__name__}.{name}")


def test_the_generator_takes_the_document_without_a_warning(generated: tuple[str, ModuleType]) -> None:
    said, package = generated
    assert "warning" not in said.lower() and "error" not in said.lower(), said
    models = part(package, "models")
    for name in ("IceCreamMatch", "SundaeSplitMatch", "FreezeFactoryMatch", "RockemSockemMatch"):
        assert hasattr(models, name), f"{name} was dropped"
    assert hasattr(models, "RobotsLoveIceCreamMatch") and hasattr(models, "Problem")


def test_a_whole_icecream_match_through_the_generated_client(generated: tuple[str, ModuleType], base_url: str) -> None:
    _, package = generated
    models = part(package, "models")
    client_module = part(package, "client")
    create_match, get_match = part(package, "api.matches.create_match"), part(package, "api.matches.get_match")
    get_legal_actions = part(package, "api.matches.get_legal_actions")
    post_action, get_match_log = part(package, "api.matches.post_action"), part(package, "api.matches.get_match_log")
    follow_match = part(package, "api.matches.follow_match")
    public = client_module.Client(base_url=base_url)

    request = models.CreateMatchRequest(
        game="icecream",
        players=2,
        seed="generated-client",
        options=models.CreateMatchRequestOptions.from_dict({"turn_limit": 6}),
    )
    created = create_match.sync(client=public, body=request)
    assert isinstance(created, models.CreatedMatch), created
    seats = {
        token.seat: client_module.AuthenticatedClient(base_url=base_url, token=token.token) for token in created.tokens
    }
    match = get_match.sync(created.id, client=public)
    assert isinstance(match, models.IceCreamMatch) and isinstance(match.view, models.IceCreamView), match
    assert isinstance(match.options, models.IceCreamOptions) and match.options.turn_limit == 6
    assert match.game == models.IceCreamMatchGame.ICECREAM and len(match.view.cones) == 2

    rng, stale_seen = random.Random(15), False
    while match.status == models.MatchStatus.ACTIVE:
        seat = seats[match.to_act[0]]
        legal = get_legal_actions.sync(created.id, client=seat)
        assert isinstance(legal, models.EnumeratedActions) and legal.may_act, legal
        assert legal.actions and all(isinstance(action, models.IceCreamAction) for action in legal.actions)
        action = rng.choice(legal.actions)
        body = models.ActionRequest(action=action, expected_version=legal.version)
        answer = post_action.sync(created.id, client=seat, body=body)
        assert isinstance(answer, models.IceCreamMatch) and answer.version == legal.version + 1, answer
        if not stale_seen:
            stale = post_action.sync(created.id, client=seat, body=body)  # the version it was decided on is gone
            assert isinstance(stale, models.Problem), stale
            assert (stale.status, stale.code) == (409, models.ProblemCode.STALE_VERSION)
            assert stale.current_version == answer.version
            stale_seen = True
        match = answer

    assert match.status == models.MatchStatus.FINISHED and isinstance(match.result, models.Result)
    assert stale_seen and match.seed == "generated-client"
    log = get_match_log.sync(created.id, client=public)
    assert isinstance(log, models.MatchLog) and [entry.version for entry in log.entries] == list(
        range(1, match.version + 1)
    )
    assert all(isinstance(entry.action, models.IceCreamAction) for entry in log.entries)
    stream = follow_match.sync(created.id, client=public)
    assert isinstance(stream, str), stream  # the whole stream's text (see the module's docstring)
    first, last = parse_sent_events(stream)
    event, end = models.MatchStreamMatchItem.from_dict(first), models.MatchStreamEndItem.from_dict(last)
    assert (event.event, event.id, end.event) == ("match", str(match.version), "end")
    data, ended = models.MatchEvent.from_dict(json.loads(event.data)), models.EndEvent.from_dict(json.loads(end.data))
    assert isinstance(data.match, models.IceCreamMatch) and data.match.status == models.MatchStatus.FINISHED
    assert (ended.version, ended.reason) == (match.version, models.EndEventReason.FINISHED)


def test_the_document_through_the_generated_client(generated: tuple[str, ModuleType], base_url: str) -> None:
    """`GET /v1/openapi.yaml` as text, whichever of its two media types answers."""
    _, package = generated
    get_open_api_yaml = part(package, "api.reference.get_open_api_yaml")
    public = part(package, "client").Client(base_url=base_url)
    assert get_open_api_yaml.sync(client=public) == SPEC_PATH.read_text(encoding="utf-8")
    as_text = get_open_api_yaml.sync_detailed(client=public.with_headers({"Accept": "text/plain"}))
    assert as_text.headers["Content-Type"] == "text/plain; charset=utf-8" and as_text.parsed == SPEC_PATH.read_text(
        encoding="utf-8"
    )


@pytest.mark.parametrize(
    ("accept", "media_type"),
    [(None, "application/yaml"), ("*/*", "application/yaml"), ("text/plain", "text/plain; charset=utf-8")],
)
def test_the_document_answers_yaml_or_text_as_asked(
    app: ParlourApp, client: FlaskClient, accept: str | None, media_type: str
) -> None:
    headers = {"Accept": accept} if accept else {}
    answer = ContractClient(app, client).get("/v1/openapi.yaml", headers=headers, expect=200).response
    assert answer.headers["Content-Type"] == media_type and answer.headers["Vary"] == "Accept"
    assert yaml.safe_load(answer.get_data(as_text=True)) == load_document()


def test_seats_null_is_refused_as_the_document_says(app: ParlourApp, client: FlaskClient) -> None:
    """`seats` is an array or absent: null is a 400 naming it, and the document refuses it too."""
    contract = ContractClient(app, client)
    body = {"game": "icecream", "players": 2, "seats": None}
    problem = contract.post("/v1/matches", json=body, expect=400, request_valid=False).json
    assert problem["code"] == "invalid-request" and problem["errors"] == {"seats": ["Field may not be null."]}
    contract.post("/v1/matches", json={"game": "icecream", "players": 2}, expect=201, request_valid=True)
