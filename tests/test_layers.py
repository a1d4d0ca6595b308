"""No two modules import each other round a circle, type-only imports included (issue 33).

The layers themselves are import-linter's contracts in pyproject.toml, which `make lint` and
tests/test_lint.py check; a circle inside one layer is what they cannot see.
"""

from __future__ import annotations

import grimp

from tests.test_lint import ROOT

PACKAGES = ("engine", "ai", "model", "store", "domain", "api", "workers", "ops", "tournaments")


def circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every group of modules that import each other round a circle (Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_no_module_imports_itself_round_a_circle() -> None:
    assert ROOT.exists()
    graph = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=False)
    assert graph.find_modules_directly_imported_by("domain.wiring"), "the graph holds the imports"
    assert circles(graph) == []


def test_a_circle_is_found() -> None:
    graph = grimp.ImportGraph()
    for module in ("a", "b", "c", "d"):
        graph.add_module(module)
    graph.add_import(importer="a", imported="b")
    graph.add_import(importer="b", imported="c")
    graph.add_import(importer="c", imported="a")
    graph.add_import(importer="c", imported="d")
    assert circles(graph) == [["a", "b", "c"]]
