"""The layer diagrams in docs/explanation/architecture.md and README.md are pyproject.toml's layers contract, drawn:
same layers, same order, siblings on one row, so the picture a newcomer reads cannot drift from what `lint-imports`
enforces."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "explanation" / "architecture.md"
README = ROOT / "README.md"
MARKER = "<!-- layers: checked by tests/test_architecture_doc.py against pyproject.toml -->"
"""The comment right above the diagram's fenced block."""
FOLDER = re.compile(r"[a-z_]+/")
"""A package as the diagram names it: `domain/`."""


def contract_layers() -> list[set[str]]:
    """The layers contract's layers, top first; each a set of its independent siblings (`ops | tournaments`)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    layered = [contract for contract in config["contracts"] if contract["type"] == "layers"]
    assert len(layered) == 1, f"expected one layers contract in pyproject.toml, found {len(layered)}"
    return [{name.strip() for name in layer.split("|")} for layer in layered[0]["layers"]]


def diagram_rows(text: str) -> list[set[str]]:
    """The packages each row of the page's diagram starts with, top first (lines naming none are skipped)."""
    assert MARKER in text, f"the page lost the marker above its layer diagram: {MARKER}"
    after = text.split(MARKER, 1)[1].lstrip()
    assert after.startswith("```"), "the layer diagram's fenced block must follow its marker directly"
    block = after.split("```", 2)[1]
    rows = []
    for line in block.splitlines()[1:]:  # the first line is the fence's info string
        names = []
        for token in line.split():
            if not FOLDER.fullmatch(token):
                break
            names.append(token.removesuffix("/"))
        if names:
            rows.append(set(names))
    return rows


def test_the_diagrams_draw_the_layers_contract_row_by_row() -> None:
    assert diagram_rows(PAGE.read_text(encoding="utf-8")) == contract_layers()
    assert diagram_rows(README.read_text(encoding="utf-8")) == contract_layers()


def test_a_diagram_with_two_rows_swapped_or_a_row_missing_is_caught() -> None:
    text = PAGE.read_text(encoding="utf-8")
    store_row = next(line for line in text.splitlines() if line.lstrip().startswith("store/"))
    model_row = next(line for line in text.splitlines() if line.lstrip().startswith("model/"))
    swapped = text.replace(store_row, "@").replace(model_row, store_row).replace("@", model_row)
    assert diagram_rows(swapped) != contract_layers()
    assert diagram_rows(text.replace(store_row, "")) != contract_layers()
