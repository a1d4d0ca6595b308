"""`parlour verify`: an export replays through the checked path; every kind of tampering is named, offline."""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from domain.matches.verify import FORMAT, FORMAT_VERSION, MISMATCH, NOT_AN_EXPORT, VERIFIED
from engine import get_game
from engine.result import Result
from engine.rng import Rng
from model.match import seed_commitment
from tournaments.cli import main

AT = "2026-12-03T20:00:00.000Z"


def played_export(game_id: str = "icecream", players: int = 2, seed: str = "verify") -> dict[str, Any]:
    """An export of a match played to its end with random legal actions, as the server writes one."""
    game = get_game(game_id)
    assert game is not None
    options = game.info.options.resolve(None)
    state = game.start(players, options, seed)
    rng = Rng.from_seed(f"moves-{seed}")
    log: list[dict[str, Any]] = []
    while not state.is_over():
        seat = state.waiting_for()[0]
        action = state.sample_action(seat, rng)
        state.play(seat, action)
        log.append({"version": len(log) + 1, "seat": seat, "action": action, "at": AT})
    result = state.result()
    assert result is not None
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "id": "m1",
        "game": game_id,
        "rules_version": game.info.rules_version,
        "players": players,
        "options": options,
        "seats": [{"seat": seat, "type": "human", "name": None, "level": None, "bot": None} for seat in range(players)],
        "seed": seed,
        "seed_commitment": seed_commitment(seed),
        "created_at": AT,
        "finished_at": AT,
        "version": len(log),
        "status": "finished",
        "abort_reason": None,
        "result": result.to_json(),
        "log": log,
    }


