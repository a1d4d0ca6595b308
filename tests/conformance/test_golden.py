"""Golden playthroughs: a pinned seed and action list per game and player count ends in a pinned state.

A failure means the rules (or the stored state) changed: find out why, and if the change is deliberate,
regenerate with `.venv/bin/python -m tests.conformance.golden <game id>` and commit the new file with it.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import ActionRejected, Game, all_games
from tests.conformance.golden import REGENERATE, path_of, read_golden, state_hash

CASES = [
    pytest.param(game, players, id=f"{game.info.id}-{players}p")
    for game in all_games()
    for players in range(game.info.min_players, game.info.max_players + 1)
]


def pinned(game: Game, players: int) -> dict[str, Any]:
    """The golden playthrough of this game and player count."""
    assert path_of(game).exists(), f"{game.info.id} has no golden file: run {REGENERATE} {game.info.id}"
    found: list[dict[str, Any]] = [entry for entry in read_golden(game)["playthroughs"] if entry["players"] == players]
    assert found, f"{game.info.id} has no golden playthrough for {players} players: run {REGENERATE} {game.info.id}"
    return found[0]


def advice(game: Game, pinned_version: int) -> str:
    """What to do when a playthrough no longer replays as pinned."""
    version = game.info.rules_version
    bump = (
        f"; rules_version is still {version}: raise it if stored matches no longer read true"
        if version == pinned_version
        else ""
    )
    return (
        f"If the rules change is deliberate, regenerate with `{REGENERATE} {game.info.id}` and commit "
        f"{path_of(game).name} with it{bump}."
    )


@pytest.mark.parametrize(("game", "players"), CASES)
def test_golden_playthrough(game: Game, players: int) -> None:
    """Replaying the pinned actions through the checked path ends in the pinned state."""
    entry = pinned(game, players)
    version = read_golden(game)["rules_version"]
    state = game.start(players, entry["options"], entry["seed"])
    for step, (seat, action) in enumerate(entry["actions"]):
        try:
            state.play(seat, action)
        except ActionRejected as error:
            pytest.fail(
                f"{game.info.id} {players}p golden playthrough: action {step} {action!r} of seat {seat} is now "
                f"refused ({error}). {advice(game, version)}"
            )
    assert state.is_over(), f"{game.info.id} {players}p golden playthrough no longer ends. {advice(game, version)}"
    assert state_hash(state) == entry["final_state_sha256"], (
        f"{game.info.id} {players}p golden playthrough ends in another state than the pinned one. "
        f"{advice(game, version)}"
    )
