"""GET /v1/matches/{id}/export: a match that is over as one file, which `parlour verify` checks."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.current import ParlourApp
from domain.matches.verify import FORMAT, FORMAT_VERSION
from engine import get_game
from engine.rng import Rng
from store.matches import RULES_CHANGED
from tests.api.conftest import Match, bearer, create_match
from tests.api.openapi_support import component_validator, load_document
from tournaments.cli import main

FIVE_GAMES = [
    ("icecream", 2, {}),
    ("sundae_split", 3, {}),
    ("freeze_factory", 2, {"turn_limit": 20}),
    ("rockem_sockem", 2, {}),
    ("robots_love_ice_cream", 2, {}),
]

EXPORT = component_validator(load_document(), "Export")
FREEZE_FACTORY_RULES = get_game("freeze_factory").info.rules_version  # type: ignore[union-attr]


def play_out(client: FlaskClient, match: Match, seed: str) -> int:
    """Play the match to its end through the API, each action drawn from an engine copy of the state; its length."""
    body = match.body
    game = get_game(body["game"])
    assert game is not None
    state = game.start(body["players"], body["options"], seed)
    rng = Rng.from_seed(f"moves-{seed}")
    moves = 0
    while not state.is_over():
        seat = state.waiting_for()[0]
        action = state.sample_action(seat, rng)
        answer = client.post(match.url("/actions"), json={"action": action}, headers=bearer(match.tokens[seat]))
        assert answer.status_code == 200, answer.get_json()
        state.play(seat, action)
        moves += 1
    assert client.get(match.url()).get_json()["status"] == "finished"
    return moves


def export_of(client: FlaskClient, match: Match) -> dict[str, Any]:
    """GET .../export, checked to be a download that openapi.yaml's `Export` describes."""
    response = client.get(match.url("/export"))
    assert response.status_code == 200, response.get_json()
    assert response.headers["Content-Disposition"] == (
        f'attachment; filename="parlour-{match.body["game"]}-{match.id}.json"'
    )
    export = dict(response.get_json())
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in EXPORT.iter_errors(export)]
    assert not errors, errors
    return export


