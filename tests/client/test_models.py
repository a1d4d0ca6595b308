"""parlour_client's answer models against openapi.yaml: each TypedDict has exactly its schema's properties as
keys, and exactly the schema's required ones as required keys (the others `NotRequired`). A schema that is a
choice of shapes (`oneOf`/`anyOf`, as `GameMatch` or `LegalActions`) offers every variant's properties and
requires those every variant requires; `allOf` parts add up."""

from __future__ import annotations

import copy
import functools
import typing
from pathlib import Path
from typing import Any, is_typeddict

import parlour_client.models
import pytest
import yaml

SPEC_PATH = Path(__file__).resolve().parents[2] / "openapi.yaml"

SCHEMA_OF: dict[str, str] = {
    # model -> its schema in components/schemas; `Schema.property[]` is the items of an array property
    "AiMoveAccepted": "AiMoveAccepted",
    "AiPace": "AiPace",
    "Assumption": "Assumption",
    "Bot": "Bot",
    "BotEvent": "BotEvent",
    "BotEventList": "BotEventList",
    "BotListItem": "BotListItem",
    "BotMatch": "BotMatch",
    "BotRating": "BotRating",
    "BotRegistered": "RegisteredBot",
    "BotSeat": "BotSeat",
    "BotYourTurn": "BotYourTurn",
    "Challenge": "Challenge",
    "Challenger": "Challenge.challenger[]",
    "CrosstableCell": "CrosstableRow.against[]",
    "CrosstableRow": "CrosstableRow",
    "Deadline": "Deadline",
    "Export": "Export",
    "ExportSeat": "Export.seats[]",
    "GameEntry": "GameEntry",
    "LevelRating": "LevelRating",
    "LevelRatingsMeasured": "GameEntry.level_ratings_measured",
    "Health": "Health",
    "Job": "Job",
    "JobError": "JobError",
    "JobResult": "JobResult",
    "JoinedSeat": "JoinedSeat",
    "LeaderboardEntry": "LeaderboardEntry",
    "LeftSeat": "LeftSeat",
    "LegalActions": "LegalActions",
    "LogEntry": "LogEntry",
    "LogPage": "MatchLog",
    "Match": "GameMatch",
    "MatchCreated": "CreatedMatch",
    "MatchEvent": "MatchEvent",
    "MatchSummary": "MatchSummary",
    "MatchmakingPool": "MatchmakingPools.items[]",
    "MatchmakingPools": "MatchmakingPools",
    "MatchmakingTicket": "MatchmakingTicket",
    "OptionSpec": "OptionSpec",
    "VersusRandom": "LevelRating.versus_random",
    "Rating": "Rating",
    "RatingPoint": "RatingHistory.items[]",
    "RematchAnswer": "RematchAnswer",
    "RematchOffer": "RematchOffer",
    "ReplayStep": "ReplayStep",
    "ResignationLogEntry": "ResignationLogEntry",
    "Result": "Result",
    "SeatInfo": "SeatInfo",
    "SeatToken": "SeatToken",
    "Snapshot": "BotSnapshot",
    "Standing": "Standing",
    "Tournament": "Tournament",
    "TournamentChallenge": "Tournament.challenges[]",
    "TournamentEntrant": "TournamentEntrant",
    "TournamentMatch": "TournamentMatch",
    "TournamentProgress": "TournamentProgress",
    "TournamentSummary": "TournamentSummary",
    "TurnTimer": "TurnTimer",
}


@functools.cache
def load_spec() -> dict[str, Any]:
    """openapi.yaml, parsed once (read only: a test that changes it changes a copy)."""
    spec: dict[str, Any] = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
    return spec


def models() -> dict[str, type]:
    """Every TypedDict the models module defines."""
    module = parlour_client.models
    return {
        name: value
        for name, value in vars(module).items()
        if is_typeddict(value) and getattr(value, "__module__", None) == module.__name__
    }


