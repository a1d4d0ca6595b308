"""Every registered game has every part the server, the AI, the web client and the spec need.

A game is registered by listing its package's `GAME` in engine/games.py; every other part is found
from the game's id, so a missing one fails nowhere else: the AI falls back to random play, the web
client to its generic picture, the spec to no schema at all. This test names what each registered
game lacks, file by file (docs/how-to/add-a-game.md says what each file holds).
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Callable, Iterator
from copy import deepcopy
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import pytest
import yaml

import engine.games
from ai.game_modules import game_module
from ai.knowledge import Knowledge
from api.app import create_app
from engine import Assumption, Game, GameInfo, GameState, all_games, get_game
from model.settings import Settings
from ops.embedded_redis import EmbeddedRedis
from tests.conformance.golden import REGENERATE
from tests.conformance.hidden import HIDDEN_PARTS

ROOT = Path(__file__).resolve().parents[1]
SPEC = "openapi.yaml"
SCHEMAS = "#/components/schemas/"
HOW_TO = "docs/how-to/add-a-game.md"
TIMEOUT_ASSUMPTION = "timeout-default-action"


@dataclass(frozen=True)
class Sources:
    """Where a game's parts are looked for."""

    root: Path
    """The repository: web renderers, tests and golden files are files under it."""
    document: dict[str, Any]
    """openapi.yaml, read."""
    catalog: dict[str, dict[str, Any]]
    """GET /v1/games as served, by game id."""
    module: Callable[[str, str], ModuleType | None] = game_module
    """A game's module in an AI package (`ai.game_modules.game_module`)."""


def lacks(game: Game, sources: Sources) -> list[str]:
    """What the game lacks: one line per missing part, each starting with the file to create or edit."""
    return [
        *engine_lacks(game),
        *ai_lacks(game, sources.module),
        *web_lacks(game, sources.root),
        *spec_lacks(game, sources.document),
        *catalog_lacks(game, sources.catalog),
        *checks_lacks(game, sources.root),
    ]


def engine_lacks(game: Game) -> list[str]:
    """The game's package is `engine/<id>/`, whose `GAME` is the registered game."""
    game_id = game.info.id
    where = f"engine/{game_id}/__init__.py"
    if not game_id.isidentifier() or game_id != game_id.lower():
        return [f"{where}: the id {game_id!r} must be a lowercase Python name: it names the game's package and modules"]
    if importlib.util.find_spec(f"engine.{game_id}") is None:
        return [f"{where}: no package engine.{game_id} (a game's id is the name of its package)"]
    if getattr(importlib.import_module(f"engine.{game_id}"), "GAME", None) is not game:
        return [f"{where}: its GAME is not the game engine/games.py lists"]
    return []


def ai_lacks(game: Game, module: Callable[[str, str], ModuleType | None]) -> list[str]:
    """The search's knowledge (`Knowledge()` says the game needs none) and the greedy baseline."""
    game_id, missing = game.info.id, []
    knowledge = module("ai.knowledge", game_id)
    if knowledge is None:
        missing.append(
            f"ai/knowledge/{game_id}.py: missing (KNOWLEDGE = a Knowledge subclass, or Knowledge() for none)"
        )
    elif not isinstance(getattr(knowledge, "KNOWLEDGE", None), Knowledge):
        missing.append(f"ai/knowledge/{game_id}.py: defines no KNOWLEDGE (a Knowledge subclass, or Knowledge())")
    greedy = module("ai.greedy", game_id)
    if greedy is None:
        missing.append(f"ai/greedy/{game_id}.py: missing (choose(world, seat, rng), the greedy baseline)")
    elif not callable(getattr(greedy, "choose", None)):
        missing.append(f"ai/greedy/{game_id}.py: defines no choose(world, seat, rng)")
    return missing


def web_lacks(game: Game, root: Path) -> list[str]:
    """The web client's renderer: `web/games/<id>.js` (web/renderer.js imports it by the game's id)."""
    where = f"web/games/{game.info.id}.js"
    path = root / where
    if not path.is_file():
        return [f"{where}: missing (the web client's picture of the game; web/renderer.js loads it by id)"]
    if "export function render(" not in path.read_text(encoding="utf-8"):
        return [f"{where}: exports no render(root, ctx)"]
    return []


