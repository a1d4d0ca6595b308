"""openapi.yaml describes the server exactly: its routes, and every answer the tests provoke.

Every request below goes through `ContractClient`, which validates the answer (status, body,
headers, problem codes) against the document with openapi-core, and where it can, checks that
the document accepts the requests the server accepts and refuses the ones it refuses.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from flask.testing import FlaskClient
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate as validate_openapi
from werkzeug.test import TestResponse

from api.app import create_app
from api.catalog.views import catalog_entry
from api.current import ParlourApp
from engine import IllegalAction, MatchOver, NotYourTurn, get_game
from model.refusals import Refusal
from model.settings import LimitSettings, Settings
from ops.embedded_redis import start_embedded_redis
from tests.api.analysis_contract import scenario_analysis
from tests.api.conftest import EVENTS_HEARTBEAT, IN_PROCESS_LIMITS, bearer
from tests.api.ladder_contract import scenario_ladder
from tests.api.lifecycle_contract import scenario_lifecycle
from tests.api.matchmaking_contract import scenario_matchmaking
from tests.api.openapi_support import (
    PROBLEM_JSON,
    ContractClient,
    Exchange,
    app_operations,
    build_openapi,
    component_validator,
    documented_operations,
    iter_operations,
    load_document,
    pointer_validator,
    resolve,
)
from tests.api.reviews_contract import scenario_reviews
from tests.api.test_freeze_factory_api import CLAIM_LINE, CLAIM_SEED, CLAIMED_CONE, SYMBOL_SEED, claim_position, leaks
from tests.api.test_freeze_factory_api import Table as FreezeFactoryTable
from tests.api.test_robots_love_ice_cream_api import ALL_VARIANTS, check_result
from tests.api.test_robots_love_ice_cream_api import Table as RobotsTable
from tests.api.test_rockem_sockem_api import FLIP
from tests.api.test_rockem_sockem_api import Table as RockemSockemTable
from tests.api.test_store_full import fill, free
from tests.api.test_sundae_split_api import Table, assert_valid_split, random_split
from tests.api.test_tournaments import play_running_matches

# The shortest IceCream win from the start (found by breadth-first search): seat 0 stacks yellow.
WINNING_LINE: list[tuple[int, dict[str, Any]]] = [
    (0, {"type": "move", "from_cone": 0, "scoops": 1}),
    (1, {"type": "move", "from_cone": 0, "scoops": 2}),
    (0, {"type": "move", "from_cone": 0, "scoops": 2}),
    (0, {"type": "move", "from_cone": 1, "scoops": 1}),
    (1, {"type": "move", "from_cone": 1, "scoops": 4}),
    (0, {"type": "move", "from_cone": 1, "scoops": 1}),
    (0, {"type": "move", "from_cone": 1, "scoops": 3}),
]
MOVE = {"type": "move", "from_cone": 0, "scoops": 1}
SUNDAE_SEED = "sundae"  # the Sundae Split examples: 3 players, this seed, the line in the request examples
UNREACHABLE_REDIS = "unix:///nonexistent-parlour-test/redis.sock"
# The Rock'em Sock'em examples: rounds mode, seed `robots`; seat 0 flips, both roll all four dice,
# then seat 0 answers the next step keeping dice 0 and 2.
ROCKEM_SOCKEM_SEED = "robots"
ROCKEM_SOCKEM_LINE: list[tuple[int, dict[str, Any]]] = [
    (0, {"type": "flip"}),
    (0, {"type": "roll", "keep": []}),
    (1, {"type": "roll", "keep": []}),
    (0, {"type": "roll", "keep": [0, 2]}),
]
# The Robots Love Ice Cream examples: 2 players, seed `robots-9`; seat 0 keeps a Boomsicle, destroys
# column 0's Spinston with four, and ends its turn.
ROBOTS_SEED = "robots-9"
ROBOTS_LINE: list[tuple[int, dict[str, Any]]] = [
    (0, {"type": "keep_drawn", "cards": ["boomsicle"]}),
    (0, {"type": "attack", "column": 0, "cards": ["boomsicle"] * 4, "upgrade": None}),
    (0, {"type": "end_turn"}),
]
ROBOTS_ILLEGAL_ATTACK = {"type": "attack", "column": 1, "cards": ["boomsicle"] * 3, "upgrade": None}


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The suite's settings, with room for the several tournaments one contract test creates (2 by default)."""
    return replace(settings, limits=replace(settings.limits, tournaments=20))


@pytest.fixture
def contract(app: ParlourApp, client: FlaskClient) -> ContractClient:
    """The test client, every answer checked against openapi.yaml."""
    return ContractClient(app, client)


def created(contract: ContractClient, **request: Any) -> dict[str, Any]:
    """POST /v1/matches (IceCream for 2 unless told), checked; the answer body."""
    body = {"game": "icecream", "players": 2, **request}
    return dict(contract.post("/v1/matches", json=body, expect=201, request_valid=True).json)


def tokens_of(body: dict[str, Any]) -> dict[int, str]:
    """Seat tokens of a creation answer, by seat."""
    return {seat["seat"]: seat["token"] for seat in body["tokens"]}


def check_icecream_view(contract: ContractClient, match: dict[str, Any]) -> None:
    """The game-specific parts of an IceCream match follow the schemas the document gives for them."""
    for name, value in (("IceCreamView", match["view"]), ("IceCreamOptions", match["options"])):
        errors = [e.message for e in component_validator(contract.document, name).iter_errors(value)]
        assert not errors, f"{name} does not describe {value}: {errors}"


def check_icecream_actions(contract: ContractClient, actions: list[dict[str, Any]]) -> None:
    """Listed IceCream actions follow IceCreamAction."""
    validator = component_validator(contract.document, "IceCreamAction")
    for action in actions:
        assert not list(validator.iter_errors(action)), f"IceCreamAction does not describe {action}"


@dataclass
class SundaeSplitContract:
    """Sends requests through the checked client, and checks Sundae Split's parts of every answer.

    The transport-level shapes (Match, LegalActions, MatchLog) are checked by `ContractClient`;
    this also checks the game's own shapes, which the document gives as components.
    """

    contract: ContractClient
    checked: Counter[str] = field(default_factory=Counter)
    validators: dict[str, OAS31Validator] = field(default_factory=dict)

    def open(self, url: str, method: str = "GET", **kwargs: Any) -> TestResponse:
        """One request, checked against the document; every request these players send is well-formed."""
        exchange = self.contract.call(method, url, request_valid=True, **kwargs)
        if exchange.status == 200:
            body = exchange.json
            if url.endswith("/legal-actions"):
                self.check_legal_actions(body)
            elif url.partition("?")[0].endswith("/log"):
                for entry in body["entries"]:
                    self.check("SundaeSplitLoggedAction", entry["action"])
            elif "view" in body:
                self.check("SundaeSplitView", body["view"])
        return exchange.response

    def check_legal_actions(self, legal: dict[str, Any]) -> None:
        """A Splitter's constructed space, or a chooser's enumerated piles."""
        if legal["kind"] == "constructed":
            self.check("SundaeSplitConstraints", legal["constraints"])
            self.check("SundaeSplitSplit", legal["example"])
            assert_valid_split(legal["example"], legal)
            assert_valid_split(random_split(legal["constraints"], random.Random(0)), legal)
        for action in legal.get("actions", []):
            self.check("SundaeSplitChoose", action)
        for action in legal.get("actions", [legal.get("example")]):
            self.check("SundaeSplitAction", action)

    def check(self, name: str, value: Any) -> None:
        """The value follows the named component schema."""
        if name not in self.validators:
            self.validators[name] = component_validator(self.contract.document, name)
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in self.validators[name].iter_errors(value)]
        assert not errors, f"{name} does not describe {value}: {errors}"
        self.checked[name] += 1


@dataclass
class FreezeFactoryContract:
    """Sends requests through the checked client, and checks Freeze Factory's parts of every answer."""

    contract: ContractClient
    checked: Counter[str] = field(default_factory=Counter)
    validators: dict[str, OAS31Validator] = field(default_factory=dict)

    def open(self, url: str, method: str = "GET", **kwargs: Any) -> TestResponse:
        """One request, checked against the document; the game's shapes checked against its schemas."""
        exchange = self.contract.call(method, url, request_valid=True, **kwargs)
        if exchange.status in (200, 201):
            body = exchange.json
            if "options" in body:
                self.check("FreezeFactoryOptions", body["options"])
            if url.endswith("/legal-actions"):
                for action in body["actions"]:
                    self.check("FreezeFactoryAction", action)
            elif url.partition("?")[0].endswith("/log"):
                for entry in body["entries"]:
                    self.check("FreezeFactoryAction", entry["action"])
            elif "view" in body:
                self.check("FreezeFactoryView", body["view"])
        return exchange.response

    def check(self, name: str, value: Any) -> None:
        """The value follows the named component schema."""
        if name not in self.validators:
            self.validators[name] = component_validator(self.contract.document, name)
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in self.validators[name].iter_errors(value)]
        assert not errors, f"{name} does not describe {value}: {errors}"
        self.checked[name] += 1


@dataclass
class RockemSockemContract:
    """Sends requests through the checked client, and checks Rock'em Sock'em's parts of every answer."""

    contract: ContractClient
    checked: Counter[str] = field(default_factory=Counter)
    validators: dict[str, OAS31Validator] = field(default_factory=dict)

    def open(self, url: str, method: str = "GET", **kwargs: Any) -> TestResponse:
        """One request, checked against the document; the game's shapes checked against its schemas."""
        exchange = self.contract.call(method, url, request_valid=True, **kwargs)
        if exchange.status in (200, 201):
            body = exchange.json
            if "options" in body:
                self.check("RockemSockemOptions", body["options"])
            if url.endswith("/legal-actions"):
                for action in body["actions"]:
                    self.check("RockemSockemAction", action)
            elif url.partition("?")[0].endswith("/log"):
                for entry in body["entries"]:
                    self.check("RockemSockemLoggedAction", entry["action"])
                    if entry["action"].get("keep", []) is None:
                        self.checked["redacted keep"] += 1
            elif "view" in body:
                self.check("RockemSockemView", body["view"])
                if body["view"]["last_round"] is not None:
                    self.check("RockemSockemLastRound", body["view"]["last_round"])
        return exchange.response

    def check(self, name: str, value: Any) -> None:
        """The value follows the named component schema."""
        if name not in self.validators:
            self.validators[name] = component_validator(self.contract.document, name)
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in self.validators[name].iter_errors(value)]
        assert not errors, f"{name} does not describe {value}: {errors}"
        self.checked[name] += 1


@dataclass
class RobotsLoveIceCreamContract:
    """Sends requests through the checked client, and checks Robots Love Ice Cream's parts of every answer."""

    contract: ContractClient
    checked: Counter[str] = field(default_factory=Counter)
    validators: dict[str, OAS31Validator] = field(default_factory=dict)

    def open(self, url: str, method: str = "GET", **kwargs: Any) -> TestResponse:
        """One request, checked against the document; the game's shapes checked against its schemas."""
        exchange = self.contract.call(method, url, request_valid=True, **kwargs)
        if method == "POST" and url.endswith("/actions"):
            self.check("RobotsLoveIceCreamAction", kwargs["json"]["action"])
        if exchange.status in (200, 201):
            body = exchange.json
            if "options" in body:
                self.check("RobotsLoveIceCreamOptions", body["options"])
            if url.endswith("/legal-actions"):
                for action in body["actions"]:
                    self.check("RobotsLoveIceCreamAction", action)
            elif url.partition("?")[0].endswith("/log"):
                for entry in body["entries"]:
                    self.check("RobotsLoveIceCreamLoggedAction", entry["action"])
                    if entry["action"]["type"] == "keep_drawn" and entry["action"]["cards"] is None:
                        self.checked["hidden keep"] += 1
            elif "view" in body:
                self.check("RobotsLoveIceCreamView", body["view"])
        return exchange.response

    def check(self, name: str, value: Any) -> None:
        """The value follows the named component schema."""
        if name not in self.validators:
            self.validators[name] = component_validator(self.contract.document, name)
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in self.validators[name].iter_errors(value)]
        assert not errors, f"{name} does not describe {value}: {errors}"
        self.checked[name] += 1


# --- the document itself ----------------------------------------------------------------------------
def test_every_route_is_documented_and_nothing_else(app: ParlourApp) -> None:
    served = app_operations(app)
    documented = documented_operations(load_document())
    undocumented = sorted(served - documented)
    unserved = sorted(documented - served)
    assert not undocumented and not unserved, (
        f"\nserved but not in openapi.yaml: {undocumented}\nin openapi.yaml but not served: {unserved}"
    )


def test_document_is_valid_openapi_3_1() -> None:
    document = load_document()
    assert document["openapi"].startswith("3.1")
    validate_openapi(document)
    build_openapi(document)  # openapi-core checks it again and resolves every reference


def test_document_conventions() -> None:
    document = load_document()
    codes = set(document["components"]["schemas"]["ProblemCode"]["enum"])
    operation_ids = []
    for path, method, operation in iter_operations(document):
        where = f"{method} {path}"
        operation_ids.append(operation.get("operationId"))
        assert operation.get("summary") and operation.get("tags"), f"{where}: summary and tags"
        responses = operation["responses"]
        assert "default" not in responses, f"{where}: list every status instead of a default"
        assert "500" in responses, f"{where}: every operation can fail with 500"
        if not path.startswith(("/v1/games", "/v1/openapi.")):
            assert "503" in responses, f"{where}: touches Redis, so it can answer 503"
        if "{match_id}" in path:
            assert "404" in responses, f"{where}: the match may not exist"
        if "requestBody" in operation:
            assert "413" in responses, f"{where}: takes a body, so it can be too large"
            schema = resolve(document, operation["requestBody"]["content"]["application/json"]["schema"])
            assert schema.get("additionalProperties") is False, f"{where}: the server refuses unknown fields"
        for status, response in responses.items():
            response = resolve(document, response)
            listed = response.get("x-problem-codes")
            if int(status) >= 400 and PROBLEM_JSON in response.get("content", {}):
                assert listed, f"{where} {status}: list the problem codes in x-problem-codes"
            assert set(listed or ()) <= codes, f"{where} {status}: codes missing from ProblemCode: {listed}"
    assert None not in operation_ids and len(set(operation_ids)) == len(operation_ids), "unique operationIds"


