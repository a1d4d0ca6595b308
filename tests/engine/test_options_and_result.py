"""engine/options.py and engine/result.py: option checking, rankings, rewards and their JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine import InvalidOptions
from engine.options import OptionSet, OptionSpec
from engine.result import Result

LEVEL = OptionSpec("level", "int", 2, "How hard.", minimum=1, maximum=5)
TIMER = OptionSpec("timer", "bool", False, "Use a timer.")
MODE = OptionSpec("mode", "choice", "draw", "Tie rule.", choices=("draw", "mover"))
OPTIONS = OptionSet((LEVEL, TIMER, MODE))


# --- options ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "value"),
    [(LEVEL, 1), (LEVEL, 5), (TIMER, True), (TIMER, False), (MODE, "draw"), (MODE, "mover")],
)
def test_allowed_values_pass(spec: OptionSpec, value: Any) -> None:
    assert spec.check(value) == value


@pytest.mark.parametrize(
    ("spec", "value", "says"),
    [
        (LEVEL, 0, "at least 1"),
        (LEVEL, 6, "at most 5"),
        (LEVEL, True, "integer"),
        (LEVEL, 2.0, "integer"),
        (LEVEL, "2", "integer"),
        (LEVEL, None, "integer"),
        (TIMER, 1, "true or false"),
        (TIMER, "true", "true or false"),
        (MODE, "Draw", "one of: draw, mover"),
        (MODE, ["draw"], "one of"),
        (MODE, None, "one of"),
    ],
)
def test_bad_values_are_refused_with_the_field(spec: OptionSpec, value: Any, says: str) -> None:
    with pytest.raises(InvalidOptions, match=says) as refused:
        spec.check(value)
    assert refused.value.field == spec.name and refused.value.code == "invalid-options"


def test_resolve_fills_defaults_and_overrides() -> None:
    assert OPTIONS.resolve(None) == {"level": 2, "timer": False, "mode": "draw"}
    assert OPTIONS.resolve({}) == {"level": 2, "timer": False, "mode": "draw"}
    given = {"level": 4, "mode": "mover"}
    assert OPTIONS.resolve(given) == {"level": 4, "timer": False, "mode": "mover"}
    assert given == {"level": 4, "mode": "mover"}, "the given dict is not changed"


def test_resolve_refuses_unknown_options() -> None:
    with pytest.raises(InvalidOptions, match="unknown option 'colour'; this game's options: level, mode, timer") as e:
        OPTIONS.resolve({"colour": "red", "level": 3})
    assert e.value.field == "colour"
    with pytest.raises(InvalidOptions, match="options: none"):
        OptionSet().resolve({"x": 1})


@pytest.mark.parametrize("given", [["level"], "level", 3, True])
def test_resolve_refuses_non_objects(given: Any) -> None:
    with pytest.raises(InvalidOptions, match="JSON object"):
        OPTIONS.resolve(given)


def test_option_catalog_json() -> None:
    assert OPTIONS.to_json() == [
        {"name": "level", "type": "int", "default": 2, "description": "How hard.", "minimum": 1, "maximum": 5},
        {"name": "timer", "type": "bool", "default": False, "description": "Use a timer."},
        {"name": "mode", "type": "choice", "default": "draw", "description": "Tie rule.", "choices": ["draw", "mover"]},
    ]


# --- results ----------------------------------------------------------------------------------


def test_ranking_by_score_with_ties() -> None:
    result = Result.ranked_by_score([3, 5, 5, 1], "scores counted")
    assert result.ranking == ((1, 2), (0,), (3,))
    assert result.winners == (1, 2)
    assert not result.is_draw and result.team_success is None


def test_everyone_tied_is_a_draw() -> None:
    result = Result.ranked_by_score([0, 0, 0], "nobody scored")
    assert result.ranking == ((0, 1, 2),) and result.winners == (0, 1, 2)
    assert result.is_draw and result.rewards() == [0.0, 0.0, 0.0]


def test_two_seat_rewards() -> None:
    assert Result.ranked_by_score([1, 0], "won").rewards() == [1.0, -1.0]
    assert Result.ranked_by_score([0, 1], "won").rewards() == [-1.0, 1.0]


def test_five_seat_rewards_spread_evenly() -> None:
    result = Result.ranked_by_score([10, 40, 30, 20, 0], "scores counted")
    assert result.ranking == ((1,), (2,), (3,), (0,), (4,))
    assert result.rewards() == [-0.5, 1.0, 0.5, 0.0, -1.0]


def test_five_seat_rewards_with_ties_share_places() -> None:
    """Tied seats share the average of the places they cover; rewards still sum to zero."""
    result = Result.ranked_by_score([7, 9, 9, 2, 2], "scores counted")
    assert result.ranking == ((1, 2), (0,), (3, 4))
    rewards = result.rewards()
    assert rewards == [0.0, 0.75, 0.75, -0.75, -0.75]
    assert sum(rewards) == 0.0


def test_all_rewards_in_range() -> None:
    for scores in ([1], [2, 2], [5, 1, 3], [1, 1, 2, 2, 3], [0, 9, 9, 9, 1]):
        assert all(-1.0 <= r <= 1.0 for r in Result.ranked_by_score(scores, "x").rewards())


def test_co_operative_success_and_failure() -> None:
    won = Result(scores=(3, 3, 3), ranking=((0, 1, 2),), winners=(0, 1, 2), reason="saved", team_success=True)
    lost = Result(scores=(0, 0), ranking=((0, 1),), winners=(), reason="melted", team_success=False)
    solo = Result(scores=(1,), ranking=((0,),), winners=(), reason="alone", team_success=False)
    assert won.rewards() == [1.0, 1.0, 1.0] and not won.is_draw
    assert lost.rewards() == [-1.0, -1.0] and not lost.is_draw
    assert solo.rewards() == [-1.0]


@pytest.mark.parametrize(
    "result",
    [
        Result.ranked_by_score([3, 5, 5, 1], "scores counted"),
        Result.ranked_by_score([0, 0], "a draw"),
        Result.ranked_by_score([0.5, -1.5], "fractional"),
        Result(scores=(2, 2), ranking=((0, 1),), winners=(0, 1), reason="saved", team_success=True),
        Result(scores=(0,), ranking=((0,),), winners=(), reason="melted", team_success=False),
    ],
)
def test_result_json_round_trip(result: Result) -> None:
    data = json.loads(json.dumps(result.to_json()))
    assert data["draw"] == result.is_draw
    assert ("team_success" in data) == (result.team_success is not None)
    assert Result.from_json(data) == result
