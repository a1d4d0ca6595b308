"""A match the AI played on a real RQ worker exports with its AI seats and verifies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from tests.api.conftest import create_match
from tests.workers.conftest import StartWorker
from tests.workers.test_ai_seats import ai_seats, finished, wait_for
from tournaments.cli import main


def test_an_ai_match_exports_and_verifies(
    client: FlaskClient, start_worker: StartWorker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Sundae Split (hidden cards, a shuffled deck) between three AI seats: the export names them and replays."""
    start_worker("w1")
    match = create_match(client, game="sundae_split", players=3, seats=ai_seats("random", "easy", "random"))
    final = wait_for(lambda: finished(client, match.id), "the AI match to finish")
    export = client.get(match.url("/export")).get_json()
    assert [(seat["type"], seat["level"]) for seat in export["seats"]] == [
        ("ai", "random"),
        ("ai", "easy"),
        ("ai", "random"),
    ]
    assert export["result"] == final["result"] and export["seed"] == final["seed"]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    assert main(["verify", str(path)]) == 0
    assert f"verified: sundae_split, {len(export['log'])} log entries" in capsys.readouterr().out
