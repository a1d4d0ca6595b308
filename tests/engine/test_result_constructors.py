"""Results that end a match outside the rules: a resignation and a team that gives up."""

from __future__ import annotations

import pytest

from engine.result import Result


def test_resignation_ties_the_others_first_and_puts_the_resigner_last() -> None:
    result = Result.resignation(4, 2)
    assert result.ranking == ((0, 1, 3), (2,))
    assert result.winners == (0, 1, 3)
    assert result.scores == (1.0, 1.0, 0.0, 1.0)
    assert result.reason == "seat 2 resigned"
    assert result.team_success is None and not result.is_draw
    assert result.rewards()[2] == -1.0


def test_two_seat_resignation_is_a_win_for_the_other() -> None:
    result = Result.resignation(2, 0)
    assert result.ranking == ((1,), (0,))
    assert result.to_json() == {
        "scores": [0.0, 1.0],
        "ranking": [[1], [0]],
        "winners": [1],
        "draw": False,
        "reason": "seat 0 resigned",
    }


def test_resignation_refuses_a_seat_outside_the_table() -> None:
    with pytest.raises(ValueError):
        Result.resignation(3, 3)


def test_gave_up_is_a_team_loss_with_one_shared_place() -> None:
    result = Result.gave_up(3)
    assert result.ranking == ((0, 1, 2),)
    assert result.winners == ()
    assert result.scores == (0.0, 0.0, 0.0)
    assert result.team_success is False
    assert result.reason == "the team gave up"
    assert result.rewards() == [-1.0, -1.0, -1.0]
    assert Result.from_json(result.to_json()) == result


def test_a_resignation_ends_a_competitive_game_and_hands_a_cooperative_seat_on_while_others_play() -> None:
    assert Result.after_resignation(False, 3, 1, others_play_on=True) == Result.resignation(3, 1)
    assert Result.after_resignation(True, 2, 1, others_play_on=True) is None
    assert Result.after_resignation(True, 2, 1, others_play_on=False) == Result.gave_up(2)