def resolved(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with its `$ref`s followed."""
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def schema_named(spec: dict[str, Any], name: str) -> dict[str, Any]:
    """The schema a table entry names: `Schema`, or `Schema.property[]` (the items of that array property)."""
    head, _, tail = name.partition(".")
    schema = resolved(spec, spec["components"]["schemas"][head])
    if tail:
        prop = tail.removesuffix("[]")
        keys, _ = shape(spec, schema)
        assert prop in keys, f"{head} has no property {prop}"
        schema = resolved(spec, properties(spec, schema)[prop])
        if tail.endswith("[]"):
            arrays = [resolved(spec, s) for s in [schema, *schema.get("oneOf", []), *schema.get("anyOf", [])]]
            [array] = [s for s in arrays if "items" in s]  # the array of `array | null`
            schema = resolved(spec, array["items"])
    return schema


def properties(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Every property schema of `schema` (allOf parts and oneOf/anyOf variants included)."""
    schema = resolved(spec, schema)
    found: dict[str, Any] = {}
    for part in [*schema.get("allOf", []), *schema.get("oneOf", []), *schema.get("anyOf", [])]:
        found.update(properties(spec, part))
    found.update(schema.get("properties", {}))
    return found


def shape(spec: dict[str, Any], schema: dict[str, Any]) -> tuple[set[str], set[str]]:
    """The keys an object of `schema` may have and those it must have."""
    schema = resolved(spec, schema)
    keys = set(schema.get("properties", {}))
    required = set(schema.get("required", []))
    for part in schema.get("allOf", []):
        part_keys, part_required = shape(spec, part)
        keys |= part_keys
        required |= part_required
    variants = [shape(spec, variant) for variant in schema.get("oneOf", []) or schema.get("anyOf", [])]
    if variants:
        keys |= set.union(*(variant_keys for variant_keys, _ in variants))
        required |= set.intersection(*(variant_required for _, variant_required in variants))
    return keys, required


def mismatches(spec: dict[str, Any], model: type, schema_name: str) -> list[str]:
    """How `model` differs from the schema it stands for (empty when it matches)."""
    keys, required = shape(spec, schema_named(spec, schema_name))
    model_keys = set(typing.get_type_hints(model))
    model_required = set(getattr(model, "__required_keys__"))  # noqa: B009 (a TypedDict's, which mypy does not type)
    assert model_required | set(getattr(model, "__optional_keys__")) == model_keys  # noqa: B009
    found = []
    if missing := keys - model_keys:
        found.append(f"{model.__name__} lacks {sorted(missing)} of {schema_name}")
    if extra := model_keys - keys:
        found.append(f"{model.__name__} has {sorted(extra)}, not in {schema_name}")
    if should := (required & model_keys) - model_required:
        found.append(f"{model.__name__} has {sorted(should)} NotRequired; {schema_name} requires them")
    if should_not := (model_required & keys) - required:
        found.append(f"{model.__name__} requires {sorted(should_not)}; {schema_name} does not")
    return found


def test_every_model_is_tied_to_a_schema() -> None:
    assert sorted(models()) == sorted(SCHEMA_OF), "add each new model to SCHEMA_OF (and drop removed ones)"


@pytest.mark.parametrize("name", sorted(SCHEMA_OF))
def test_a_model_has_its_schemas_keys_and_requires_what_it_requires(name: str) -> None:
    assert mismatches(load_spec(), models()[name], SCHEMA_OF[name]) == []


def test_a_property_the_spec_comes_to_require_fails_the_model() -> None:
    spec = copy.deepcopy(load_spec())
    schema = spec["components"]["schemas"]["Health"]
    schema["properties"]["uptime"] = {"type": "number"}
    schema["required"] = [*schema["required"], "uptime"]
    assert mismatches(spec, models()["Health"], "Health") == ["Health lacks ['uptime'] of Health"]
    schema["required"] = ["status"]
    assert mismatches(spec, models()["Health"], "Health") == [
        "Health lacks ['uptime'] of Health",
        "Health requires ['redis']; Health does not",
    ]


def test_every_model_is_exported() -> None:
    assert set(models()) <= set(parlour_client.__all__)
