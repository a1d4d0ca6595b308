"""The `parlour` command: a tiny tournament played locally, its tables, JSON and PNG."""

from __future__ import annotations

import json
import subprocess
import sysconfig
from pathlib import Path

import pytest

from tournaments.cli import main, parser

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_a_local_round_robin_prints_standings_and_a_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plot = tmp_path / "ratings.png"
    code = main(["tournament", "rockem_sockem", "random", "easy", "--local", "--seed", "cli", "--plot", str(plot)])
    assert code == 0
    out, err = capsys.readouterr()
    assert "rockem_sockem, 2 players per match, round-robin: 2/2 matches (seed cli)" in out
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("#  entrant"))
    assert "rating" in header and "95% interval" in header
    assert any(line.startswith("crosstable") for line in lines)
    assert "2/2" in err  # the progress bar reached the end
    assert plot.read_bytes().startswith(PNG_SIGNATURE) and plot.stat().st_size > 5000


def test_the_same_seed_gives_the_same_tournament(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["tournament", "sundae_split", "random", "random", "easy", "--players", "3", "--local", "--json", "--quiet"]
    assert main([*args, "--seed", "again"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main([*args, "--seed", "again"]) == 0
    assert json.loads(capsys.readouterr().out) == first
    assert first["progress"] == {"done": 3, "total": 3, "void": 0}  # one group of three, seats rotated
    assert [row["played"] for row in first["standings"]] == [3, 3, 3]


def test_a_cooperative_tournament_plots_success_rates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plot = tmp_path / "team.png"
    args = ["tournament", "robots_love_ice_cream", "random", "random", "--local", "--quiet", "--games-per-pairing", "1"]
    assert main([*args, "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "success rate" in out
    assert plot.read_bytes().startswith(PNG_SIGNATURE)


def test_refusals_name_the_problem(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "chess", "random", "easy", "--local"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err
    assert main(["tournament", "icecream", "random", "genius", "--local"]) == 2
    assert "no AI level 'genius'" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="bots play only on a server"):
        main(["tournament", "icecream", "random", "bot:abc", "--local"])


def test_server_or_local_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parser().parse_args(["tournament", "icecream", "random", "easy"])
    assert "one of the arguments --server --local is required" in capsys.readouterr().err


def test_the_installed_command_runs() -> None:
    # `make test` installs the project, so its console script sits beside this interpreter's.
    command = Path(sysconfig.get_path("scripts")) / "parlour"
    done = subprocess.run([str(command), "tournament", "--help"], capture_output=True, text=True, check=True)
    assert "--plot FILE.png" in done.stdout and "bot:ID" in done.stdout