def spec_lacks(game: Game, document: dict[str, Any]) -> list[str]:
    """openapi.yaml: the match, options, view and action schemas, and where every game's are listed."""
    game_id, schemas = game.info.id, document["components"]["schemas"]
    mapped = schemas["GameMatch"]["discriminator"]["mapping"].get(game_id)
    if mapped is None:
        return [f"{SPEC}: GameMatch's discriminator mapping has no {game_id} (nor any of the game's schemas)"]
    missing = []
    if {"$ref": mapped} not in schemas["GameMatch"]["oneOf"]:
        missing.append(f"{SPEC}: GameMatch's oneOf lacks {mapped}")
    name = mapped.removeprefix(SCHEMAS)
    prefix = name.removesuffix("Match")
    narrowed = next((part for part in schemas.get(name, {}).get("allOf", []) if "properties" in part), None)
    if narrowed is None or name == prefix:
        return [*missing, f"{SPEC}: schema {name} (Match with game, options and view narrowed) is missing"]
    properties = narrowed["properties"]
    if properties.get("game", {}).get("enum") != [game_id]:
        missing.append(f"{SPEC}: {name}.game must be enum [{game_id}]")
    for part in ("Options", "View"):
        if properties.get(part.lower()) != {"$ref": f"{SCHEMAS}{prefix}{part}"} or f"{prefix}{part}" not in schemas:
            missing.append(f"{SPEC}: schema {prefix}{part}, referred to by {name}.{part.lower()}, is missing")
    spec_options = set(schemas.get(f"{prefix}Options", {}).get("properties", {}))
    if f"{prefix}Options" in schemas and spec_options != {spec.name for spec in game.info.options.specs}:
        missing.append(f"{SPEC}: {prefix}Options' properties must be the game's options, {game.info.options.to_json()}")
    if {"$ref": f"{SCHEMAS}{prefix}View"} not in schemas["ReplayStep"]["properties"]["view"]["anyOf"]:
        missing.append(f"{SPEC}: ReplayStep.view's anyOf lacks {prefix}View")
    if f"{prefix}Action" not in schemas:
        missing.append(f"{SPEC}: schema {prefix}Action is missing")
    if {"$ref": f"{SCHEMAS}{prefix}Action"} not in schemas["GameAction"]["anyOf"]:
        missing.append(f"{SPEC}: GameAction's anyOf lacks {prefix}Action")
    logged = [{"$ref": f"{SCHEMAS}{prefix}{form}"} for form in ("Action", "LoggedAction")]
    if not any(ref in schemas["GameLoggedAction"]["anyOf"] for ref in logged):
        missing.append(f"{SPEC}: GameLoggedAction's anyOf lacks {prefix}Action (or {prefix}LoggedAction)")
    return missing


def catalog_lacks(game: Game, catalog: dict[str, dict[str, Any]]) -> list[str]:
    """GET /v1/games lists the game with its options, assumptions, AI levels and (competitive games) their ratings."""
    entry = catalog.get(game.info.id)
    where = f"engine/{game.info.id}/ (its GameInfo)"
    if entry is None:
        return [f"api/catalog/views.py: GET /v1/games does not list {game.info.id}"]
    missing = []
    if entry["options"] != game.info.options.to_json():
        missing.append(f"api/catalog/views.py: the catalog's options of {game.info.id} are not its GameInfo's")
    if entry["assumptions"] != [assumption.to_json() for assumption in game.info.assumptions]:
        missing.append(f"api/catalog/views.py: the catalog's assumptions of {game.info.id} are not its GameInfo's")
    if not entry["ai_levels"]:
        missing.append(f"ai/levels.py: no AI level plays {game.info.id}")
    measured = entry["level_ratings"]
    if game.info.cooperative and (measured or entry["level_ratings_measured"] is not None):
        missing.append(f"ai/level_ratings.json: {game.info.id} is co-operative (no ladder) and has level ratings")
    unmeasured = [level for level in entry["ai_levels"] if level not in measured]
    if not game.info.cooperative and (unmeasured or entry["level_ratings_measured"] is None):
        missing.append(
            f"ai/level_ratings.json: no measured rating of {', '.join(unmeasured)} in {game.info.id} "
            f"(run python -m lab.level_ratings --game {game.info.id} --write)"
        )
    if TIMEOUT_ASSUMPTION not in [assumption.id for assumption in game.info.assumptions]:
        missing.append(f"{where}: no assumption {TIMEOUT_ASSUMPTION!r} (what default_action plays, and why)")
    if any(not (a.id and a.choice and a.reason) for a in game.info.assumptions):
        missing.append(f"{where}: every assumption needs an id, a choice and a reason")
    return missing


