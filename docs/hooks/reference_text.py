"""Markdown pieces the reference hooks share: table cells, tables, indented blocks, the repository's root."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository: docs/hooks/ is two folders below it."""


def import_project() -> None:
    """Make the repository's packages importable, this checkout's before any installed copy."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def cell(text: str) -> str:
    """Text as one table cell: one line, its pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def code(text: str) -> str:
    """Text as inline code, whatever backticks it holds."""
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table; the cells are written as given (pass them through `cell` first)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def indent(text: str, spaces: int = 4) -> str:
    """Every line of a block indented, so it stays inside the list item above it."""
    pad = " " * spaces
    return "\n".join(pad + line if line.strip() else "" for line in text.strip("\n").splitlines())


def shift_headings(text: str, levels: int) -> str:
    """Markdown with every ATX heading made `levels` deeper (outside fenced code)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("#"):
            line = "#" * levels + line
        lines.append(line)
    return "\n".join(lines)