def verify_file(tmp_path: Path, export: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Run `parlour verify` on the export written to a file: its exit status and what it printed."""
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    code = main(["verify", str(path)])
    out, err = capsys.readouterr()
    return code, out + err


@pytest.mark.parametrize(("game", "players", "options"), FIVE_GAMES, ids=[game for game, _, _ in FIVE_GAMES])
def test_a_finished_match_of_each_game_exports_and_verifies(
    client: FlaskClient, tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, players: int, options: Any
) -> None:
    """The export holds the seed, options, seats and the whole log, and replays to the match's own result."""
    seed = f"export-{game}"
    match = create_match(client, game=game, players=players, options=options, seed=seed)
    moves = play_out(client, match, seed)
    final = client.get(match.url()).get_json()
    export = export_of(client, match)
    assert (export["format"], export["format_version"]) == (FORMAT, FORMAT_VERSION)
    assert (export["id"], export["game"], export["players"], export["status"]) == (match.id, game, players, "finished")
    assert export["options"] == final["options"] and export["result"] == final["result"]
    assert export["seed"] == seed and export["seed_commitment"] == final["seed_commitment"]
    assert export["abort_reason"] is None and export["created_at"] == final["created_at"]
    assert export["seats"] == [
        {"seat": seat, "type": "human", "name": None, "level": None, "bot": None} for seat in range(players)
    ]
    log = client.get(match.url(f"/log?limit=500&after={0}")).get_json()
    assert len(export["log"]) == moves and export["log"][: len(log["entries"])] == log["entries"]
    text = json.dumps(export)
    assert not [token for token in [*match.tokens.values(), match.body["owner_token"]] if token in text]
    code, printed = verify_file(tmp_path, export, capsys)
    assert code == 0, printed
    assert f"verified: {game}, {moves} log entries" in printed


def test_a_running_match_is_not_exported(client: FlaskClient, match: Match) -> None:
    """While the match runs its seed is secret: 409 match-not-over, as problem+json."""
    response = client.get(match.url("/export"))
    assert response.status_code == 409 and response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == "match-not-over"
    assert client.get("/v1/matches/nope/export").status_code == 404


def test_a_waiting_match_is_not_exported(client: FlaskClient) -> None:
    """A match with an open seat has not started: not over either."""
    waiting = create_match(client, seats=[{"type": "human"}, {"type": "open"}])
    response = client.get(waiting.url("/export"))
    assert response.status_code == 409 and response.get_json()["code"] == "match-not-over"


def test_an_aborted_match_exports_without_a_result_and_verifies(
    client: FlaskClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The owner aborts a match before it starts: the export says why, has no result, and verifies."""
    waiting = create_match(client, seats=[{"type": "human"}, {"type": "open"}])
    owner = bearer(waiting.body["owner_token"])
    assert client.post(waiting.url("/abort"), headers=owner).status_code == 200
    export = export_of(client, waiting)
    assert export["status"] == "aborted" and export["result"] is None and export["log"] == []
    assert export["abort_reason"] == client.get(waiting.url()).get_json()["abort_reason"]
    assert export["seats"][1]["type"] == "human" and export["seed_commitment"]
    code, printed = verify_file(tmp_path, export, capsys)
    assert code == 0 and "aborted, no result" in printed, printed


def test_an_export_is_rate_limited_like_the_replays(app: ParlourApp, client: FlaskClient, match: Match) -> None:
    """The route carries the replays' RateLimit headers."""
    response = client.get(match.url("/export"))
    assert response.headers["RateLimit-Policy"] == client.get(match.url("/replay/0")).headers["RateLimit-Policy"]


def test_a_resigned_match_exports_and_verifies(
    client: FlaskClient, tmp_path: Path, capsys: pytest.CaptureFixture[str], match: Match
) -> None:
    """A competitive resignation is logged without an action and verifies to the resigner last."""
    legal = client.get(match.url("/legal-actions"), headers=bearer(match.tokens[0])).get_json()
    body = {"action": legal["actions"][0], "expected_version": legal["version"]}
    assert client.post(match.url("/actions"), json=body, headers=bearer(match.tokens[0])).status_code == 200
    assert client.post(match.url("/resign"), headers=bearer(match.tokens[0])).status_code == 200
    export = export_of(client, match)
    assert export["log"][-1] | {"at": None} == {"version": 2, "seat": 0, "at": None, "resign": True}
    assert export["result"] == client.get(match.url()).get_json()["result"]
    assert export["result"]["ranking"] == [[1], [0]]
    code, printed = verify_file(tmp_path, export, capsys)
    assert code == 0 and "won by seat 1 (seat 0 resigned)" in printed, printed
    assert client.post(match.url("/rematch"), headers=bearer(match.tokens[1])).status_code == 200
    offered = export_of(client, match)
    assert offered["finished_at"] == export["finished_at"] == export["log"][-1]["at"]
    assert offered["version"] == export["version"] + 1 and offered["log"] == export["log"]


def test_a_cooperative_seat_handed_to_the_ai_then_a_give_up_verifies(
    client: FlaskClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Robots Love Ice Cream: seat 1 resigns (the AI takes it, play goes on), then seat 0 (the team gives up)."""
    match = create_match(client, game="robots_love_ice_cream", players=2, seed="handed")
    for seat in (1, 0):
        response = client.post(match.url("/resign"), headers=bearer(match.tokens[seat]))
        assert response.status_code == 200, response.get_json()
    export = export_of(client, match)
    assert [("handed_to" in entry, entry["seat"]) for entry in export["log"]] == [(True, 1), (False, 0)]
    assert export["seats"][1] | {"name": None} == {"seat": 1, "type": "ai", "name": None, "level": "easy", "bot": None}
    assert export["result"] is not None and export["result"]["team_success"] is False
    code, printed = verify_file(tmp_path, export, capsys)
    assert code == 0 and "the team lost (the team gave up)" in printed, printed


def test_a_match_stored_under_earlier_rules_exports_but_says_it_cannot_be_verified_here(
    app: ParlourApp, client: FlaskClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its log stays readable, so it exports (aborted, rules-changed); this engine plays other rules: exit 1."""
    match = create_match(client, game="freeze_factory", players=2, seed="earlier-rules")
    legal = client.get(match.url("/legal-actions"), headers=bearer(match.tokens[0])).get_json()
    body = {"action": legal["actions"][0], "expected_version": legal["version"]}
    assert client.post(match.url("/actions"), json=body, headers=bearer(match.tokens[0])).status_code == 200
    record = app.services.store.load(match.id)
    current = FREEZE_FACTORY_RULES
    assert record is not None and record.rules_version == current
    earlier = replace(record, version=record.version + 1, rules_version=current - 1)  # as an older server stored it
    assert app.services.store.commit(earlier, record.version).kind == "ok"
    export = export_of(client, match)
    assert (export["status"], export["rules_version"], export["result"]) == ("aborted", current - 1, None)
    assert export["abort_reason"] == RULES_CHANGED
    assert len(export["log"]) == 1
    code, printed = verify_file(tmp_path, export, capsys)
    assert code == 1 and (
        f"played under version {current - 1} of Freeze Factory's rules; this engine plays version {current}" in printed
    )