def test_problem_codes_cover_the_servers_error_classes() -> None:
    codes = set(load_document()["components"]["schemas"]["ProblemCode"]["enum"])
    classes: list[type] = [Refusal]
    declared = set()
    while classes:
        cls = classes.pop()
        classes.extend(cls.__subclasses__())
        if isinstance(cls.__dict__.get("code"), str):
            declared.add(cls.__dict__["code"])
    declared |= {IllegalAction.code, NotYourTurn.code, MatchOver.code}
    assert declared <= codes, f"codes the server uses but the document lacks: {sorted(declared - codes)}"


def iter_examples(document: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """(where, pointer of the schema, example value) for every example in the document."""
    found = []
    for path, method, operation in iter_operations(document):
        bodies = [("request", operation.get("requestBody", {}))]
        bodies += [(status, resolve(document, r)) for status, r in operation["responses"].items()]
        for label, holder in bodies:
            for media, content in resolve(document, holder).get("content", {}).items():
                schema = content.get("schema")
                if schema is None:
                    continue
                pointer = _pointer_of(document, path, method, label, media, holder, schema)
                values = [content["example"]] if "example" in content else []
                values += [resolve(document, e)["value"] for e in content.get("examples", {}).values()]
                found += [(f"{method} {path} {label} {media}", pointer, value) for value in values]
    for name, schema in document["components"]["schemas"].items():
        schemas = [(f"schema {name}", f"/components/schemas/{name}", schema)]
        schemas += [
            (f"schema {name}.{prop}", f"/components/schemas/{name}/properties/{prop}", sub)
            for prop, sub in schema.get("properties", {}).items()
        ]
        for where, pointer, sub in schemas:
            assert "example" not in sub, f"{where}: OpenAPI 3.1 schemas take `examples` (a list)"
            found += [(where, pointer, value) for value in sub.get("examples", [])]
    return found


def _pointer_of(
    document: dict[str, Any], path: str, method: str, label: str, media: str, holder: dict[str, Any], schema: Any
) -> str:
    """The JSON pointer of a media type's schema (following a response `$ref` to its component)."""
    if "$ref" in schema:
        return str(schema["$ref"])[1:]
    escaped = path.replace("~", "~0").replace("/", "~1")
    media_escaped = media.replace("~", "~0").replace("/", "~1")
    if label == "request":
        return f"/paths/{escaped}/{method.lower()}/requestBody/content/{media_escaped}/schema"
    response = document["paths"][path][method.lower()]["responses"][label]
    if "$ref" in response:
        return f"{response['$ref'][1:]}/content/{media_escaped}/schema"
    return f"/paths/{escaped}/{method.lower()}/responses/{label}/content/{media_escaped}/schema"


def measured_ratings(entry: dict[str, Any]) -> dict[str, Any]:
    """A catalog entry's measured level ratings: an example shows them as one measurement gave them (they change
    with each `lab.level_ratings` run), so it is compared with the served entry apart from them."""
    return {key: entry[key] for key in ("level_ratings", "level_ratings_measured")}


def test_examples_match_their_schemas() -> None:
    document = load_document()
    examples = iter_examples(document)
    assert len(examples) > 20
    for where, pointer, value in examples:
        errors = [
            f"{list(e.absolute_path)}: {e.message}" for e in pointer_validator(document, pointer).iter_errors(value)
        ]
        assert not errors, f"{where}: example does not match its schema: {errors}"
        if isinstance(value, dict) and value.get("seed") and value.get("seed_commitment"):
            assert hashlib.sha256(value["seed"].encode()).hexdigest() == value["seed_commitment"], where
    for name in ("RunningMatch", "FinishedMatch"):
        view = document["components"]["examples"][name]["value"]["view"]
        assert not list(component_validator(document, "IceCreamView").iter_errors(view)), name


def test_icecream_examples_are_real_positions() -> None:
    """The examples show what the engine really gives for the winning line with seed `s`."""
    examples = load_document()["components"]["examples"]
    game = get_game("icecream")
    assert game is not None
    after_one = game.replay(2, {}, "s", WINNING_LINE[:1])
    assert examples["RunningMatch"]["value"]["view"] == after_one.view(0)
    for name, state in (("RunningMatch", after_one), ("FinishedMatch", game.replay(2, {}, "s", WINNING_LINE))):
        example = examples[name]["value"]
        assert example["to_act"] == list(state.acting_seats()) and example["waiting_for"] == list(state.waiting_for())
    finished = game.replay(2, {}, "s", WINNING_LINE)
    example = examples["FinishedMatch"]["value"]
    result = finished.result()
    assert result is not None and example["result"] == result.to_json()
    assert example["view"] == finished.view(None) and example["version"] == len(WINNING_LINE)
    logged = [(entry["seat"], entry["action"]) for entry in examples["FinishedLog"]["value"]["entries"]]
    assert logged == WINNING_LINE[: len(logged)]
    legal_actions = load_document()["paths"]["/v1/matches/{match_id}/legal-actions"]["get"]["responses"]["200"]
    listed = legal_actions["content"]["application/json"]["examples"]["toMove"]["value"]
    assert listed["actions"] == after_one.legal_actions(listed["seat"])


def sundae_split_examples() -> dict[str, Any]:
    """The document's Sundae Split examples, by name."""
    document = load_document()
    paths = document["paths"]
    legal = paths["/v1/matches/{match_id}/legal-actions"]["get"]["responses"]["200"]["content"]
    actions = paths["/v1/matches/{match_id}/actions"]["post"]
    requests = actions["requestBody"]["content"]["application/json"]["examples"]
    refused = actions["responses"]["422"]["content"]["application/problem+json"]["examples"]
    named = document["components"]["examples"]
    return {
        "split": legal["application/json"]["examples"]["split"]["value"],
        "choose": legal["application/json"]["examples"]["choose"]["value"],
        "split_request": requests["sundaeSplit"]["value"],
        "choice_request": requests["sundaeSplitChoice"]["value"],
        "illegal_split": refused["illegalSplit"]["value"],
        "game": named["SundaeSplitGame"]["value"],
        "match": named["SundaeSplitMatch"]["value"],
        "log": named["SundaeSplitLog"]["value"],
    }


def test_sundae_split_examples_are_real_positions() -> None:
    """The Sundae Split examples show what the engine really gives for 3 players and seed `sundae`."""
    examples = sundae_split_examples()
    game = get_game("sundae_split")
    assert game is not None
    start = game.start(3, {}, SUNDAE_SEED)
    split = examples["split"]
    assert start.acting_seats() == (split["seat"],) and split["version"] == 0
    assert {key: split[key] for key in ("kind", "schema", "constraints", "example")} == start.action_space(0)

    line = [(0, examples["split_request"]["action"]), (1, examples["choice_request"]["action"])]
    assert [examples["split_request"]["expected_version"], examples["choice_request"]["expected_version"]] == [0, 1]
    after_split = game.replay(3, {}, SUNDAE_SEED, line[:1])
    choose = examples["choose"]
    assert after_split.acting_seats() == (choose["seat"],) and choose["version"] == 1
    assert choose["actions"] == after_split.legal_actions(choose["seat"])

    after_choice = game.replay(3, {}, SUNDAE_SEED, line)
    match = examples["match"]
    assert match["view"] == after_choice.view(match["viewer"]) and match["version"] == len(line)
    assert match["to_act"] == list(after_choice.acting_seats()) and match["options"] == after_choice.options
    assert match["waiting_for"] == list(after_choice.waiting_for())
    log = examples["log"]
    assert [(e["seat"], e["version"]) for e in log["entries"]] == [(0, 1), (1, 2)] and log["viewer"] is None
    shown = [after_choice.redact_action(seat, action, log["viewer"]) for seat, action in line]
    assert [e["action"] for e in log["entries"]] == shown
    assert None in shown[0]["piles"][0]["face_down"], "the example shows a hidden card"
    for example in (match, log):
        assert example["seed_commitment"] == hashlib.sha256(SUNDAE_SEED.encode()).hexdigest()

    cards = split["constraints"]["cards"]
    five_in_pile_0 = [(cards[3:5], cards[0:3]), (cards[5:7], []), (cards[7:8], [])]
    with pytest.raises(IllegalAction) as refused:
        start.clone().play(0, {"type": "split", "piles": [{"face_up": u, "face_down": d} for u, d in five_in_pile_0]})
    assert examples["illegal_split"]["detail"] == refused.value.reason

    entry = catalog_entry(game)
    catalog = examples["game"]
    assert {**catalog, "assumptions": entry["assumptions"], **measured_ratings(entry)} == entry
    assert all(assumption in entry["assumptions"] for assumption in catalog["assumptions"])


def test_freeze_factory_examples_are_real_positions() -> None:
    """The Freeze Factory examples show what the engine gives for 2 players, seed `freeze-0`."""
    document = load_document()
    paths, named = document["paths"], document["components"]["examples"]
    legal = paths["/v1/matches/{match_id}/legal-actions"]["get"]["responses"]["200"]["content"]["application/json"]
    actions = paths["/v1/matches/{match_id}/actions"]["post"]
    requests = actions["requestBody"]["content"]["application/json"]["examples"]
    refused = actions["responses"]["422"]["content"]["application/problem+json"]["examples"]
    game = get_game("freeze_factory")
    assert game is not None
    state = game.replay(2, {}, CLAIM_SEED, CLAIM_LINE)

    match = named["FreezeFactoryMatch"]["value"]
    assert match["view"] == state.view(match["viewer"]) and match["version"] == len(CLAIM_LINE)
    assert match["to_act"] == list(state.acting_seats()) == [0, 1] and match["waiting_for"] == list(state.waiting_for())
    assert match["options"] == state.options
    assert match["seed_commitment"] == hashlib.sha256(CLAIM_SEED.encode()).hexdigest()
    freeze = legal["examples"]["freeze"]["value"]
    assert freeze["version"] == len(CLAIM_LINE) and freeze["actions"] == state.legal_actions(freeze["seat"])
    claim = requests["freezeFactoryClaim"]["value"]
    assert claim == {"action": {"type": "freeze", "cone": CLAIMED_CONE}, "expected_version": len(CLAIM_LINE)}
    slide = requests["freezeFactorySlide"]["value"]
    assert (0, slide["action"]) == CLAIM_LINE[slide["expected_version"]]

    with pytest.raises(IllegalAction) as refusal:
        game.start(2, {}, CLAIM_SEED).play(1, {"type": "freeze", "cone": 3})
    assert refused["illegalFreeze"]["value"]["detail"] == refusal.value.reason

    entry = catalog_entry(game)
    catalog = named["FreezeFactoryGame"]["value"]
    assert {**catalog, "assumptions": entry["assumptions"], **measured_ratings(entry)} == entry
    assert all(assumption in entry["assumptions"] for assumption in catalog["assumptions"])


def test_rockem_sockem_examples_are_real_positions() -> None:
    """The Rock'em Sock'em examples show what the engine gives for rounds mode, seed `robots`."""
    document = load_document()
    paths, named = document["paths"], document["components"]["examples"]
    legal = paths["/v1/matches/{match_id}/legal-actions"]["get"]["responses"]["200"]["content"]["application/json"]
    actions = paths["/v1/matches/{match_id}/actions"]["post"]
    requests = actions["requestBody"]["content"]["application/json"]["examples"]
    refused = actions["responses"]["422"]["content"]["application/problem+json"]["examples"]
    game = get_game("rockem_sockem")
    assert game is not None
    state = game.replay(2, {}, ROCKEM_SOCKEM_SEED, ROCKEM_SOCKEM_LINE)

    match = named["RockemSockemMatch"]["value"]
    assert match["view"] == state.view(match["viewer"]) and match["version"] == len(ROCKEM_SOCKEM_LINE)
    assert match["viewer"] == 1 and match["view"]["my_keep"] is None and state.view(0)["my_keep"] == [0, 2]
    assert match["to_act"] == list(state.acting_seats()) == [1] and match["waiting_for"] == list(state.waiting_for())
    assert match["options"] == state.options
    log = named["RockemSockemLog"]["value"]
    assert [(e["version"], e["seat"]) for e in log["entries"]] == [(1, 0), (2, 0), (3, 1), (4, 0)]
    shown = state.redact_log(ROCKEM_SOCKEM_LINE, log["viewer"])  # the log hides only the pending roll
    assert [e["action"] for e in log["entries"]] == shown and shown[-1] == {"type": "roll", "keep": None}
    assert shown[1] == ROCKEM_SOCKEM_LINE[1][1], "the first step is resolved, its roll shown"
    for example in (match, log):
        assert example["seed_commitment"] == hashlib.sha256(ROCKEM_SOCKEM_SEED.encode()).hexdigest()

    roll = legal["examples"]["rockemSockemRoll"]["value"]
    assert roll["version"] == len(ROCKEM_SOCKEM_LINE) and roll["actions"] == state.legal_actions(roll["seat"])
    assert requests["rockemSockemFlip"]["value"] == {"action": FLIP}
    assert requests["rockemSockemRoll"]["value"] == {"action": ROCKEM_SOCKEM_LINE[-1][1]}  # unpinned
    with pytest.raises(IllegalAction) as refusal:
        state.clone().play(1, {"type": "roll", "keep": [0, 1, 2, 3]})
    assert refused["illegalKeep"]["value"]["detail"] == refusal.value.reason

    entry = catalog_entry(game)
    catalog = named["RockemSockemGame"]["value"]
    assert {**catalog, "assumptions": entry["assumptions"], **measured_ratings(entry)} == entry
    assert all(assumption in entry["assumptions"] for assumption in catalog["assumptions"])
    options = document["components"]["schemas"]["RockemSockemOptions"]["properties"]
    assert options["mode"]["enum"] == entry["options"][0]["choices"] and options["mode"]["default"] == "rounds"


def robots_love_ice_cream_examples() -> dict[str, Any]:
    """The document's Robots Love Ice Cream examples, by name."""
    document = load_document()
    paths, named = document["paths"], document["components"]["examples"]
    legal = paths["/v1/matches/{match_id}/legal-actions"]["get"]["responses"]["200"]["content"]["application/json"]
    actions = paths["/v1/matches/{match_id}/actions"]["post"]
    requests = actions["requestBody"]["content"]["application/json"]["examples"]
    refused = actions["responses"]["422"]["content"]["application/problem+json"]["examples"]
    created = paths["/v1/matches"]["post"]["requestBody"]["content"]["application/json"]["examples"]
    return {
        "game": named["RobotsLoveIceCreamGame"]["value"],
        "match": named["RobotsLoveIceCreamMatch"]["value"],
        "log": named["RobotsLoveIceCreamLog"]["value"],
        "attacks": legal["examples"]["robotsLoveIceCreamAttack"]["value"],
        "keep_request": requests["robotsLoveIceCreamKeep"]["value"],
        "attack_request": requests["robotsLoveIceCreamAttack"]["value"],
        "illegal_attack": refused["illegalAttack"]["value"],
        "create": created["robotsLoveIceCream"]["value"],
        "options": document["components"]["schemas"]["RobotsLoveIceCreamOptions"],
    }


def test_robots_love_ice_cream_examples_are_real_positions() -> None:
    """The Robots Love Ice Cream examples show what the engine gives for 2 players, seed `robots-9`."""
    examples = robots_love_ice_cream_examples()
    document = load_document()
    game = get_game("robots_love_ice_cream")
    assert game is not None
    state = game.replay(2, {}, ROBOTS_SEED, ROBOTS_LINE)

    match = examples["match"]
    assert match["view"] == state.view(match["viewer"]) and match["version"] == len(ROBOTS_LINE)
    assert match["viewer"] == 1 and match["view"]["seats"][0]["hand"] is None and state.view(0)["seats"][0]["hand"]
    assert match["view"]["drawn"] == state.view(1)["drawn"] and state.view(0)["drawn"] is None
    assert match["to_act"] == list(state.acting_seats()) == [1] and match["waiting_for"] == list(state.waiting_for())
    assert match["options"] == state.options
    log = examples["log"]
    assert [(e["version"], e["seat"]) for e in log["entries"]] == [(1, 0), (2, 0), (3, 0)] and log["viewer"] is None
    shown = [state.redact_action(seat, action, log["viewer"]) for seat, action in ROBOTS_LINE]
    assert [e["action"] for e in log["entries"]] == shown and shown[0] == {"type": "keep_drawn", "cards": None}
    for example in (match, log):
        assert example["seed_commitment"] == hashlib.sha256(ROBOTS_SEED.encode()).hexdigest()

    after_keep = game.replay(2, {}, ROBOTS_SEED, ROBOTS_LINE[:1])
    attacks = examples["attacks"]
    assert attacks["version"] == 1 and attacks["actions"] == after_keep.legal_actions(attacks["seat"])
    assert attacks["ends_turn"] == after_keep.action_space(attacks["seat"])["ends_turn"] == [False, False, True]
    for name, version in (("keep_request", 0), ("attack_request", 1)):
        request = examples[name]
        assert request["expected_version"] == version and (0, request["action"]) == ROBOTS_LINE[version]
    with pytest.raises(IllegalAction) as refusal:
        after_keep.clone().play(0, ROBOTS_ILLEGAL_ATTACK)
    assert examples["illegal_attack"]["detail"] == refusal.value.reason

    # The shapes the examples show follow the game's own schemas.
    for name, value in (
        ("RobotsLoveIceCreamView", match["view"]),
        ("RobotsLoveIceCreamOptions", match["options"]),
        *(("RobotsLoveIceCreamLoggedAction", entry["action"]) for entry in log["entries"]),
        *(("RobotsLoveIceCreamAction", action) for action in attacks["actions"]),
    ):
        errors = [e.message for e in component_validator(document, name).iter_errors(value)]
        assert not errors, f"{name} does not describe {value}: {errors}"

    entry = catalog_entry(game)
    catalog = examples["game"]
    assert {**catalog, "assumptions": entry["assumptions"], "cards": entry["cards"], **measured_ratings(entry)} == entry
    assert all(assumption in entry["assumptions"] for assumption in catalog["assumptions"])
    assert all(card in entry["cards"] for card in catalog["cards"])
    options = examples["options"]["properties"]
    defaults = {option["name"]: option["default"] for option in entry["options"]}
    assert {name: spec["default"] for name, spec in options.items()} == defaults
    assert options["solo_planets"]["enum"] == entry["options"][0]["choices"]
    assert set(examples["create"]["options"]) <= set(options)


# --- scenarios: each drives the server through the checked client ----------------------------------
def scenario_catalog(contract: ContractClient) -> None:
    """The catalog and health."""
    contract.get("/v1/health", expect=200, request_valid=True)
    games = contract.get("/v1/games", expect=200, request_valid=True).json["items"]
    assert "icecream" in [game["id"] for game in games]
    entry = contract.get("/v1/games/icecream", expect=200, request_valid=True).json
    assert entry in games
    contract.get("/v1/games/chess", expect=404, request_valid=True)
    spec = contract.get("/v1/openapi.yaml", expect=200, request_valid=True).response.get_data(as_text=True)
    assert contract.get("/v1/openapi.json", expect=200, request_valid=True).json == yaml.safe_load(spec)
    contract.get("/v1/no-such-thing", expect=404)
    contract.call("DELETE", "/v1/matches", expect=405)


def scenario_full_match(contract: ContractClient) -> None:
    """An IceCream match from creation to a win, every read and write along the way."""
    body = created(contract, seed="s", options={"first_player_flavour": "yellow"})
    assert body["status"] == "active" and body["open_seats"] == []
    assert body["seed_commitment"] == hashlib.sha256(b"s").hexdigest()
    match_id, tokens = body["id"], tokens_of(body)
    url = f"/v1/matches/{match_id}"

    public = contract.get(url, expect=200, request_valid=True)
    assert public.json["viewer"] is None and public.response.headers["ETag"] == '"0"'
    check_icecream_view(contract, public.json)
    seat_view = contract.get(f"{url}?seat=1", headers=bearer(tokens[1]), expect=200, request_valid=True).json
    assert seat_view["viewer"] == 1
    contract.get(url, headers={"If-None-Match": '"0"'}, expect=304, request_valid=True)
    contract.get(url, headers={"If-None-Match": '"7", "0"', **bearer(tokens[0])}, expect=304, request_valid=True)

    contract.get(f"{url}/replay/0", expect=409, request_valid=True)  # its seed is still secret
    contract.get(f"{url}/export", expect=409, request_valid=True)
    for step, (seat, action) in enumerate(WINNING_LINE):
        headers = bearer(tokens[seat])
        legal = contract.get(f"{url}/legal-actions", headers=headers, expect=200, request_valid=True).json
        assert legal["may_act"] and legal["kind"] == "enumerated" and action in legal["actions"]
        check_icecream_actions(contract, legal["actions"])
        idle = contract.get(f"{url}/legal-actions", headers=bearer(tokens[1 - seat]), expect=200).json
        assert idle["may_act"] is False and idle["actions"] == []
        if step % 2:
            headers = {**headers, "Idempotency-Key": f"step-{step}"}
        request = {"action": action, "expected_version": legal["version"]}
        answer = contract.post(
            f"{url}/actions?seat={seat}", json=request, headers=headers, expect=200, request_valid=True
        )
        assert answer.json["version"] == step + 1 and answer.json["viewer"] == seat
        assert answer.response.headers["ETag"] == f'"{step + 1}"'
        check_icecream_view(contract, answer.json)
        if step < len(WINNING_LINE) - 1:
            running_log = contract.get(f"{url}/log", expect=200, request_valid=True).json
            assert running_log["seed"] is None and len(running_log["entries"]) == step + 1

    final = contract.get(url, expect=200, request_valid=True).json
    assert final["status"] == "finished" and final["to_act"] == []
    assert final["result"]["winners"] == [0] and final["seed"] == "s"
    assert hashlib.sha256(final["seed"].encode("utf-8")).hexdigest() == final["seed_commitment"]
    done = contract.get(f"{url}/legal-actions", headers=bearer(tokens[0]), expect=200, request_valid=True).json
    assert done["may_act"] is False

    log = contract.get(f"{url}/log?seat=0", headers=bearer(tokens[0]), expect=200, request_valid=True).json
    assert log["viewer"] == 0 and log["seed"] == "s"
    last = contract.get(f"{url}/replay/{len(WINNING_LINE)}", expect=200, request_valid=True).json
    assert last["view"] == final["view"] and last["result"] == final["result"] and last["entry"] is not None
    assert contract.get(f"{url}/replay/0?seat=1", expect=200, request_valid=True).json["viewer"] == 1
    contract.get(f"{url}/replay/{len(WINNING_LINE) + 1}", expect=404, request_valid=True)
    contract.get(f"{url}/replay/0?seat=9", expect=400)
    exported = contract.get(f"{url}/export", expect=200, request_valid=True).json
    assert exported["log"] == log["entries"] and exported["result"] == final["result"]
    contract.get("/v1/matches/nope/export", expect=404, request_valid=True)
    assert [entry["version"] for entry in log["entries"]] == list(range(1, len(WINNING_LINE) + 1))
    # What the document promises: the seed and the log replay the match to the same result.
    game = get_game(final["game"])
    assert game is not None
    moves = [(entry["seat"], entry["action"]) for entry in log["entries"]]
    replayed = game.replay(final["players"], final["options"], log["seed"], moves)
    result = replayed.result()
    assert result is not None and result.to_json() == final["result"]
    assert replayed.view(None) == final["view"]

    listed = contract.get("/v1/matches?game=icecream&status=finished", expect=200, request_valid=True).json
    assert match_id in [item["id"] for item in listed["items"]]


def scenario_draw_by_turn_limit(contract: ContractClient) -> None:
    """A match ended by the turn limit, played by taking the first legal action."""
    body = created(contract, options={"turn_limit": 3, "first_player_flavour": "green"}, seed=12345)
    assert body["seed_commitment"] == hashlib.sha256(b"12345").hexdigest()
    url, tokens = f"/v1/matches/{body['id']}", tokens_of(body)
    match = contract.get(url, expect=200).json
    for _ in range(50):
        if match["status"] == "finished":
            break
        seat = match["to_act"][0]
        legal = contract.get(f"{url}/legal-actions", headers=bearer(tokens[seat]), expect=200).json
        request = {"action": legal["actions"][0], "expected_version": legal["version"]}
        match = contract.post(f"{url}/actions", json=request, headers=bearer(tokens[seat]), expect=200).json
    assert match["status"] == "finished" and match["result"]["draw"] is True and match["seed"] == "12345"
    contract.get(f"{url}/log", expect=200, request_valid=True)


def scenario_lobby(contract: ContractClient) -> None:
    """Open seats, the waiting lobby, joining, and the answers around it."""
    body = created(contract, open_seats=[1])
    assert body["status"] == "waiting" and body["open_seats"] == [1] and list(tokens_of(body)) == [0]
    url, token0 = f"/v1/matches/{body['id']}", tokens_of(body)[0]
    waiting = contract.get(url, expect=200).json
    assert waiting["status"] == "waiting" and waiting["to_act"] == []
    assert [seat["filled"] for seat in waiting["seats"]] == [True, False]
    lobby = contract.get("/v1/matches?status=waiting&limit=10", expect=200, request_valid=True).json
    assert {"id": body["id"], "open_seats": [1]}.items() <= next(
        i for i in lobby["items"] if i["id"] == body["id"]
    ).items()
    legal = contract.get(f"{url}/legal-actions", headers=bearer(token0), expect=200).json
    assert legal["may_act"] is False
    problem = contract.post(
        f"{url}/actions", json={"action": MOVE, "expected_version": 0}, headers=bearer(token0), expect=409
    )
    assert problem.json["code"] == "match-not-started"
    assert contract.post(f"{url}/join", json={"seat": 0}, expect=409, request_valid=True).json["code"] == "seat-taken"
    contract.post(f"{url}/join", json={"seat": 5}, expect=400, request_valid=True)  # valid shape, no such seat
    contract.post(f"{url}/join", json={"seat": 1, "colour": "red"}, expect=400, request_valid=False)
    contract.post(f"{url}/join", json={"name": ""}, expect=400, request_valid=False)
    joined = contract.post(f"{url}/join", json={"seat": None, "name": "Ada"}, expect=200, request_valid=True).json
    assert joined == {**joined, "seat": 1, "version": 1, "status": "active", "open_seats": []}
    started = contract.get(url, headers=bearer(joined["token"]), expect=200).json
    assert started["viewer"] == 1 and started["seats"][1]["name"] == "Ada" and started["to_act"] == [0]
    assert contract.post(f"{url}/join", expect=409, request_valid=True).json["code"] == "no-open-seat"

    second = created(contract, open_seats=[0, 1])
    assert second["tokens"] == [] and second["status"] == "waiting"
    first_join = contract.post(f"/v1/matches/{second['id']}/join", expect=200, request_valid=True).json
    assert first_join["seat"] == 0 and first_join["status"] == "waiting" and first_join["open_seats"] == [1]

    page = contract.get("/v1/matches?limit=1", expect=200, request_valid=True).json
    assert len(page["items"]) == 1 and page["next_cursor"]
    rest = contract.get("/v1/matches", query_string={"limit": 1, "cursor": page["next_cursor"]}, expect=200).json
    assert rest["items"] and rest["items"][0]["id"] != page["items"][0]["id"]


def scenario_idempotency(contract: ContractClient) -> None:
    """A retried action replays its first answer; a reused key with another body is refused."""
    body = created(contract)
    url, tokens = f"/v1/matches/{body['id']}", tokens_of(body)
    headers = {**bearer(tokens[0]), "Idempotency-Key": "7d9e-first-move"}
    request = {"action": MOVE, "expected_version": 0}
    first = contract.post(f"{url}/actions", json=request, headers=headers, expect=200, request_valid=True)
    again = contract.post(f"{url}/actions", json=request, headers=headers, expect=200, request_valid=True)
    assert again.json == first.json and again.response.headers["ETag"] == '"1"'
    other = {"action": {**MOVE, "from_cone": 1}, "expected_version": 0}
    reused = contract.post(f"{url}/actions", json=other, headers=headers, expect=422, request_valid=True)
    assert reused.json["code"] == "idempotency-key-reused"


def scenario_errors(contract: ContractClient) -> None:
    """The error answers: each status and code the document lists, provoked for real."""
    body = created(contract, seed="errors")
    match_id, tokens = body["id"], tokens_of(body)
    url = f"/v1/matches/{match_id}"
    other = created(contract)
    other_token = tokens_of(other)[0]
    act = {"action": MOVE, "expected_version": 0}

    # 400: bodies the document refuses too.
    bad: object
    for bad in ({"game": "icecream"}, {"game": "icecream", "players": 2, "bogus": 1}, {"game": "", "players": 2}):
        problem = contract.post("/v1/matches", json=bad, expect=400, request_valid=False).json
        assert problem["errors"], problem
    contract.post("/v1/matches", json={"game": "icecream", "players": 2, "open_seats": ["a"]}, expect=400)
    contract.post("/v1/matches", json=[1, 2], expect=400, request_valid=False)
    contract.post("/v1/matches", data="{not json", content_type="application/json", expect=400, request_valid=False)
    contract.post("/v1/matches", data="", content_type="application/json", expect=400, request_valid=False)
    # 400: well-formed per the document, refused by the game's own rules.
    contract.post("/v1/matches", json={"game": "chess", "players": 2}, expect=400, request_valid=True)
    contract.post("/v1/matches", json={"game": "icecream", "players": 3}, expect=400, request_valid=True)
    contract.post("/v1/matches", json={"game": "icecream", "players": 2, "options": {"x": 1}}, expect=400)
    contract.post("/v1/matches", json={"game": "icecream", "players": 2, "open_seats": [4]}, expect=400)
    for query in ("status=over", "limit=0", "limit=101", "limit=many"):
        contract.get(f"/v1/matches?{query}", expect=400, request_valid=False)
    contract.get("/v1/matches?cursor=abc", expect=400, request_valid=True)  # opaque: only the server can tell
    contract.get("/v1/matches?game=chess", expect=400, request_valid=True)
    contract.get("/v1/matches?sort=new", expect=400)
    contract.get(f"{url}?seat=x", expect=400, request_valid=False)
    contract.get(f"{url}?seat=8", expect=400, request_valid=False)
    contract.get(f"{url}/log?seat=-1", expect=400, request_valid=False)
    contract.get(f"{url}/legal-actions?seat=x", headers=bearer(tokens[0]), expect=400, request_valid=False)
    seat0 = bearer(tokens[0])
    for bad in (
        {"expected_version": 0},
        {"action": [1], "expected_version": 0},
        {**act, "seat": 0},
        {**act, "expected_version": -1},
    ):
        contract.post(f"{url}/actions", json=bad, headers=seat0, expect=400, request_valid=False)
    contract.post(f"{url}/actions", data="", headers=seat0, expect=400, request_valid=False)
    for key in ("", "k" * 201):
        too = {**seat0, "Idempotency-Key": key}
        contract.post(f"{url}/actions", json=act, headers=too, expect=400, request_valid=False)

    # 401: no token where one is needed, or one that is malformed or wrong.
    contract.get(f"{url}/legal-actions", expect=401, request_valid=False)
    contract.post(f"{url}/actions", json=act, expect=401, request_valid=False)
    contract.get(f"{url}?seat=0", expect=401)
    contract.get(url, headers={"Authorization": "Basic dXNlcjpwYXNz"}, expect=401)
    contract.get(f"{url}/log", headers=bearer("not-a-token"), expect=401)
    forged = f"{match_id}.0.{'x' * 43}"
    contract.get(f"{url}/legal-actions", headers=bearer(forged), expect=401)
    contract.post(f"{url}/actions", json=act, headers=bearer(forged), expect=401)

    # 403: a valid token of another match, or of another seat than `seat` names.
    for path in ("", "/legal-actions", "/log"):
        contract.get(f"{url}{path}", headers=bearer(other_token), expect=403, request_valid=True)
    contract.post(f"{url}/actions", json=act, headers=bearer(other_token), expect=403, request_valid=True)
    contract.get(f"{url}?seat=1", headers=seat0, expect=403, request_valid=True)
    contract.get(f"{url}/legal-actions?seat=1", headers=seat0, expect=403, request_valid=True)

    # 404: no such match (or game).
    missing = "/v1/matches/no-such-match"
    for path in ("", "/legal-actions", "/log"):
        contract.get(f"{missing}{path}", headers=seat0, expect=404, request_valid=True)
    contract.post(f"{missing}/actions", json=act, headers=seat0, expect=404, request_valid=True)
    contract.post(f"{missing}/join", json={}, expect=404, request_valid=True)
    contract.get(f"/v1/matches/{'m' * 65}", expect=404)

    # 409 and 422 while the match runs.
    contract.post(f"{url}/actions", json=act, headers=bearer(tokens[1]), expect=409, request_valid=True)
    illegal = {"action": {**MOVE, "scoops": 9}, "expected_version": 0}
    assert contract.post(f"{url}/actions", json=illegal, headers=seat0, expect=422).json["code"] == "illegal-action"
    malformed = {"action": {"type": "jump"}, "expected_version": 0}
    assert contract.post(f"{url}/actions", json=malformed, headers=seat0, expect=422).json["code"] == "illegal-action"
    contract.post(f"{url}/actions", json=act, headers=seat0, expect=200, request_valid=True)
    stale = contract.post(f"{url}/actions", json=act, headers=bearer(tokens[1]), expect=409).json
    assert stale["code"] == "stale-version" and stale["current_version"] == 1
    turn = contract.post(f"{url}/actions", json={**act, "expected_version": 1}, headers=seat0, expect=409).json
    assert turn["code"] == "not-your-turn"
    contract.get(url, headers={"If-None-Match": '"0"'}, expect=200)
    contract.get(url, headers={"If-None-Match": '"1"'}, expect=304)

    # 409 match-over.
    limited = created(contract, options={"turn_limit": 1})
    limited_url, limited_token = f"/v1/matches/{limited['id']}", bearer(tokens_of(limited)[0])
    done = contract.post(f"{limited_url}/actions", json=act, headers=limited_token, expect=200).json
    assert done["status"] == "finished" and done["result"]["draw"] is True
    over = contract.post(
        f"{limited_url}/actions", json={**act, "expected_version": 1}, headers=limited_token, expect=409
    )
    assert over.json["code"] == "match-over"

    # 413: bodies over the limit.
    huge = '{"pad": "' + "x" * (70 * 1024) + '"}'
    contract.post("/v1/matches", data=huge, content_type="application/json", expect=413)
    contract.post(f"{url}/actions", data=huge, content_type="application/json", headers=seat0, expect=413)
    contract.post(f"{url}/join", data=huge, content_type="application/json", expect=413)


def sse_events(text: str) -> list[tuple[str, dict[str, Any]]]:
    """(event name, JSON data) of every event in a Server-Sent Events body; comments skipped."""
    events = []
    for block in text.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
        if "data" in lines:
            events.append((lines.get("event", "message"), json.loads(lines["data"])))
    return events


def check_events(contract: ContractClient, exchange: Exchange) -> list[tuple[str, dict[str, Any]]]:
    """A finished match's event stream: `match` events follow MatchEvent, then one `end` follows EndEvent."""
    events = sse_events(exchange.response.get_data(as_text=True))
    assert events and events[-1][0] == "end", events
    for name, data in events:
        schema = {"match": "MatchEvent", "end": "EndEvent"}[name]
        errors = [e.message for e in component_validator(contract.document, schema).iter_errors(data)]
        assert not errors, f"{schema} does not describe {data}: {errors}"
    return events


def scenario_live_events(contract: ContractClient) -> None:
    """The event stream and the long-poll, with their refusals (streams of a finished match end)."""
    body = created(contract, seed="s", options={"turn_limit": 1})
    url, tokens = f"/v1/matches/{body['id']}", tokens_of(body)
    other_token = tokens_of(created(contract))[0]
    contract.get(f"{url}?wait=0.1&after=0", expect=200, request_valid=True)
    contract.get(f"{url}?wait=0.1&after=0", headers={"If-None-Match": '"0"'}, expect=304, request_valid=True)
    contract.post(f"{url}/actions", json={"action": MOVE, "expected_version": 0}, headers=bearer(tokens[0]), expect=200)
    contract.get(f"{url}?wait=30&after=0&seat=1", headers=bearer(tokens[1]), expect=200, request_valid=True)

    stream = contract.get(f"{url}/events?seat=0", headers=bearer(tokens[0]), expect=200, request_valid=True)
    events = check_events(contract, stream)
    assert [name for name, _ in events] == ["match", "end"] and events[0][1]["match"]["viewer"] == 0
    resumed = contract.get(f"{url}/events?after=0", headers={"Last-Event-ID": "1"}, expect=200, request_valid=True)
    assert [name for name, _ in check_events(contract, resumed)] == ["end"]

    for query in ("after=-1", "after=x", "seat=9"):
        contract.get(f"{url}/events?{query}", expect=400, request_valid=False)
    contract.get(f"{url}/events?since=1", expect=400)
    contract.get(f"{url}/events", headers={"Last-Event-ID": "v1"}, expect=400, request_valid=False)
    for query in ("wait=31&after=0", "wait=-1&after=0", "wait=soon&after=0", "after=-1"):
        contract.get(f"{url}?{query}", expect=400, request_valid=False)
    contract.get(f"{url}?wait=5", expect=400, request_valid=True)  # wait without after: only the server can tell
    contract.get(f"{url}/events", headers=bearer("not-a-token"), expect=401)
    contract.get(f"{url}/events?seat=0", expect=401)
    contract.get(f"{url}/events", headers=bearer(other_token), expect=403, request_valid=True)
    contract.get(f"{url}/events?seat=1", headers=bearer(tokens[0]), expect=403, request_valid=True)
    contract.get("/v1/matches/no-such-match/events", expect=404, request_valid=True)
    contract.get("/v1/matches/no-such-match?wait=1&after=0", expect=404, request_valid=True)


def scenario_pages_and_hygiene(contract: ContractClient) -> None:
    """Log pages and their refusals; bad tokens, odd paths, bad names and bots' names refused; no-store answers."""
    body = created(contract, seed="pages")
    url, tokens = f"/v1/matches/{body['id']}", tokens_of(body)
    for version, (seat, action) in enumerate(WINNING_LINE[:5]):
        request = {"action": action, "expected_version": version}
        contract.post(f"{url}/actions", json=request, headers=bearer(tokens[seat]), expect=200, request_valid=True)
    first = contract.get(f"{url}/log?limit=2", expect=200, request_valid=True).json
    assert [entry["version"] for entry in first["entries"]] == [1, 2] and first["next_after"] == 2
    second = contract.get(first["next"], expect=200, request_valid=True).json
    assert [entry["version"] for entry in second["entries"]] == [3, 4] and second["next"]
    last = contract.get(f"{url}/log?after=4&seat=0", headers=bearer(tokens[0]), expect=200, request_valid=True)
    assert last.json["next"] is None and last.response.headers["Cache-Control"] == "no-store"
    for query in ("after=-1", "after=x", "limit=0", "limit=501", "limit=x"):
        contract.get(f"{url}/log?{query}", expect=400, request_valid=False)
    contract.get(f"{url}/log?cursor=2", expect=400)

    for path in ("", "/legal-actions", "/log", "/events"):
        contract.get(f"{url}{path}", headers=bearer("abc.².secret"), expect=401)
    contract.post(f"{url}/actions", json={"action": MOVE}, headers=bearer("bot.².x"), expect=401)
    contract.get("/v1/matches//legal-actions", headers=bearer(tokens[0]), expect=404)
    contract.get(f"{url}/log/", expect=404)
    contract.post("/v1/matches/", json={"game": "icecream", "players": 2}, expect=404)

    for name in ("\u202eevil", "two\nlines", "<script>alert(1)</script>", " Ada"):
        seats = [{"type": "human", "name": name}, {"type": "open"}]
        request = {"game": "icecream", "players": 2, "seats": seats}
        contract.post("/v1/matches", json=request, expect=400, request_valid=False)
    contract.post(
        "/v1/matches",
        json={"game": "icecream", "players": 2, "seats": [{"type": "human", "name": "a\u2062b"}, {"type": "open"}]},
        expect=400,
    )
    contract.post("/v1/bots", json={"name": "Pagebot"}, expect=201, request_valid=True)
    seats = [{"type": "human", "name": "PAGEBOT"}, {"type": "ai", "level": "easy"}]
    taken = contract.post("/v1/matches", json={"game": "icecream", "players": 2, "seats": seats}, expect=409)
    assert taken.json["code"] == "name-taken"
    lobby = created(contract, open_seats=[1])
    joining = contract.post(f"/v1/matches/{lobby['id']}/join", json={"name": "pagebot"}, expect=409, request_valid=True)
    assert joining.json["code"] == "name-taken"
    contract.post(f"/v1/matches/{lobby['id']}/join", json={"name": "Ada\u202e"}, expect=400, request_valid=False)
    entrants = [{"type": "ai", "level": "easy", "name": "Pagebot"}, {"type": "ai", "level": "random"}]
    tournament = {"game": "sundae_split", "entrants": entrants}
    contract.post("/v1/tournaments", json=tournament, expect=409, request_valid=True)


def scenario_store_down(contract: ContractClient) -> None:
    """With Redis unreachable every endpoint that needs it answers 503 (health in plain JSON)."""
    app = create_app(Settings(redis_url=UNREACHABLE_REDIS, cors_origins=["*"]))
    down = ContractClient(app, app.test_client(), contract.document, contract.seen)
    assert down.get("/v1/health", expect=503).json == {"status": "degraded", "redis": "unavailable"}
    down.get("/v1/games", expect=200)
    url, headers = "/v1/matches/abc", bearer("abc.0.secret")
    down.post("/v1/matches", json={"game": "icecream", "players": 2}, expect=503)
    down.get("/v1/matches", expect=503)
    for path in ("", "/legal-actions", "/log", "/events", "/replay/0", "/export"):
        down.get(f"{url}{path}", headers=headers, expect=503)
    down.post(f"{url}/actions", json={"action": MOVE, "expected_version": 0}, headers=headers, expect=503)
    down.post(f"{url}/join", expect=503)
    down.post(f"{url}/ai-move", headers=headers, expect=503)
    down.get("/v1/jobs/abc", headers=headers, expect=503)


def scenario_internal_errors(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """An unexpected exception anywhere answers a 500 problem."""

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    app = create_app(Settings(redis_url=UNREACHABLE_REDIS, cors_origins=["*"]))
    broken = ContractClient(app, app.test_client(), contract.document, contract.seen)
    store = app.services.store
    with monkeypatch.context() as patch:
        for name in ("ping", "create", "load", "list_ids"):
            patch.setattr(store, name, boom)
        patch.setattr(app.services.quotas.matches, "reserve", boom)
        patch.setattr(app.services.quotas.seats, "reserve", boom)
        patch.setattr("api.catalog.views.all_games", boom)
        patch.setattr("api.catalog.views.get_game", boom)
        broken.get("/v1/health", expect=500)
        broken.get("/v1/games", expect=500)
        broken.get("/v1/games/icecream", expect=500)
        broken.post("/v1/matches", json={"game": "icecream", "players": 2}, expect=500)
        broken.get("/v1/matches", expect=500)
        for path in ("", "/legal-actions", "/log", "/events", "/replay/0", "/export"):
            broken.get(f"/v1/matches/abc{path}", expect=500)
        broken.post("/v1/matches/abc/actions", json={"action": MOVE, "expected_version": 0}, expect=500)
        broken.post("/v1/matches/abc/join", expect=500)
        broken.post("/v1/matches/abc/ai-move", expect=500)
        patch.setattr(app.services.jobs, "fetch", boom)
        broken.get("/v1/jobs/abc", headers=bearer("abc.0.secret"), expect=500)
        patch.setattr("api.web.spec_text", boom)
        patch.setattr("api.web.spec_json_text", boom)
        broken.get("/v1/openapi.yaml", expect=500)
        broken.get("/v1/openapi.json", expect=500)


def scenario_ai(contract: ContractClient) -> None:
    """AI seats, hints and jobs, with no worker running (tests/workers checks finished jobs)."""
    ai_seat = {"type": "ai", "level": "easy"}
    body = created(contract, seed="ai", seats=[{"type": "human", "name": "Ada"}, ai_seat])
    url, token = f"/v1/matches/{body['id']}", tokens_of(body)[0]
    assert list(tokens_of(body)) == [0] and body["status"] == "active"
    seats = contract.get(url, expect=200).json["seats"]
    assert seats[1] == {
        "seat": 1,
        "filled": True,
        "name": None,
        "type": "ai",
        "level": "easy",
        "bot": None,
        "challenge": None,
    }
    asked = contract.post(f"{url}/ai-move", json={}, headers=bearer(token), expect=202, request_valid=True).json
    queued = {"status": "queued", "seat": 0, "version": 0, "level": "medium", "apply": False, "pending": False}
    assert asked == {**asked, **queued}
    job = contract.get(asked["url"], headers=bearer(token), expect=200).json
    assert job == {**job, "status": "queued", "result": None, "error": None, "ended_at": None}
    other = created(contract, assistance="allowed")  # two people: hints only when the creator allows them
    contract.get(asked["url"], expect=401)
    contract.get(asked["url"], headers=bearer(tokens_of(other)[0]), expect=403)
    contract.get("/v1/jobs/no-such-job", headers=bearer(token), expect=404)
    for odd in ("/v1/jobs/8%C2%8C%F2%8F", "/v1/jobs/a%20b", "/v1/jobs/" + "j" * 65, asked["url"] + ":x"):
        contract.get(odd, headers=bearer(token), expect=404)  # ids RQ refuses (a 500 once), or reads as another
    contract.post(f"{url}/ai-move", json={"level": "godlike"}, headers=bearer(token), expect=400, request_valid=False)
    again = contract.post(f"{url}/ai-move", json={"level": "perfect", "apply": True}, headers=bearer(token), expect=202)
    assert again.json == {**asked, "pending": True}  # the seat's request still waits: that job, as it was asked
    assert again.response.headers["Location"] == asked["url"]
    contract.post(f"{url}/ai-move", json={}, expect=401)
    contract.post(f"{url}/ai-move", json={}, headers=bearer(tokens_of(other)[0]), expect=403)
    contract.post("/v1/matches/nope/ai-move", json={}, headers=bearer(token), expect=404)
    refused = contract.post(f"/v1/matches/{other['id']}/ai-move", headers=bearer(tokens_of(other)[1]), expect=409)
    assert refused.json["code"] == "not-your-turn"
    fair = created(contract)  # two people: fair play forbids hints by default
    forbidden = contract.post(f"/v1/matches/{fair['id']}/ai-move", headers=bearer(tokens_of(fair)[0]), expect=403)
    assert forbidden.json["code"] == "assistance-forbidden"
    huge = "[" + "0," * 40_000 + "0]"
    contract.post(f"{url}/ai-move", data=huge, content_type="application/json", headers=bearer(token), expect=413)
    bad = {"game": "sundae_split", "players": 2, "seats": [{"type": "ai", "level": "perfect"}, ai_seat]}
    assert "perfect" in contract.post("/v1/matches", json=bad, expect=400, request_valid=True).json["detail"]


def scenario_bots(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Registering a bot, its profile and policy, its challenges, its seats played with its token, its events."""
    bot = contract.post("/v1/bots", json={"name": "rando"}, expect=201, request_valid=True).json
    other = contract.post("/v1/bots", json={"name": "other"}, expect=201, request_valid=True).json
    assert contract.get(f"/v1/bots/{bot['id']}", expect=200, request_valid=True).json["policy"] == "ask"
    bot_seat = {"type": "bot", "bot": bot["id"]}
    seats = [bot_seat, {"type": "human", "name": "Ada"}]
    body = created(contract, seats=seats, assistance="allowed")  # a bot seat: a server seed; hints allowed
    url, token, human = f"/v1/matches/{body['id']}", bearer(bot["token"]), bearer(tokens_of(body)[1])
    assert list(tokens_of(body)) == [1] and body["status"] == "waiting"
    seats = contract.get(url, headers=token, expect=200, request_valid=True).json["seats"]
    assert seats[0] == {
        "seat": 0,
        "filled": False,
        "name": "rando",
        "type": "bot",
        "level": None,
        "bot": bot["id"],
        "challenge": "pending",
    }
    listed = contract.get(f"/v1/bots/{bot['id']}/challenges?limit=10", headers=token, expect=200, request_valid=True)
    [challenge] = listed.json["items"]
    accept = f"/v1/bots/{bot['id']}/challenges/{challenge['id']}/accept"
    assert contract.post(accept, headers=token, expect=200, request_valid=True).json["status"] == "accepted"
    playing = contract.get(f"/v1/bots/{bot['id']}/matches?status=playing", headers=token, expect=200).json
    assert [(item["match"], item["may_act"]) for item in playing["items"]] == [(body["id"], True)]
    contract.get(f"{url}/legal-actions?seat=0", headers=token, expect=200, request_valid=True)
    contract.get(f"{url}/log", headers=token, expect=200, request_valid=True)
    hint = contract.post(f"{url}/ai-move?seat=0", json={}, headers=token, expect=202, request_valid=True).json
    contract.get(hint["url"], headers=token, expect=200, request_valid=True)
    contract.post(f"{url}/actions", json={"action": MOVE, "expected_version": 1}, headers=token, expect=200)
    events = f"/v1/bots/{bot['id']}/events"
    polled = contract.get(f"{events}?after=0&wait=0", headers=token, expect=200, request_valid=True).json
    assert [event["event"] for event in polled["events"]] == ["challenge", "match-started", "your-turn"]
    contract.get(f"{events}?after=3&wait=0.1", headers=token, expect=200, request_valid=True)
    for _, action in WINNING_LINE[1:]:
        version = contract.get(url, expect=200).json["version"]
        seat_headers = token if contract.get(url, expect=200).json["to_act"] == [0] else human
        contract.post(f"{url}/actions", json={"action": action, "expected_version": version}, headers=seat_headers)
    finished = contract.get(f"{events}?after=3&wait=0", headers=token, expect=200).json["events"]
    assert finished[-1]["event"] == "match-over" and finished[-1]["data"]["result"]["winners"] == [0]

    # The policy and the cap; a decline; a challenge that ends unanswered; join with a bot token.
    policy = f"/v1/bots/{other['id']}"
    other_token = bearer(other["token"])
    changed = contract.call(
        "PATCH", policy, json={"max_matches": 1}, headers=other_token, expect=200, request_valid=True
    )
    assert changed.json["max_matches"] == 1
    declined = created(contract, seats=[{"type": "bot", "bot": other["id"]}, {"type": "human"}])
    decline = f"/v1/bots/{other['id']}/challenges/match-{declined['id']}/decline"
    assert contract.post(decline, headers=other_token, expect=200, request_valid=True).json["status"] == "declined"
    contract.post(decline, headers=other_token, expect=409, request_valid=True)
    accept_late = f"/v1/bots/{other['id']}/challenges/match-{declined['id']}/accept"
    contract.post(accept_late, headers=other_token, expect=409, request_valid=True)
    lobby = created(contract, open_seats=[1])
    joined = contract.post(f"/v1/matches/{lobby['id']}/join", json={}, headers=other_token, expect=200)
    assert joined.json["bot"] == other["id"] and joined.json["token"] is None
    full = {"game": "icecream", "players": 2, "seats": [{"type": "bot", "bot": other["id"]}, {"type": "human"}]}
    assert contract.post("/v1/matches", json=full, expect=409, request_valid=True).json["bot"] == other["id"]
    contract.post(f"/v1/matches/{lobby['id']}/join", json={}, headers=bearer(f"bot.{other['id']}.x"), expect=401)
    anyone = contract.call("PATCH", f"/v1/bots/{bot['id']}", json={"policy": "anyone"}, headers=token, expect=200)
    assert anyone.json["policy"] == "anyone"
    direct = created(contract, seats=[bot_seat, {"type": "human"}])
    assert direct["status"] == "active"

    # Refusals.
    contract.post("/v1/bots", json={"name": "RANDO"}, expect=409, request_valid=True)
    contract.post("/v1/bots", json={"name": "no/slash"}, expect=400, request_valid=False)
    contract.post("/v1/bots", json={}, expect=400, request_valid=False)
    huge = "[" + "0," * 40_000 + "0]"
    contract.post("/v1/bots", data=huge, content_type="application/json", expect=413)
    contract.get("/v1/bots/no-such-bot", expect=404, request_valid=True)
    contract.get("/v1/bots/no-such-bot/events", headers=token, expect=404, request_valid=True)
    contract.get(events, expect=401)
    contract.get(events, headers=human, expect=401)
    contract.get(events, headers=bearer(other["token"]), expect=403, request_valid=True)
    contract.get(f"{events}?wait=1", headers=token, expect=200, request_valid=True)  # no cursor: the snapshot
    contract.get(f"{events}?after=-1", headers=token, expect=400, request_valid=False)
    contract.call("PATCH", policy, json={}, headers=other_token, expect=400, request_valid=False)
    contract.call("PATCH", policy, json={"policy": "never"}, headers=other_token, expect=400, request_valid=False)
    contract.call("PATCH", policy, data=huge, content_type="application/json", headers=other_token, expect=413)
    contract.call("PATCH", policy, json={"policy": "ask"}, expect=401)
    contract.call("PATCH", policy, json={"policy": "ask"}, headers=token, expect=403, request_valid=True)
    contract.call("PATCH", "/v1/bots/nobody", json={"policy": "ask"}, headers=token, expect=404, request_valid=True)
    for path in (f"/v1/bots/{other['id']}/challenges", f"/v1/bots/{other['id']}/matches"):
        contract.get(path, expect=401)
        contract.get(path, headers=token, expect=403, request_valid=True)
        contract.get(f"{path}?limit=0", headers=other_token, expect=400, request_valid=False)
        contract.get(path.replace(other["id"], "nobody"), headers=token, expect=404, request_valid=True)
    contract.get(f"/v1/bots/{other['id']}/challenges?cursor=nope", headers=other_token, expect=400, request_valid=True)
    contract.get(f"/v1/bots/{other['id']}/matches?status=lost", headers=other_token, expect=400)
    for verb in ("accept", "decline"):
        answer = f"/v1/bots/{other['id']}/challenges/match-nope/{verb}"
        contract.post(answer, headers=other_token, expect=404, request_valid=True)
        contract.post(answer, expect=401)
        contract.post(answer, headers=token, expect=403, request_valid=True)
    contract.get(f"/v1/matches/{declined['id']}/legal-actions", headers=token, expect=403, request_valid=True)
    contract.get(f"{url}/legal-actions?seat=1", headers=token, expect=403, request_valid=True)
    unknown = {"game": "icecream", "players": 2, "seats": [{"type": "bot", "bot": "nobody"}, {"type": "human"}]}
    refused = contract.post("/v1/matches", json=unknown, expect=400, request_valid=True).json
    assert refused["errors"] == {"seats": {"0": {"bot": ["no such bot"]}}}

    # Redis down, and a server bug.
    app = create_app(Settings(redis_url=UNREACHABLE_REDIS, cors_origins=["*"]))
    down = ContractClient(app, app.test_client(), contract.document, contract.seen)
    bot_paths = [("GET", "/v1/bots/abc"), ("GET", "/v1/bots/abc/events"), ("GET", "/v1/bots/abc/challenges")]
    bot_paths += [("GET", "/v1/bots/abc/matches"), ("PATCH", "/v1/bots/abc")]
    bot_paths += [
        ("POST", "/v1/bots/abc/challenges/match-x/accept"),
        ("POST", "/v1/bots/abc/challenges/match-x/decline"),
    ]
    down.post("/v1/bots", json={"name": "rando"}, expect=503)
    for method, path in bot_paths:
        down.call(method, path, headers=token, json={"policy": "ask"} if method == "PATCH" else None, expect=503)

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    with monkeypatch.context() as patch:
        for name in ("register", "load"):
            patch.setattr(app.services.store.bots, name, boom)
        patch.setattr(app.services.quotas.bots, "reserve", boom)
        down.post("/v1/bots", json={"name": "rando"}, expect=500)
        for method, path in bot_paths:
            down.call(method, path, headers=token, json={"policy": "ask"} if method == "PATCH" else None, expect=500)


def scenario_sundae_split(contract: ContractClient, players: int) -> SundaeSplitContract:
    """A whole Sundae Split match by one client per seat, then refusals; every answer checked."""
    checked = SundaeSplitContract(contract)
    table = Table.create(checked, players, None, random.Random(players))
    final = table.play()
    assert final["status"] == "finished" and table.recorder.leaks(table.hidden) == []
    catalog = contract.get("/v1/games/sundae_split", expect=200, request_valid=True).json
    assert (catalog["min_players"], catalog["max_players"]) == (2, 5)

    # Refused actions answer problems the document lists.
    table = Table.create(checked, players, "refusals", random.Random(1))
    splitter = table.seats[table.public.read()["view"]["splitter"]]
    chooser = table.seats[(splitter.seat + 1) % players]
    legal = splitter.legal()
    too_big = {"type": "split", "piles": [{"face_up": legal["constraints"]["cards"], "face_down": []}] * players}
    for action, status in ((too_big, 422), ({"type": "choose", "pile": 0}, 422)):
        response = splitter.act(action, legal["version"])
        assert response.status_code == status and response.get_json()["code"] == "illegal-action"
    malformed = {"action": {"type": "split"}, "expected_version": legal["version"]}  # no piles: no game's form
    url, seat = f"/v1/matches/{table.match_id}/actions", bearer(str(splitter.token))
    assert (
        contract.post(url, json=malformed, headers=seat, expect=422, request_valid=False).json["code"]
        == "illegal-action"
    )
    assert chooser.act(legal["example"], legal["version"]).get_json()["code"] == "not-your-turn"
    assert splitter.act(legal["example"], legal["version"]).status_code == 200
    assert chooser.act({"type": "choose", "pile": players}, legal["version"] + 1).status_code == 422
    return checked


def scenario_freeze_factory(contract: ContractClient, players: int) -> FreezeFactoryContract:
    """A Freeze Factory match (shortened by turn_limit) by one client per seat, a claim, refusals."""
    checked = FreezeFactoryContract(contract)
    table = FreezeFactoryTable.create(checked, players, f"contract-{players}", turn_limit=10)
    final = table.play(limit=1000)
    assert final["status"] == "finished" and leaks(table.answers, table.flavours_of) == []
    checked.open(f"/v1/matches/{table.match_id}/log")
    catalog = contract.get("/v1/games/freeze_factory", expect=200, request_valid=True).json
    assert [option["name"] for option in catalog["options"]] == [
        "auto_freeze",
        "turn_limit",
        "starting_hand",
        "start_layout",
        "shuffle_start",
        "fulfil_any_line",
    ]

    # The die's symbol (seed `symbol-11`): the extra-cone phase and the seat's choice, as documented.
    symbol = FreezeFactoryTable.create(checked, 2, SYMBOL_SEED)
    assert symbol.send(0, {"type": "roll"}, 0)["view"]["phase"] == "extra_cone"
    assert symbol.seats[0].legal()["actions"] == [{"type": "take_cone"}, {"type": "leave_cone"}]
    assert symbol.send(0, {"type": "take_cone"}, 1)["view"]["hand_counts"] == [2, 1]

    # A claim out of turn, then refusals: each answer a documented problem.
    table = claim_position(checked)
    claimant, active = table.seats[1], table.seats[0]
    version = len(CLAIM_LINE)
    running = contract.get(f"/v1/matches/{table.match_id}", headers=bearer(table.tokens[1]), expect=200).json
    assert running["to_act"] == [0, 1] and running["waiting_for"] == [0]
    checked.open(f"/v1/matches/{table.match_id}/log")
    assert claimant.act({"type": "slide", "space": [0, 0], "direction": "right"}, version).status_code == 422
    assert claimant.act({"type": "freeze", "cone": CLAIMED_CONE}, version).status_code == 200
    assert claimant.act({"type": "freeze", "cone": CLAIMED_CONE}, version).status_code == 409
    assert active.act({"type": "slide", "space": [0, 0], "direction": "up"}, version + 1).status_code == 422
    return checked


def scenario_rockem_sockem(contract: ContractClient, mode: str) -> RockemSockemContract:
    """A whole Rock'em Sock'em match by one client per seat, a hidden keep, refusals; every answer checked."""
    checked = RockemSockemContract(contract)
    table = RockemSockemTable.create(lambda: checked, mode, f"contract-{mode}")
    zero, one, public = table.client(0), table.client(1), table.client(None)
    assert one.act(FLIP)[1]["code"] == "not-your-turn"
    assert zero.act({"type": "roll", "keep": []})[1]["code"] == "illegal-action"
    assert zero.act(FLIP)[0] == 200
    assert one.act({"type": "roll", "keep": [0]})[1]["code"] == "illegal-action"
    assert zero.act({"type": "roll", "keep": []})[0] == 200
    if mode == "rounds":
        assert zero.act({"type": "roll", "keep": []})[1]["code"] == "not-your-turn"  # one answer per step
        public.get("/log")  # seat 0's keep shown as null
        assert one.get("/legal-actions")["may_act"] and not zero.get("/legal-actions")["may_act"]
    final = table.play_in_turn()
    assert final["status"] == "finished" and final["result"]["winners"]
    table.check_against_replay(final)
    assert zero.act(FLIP)[1]["code"] == "match-over"
    stale = RockemSockemTable.create(lambda: checked, mode, f"contract-stale-{mode}")
    assert stale.client(0).act(FLIP, expected_version=0)[0] == 200
    assert stale.client(1).act({"type": "roll", "keep": []}, expected_version=0)[1]["code"] == "stale-version"
    catalog = contract.get("/v1/games/rockem_sockem", expect=200, request_valid=True).json
    assert [option["name"] for option in catalog["options"]] == ["mode"]
    return checked


def scenario_robots_love_ice_cream(
    contract: ContractClient, players: int, policy: str, options: dict[str, Any]
) -> RobotsLoveIceCreamContract:
    """A whole Robots Love Ice Cream match by one client per seat, then refusals; every answer checked."""
    checked = RobotsLoveIceCreamContract(contract)
    table = RobotsTable.create(checked, players, f"contract-{players}", policy, **options)
    final = table.play()
    check_result(final)
    assert table.check_against_replay(final) > len(table.moves) * (players + 1)
    over = table.seats[0].act({"type": "end_turn"}, final["version"])
    assert over.status_code == 409 and over.get_json()["code"] == "match-over"
    catalog = contract.get("/v1/games/robots_love_ice_cream", expect=200, request_valid=True).json
    assert [option["name"] for option in catalog["options"]][:2] == ["solo_planets", "harder_robots"]

    # The examples' line, with refusals: each answer a documented problem.
    examples = robots_love_ice_cream_examples()
    contract.post("/v1/matches", json=examples["create"], expect=201, request_valid=True)
    line = RobotsTable.create(checked, 2, ROBOTS_SEED)
    first, second = line.seats
    keep = examples["keep_request"]
    assert second.act(keep["action"], 0).get_json()["code"] == "not-your-turn"
    assert first.act(keep["action"], keep["expected_version"]).status_code == 200
    assert first.act(keep["action"], 0).get_json()["code"] == "stale-version"
    refused = first.act(ROBOTS_ILLEGAL_ATTACK, 1)
    assert refused.status_code == 422 and refused.get_json()["detail"] == examples["illegal_attack"]["detail"]
    attack = examples["attack_request"]
    assert first.act(attack["action"], attack["expected_version"]).status_code == 200
    assert first.act({"type": "end_turn"}, 2).status_code == 200
    assert first.read()["view"]["seats"][1]["hand"] is None and second.read()["view"]["drawn"]
    assert line.public is not None
    for player in (first, second, line.public):
        player.log()
    return checked


@pytest.mark.parametrize(
    ("players", "policy", "options"),
    [
        pytest.param(1, "team", {}, id="solo"),
        pytest.param(2, "team", ALL_VARIANTS, id="2p-A-F"),
        pytest.param(2, "team", {"open_hands": True}, id="2p-open"),
        pytest.param(4, "random", {"stop_when_lost": True}, id="4p-until-lost"),
    ],
)
def test_a_robots_love_ice_cream_match(
    contract: ContractClient, players: int, policy: str, options: dict[str, Any]
) -> None:
    checked = scenario_robots_love_ice_cream(contract, players, policy, options)
    assert checked.checked["RobotsLoveIceCreamView"] > 50 and checked.checked["RobotsLoveIceCreamAction"] > 50
    assert checked.checked["RobotsLoveIceCreamLoggedAction"] > 50 and checked.checked["RobotsLoveIceCreamOptions"] > 50
    assert checked.checked["hidden keep"] >= 1


def test_a_drifted_robots_love_ice_cream_document_fails(app: ParlourApp, client: FlaskClient) -> None:
    """The hidden parts (another seat's hand and draw, a hidden keep) are really checked against the schemas."""

    def no_hidden_keep(document: dict[str, Any]) -> None:
        del document["components"]["schemas"]["RobotsLoveIceCreamLoggedAction"]["oneOf"][1]

    def hands_always_shown(document: dict[str, Any]) -> None:
        document["components"]["schemas"]["RobotsLoveIceCreamSeat"]["properties"]["hand"]["type"] = "array"

    for change in (no_hidden_keep, hands_always_shown):
        drifted = RobotsLoveIceCreamContract(ContractClient(app, client, _with(load_document(), change)))
        table = RobotsTable.create(drifted, 2, ROBOTS_SEED)
        assert table.public is not None
        with pytest.raises(AssertionError, match="does not describe"):
            table.seats[0].act(ROBOTS_LINE[0][1], 0)
            table.public.log()


@pytest.mark.parametrize("mode", ["rounds", "realtime"])
def test_a_rockem_sockem_match(contract: ContractClient, mode: str) -> None:
    checked = scenario_rockem_sockem(contract, mode)
    assert checked.checked["RockemSockemView"] > 20 and checked.checked["RockemSockemAction"] > 20
    assert checked.checked["RockemSockemLoggedAction"] > 20 and checked.checked["RockemSockemLastRound"] > 5
    assert checked.checked["RockemSockemOptions"] > 20
    if mode == "rounds":
        assert checked.checked["redacted keep"] >= 1


@pytest.mark.parametrize("players", [2, 4])
def test_a_freeze_factory_match(contract: ContractClient, players: int) -> None:
    checked = scenario_freeze_factory(contract, players)
    assert checked.checked["FreezeFactoryView"] > 20 and checked.checked["FreezeFactoryAction"] > 50
    assert checked.checked["FreezeFactoryOptions"] > 20


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_whole_sundae_split_match(contract: ContractClient, players: int) -> None:
    checked = scenario_sundae_split(contract, players)
    assert checked.checked["SundaeSplitConstraints"] >= 5 and checked.checked["SundaeSplitChoose"] >= 5
    assert checked.checked["SundaeSplitView"] > 20 and checked.checked["SundaeSplitLoggedAction"] > 10


def test_a_drifted_sundae_split_document_fails(app: ParlourApp, client: FlaskClient) -> None:
    """The constructed legal actions and the redacted log are really checked against the document."""

    def no_example(document: dict[str, Any]) -> None:
        constructed = document["components"]["schemas"]["ConstructedActions"]
        del constructed["properties"]["example"]
        constructed["required"].remove("example")

    def no_null_cards(document: dict[str, Any]) -> None:
        logged = document["components"]["schemas"]["SundaeSplitLoggedSplit"]
        logged["properties"]["piles"]["items"]["properties"]["face_down"]["items"] = {"type": "string"}

    for change, message in ((no_example, "does not match openapi.yaml"), (no_null_cards, "does not describe")):
        drifted = SundaeSplitContract(ContractClient(app, client, _with(load_document(), change)))
        with pytest.raises(AssertionError, match=message):
            table = Table.create(drifted, 3, None, random.Random(3))
            table.play()


def test_ai_seats_hints_and_jobs(contract: ContractClient) -> None:
    scenario_ai(contract)


def test_catalog_and_health(contract: ContractClient) -> None:
    scenario_catalog(contract)


def test_a_whole_icecream_match(contract: ContractClient) -> None:
    scenario_full_match(contract)


def test_a_draw_by_turn_limit(contract: ContractClient) -> None:
    scenario_draw_by_turn_limit(contract)


def test_lobby_and_join(contract: ContractClient) -> None:
    scenario_lobby(contract)


def test_idempotent_actions(contract: ContractClient) -> None:
    scenario_idempotency(contract)


def test_error_answers(contract: ContractClient) -> None:
    scenario_errors(contract)


def test_live_events(contract: ContractClient) -> None:
    scenario_live_events(contract)


def test_bots(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario_bots(contract, monkeypatch)


def test_pages_and_hygiene(contract: ContractClient) -> None:
    scenario_pages_and_hygiene(contract)


def test_store_down(contract: ContractClient) -> None:
    scenario_store_down(contract)


def test_internal_errors(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario_internal_errors(contract, monkeypatch)


def scenario_tournaments(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tournaments created, read while running and once finished (competitive and co-op), listed, refused."""
    app = contract.app
    entrants = [{"type": "ai", "level": "random"}, {"type": "ai", "level": "easy"}]
    body = {"game": "rockem_sockem", "entrants": entrants, "seed": "contract", "turn_timer": {"seconds": 30}}
    running = contract.post("/v1/tournaments", json=body, expect=201, request_valid=True).json
    first = contract.get(running["url"], expect=200, request_valid=True).json["matches"][0]["match"]
    assert contract.get(f"/v1/matches/{first}", expect=200).json["tournament"] == running["id"]
    listed = contract.get("/v1/matches?game=rockem_sockem", expect=200).json["items"]
    assert {item["tournament"] for item in listed} == {running["id"]}
    for request in (
        {**body, "game": "sundae_split", "players": 3, "entrants": entrants * 2, "format": "swiss", "rounds": 2},
        {"game": "robots_love_ice_cream", "entrants": entrants, "games_per_pairing": 1},
    ):
        tournament = contract.post("/v1/tournaments", json={**request, "games_per_pairing": 3}, expect=201).json
        while tournament["status"] == "running":
            play_running_matches(app, tournament)
            tournament = contract.get(tournament["url"], expect=200, request_valid=True).json
    contract.get("/v1/tournaments?status=finished&limit=1", expect=200, request_valid=True)
    contract.get("/v1/tournaments", expect=200, request_valid=True)
    contract.get("/v1/tournaments/nope", expect=404, request_valid=True)
    contract.get("/v1/tournaments?status=paused", expect=400, request_valid=False)
    contract.post("/v1/tournaments", json={**body, "entrants": entrants[:1]}, expect=400, request_valid=False)
    contract.post("/v1/tournaments", json={**body, "bogus": 1}, expect=400, request_valid=False)
    contract.post("/v1/tournaments", json={**body, "game": "chess"}, expect=400, request_valid=True)
    huge = "x" * 70_000
    contract.post("/v1/tournaments", data=huge, content_type="application/json", expect=413)
    down_app = create_app(Settings(redis_url=UNREACHABLE_REDIS, cors_origins=["*"]))
    down = ContractClient(down_app, down_app.test_client(), contract.document, contract.seen)
    down.post("/v1/tournaments", json=body, expect=503)
    down.get("/v1/tournaments", expect=503)
    down.get("/v1/tournaments/abc", expect=503)

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    with monkeypatch.context() as patch:
        tournament_store = down_app.services.tournaments.store
        for name in ("create", "load", "list_ids"):
            patch.setattr(tournament_store, name, boom)
        patch.setattr(down_app.services.quotas.tournaments, "reserve", boom)
        down.post("/v1/tournaments", json=body, expect=500)
        down.get("/v1/tournaments", expect=500)
        down.get("/v1/tournaments/abc", expect=500)


def test_tournaments(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario_tournaments(contract, monkeypatch)


def scenario_owners(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Owner tokens: aborting a match, cancelling a tournament; rotating and deleting a bot; chosen seeds refused."""
    app = contract.app
    # Aborting a match that has not started.
    body = created(contract, open_seats=[1])
    assert body["owner_token"].startswith(f"owner.{body['id']}.")
    url, owner = f"/v1/matches/{body['id']}", bearer(body["owner_token"])
    contract.post(f"{url}/abort", expect=401, request_valid=False)
    contract.post(f"{url}/abort", headers=bearer(f"owner.{body['id']}.wrong"), expect=401)
    contract.post(f"{url}/abort", headers=bearer(tokens_of(body)[0]), expect=403, request_valid=True)
    contract.get(url, headers=owner, expect=403, request_valid=True)  # the owner token acts for no seat
    contract.post("/v1/matches/nope/abort", headers=owner, expect=404, request_valid=True)
    aborted = contract.post(f"{url}/abort", headers=owner, expect=200, request_valid=True).json
    assert aborted["status"] == "aborted" and aborted["abort_reason"] and aborted["seed"]
    assert contract.post(f"{url}/abort", headers=owner, expect=409).json["code"] == "match-aborted"
    assert contract.post(f"{url}/join", expect=409, request_valid=True).json["code"] == "match-aborted"
    contract.get("/v1/matches?status=aborted", expect=200, request_valid=True)
    started = created(contract)
    refused = contract.post(f"/v1/matches/{started['id']}/abort", headers=bearer(started["owner_token"]), expect=409)
    assert refused.json["code"] == "match-started"
    # Seeds only where every seat is the creator's or an AI's.
    seeded = {"game": "sundae_split", "players": 2, "seed": "mine"}
    created(contract, **seeded, seats=[{"type": "human"}, {"type": "ai", "level": "easy"}])
    problem = contract.post("/v1/matches", json={**seeded, "open_seats": [1]}, expect=400, request_valid=True).json
    assert list(problem["errors"]) == ["seed"]

    # Cancelling a tournament.
    bot = contract.post("/v1/bots", json={"name": "owned"}, expect=201, request_valid=True).json
    entrants = [{"type": "ai", "level": "random"}, {"type": "ai", "level": "random"}]
    request = {"game": "rockem_sockem", "entrants": entrants, "parallel": 1}
    tournament = contract.post("/v1/tournaments", json={**request, "games_per_pairing": 3}, expect=201).json
    assert tournament["owner_token"].startswith(f"owner.{tournament['id']}.")
    cancel, holder = f"{tournament['url']}/cancel", bearer(tournament["owner_token"])
    with_bot = {**request, "entrants": [*entrants, {"type": "bot", "bot": bot["id"]}], "seed": "mine"}
    assert list(contract.post("/v1/tournaments", json=with_bot, expect=400, request_valid=True).json["errors"]) == [
        "seed"
    ]
    contract.post(cancel, expect=401, request_valid=False)
    contract.post(cancel, headers=bearer(body["owner_token"]), expect=403, request_valid=True)
    contract.post("/v1/tournaments/nope/cancel", headers=holder, expect=404, request_valid=True)
    play_running_matches(app, tournament)
    cancelled = contract.post(cancel, headers=holder, expect=200, request_valid=True).json
    assert cancelled["status"] == "cancelled"
    assert [m["status"] for m in cancelled["matches"]] == ["finished", "void", "cancelled"]
    contract.get(tournament["url"], expect=200, request_valid=True)
    contract.get("/v1/tournaments?status=cancelled", expect=200, request_valid=True)
    over = contract.post("/v1/tournaments", json={**request, "games_per_pairing": 1}, expect=201).json
    play_running_matches(app, over)
    refused = contract.post(f"{over['url']}/cancel", headers=bearer(over["owner_token"]), expect=409)
    assert refused.json["code"] == "tournament-over"

    # Rotating and deleting a bot's token.
    bot_url, old = f"/v1/bots/{bot['id']}", bearer(bot["token"])
    seat = created(contract, seats=[{"type": "bot", "bot": bot["id"]}, {"type": "human"}])
    contract.post(f"{bot_url}/token", expect=401, request_valid=False)
    other = contract.post("/v1/bots", json={"name": "other-owned"}, expect=201).json
    contract.post(f"{bot_url}/token", headers=bearer(other["token"]), expect=403, request_valid=True)
    contract.post("/v1/bots/nobody/token", headers=old, expect=404, request_valid=True)
    rotated = contract.post(f"{bot_url}/token", headers=old, expect=200, request_valid=True).json
    new = bearer(rotated["token"])
    contract.get(f"/v1/matches/{seat['id']}/legal-actions", headers=old, expect=401)
    contract.get(f"/v1/matches/{seat['id']}/legal-actions", headers=new, expect=200)
    contract.call("DELETE", bot_url, headers=old, expect=401)
    contract.call("DELETE", bot_url, headers=bearer(other["token"]), expect=403, request_valid=True)
    contract.call("DELETE", "/v1/bots/nobody", headers=new, expect=404, request_valid=True)
    deleted = contract.call("DELETE", bot_url, headers=new, expect=200, request_valid=True).json
    assert deleted["aborted_matches"] == [seat["id"]]
    assert contract.get(f"/v1/matches/{seat['id']}", expect=200).json["status"] == "aborted"

    # Redis down, and a server bug.
    down_app = create_app(Settings(redis_url=UNREACHABLE_REDIS, cors_origins=["*"]))
    down = ContractClient(down_app, down_app.test_client(), contract.document, contract.seen)
    down.post("/v1/matches/abc/abort", headers=owner, expect=503)
    down.post("/v1/tournaments/abc/cancel", headers=holder, expect=503)
    down.post("/v1/bots/abc/token", headers=new, expect=503)
    down.call("DELETE", "/v1/bots/abc", headers=new, expect=503)

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    with monkeypatch.context() as patch:
        patch.setattr(down_app.services.store, "load", boom)
        patch.setattr(down_app.services.store.bots, "load", boom)
        patch.setattr(down_app.services.tournaments.store, "load", boom)
        down.post("/v1/matches/abc/abort", headers=owner, expect=500)
        down.post("/v1/tournaments/abc/cancel", headers=holder, expect=500)
        down.post("/v1/bots/abc/token", headers=new, expect=500)
        down.call("DELETE", "/v1/bots/abc", headers=new, expect=500)


def test_owners(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario_owners(contract, monkeypatch)


def contract_on(contract: ContractClient, redis_url: str, limits: LimitSettings) -> ContractClient:
    """Another app (other limits, or another Redis) checked against the same document, its statuses counted."""
    settings = Settings(redis_url=redis_url, cors_origins=["*"], events_heartbeat=EVENTS_HEARTBEAT, limits=limits)
    app = create_app(settings)
    app.testing = True
    return ContractClient(app, app.test_client(), contract.document, contract.seen)


def scenario_limits(contract: ContractClient) -> None:
    """Every limited operation answers 429 rate-limited past its limit, and quota-exceeded past a quota."""
    redis_url = contract.app.services.settings.redis_url
    one = "1/minute"
    rates = replace(
        IN_PROCESS_LIMITS,
        create_match=one,
        create_bot=one,
        create_tournament=one,
        hints=one,
        actions=one,
        streams=one,
        long_polls=one,
        replays=one,
        joins=one,
        pages=one,
        auth_failures=one,
    )
    limited = contract_on(contract, redis_url, rates)
    me: dict[str, Any] = {"environ_base": {"REMOTE_ADDR": "10.1.0.1"}}
    new = {"game": "icecream", "players": 2, "seed": "limits", "assistance": "allowed"}
    body = limited.post("/v1/matches", json=new, expect=201, request_valid=True, **me).json
    limited.post("/v1/matches", json=new, expect=429, request_valid=True, **me)
    url, tokens = f"/v1/matches/{body['id']}", tokens_of(body)
    bot = limited.post("/v1/bots", json={"name": "limited"}, expect=201, request_valid=True, **me).json
    limited.post("/v1/bots", json={"name": "limited-2"}, expect=429, request_valid=True, **me)
    tournament = {"game": "rockem_sockem", "entrants": [{"type": "ai", "level": "random"}] * 2, "seed": "limits"}
    limited.post("/v1/tournaments", json=tournament, expect=201, request_valid=True, **me)
    limited.post("/v1/tournaments", json=tournament, expect=429, request_valid=True, **me)
    hint = limited.post(f"{url}/ai-move", json={}, headers=bearer(tokens[0]), expect=202, request_valid=True, **me)
    limited.post(f"{url}/ai-move", json={}, headers=bearer(tokens[0]), expect=429, request_valid=True, **me)
    move = {"action": MOVE, "expected_version": 0}
    limited.post(f"{url}/actions", json=move, headers=bearer(tokens[0]), expect=200, request_valid=True, **me)
    limited.post(f"{url}/actions", json=move, headers=bearer(tokens[0]), expect=429, request_valid=True, **me)
    limited.get(f"{url}?after=0", headers=bearer(tokens[1]), expect=200, request_valid=True, **me)
    limited.get(f"{url}?after=0", headers=bearer(tokens[1]), expect=429, request_valid=True, **me)
    limited.get(f"{url}/replay/0", expect=409, request_valid=True, **me)  # still running: refused, and counted
    limited.get(f"{url}/replay/0", expect=429, request_valid=True, **me)
    limited.get(f"{url}/export", expect=429, request_valid=True, **me)  # the replays' budget, shared
    events, bot_events = f"{url}/events", f"/v1/bots/{bot['id']}/events"
    for stream_url, token in ((events, tokens[1]), (bot_events, bot["token"])):
        held = limited.client.get(stream_url, headers=bearer(token), buffered=False, **me)  # a live stream
        assert held.status_code == 200
        held.close()
        limited.get(stream_url, headers=bearer(token), expect=429, request_valid=True, **me)
    # Refused tokens, counted per address: past the budget, every token operation is refused.
    forger: dict[str, Any] = {"environ_base": {"REMOTE_ADDR": "10.1.0.2"}}
    limited.get(url, headers=bearer("forged.0.secret"), expect=401, **forger)
    for token_url in (url, f"{url}/legal-actions", f"{url}/log", events, hint.json["url"]):
        limited.get(token_url, headers=bearer(tokens[0]), expect=429, request_valid=True, **forger)
    for post_url in (f"{url}/actions", f"{url}/ai-move"):
        limited.post(post_url, json={"action": MOVE}, headers=bearer(tokens[0]), expect=429, **forger)
    for what in ("resign", "leave", "rematch"):  # the lifecycle posts are limited as actions are
        limited.post(f"{url}/{what}", headers=bearer(tokens[0]), expect=429, request_valid=True, **forger)
    limited.get(f"{bot_events}?after=0&wait=0", headers=bearer(bot["token"]), expect=429, request_valid=True, **forger)
    # Pages of lists share one budget per address; joins have their own.
    reader: dict[str, Any] = {"environ_base": {"REMOTE_ADDR": "10.1.0.3"}}
    limited.get("/v1/matches", expect=200, request_valid=True, **reader)
    bot_pages = (f"/v1/bots/{bot['id']}/matches", f"/v1/bots/{bot['id']}/ratings?game=icecream")
    for page in ("/v1/matches", "/v1/bots", "/v1/tournaments", "/v1/games/icecream/leaderboard", *bot_pages):
        limited.get(page, expect=429, request_valid=True, **reader)
    lobby = {"game": "icecream", "players": 2, "open_seats": [1]}
    waiting = limited.post("/v1/matches", json=lobby, expect=201, request_valid=True, **reader).json
    limited.post(f"/v1/matches/{waiting['id']}/join", json={}, expect=200, request_valid=True, **reader)
    limited.post(f"/v1/matches/{waiting['id']}/join", json={}, expect=429, request_valid=True, **reader)

    quotas = replace(IN_PROCESS_LIMITS, matches=1, tournaments=1, bots=1, streams_held=1, seats=1)
    capped = contract_on(contract, redis_url, quotas)
    holder: dict[str, Any] = {"environ_base": {"REMOTE_ADDR": "10.2.0.1"}}
    opener: dict[str, Any] = {"environ_base": {"REMOTE_ADDR": "10.2.0.2"}}
    opener2: dict[str, Any] = {"environ_base": {"REMOTE_ADDR": "10.2.0.3"}}
    capped.post("/v1/matches", json=new, expect=201, request_valid=True, **holder)
    lobby = {"game": "sundae_split", "players": 3, "open_seats": [1, 2]}
    squatted = [capped.post("/v1/matches", json=lobby, expect=201, **other).json for other in (opener, opener2)]
    capped.post(f"/v1/matches/{squatted[0]['id']}/join", json={}, expect=200, request_valid=True, **holder)
    refused = capped.post(f"/v1/matches/{squatted[1]['id']}/join", json={}, expect=429, request_valid=True, **holder)
    assert refused.json["resource"] == "seats"
    assert capped.post("/v1/matches", json=new, expect=429, **holder).json["resource"] == "matches"
    mine = capped.post("/v1/bots", json={"name": "capped"}, expect=201, request_valid=True, **holder).json
    capped.post("/v1/bots", json={"name": "capped-2"}, expect=429, request_valid=True, **holder)
    capped.post("/v1/tournaments", json=tournament, expect=201, request_valid=True, **holder)
    capped.post("/v1/tournaments", json=tournament, expect=429, request_valid=True, **holder)
    capped.app.services.quotas.streams.open("addr:10.2.0.1")
    assert capped.get(events, expect=429, request_valid=True, **holder).json["resource"] == "streams"
    capped.get(f"/v1/bots/{mine['id']}/events", headers=bearer(mine["token"]), expect=429, **holder)
    for app in (limited.app, capped.app):
        app.services.changes.stop()


def test_limits_and_quotas(contract: ContractClient) -> None:
    scenario_limits(contract)


def test_a_full_store(contract: ContractClient, tmp_path: Path) -> None:
    server = start_embedded_redis(tmp_path, persistent=False, maxmemory="4mb")
    full = contract_on(contract, server.url, IN_PROCESS_LIMITS)
    try:
        allowed = {"game": "icecream", "players": 2, "assistance": "allowed"}  # its hint reaches the store
        body = full.post("/v1/matches", json=allowed, expect=201).json
        lobby = full.post("/v1/matches", json={"game": "icecream", "players": 2, "open_seats": [1]}, expect=201).json
        url, token = f"/v1/matches/{body['id']}", bearer(tokens_of(body)[0])
        fill(server.url)
        full.post("/v1/matches", json={"game": "icecream", "players": 2}, expect=503, request_valid=True)
        move = {"action": MOVE, "expected_version": 0}
        full.post(f"{url}/actions", json=move, headers=token, expect=503, request_valid=True)
        full.post(f"{url}/ai-move", json={}, headers=token, expect=503, request_valid=True)
        full.post(f"/v1/matches/{lobby['id']}/join", json={}, expect=503, request_valid=True)
        full.post("/v1/bots", json={"name": "late"}, expect=503, request_valid=True)
        tournament = {"game": "rockem_sockem", "entrants": [{"type": "ai", "level": "random"}] * 2}
        full.post("/v1/tournaments", json=tournament, expect=503, request_valid=True)
        assert full.get(url, headers=token, expect=200, request_valid=True).json["version"] == 0
        free(server.url)
        full.post(f"{url}/actions", json=move, headers=token, expect=200, request_valid=True)
    finally:
        full.app.services.changes.stop()
        server.stop()


def scenario_tournament_challenges(contract: ContractClient) -> None:
    """A tournament waiting for its bots' one challenge each: accepted it runs, declined it is aborted."""
    bots = [contract.post("/v1/bots", json={"name": name}, expect=201).json for name in ("cup-one", "cup-two")]
    entrants = [{"type": "ai", "level": "random"}, *({"type": "bot", "bot": bot["id"]} for bot in bots)]
    body = {"game": "rockem_sockem", "entrants": entrants, "games_per_pairing": 1}
    waiting = contract.post("/v1/tournaments", json=body, expect=201, request_valid=True).json
    assert waiting["status"] == "waiting" and waiting["challenge_expires_at"]
    listed = contract.get("/v1/tournaments?status=waiting", expect=200, request_valid=True).json["items"]
    assert [item["id"] for item in listed] == [waiting["id"]]
    first, second = (bearer(bot["token"]) for bot in bots)
    pending = contract.get(f"/v1/bots/{bots[0]['id']}/challenges", headers=first, expect=200).json["items"]
    assert [item["type"] for item in pending] == ["tournament"]
    polled = contract.get(f"/v1/bots/{bots[0]['id']}/events?after=0&wait=0", headers=first, expect=200).json
    assert [event["event"] for event in polled["events"]] == ["challenge"]
    accept = f"/v1/bots/{bots[0]['id']}/challenges/tournament-{waiting['id']}/accept"
    assert contract.post(accept, headers=first, expect=200, request_valid=True).json["status"] == "accepted"
    decline = f"/v1/bots/{bots[1]['id']}/challenges/tournament-{waiting['id']}/decline"
    assert contract.post(decline, headers=second, expect=200, request_valid=True).json["status"] == "declined"
    aborted = contract.get(waiting["url"], expect=200, request_valid=True).json
    assert aborted["status"] == "aborted" and "declined" in aborted["abort_reason"]
    contract.get("/v1/tournaments?status=aborted", expect=200, request_valid=True)
    told = contract.get(f"/v1/bots/{bots[0]['id']}/events?after=1&wait=0", headers=first, expect=200).json
    assert told["events"] == [], "it had accepted: nothing was started for it to be told of"
    contract.post(accept.replace("/accept", "/decline"), headers=first, expect=409, request_valid=True)


def test_tournament_challenges(contract: ContractClient) -> None:
    scenario_tournament_challenges(contract)


def test_bots_listing_history_and_ladder(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario_ladder(contract, monkeypatch)


def test_match_lifecycle(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario_lifecycle(contract, monkeypatch)


def test_matchmaking(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario_matchmaking(contract, monkeypatch)


def test_analysis(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario_analysis(contract, monkeypatch)


def test_reviews(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario_reviews(contract, monkeypatch)


def test_every_documented_status_is_produced(contract: ContractClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """The document promises no status the server never gives: every one is provoked above."""
    scenario_catalog(contract)
    scenario_full_match(contract)
    scenario_draw_by_turn_limit(contract)
    scenario_lobby(contract)
    scenario_idempotency(contract)
    scenario_errors(contract)
    scenario_pages_and_hygiene(contract)
    scenario_store_down(contract)
    scenario_internal_errors(contract, monkeypatch)
    scenario_sundae_split(contract, 3)
    scenario_ai(contract)
    scenario_live_events(contract)
    scenario_tournaments(contract, monkeypatch)
    scenario_bots(contract, monkeypatch)
    scenario_owners(contract, monkeypatch)
    scenario_limits(contract)
    scenario_tournament_challenges(contract)
    scenario_ladder(contract, monkeypatch)
    scenario_lifecycle(contract, monkeypatch)
    scenario_matchmaking(contract, monkeypatch)
    scenario_analysis(contract, monkeypatch)
    scenario_reviews(contract, monkeypatch)
    documented = {
        (path, method, int(status))
        for path, method, operation in iter_operations(contract.document)
        for status in operation["responses"]
    }
    never_seen = sorted(documented - contract.seen)
    assert not never_seen, f"documented but never produced: {never_seen}"


# --- the checks can fail ------------------------------------------------------------------------------
def _with(document: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    change(document)
    return document


def _drop_409(document: dict[str, Any]) -> None:
    del document["paths"]["/v1/matches/{match_id}/actions"]["post"]["responses"]["409"]


def _version_as_string(document: dict[str, Any]) -> None:
    document["components"]["schemas"]["Match"]["properties"]["version"] = {"type": "string"}


def _forget_seed_field(document: dict[str, Any]) -> None:
    match = document["components"]["schemas"]["Match"]
    del match["properties"]["seed"]
    match["required"].remove("seed")


def _require_location_on_read(document: dict[str, Any]) -> None:
    ok = document["paths"]["/v1/matches/{match_id}"]["get"]["responses"]["200"]
    ok["headers"]["Location"] = {"$ref": "#/components/headers/Location"}


def _narrow_conflict_codes(document: dict[str, Any]) -> None:
    document["paths"]["/v1/matches/{match_id}/actions"]["post"]["responses"]["409"]["x-problem-codes"] = ["match-over"]


def _no_body_on_304(document: dict[str, Any]) -> None:
    ok = document["paths"]["/v1/matches/{match_id}"]["get"]["responses"]
    ok["200"] = ok["304"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_drop_409, "status 409 is not documented|ResponseNotFound"),
        (_version_as_string, "does not match openapi.yaml"),
        (_forget_seed_field, "does not match openapi.yaml"),
        (_require_location_on_read, "does not match openapi.yaml"),
        (_narrow_conflict_codes, "not among the documented"),
        (_no_body_on_304, "documented without a body"),
    ],
)
def test_a_drifted_document_fails(
    app: ParlourApp, client: FlaskClient, change: Callable[..., None], message: str
) -> None:
    honest = ContractClient(app, client)
    body = created(honest)
    url, token = f"/v1/matches/{body['id']}", tokens_of(body)[1]
    drifted = ContractClient(app, client, _with(load_document(), change))
    with pytest.raises(AssertionError, match=message):
        drifted.get(url, expect=200)
        drifted.post(f"{url}/actions", json={"action": MOVE, "expected_version": 0}, headers=bearer(token), expect=409)


def test_a_document_refusing_what_the_server_accepts_fails(app: ParlourApp, client: FlaskClient) -> None:
    def closed_options(document: dict[str, Any]) -> None:
        document["components"]["schemas"]["CreateMatchRequest"]["properties"]["options"]["additionalProperties"] = False

    drifted = ContractClient(app, client, _with(load_document(), closed_options))
    with pytest.raises(AssertionError, match="refuses a request the server accepts"):
        drifted.post(
            "/v1/matches", json={"game": "icecream", "players": 2, "options": {"turn_limit": 5}}, request_valid=True
        )
