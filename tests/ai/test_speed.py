"""The speed benchmark command: it runs on a tiny budget and prints a line per game (nothing is timed)."""

from __future__ import annotations

import pytest

from engine.registry import all_games, get_game
from lab.ai_speed import has_choice, main, positions


def test_main_prints_both_searchers_per_game_and_the_package_ratio_for_icecream(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["--runs", "1", "--iterations", "2"])
    lines = capsys.readouterr().out.splitlines()
    for game in all_games():
        [line] = [line for line in lines if line.startswith(f"{game.info.id} (")]
        searchers = [part.split(" ")[0] for part in line.split(": ", 1)[1].split("; ")]
        expected = ["ISMCTS", "package-based"]
        if game.info.id == "icecream":
            expected += ["package", "package-based/package"]
        assert searchers == expected
        assert "opening" in line and "mid-game" in line and "it/s" in line


def test_one_game_only(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--game", "rockem_sockem", "--runs", "2", "--iterations", "3"])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" ")[0] for line in lines[2:]] == ["rockem_sockem"]


def test_unknown_game_is_refused() -> None:
    with pytest.raises(SystemExit):
        main(["--game", "chess"])


@pytest.mark.parametrize("game_id", ["icecream", "rockem_sockem", "sundae_split", "robots_love_ice_cream"])
def test_positions_are_choices_and_mid_game_is_later(game_id: str) -> None:
    game = get_game(game_id)
    assert game is not None
    opening, middle = positions(game, game.info.min_players)
    assert (opening.name, middle.name) == ("opening", "mid-game")
    for position in (opening, middle):
        assert not position.state.is_over()
        assert has_choice(position.state, position.seat)
    assert middle.state.to_json() != opening.state.to_json()