def verify(tmp_path: Path, export: Any, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """`parlour verify FILE` on the export as JSON (or on text as it is): exit status and what it printed."""
    path = tmp_path / "export.json"
    path.write_text(export if isinstance(export, str) else json.dumps(export))
    code = main(["verify", str(path)])
    out, err = capsys.readouterr()
    return code, out + err


@pytest.fixture
def export() -> dict[str, Any]:
    """A finished IceCream match's export."""
    return played_export()


def test_an_untouched_export_verifies(tmp_path: Path, export: dict[str, Any], capsys: Any) -> None:
    code, printed = verify(tmp_path, export, capsys)
    assert code == VERIFIED, printed
    assert f"verified: icecream, {len(export['log'])} log entries replayed from the seed; won by seat" in printed


def test_a_changed_action_is_named_by_its_version(tmp_path: Path, export: dict[str, Any], capsys: Any) -> None:
    export["log"][4]["action"] = {"type": "move", "from_cone": 7, "scoops": 1}
    code, printed = verify(tmp_path, export, capsys)
    assert code == MISMATCH
    assert "log entry version 5: seat" in printed and "is refused" in printed


def test_an_action_by_the_wrong_seat_is_refused(tmp_path: Path, export: dict[str, Any], capsys: Any) -> None:
    export["log"][2]["seat"] = 1 - export["log"][2]["seat"]
    code, printed = verify(tmp_path, export, capsys)
    assert code == MISMATCH and "log entry version 3:" in printed and "may not act now" in printed


def test_a_changed_seed_breaks_the_commitment(tmp_path: Path, export: dict[str, Any], capsys: Any) -> None:
    export["seed"] = "another"
    code, printed = verify(tmp_path, export, capsys)
    assert code == MISMATCH and "sha256(seed) is not the seed_commitment" in printed


def test_a_changed_seed_with_its_own_commitment_does_not_replay(tmp_path: Path, capsys: Any) -> None:
    """Sundae Split deals from the seed: another seed (committed to anew) deals other cards, so the log breaks."""
    export = played_export("sundae_split", 3)
    assert verify(tmp_path, export, capsys)[0] == VERIFIED
    export["seed"] = "another"
    export["seed_commitment"] = seed_commitment("another")
    code, printed = verify(tmp_path, export, capsys)
    assert code == MISMATCH and "log entry version" in printed, printed


def test_a_changed_result_is_caught(tmp_path: Path, export: dict[str, Any], capsys: Any) -> None:
    result = export["result"]
    result["winners"] = [1 - result["winners"][0]]
    result["ranking"] = [result["winners"], [1 - result["winners"][0]]]
    code, printed = verify(tmp_path, export, capsys)
    assert code == MISMATCH and "the result is" in printed and "but the log replays to" in printed


def test_a_reordered_log_is_caught(tmp_path: Path, export: dict[str, Any], capsys: Any) -> None:
    """Swapped entries are out of order; swapped actions under the same versions are played by the wrong seats."""
    swapped = copy.deepcopy(export)
    swapped["log"][3], swapped["log"][4] = swapped["log"][4], swapped["log"][3]
    code, printed = verify(tmp_path, swapped, capsys)
    assert code == MISMATCH and "log entry version 4: out of order" in printed, printed
    moved = copy.deepcopy(export)
    first, second = moved["log"][3], moved["log"][4]
    first["seat"], first["action"], second["seat"], second["action"] = (
        second["seat"],
        second["action"],
        first["seat"],
        first["action"],
    )
    code, printed = verify(tmp_path, moved, capsys)
    assert code == MISMATCH and "log entry version 4:" in printed, printed


def test_a_log_cut_short_or_run_on_is_caught(tmp_path: Path, export: dict[str, Any], capsys: Any) -> None:
    short = {**export, "log": export["log"][:-1]}
    code, printed = verify(tmp_path, short, capsys)
    assert code == MISMATCH and "does not end the match" in printed
    extra = {"version": len(export["log"]) + 1, "seat": 0, "action": export["log"][-1]["action"], "at": AT}
    code, printed = verify(tmp_path, {**export, "log": [*export["log"], extra]}, capsys)
    assert code == MISMATCH and f"log entry version {extra['version']}: an entry after the match ended" in printed


def test_an_aborted_export(tmp_path: Path, export: dict[str, Any], capsys: Any) -> None:
    """An aborted match has no result and its log does not end it."""
    aborted = {**export, "status": "aborted", "abort_reason": "aborted by its owner", "result": None}
    assert verify(tmp_path, {**aborted, "log": export["log"][:3]}, capsys)[0] == VERIFIED
    code, printed = verify(tmp_path, aborted, capsys)
    assert code == MISMATCH and "the export says aborted but its log ends the match" in printed
    code, printed = verify(tmp_path, {**aborted, "log": [], "result": export["result"]}, capsys)
    assert code == MISMATCH and "an aborted match has no result" in printed


def test_resignations(tmp_path: Path, export: dict[str, Any], capsys: Any) -> None:
    """A resignation ends a competitive match with the resigner last; a competitive seat is never handed on."""
    log = [*export["log"][:3], {"version": 4, "seat": 1, "at": AT, "resign": True}]
    result = {"scores": [1.0, 0.0], "ranking": [[0], [1]], "winners": [0], "draw": False, "reason": "seat 1 resigned"}
    resigned = {**export, "log": log, "result": result}
    assert verify(tmp_path, resigned, capsys)[0] == VERIFIED
    code, printed = verify(tmp_path, {**resigned, "log": [*log, {**log[0], "version": 5}]}, capsys)
    assert code == MISMATCH and "log entry version 5: an entry after the match ended" in printed
    handed = {**resigned, "log": [*log[:3], {**log[3], "handed_to": "easy"}]}
    code, printed = verify(tmp_path, handed, capsys)
    assert code == MISMATCH and "cannot be handed to the AI" in printed


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("not json at all", "not JSON"),
        ("[1, 2, 3]", "not a Parlour match export"),
        ('{"format": "something-else"}', "not a Parlour match export"),
    ],
)
def test_a_file_that_is_not_an_export(tmp_path: Path, capsys: Any, text: str, says: str) -> None:
    code, printed = verify(tmp_path, text, capsys)
    assert code == NOT_AN_EXPORT and says in printed and "Traceback" not in printed


def test_another_format_version_or_a_missing_field(tmp_path: Path, export: dict[str, Any], capsys: Any) -> None:
    code, printed = verify(tmp_path, {**export, "format_version": 2}, capsys)
    assert code == NOT_AN_EXPORT and "this verifier reads version 1" in printed
    del export["seed"]
    code, printed = verify(tmp_path, export, capsys)
    assert code == NOT_AN_EXPORT and "'seed' is missing" in printed
    assert main(["verify", str(tmp_path / "nowhere.json")]) == NOT_AN_EXPORT
    assert "cannot read" in capsys.readouterr().err


