"""`parlour-bot check` against the served app: RandomEngine comes through a 429 storm, a dropped stream, a server
restart and a slow answer without a fault of its own; an engine that answers an illegal action is reported."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from parlour_bot.check import Adversity, run_check
from parlour_bot.cli import main
from parlour_bot.engines import RandomEngine
from parlour_client import Action, Client, LegalActions

from tests.client.test_runner import bot_config

QUICK = Adversity(storm=3, outage=3.0, slow=0.5, turn_timer=30, moves_between=1)
"""Each fault once, short enough for the suite, a move of every live match apart (with two apart, seen once in CI,
both matches could end before the last fault was due, and it was never injected; the faults together take 3.5 s
of the 30 s turn timer, so even on one turn they cannot outlast it). The outage outlasts the server's
`retry: 2000`, so the runner's stream reconnects inside it and meets it even when no seat was mid-turn."""


class Cheater(RandomEngine):
    """Plays a random legal action, except every third move: a move nobody may make."""

    def __init__(self) -> None:
        super().__init__(seed=4)
        self.calls = 0

    def choose(self, game: str, view: Any, legal: LegalActions) -> Action:
        self.calls += 1
        if self.calls % 3 == 0:
            return {"type": "move", "from_cone": 7, "scoops": 99}
        return super().choose(game, view, legal)


def test_check_passes_the_random_engine_through_every_fault(base_url: str, tmp_path: Path) -> None:
    with Client(base_url) as anyone:
        owner = anyone.register_bot("owner")
    config = bot_config(base_url, tmp_path / "state", owner)
    report = run_check(config, RandomEngine(seed=1), games=[("icecream", 2), ("sundae_split", 3)], adversity=QUICK)
    assert report.problems() == [], report.text()
    assert set(report.faults) == {"429", "dropped stream", "outage", "slow"}, report.text()
    assert len(report.matches) == 2 and report.moves > 0
    assert "OK: nothing went wrong" in report.text()


def test_check_reports_an_engine_that_answers_illegal_actions(base_url: str, tmp_path: Path) -> None:
    with Client(base_url) as anyone:
        owner = anyone.register_bot("owner")
    config = bot_config(base_url, tmp_path / "state", owner)
    report = run_check(config, Cheater(), games=[("icecream", 2)], adversity=Adversity(storm=0, outage=0, slow=0))
    assert report.refused["illegal-action"] > 0, report.text()
    assert any("refused as illegal" in problem for problem in report.problems())
    assert report.unfinished == [], "the runner played a random legal action instead, and the match ended"


def test_the_check_command_reads_the_config_and_exits_0_for_a_good_engine(
    base_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Client(base_url) as anyone:
        owner = anyone.register_bot("owner")
    (tmp_path / "bot.token").write_text(owner["token"])
    (tmp_path / "bot.toml").write_text(
        f'url = "{base_url}"\ntoken_file = "bot.token"\nstate_dir = "state"\n'
        '[engine]\npath = "parlour_bot.engines:SplitEngine"\n[challenges]\ngames = { sundae_split = [3] }\n'
    )
    flags = ["--storm", "2", "--outage", "0.5", "--slow", "0.2", "--timeout", "50"]
    assert main(["check", str(tmp_path / "bot.toml"), *flags]) == 0
    out = capsys.readouterr().out
    assert out.startswith("parlour-bot check: 1 matches,") and "OK: nothing went wrong" in out
