"""The `parlour` command without the `tools` extra: one line saying what to install, before any work is done."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from tournaments.cli import main

LOCAL = ["tournament", "rockem_sockem", "random", "easy", "--local", "--seed", "tools", "--quiet"]


def test_without_tqdm_the_tournament_command_says_to_install_the_tools_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)  # `import tqdm` now fails as if it were not installed
    with pytest.raises(SystemExit) as stopped:
        main(LOCAL)
    assert (
        stopped.value.code
        == "parlour: the progress bar needs tqdm, which is not installed: pip install 'parlour[tools]'"
    )
    assert capsys.readouterr().out == ""  # nothing was played


def test_without_matplotlib_plot_says_to_install_the_tools_extra_before_playing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.delitem(sys.modules, "tournaments.plot", raising=False)  # imported by an earlier test, maybe
    plot = tmp_path / "ratings.png"
    with pytest.raises(SystemExit) as stopped:
        main([*LOCAL, "--plot", str(plot)])
    assert (
        stopped.value.code == "parlour: --plot needs matplotlib, which is not installed: pip install 'parlour[tools]'"
    )
    assert capsys.readouterr().out == "" and not plot.exists()


def test_without_matplotlib_a_tournament_without_a_plot_still_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main(LOCAL) == 0
    assert "rockem_sockem, 2 players per match" in capsys.readouterr().out


def test_verify_needs_no_tool(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.delitem(sys.modules, "tournaments.cli")
    cli = importlib.import_module("tournaments.cli")  # imported afresh: the module itself needs neither tool
    export = tmp_path / "not-an-export.json"
    export.write_text("{}")
    assert cli.main(["verify", str(export)]) == 2  # not an export: the verify command's own answer, not the extra's
    assert "parlour[tools]" not in capsys.readouterr().err
