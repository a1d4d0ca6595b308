"""Local play keeps its results: the same plan and seed play the same matches as before `ai.play` took over."""

from __future__ import annotations

from typing import Any

import pytest

from domain.tournaments.setup import PlanRequest, build_plan
from model.tournament import EntrantRequest
from tournaments.local import run

# Rankings per match, recorded with tournaments/local as it was before it used ai.play (commit dbf91e0);
# Freeze Factory's re-recorded when issue 18 changed its rules (claim window, own lines, the extra cone), and again
# when rules version 3 made a spent turn wait on what everyone sees (assumption turn-end).
PINNED: list[tuple[str, int, dict[str, Any], list[list[list[int]]]]] = [
    (
        "rockem_sockem",
        2,
        {"mode": "rounds"},
        [[[0], [1]], [[0], [1]], [[0], [1]], [[1], [0]], [[1], [0]], [[0], [1]]],
    ),
    (
        "freeze_factory",
        3,
        {"turn_limit": 40},
        [
            [[0, 1, 2]],
            [[0, 1, 2]],
            [[1], [0, 2]],
            [[0, 1, 2]],
            [[1], [0], [2]],
            [[1], [0, 2]],
            [[0, 1, 2]],
            [[0, 1, 2]],
        ],
    ),
]


@pytest.mark.parametrize(("game", "players", "options", "rankings"), PINNED, ids=[pin[0] for pin in PINNED])
def test_a_seeded_tournament_plays_as_it_always_did(
    game: str, players: int, options: dict[str, Any], rankings: list[list[list[int]]]
) -> None:
    entrants: list[EntrantRequest] = [{"type": "ai", "level": "random"}] * (players + 1)
    request: PlanRequest = {
        "game": game,
        "players": players,
        "entrants": entrants,
        "options": options,
        "seed": "pinned",
        "games_per_pairing": 2,
    }
    plan = build_plan(request)
    _, outcomes = run(plan)
    assert [outcomes[index].ranking for index in sorted(outcomes)] == rankings
    assert not any(outcome.void for outcome in outcomes.values())