def test_standard_input(export: dict[str, Any], capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(export)))
    assert main(["verify", "-"]) == VERIFIED
    assert "verified: icecream" in capsys.readouterr().out


def test_the_installed_command(tmp_path: Path, export: dict[str, Any]) -> None:
    """`parlour verify` as a user runs it: exit statuses 0, 1 and 2, messages on the right streams."""
    command = str(Path(sysconfig.get_path("scripts")) / "parlour")
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    done = subprocess.run([command, "verify", str(path)], capture_output=True, text=True)
    assert done.returncode == VERIFIED and done.stdout.startswith("verified: icecream"), done.stderr
    export["seed"] = "tampered"
    done = subprocess.run([command, "verify", "-"], input=json.dumps(export), capture_output=True, text=True)
    assert done.returncode == MISMATCH and "seed_commitment" in done.stderr and not done.stdout
    done = subprocess.run([command, "verify", "-"], input="{", capture_output=True, text=True)
    assert done.returncode == NOT_AN_EXPORT and "Traceback" not in done.stderr


def cooperative_export(seats: list[dict[str, Any]], log: list[dict[str, Any]]) -> dict[str, Any]:
    """A two-seat Robots Love Ice Cream export that ended by its log of resignations, with the team giving up."""
    export = played_export("robots_love_ice_cream", 2)
    return {**export, "seats": seats, "log": log, "result": Result.gave_up(2).to_json()}


def seat(number: int, kind: str = "human", level: str | None = None) -> dict[str, Any]:
    """An export's seat."""
    return {"seat": number, "type": kind, "name": None, "level": level, "bot": None}


def test_cooperative_resignations_follow_the_servers_rule(tmp_path: Path, capsys: Any) -> None:
    """A seat goes to the AI while another human or bot seat plays on; the last one's resignation gives up."""
    handed = {"version": 1, "seat": 1, "at": AT, "resign": True, "handed_to": "easy"}
    gave_up = {"version": 2, "seat": 0, "at": AT, "resign": True}
    export = cooperative_export([seat(0), seat(1, "ai", "easy")], [handed, gave_up])
    code, printed = verify(tmp_path, export, capsys)
    assert code == VERIFIED and "the team lost (the team gave up)" in printed, printed
    too_soon = cooperative_export([seat(0), seat(1)], [{**gave_up, "version": 1}])
    code, printed = verify(tmp_path, too_soon, capsys)
    assert code == MISMATCH and "log entry version 1: seats [1] play on" in printed, printed
    last = cooperative_export([seat(0, "ai", "easy"), seat(1, "ai", "random")], [{**handed, "seat": 0}])
    code, printed = verify(tmp_path, last, capsys)
    assert code == MISMATCH and "seat 0 was the last human or bot seat" in printed, printed
    elsewhere = cooperative_export([seat(0), seat(1, "ai", "hard")], [handed, gave_up])
    code, printed = verify(tmp_path, elsewhere, capsys)
    assert code == MISMATCH and "went to 'easy' but the export's seat is not that AI" in printed, printed


def test_an_ai_seat_never_resigns(tmp_path: Path, export: dict[str, Any], capsys: Any) -> None:
    result = Result.resignation(2, 1).to_json()
    resign = {"version": 1, "seat": 1, "at": AT, "resign": True}
    by_ai = {**export, "seats": [seat(0), seat(1, "ai", "easy")], "log": [resign], "result": result}
    code, printed = verify(tmp_path, by_ai, capsys)
    assert code == MISMATCH and "seat 1 is played by the AI" in printed
    assert verify(tmp_path, {**by_ai, "seats": [seat(0), seat(1)]}, capsys)[0] == VERIFIED


def test_seats_that_do_not_match_the_players(tmp_path: Path, export: dict[str, Any], capsys: Any) -> None:
    code, printed = verify(tmp_path, {**export, "seats": [seat(0)]}, capsys)
    assert code == NOT_AN_EXPORT and "are not 2 seats" in printed
