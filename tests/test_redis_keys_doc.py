"""docs/reference/redis-keys.md lists every key Parlour writes: a key the code builds and the page does not name fails.

Three checks on the code, none on a hand-kept list:

* every string literal that starts with `parlour:` in `store/*.py`, `store/lua/**/*.lua` and `api/limits.py` (an
  f-string's literal parts included; a literal is cut at its first `{name}` format field) occurs in the page;
* every key-building function of the store (a module-level `*_key` function in `store/*.py`), called with
  `<parameter>` for each parameter without a default, gives a key the page names (`match_key` gives
  `parlour:match:{<match_id>}`);
* every call of such a function in the store that passes a literal (`tournament_key(tournament_id, "lock")`)
  gives a key the page names, its other arguments written `<parameter>` as above;

and every queue the store names (RQ's, `parlour-...`) is in the page.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeGuard

import pytest

from store.jobs import WORKER_QUEUES
from store.turn_timers import TIMER_QUEUE

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "reference" / "redis-keys.md"
STORE = ROOT / "store"
SOURCES = [*sorted(STORE.glob("*.py")), ROOT / "api" / "limits.py"]
FORMAT_FIELD = re.compile(r"\{[a-z_]+\}")
"""A `str.format` field in a key template (`{since}`), where the literal part of a key ends."""
LUA_STRING = re.compile(r"""'(parlour:[^']*)'|"(parlour:[^"]*)\"""")


def page() -> str:
    return PAGE.read_text(encoding="utf-8")


def literals(path: Path) -> Iterator[str]:
    """The `parlour:` literals of a module (an f-string's literal parts each on their own), cut at a format field."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("parlour:"):
            yield FORMAT_FIELD.split(node.value, 1)[0]


def lua_literals() -> Iterator[tuple[Path, str]]:
    for path in sorted(STORE.glob("lua/**/*.lua")):
        for match in LUA_STRING.finditer(path.read_text(encoding="utf-8")):
            yield path, match.group(1) or match.group(2)


def key_functions() -> Iterator[tuple[str, Callable[..., str]]]:
    """Every module-level `*_key` function of the store, by `module.name`."""
    for path in sorted(STORE.glob("*.py")):
        module = importlib.import_module(f"store.{path.stem}")
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if name.endswith("_key") and function.__module__ == module.__name__:
                yield f"{module.__name__}.{name}", function


def placeholders(function: Callable[..., str]) -> dict[str, str]:
    """`<name>` for each parameter of the function without a default."""
    parameters = inspect.signature(function).parameters.values()
    return {p.name: f"<{p.name}>" for p in parameters if p.default is inspect.Parameter.empty}


def is_text(node: ast.expr) -> TypeGuard[ast.Constant]:
    """True for a string literal."""
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def calls_with_literals() -> Iterator[tuple[str, str]]:
    """(where, key) for each call in the store of a key function that passes a string literal."""
    functions = dict(key_functions())
    for path in sorted(STORE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {
            alias.asname or alias.name: f"{node.module}.{alias.name}"
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("store.")
            for alias in node.names
        }
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            qualified = imported.get(node.func.id, f"store.{path.stem}.{node.func.id}")
            function = functions.get(qualified)
            if function is None or not any(is_text(arg) for arg in node.args):
                continue
            names = list(inspect.signature(function).parameters)
            args = [arg.value if is_text(arg) else f"<{names[index]}>" for index, arg in enumerate(node.args)]
            yield f"{path.name}:{node.lineno}", function(*args)


def test_every_parlour_literal_is_on_the_page() -> None:
    text = page()
    missing = [(path.name, literal) for path in SOURCES for literal in literals(path) if literal not in text]
    assert not missing, f"keys built from these literals are not listed in {PAGE.relative_to(ROOT)}: {missing}"


def test_every_key_a_script_names_is_on_the_page() -> None:
    text = page()
    found = list(lua_literals())
    assert found, "the scripts announce on parlour:changes: the pattern must find that"
    missing = [(path.name, literal) for path, literal in found if literal not in text]
    assert not missing, f"keys named by these scripts are not listed in {PAGE.relative_to(ROOT)}: {missing}"


@pytest.mark.parametrize(("name", "function"), [pytest.param(*named, id=named[0]) for named in key_functions()])
def test_every_key_function_builds_a_key_on_the_page(name: str, function: Callable[..., str]) -> None:
    key = function(**placeholders(function))
    assert key in page(), f"{name} builds {key}, which {PAGE.relative_to(ROOT)} does not list"


def test_every_key_built_with_a_literal_part_is_on_the_page() -> None:
    text = page()
    found = list(calls_with_literals())
    assert any(key.endswith(":lock") for _, key in found), "tournament_key(..., 'lock') must be among the calls found"
    missing = [(where, key) for where, key in found if key not in text]
    assert not missing, f"keys built here are not listed in {PAGE.relative_to(ROOT)}: {missing}"


def test_every_queue_is_on_the_page() -> None:
    text = page()
    missing = [queue for queue in (*WORKER_QUEUES, TIMER_QUEUE) if f"`{queue}`" not in text]
    assert not missing, f"queues not listed in {PAGE.relative_to(ROOT)}: {missing}"


def test_the_checks_see_the_store() -> None:
    """The scans find what they look for, so an empty scan cannot pass for a complete page."""
    names = dict(key_functions())
    assert {"store.matches.match_key", "store.bots.bot_key", "store.quotas.holdings_key"} <= set(names)
    assert "parlour:limit" in set(literals(ROOT / "api" / "limits.py"))
    assert "parlour:timers:made-up:" in set(literals(STORE / "turn_timers.py"))
    assert names["store.matches.idempotency_key"](**placeholders(names["store.matches.idempotency_key"])) == (
        "parlour:match:{<match_id>}:idem:<seat>:<key>"
    )
