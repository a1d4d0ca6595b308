"""The review thresholds the AI opponents page documents are the ones `ai.review` classes moves by."""

from __future__ import annotations

import re
from pathlib import Path

from ai.review import thresholds_for
from engine import all_games

PAGE = Path(__file__).resolve().parents[1] / "docs/explanation/ai-opponents.md"


def test_the_page_lists_every_game_s_review_thresholds() -> None:
    rows = {}
    for line in PAGE.read_text().splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 5 and re.fullmatch(r"[\d.]+", cells[1]):
            rows[cells[0]] = tuple(float(cell) for cell in cells[1:4])
    for game in all_games():
        found = thresholds_for(game.info.id)
        assert rows.get(game.info.name) == (found.inaccuracy, found.mistake, found.blunder), game.info.name
