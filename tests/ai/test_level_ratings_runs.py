"""`lab.level_ratings` adds runs up under one version of a game's rules: a game played under earlier rules (Freeze
Factory's before version 3 changed when a turn passes) stays in the results file but counts no more."""

from __future__ import annotations

import json
from pathlib import Path

from engine import get_game
from lab.level_ratings import Played, Table, played_before, record


def test_a_run_counts_only_the_games_played_under_the_rules_played_now(tmp_path: Path) -> None:
    game = get_game("freeze_factory")
    assert game is not None and game.info.rules_version > 1
    results = tmp_path / "games.jsonl"
    now = Played(Table("freeze_factory", ("random", "easy"), "levels:freeze_factory:0"), (2, 1), True, 40, 1.5)
    record(results, now)
    written = json.loads(results.read_text())
    assert written["rules_version"] == game.info.rules_version
    earlier = {**written, "rules_version": game.info.rules_version - 1, "seed": "levels:freeze_factory:1"}
    with results.open("a") as out:
        out.write(json.dumps(earlier) + "\n")
    assert played_before(results, "freeze_factory") == [now]
    assert played_before(results, "icecream") == []
    assert len(results.read_text().splitlines()) == 2  # the earlier game is kept, not counted