def checks_lacks(game: Game, root: Path) -> list[str]:
    """The rules tests, the golden playthroughs and, for hidden information, what the game hides."""
    game_id, missing = game.info.id, []
    if not (root / f"tests/engine/test_{game_id}_rules.py").is_file():
        missing.append(f"tests/engine/test_{game_id}_rules.py: missing (known positions checked by hand)")
    if not (root / f"tests/conformance/golden/{game_id}.json").is_file():
        missing.append(f"tests/conformance/golden/{game_id}.json: missing (run {REGENERATE} {game_id})")
    if game.info.information == "imperfect" and game_id not in HIDDEN_PARTS:
        missing.append(f"tests/conformance/hidden.py: HIDDEN_PARTS has no {game_id} (what its views hide)")
    return missing


def report(missing: dict[str, list[str]]) -> str:
    """The failure message: every game's missing parts by file."""
    lines = [f"Registered games lack parts ({HOW_TO} says what each file holds):"]
    for game_id, parts in missing.items():
        lines += [f"  {game_id}:", *(f"    {part}" for part in parts)]
    return "\n".join(lines)


def served_catalog(redis_url: str) -> dict[str, dict[str, Any]]:
    """GET /v1/games from the app, by game id."""
    app = create_app(Settings(redis_url=redis_url))
    try:
        answer = app.test_client().get("/v1/games")
        assert answer.status_code == 200, answer.get_data(as_text=True)
        return {entry["id"]: entry for entry in answer.get_json()["items"]}
    finally:
        app.services.changes.stop()


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    """openapi.yaml, read once."""
    return dict(yaml.safe_load((ROOT / SPEC).read_text(encoding="utf-8")))


@pytest.fixture
def sources(redis_server: EmbeddedRedis, document: dict[str, Any]) -> Sources:
    """The repository, its spec and the catalog the app serves (with the registry as it is when asked)."""
    return Sources(ROOT, document, served_catalog(redis_server.url))


# --- the registered games -----------------------------------------------------------------------
def test_every_registered_game_has_every_part(sources: Sources) -> None:
    missing = {game.info.id: lacks(game, sources) for game in all_games()}
    missing = {game_id: parts for game_id, parts in missing.items() if parts}
    assert not missing, report(missing)


def test_the_catalog_lists_exactly_the_registered_games_in_their_order(sources: Sources) -> None:
    assert list(sources.catalog) == [game.info.id for game in engine.games.GAMES]


# --- a sixth game with nothing but its registry line ----------------------------------------------
class Toy(Game):
    """A registered game with no package, no AI, no renderer, no schemas and no tests (its states are never made)."""

    info: ClassVar[GameInfo] = GameInfo(
        id="toy_lacking",
        name="Toy",
        min_players=2,
        max_players=2,
        summary="A game registered and nothing more.",
        information="imperfect",
        chance=False,
        cooperative=False,
        simultaneous=False,
        min_utility=-1.0,
        max_utility=1.0,
        max_game_length=1,
        assumptions=(Assumption(TIMEOUT_ASSUMPTION, "the first legal action", "the rulebook has no clock"),),
    )

    def new_state(self, players: int, options: dict[str, Any], seed: str | int) -> GameState:
        raise NotImplementedError

    def state_from_json(self, data: dict[str, Any]) -> GameState:
        raise NotImplementedError


TOY = Toy()


@pytest.fixture
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[Game]:
    """engine/games.py with a sixth game listed."""
    monkeypatch.setattr(engine.games, "GAMES", (*engine.games.GAMES, TOY))
    yield TOY


