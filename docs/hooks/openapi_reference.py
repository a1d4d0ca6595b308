"""The HTTP API and event reference, rendered from openapi.yaml when the guide is built.

Nothing here is copied by hand: the overview is the document's own `info.description`, each operation its
method, path, summary, description, parameters, tokens, request and answer schemas and problem codes, and
each stream event the fields of its `data` schema.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import yaml
from reference_text import ROOT, cell, code, indent, shift_headings, table

SPEC_PATH = ROOT / "openapi.yaml"
METHODS = ("get", "put", "post", "patch", "delete")
Node = dict[str, Any]


@cache
def spec() -> Node:
    """openapi.yaml, parsed once per build process."""
    loaded: Node = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
    return loaded


def resolve(node: Node) -> Node:
    """The node a `$ref` points at (within the document), or the node itself."""
    while "$ref" in node:
        target: Any = spec()
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def ref_name(node: Node) -> str | None:
    """The component name of a `$ref`, if the node is one."""
    ref = node.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def schema_name(schema: Node) -> str:
    """A schema in a few words: its component name, `array of X`, `X or Y`, or its type."""
    name = ref_name(schema)
    if name:
        return code(name)
    if "contentSchema" in schema:
        return schema_name(schema["contentSchema"])
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return " or ".join(schema_name(option) for option in schema[key])
    kind = schema.get("type", "object")
    if kind == "array" and "items" in schema:
        return f"array of {schema_name(schema['items'])}"
    if "const" in schema:
        return code(str(schema["const"]))
    if isinstance(kind, list):
        return " or ".join(code(str(each)) for each in kind)
    return code(str(kind))


def content_schemas(content: Node | None) -> str:
    """Each media type of a body with its schema: `GameMatch` (application/json)."""
    if not content:
        return "no body"
    return ", ".join(f"{schema_name(body.get('schema', {}))} ({code(media)})" for media, body in content.items())


# --- the HTTP API page ------------------------------------------------------------------------------------
def http_api() -> str:
    """The whole generated part of reference/http-api.md."""
    document = spec()
    parts = [
        "## Overview",
        f"*{document['info']['title']} {document['info']['version']}: {document['info']['summary']}*",
        shift_headings(document["info"]["description"], 1),
        tokens(),
        operations(),
        shared_answers(),
    ]
    return "\n\n".join(parts) + "\n"


def tokens() -> str:
    """The bearer tokens (the document's security schemes)."""
    lines = ["## Tokens", "Every token is sent as `Authorization: Bearer <token>`."]
    for name, scheme in spec()["components"]["securitySchemes"].items():
        lines.append(f"- {code(name)}, `{scheme.get('bearerFormat', '')}`: {' '.join(scheme['description'].split())}")
    return "\n\n".join(lines)


def operations() -> str:
    """Every operation, grouped by tag in the document's tag order."""
    document = spec()
    by_tag: dict[str, list[tuple[str, str, Node, list[Node]]]] = {tag["name"]: [] for tag in document["tags"]}
    for path, item in document["paths"].items():
        shared = item.get("parameters", [])
        for method in METHODS:
            if method in item:
                operation = item[method]
                by_tag.setdefault(operation.get("tags", ["other"])[0], []).append((method, path, operation, shared))
    descriptions = {tag["name"]: tag.get("description", "") for tag in document["tags"]}
    parts = ["## Operations"]
    for tag, entries in by_tag.items():
        if not entries:
            continue
        title = tag.upper() if len(tag) <= 2 else tag.capitalize()
        parts.append(f"### {title} {{#tag-{tag}}}\n\n{descriptions.get(tag, '')}")
        listing = [
            (code(method.upper() + " " + path), cell(operation.get("summary", "")))
            for method, path, operation, _ in entries
        ]
        parts.append(table(("operation", "summary"), listing))
        parts += [operation_section(method, path, operation, shared) for method, path, operation, shared in entries]
    return "\n\n".join(parts)


def operation_section(method: str, path: str, operation: Node, shared: list[Node]) -> str:
    """One operation: heading (anchored by its operationId), summary, description, what it takes and answers."""
    anchor = operation.get("operationId", "")
    parts = [f"#### `{method.upper()} {path}` {{#{anchor}}}", f"**{operation.get('summary', '')}**"]
    if operation.get("description"):
        parts.append(shift_headings(operation["description"].strip(), 4))
    parts.append(f"*Operation* {code(anchor)}. *Tokens:* {security(operation)}.")
    parameters = [resolve(parameter) for parameter in [*shared, *operation.get("parameters", [])]]
    if parameters:
        parts.append("*Parameters*\n\n" + "\n".join(parameter_item(parameter) for parameter in parameters))
    if "requestBody" in operation:
        body = resolve(operation["requestBody"])
        required = "required" if body.get("required") else "optional"
        parts.append(f"*Request body* ({required}): {content_schemas(body.get('content'))}")
    answers = [answer_item(status, answer) for status, answer in operation["responses"].items()]
    parts.append("*Answers*\n\n" + "\n".join(answers))
    return "\n\n".join(parts)


def security(operation: Node) -> str:
    """Which tokens an operation takes: none, or its schemes (optional when `{}` is among them)."""
    requirements: list[Node] = operation["security"] if "security" in operation else spec().get("security", [])
    names = [code(name) for requirement in requirements for name in requirement]
    if not names:
        return "none"
    optional = any(not requirement for requirement in requirements)
    return " or ".join(names) + (" (optional: without one, the public answer)" if optional else "")


def parameter_item(parameter: Node) -> str:
    """A parameter as a list item: name, where, type, whether required, and its description."""
    schema = parameter.get("schema", {})
    facts = [parameter["in"], schema_name(schema).strip("`")]
    if parameter.get("required"):
        facts.append("required")
    if "default" in schema:
        facts.append(f"default `{schema['default']}`")
    head = f"- {code(parameter['name'])} ({', '.join(facts)})"
    description = parameter.get("description", "").strip()
    return f"{head}: {indent(description).lstrip()}" if description else head


def answer_item(status: str, answer: Node) -> str:
    """An answer as a list item: status, schemas, problem codes; its description when it is the operation's own."""
    shared_name = ref_name(answer)
    answer = resolve(answer)
    codes = answer.get("x-problem-codes", [])
    if codes:
        head = f"- **{status}** problem: " + ", ".join(code(each) for each in codes)
    else:
        head = f"- **{status}** {content_schemas(answer.get('content'))}"
    if shared_name:
        return f"{head} ([{shared_name}](#answer-{shared_name.lower()}))"
    description = answer.get("description", "").strip()
    return f"{head}\n\n{indent(description)}\n" if description else head


def shared_answers() -> str:
    """The answers many operations share (the document's `components.responses`), each described once."""
    parts = ["## Shared answers", "Answers that many operations give, described once; the operations link here."]
    for name, answer in spec()["components"]["responses"].items():
        codes = ", ".join(code(each) for each in answer.get("x-problem-codes", []))
        parts.append(f"### {name} {{#answer-{name.lower()}}}")
        parts.append(f"{content_schemas(answer.get('content'))}" + (f"; codes {codes}" if codes else ""))
        parts.append(answer.get("description", "").strip())
    return "\n\n".join(parts)


# --- the events page --------------------------------------------------------------------------------------
def stream_events(union: str) -> str:
    """The events of a stream (a discriminated `oneOf` such as `MatchStreamEvent`): each with its `data` fields."""
    schemas = spec()["components"]["schemas"]
    mapping: dict[str, str] = schemas[union]["discriminator"]["mapping"]
    parts = []
    for event, ref in mapping.items():
        wrapper = resolve({"$ref": ref})
        data_ref = wrapper["properties"]["data"]
        data = resolve(data_ref)
        id_property = wrapper["properties"].get("id")
        id_text = "none" if id_property is None else id_description(id_property)
        parts.append(f"### `{event}` {{#event-{event}}}")
        about = [wrapper.get("description", ""), data.get("description", "")]
        parts += [text.strip() for text in about if text.strip()]
        parts.append(f"`id:` {id_text}  \n`data:` {schema_name(data_ref)}, one line of JSON:")
        parts.append(fields(data))
    return "\n\n".join(parts) + "\n"


def id_description(prop: Node) -> str:
    """What an event's `id:` line holds, from its schema."""
    described = prop.get("description") or resolve(prop).get("description") or "the event's number"
    return " ".join(described.split())


def fields(schema: Node) -> str:
    """A schema's properties as a table: field, type, description."""
    required = set(schema.get("required", []))
    rows = []
    for name, prop in schema.get("properties", {}).items():
        described = prop.get("description") or resolve(prop).get("description", "")
        kind = schema_name(prop)
        if "enum" in prop:
            kind += ": " + ", ".join(code(str(value)) for value in prop["enum"])
        rows.append((code(name) + ("" if name in required else " (optional)"), cell(kind), cell(described)))
    return table(("field", "type", "meaning"), rows)


def match_stream_events() -> str:
    """The events of `GET /v1/matches/{match_id}/events`."""
    return stream_events("MatchStreamEvent")


def bot_stream_events() -> str:
    """The events of `GET /v1/bots/{bot_id}/events`."""
    return stream_events("BotEvent")