def test_a_game_with_only_its_registry_line_lacks_every_other_part(toy_registered: Game, sources: Sources) -> None:
    assert get_game("toy_lacking") is toy_registered and all_games()[-1] is toy_registered
    missing = lacks(toy_registered, sources)
    files = [part.partition(":")[0] for part in missing]
    assert files == [
        "engine/toy_lacking/__init__.py",
        "ai/knowledge/toy_lacking.py",
        "ai/greedy/toy_lacking.py",
        "web/games/toy_lacking.js",
        SPEC,
        "ai/level_ratings.json",
        "tests/engine/test_toy_lacking_rules.py",
        "tests/conformance/golden/toy_lacking.json",
        "tests/conformance/hidden.py",
    ], missing
    assert "toy_lacking" in sources.catalog, "the catalog entry comes with the registry line"
    message = report({"toy_lacking": missing})
    assert all(f"    {part}" in message for part in missing) and HOW_TO in message


# --- each part, missing alone ---------------------------------------------------------------------
def without_module(package: str) -> Callable[[str, str], ModuleType | None]:
    """A module finder that finds nothing in one AI package."""
    return lambda where, game_id: None if where == package else game_module(where, game_id)


def root_without(tmp_path: Path, game_id: str, left_out: str) -> Path:
    """A copy of the files a game's check reads from the repository, one left out."""
    for where in (
        f"web/games/{game_id}.js",
        f"tests/engine/test_{game_id}_rules.py",
        f"tests/conformance/golden/{game_id}.json",
    ):
        if where != left_out:
            (tmp_path / where).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / where, tmp_path / where)
    return tmp_path


def spec_without(document: dict[str, Any], game_id: str, change: str) -> dict[str, Any]:
    """openapi.yaml with one of the game's parts taken out."""
    copy = deepcopy(document)
    schemas = copy["components"]["schemas"]
    mapped = schemas["GameMatch"]["discriminator"]["mapping"][game_id]
    prefix = mapped.removeprefix(SCHEMAS).removesuffix("Match")
    if change == "mapping":
        del schemas["GameMatch"]["discriminator"]["mapping"][game_id]
    elif change == "action":
        schemas["GameAction"]["anyOf"].remove({"$ref": f"{SCHEMAS}{prefix}Action"})
    elif change == "options":
        schemas[f"{prefix}Options"].setdefault("properties", {})["surprise"] = {"type": "boolean"}
    return copy


ALONE = [
    "knowledge",
    "greedy",
    "renderer",
    "mapping",
    "action",
    "options",
    "catalog",
    "ratings",
    "rules",
    "golden",
    "hidden",
]


@pytest.mark.parametrize("part", ALONE)
def test_a_part_missing_alone_is_named_alone(part: str, sources: Sources, tmp_path: Path) -> None:
    game = get_game("sundae_split")
    assert game is not None
    game_id = game.info.id
    files = {
        "renderer": f"web/games/{game_id}.js",
        "rules": f"tests/engine/test_{game_id}_rules.py",
        "golden": f"tests/conformance/golden/{game_id}.json",
    }
    named = {
        "knowledge": f"ai/knowledge/{game_id}.py",
        "greedy": f"ai/greedy/{game_id}.py",
        "mapping": SPEC,
        "action": SPEC,
        "options": SPEC,
        "catalog": "api/catalog/views.py",
        "ratings": "ai/level_ratings.json",
        "hidden": "tests/conformance/hidden.py",
        **files,
    }
    partial = replace(
        sources,
        root=root_without(tmp_path, game_id, files.get(part, "")),
        document=spec_without(sources.document, game_id, part),
        catalog={
            k: {**v, "level_ratings": {}} if part == "ratings" and k == game_id else v
            for k, v in sources.catalog.items()
            if part != "catalog" or k != game_id
        },
        module=without_module({"knowledge": "ai.knowledge", "greedy": "ai.greedy"}.get(part, "")),
    )
    with pytest.MonkeyPatch.context() as patch:
        if part == "hidden":
            patch.delitem(HIDDEN_PARTS, game_id)
        missing = lacks(game, partial)
    assert [entry.partition(":")[0] for entry in missing] == [named[part]], missing
