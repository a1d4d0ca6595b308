"""The tutorial "Train an agent" (docs/tutorials/train-an-agent.md): its script runs as printed and its agent learns.

The page's script is run in a fresh interpreter with a quarter of its games; every game is seeded, so what it
prints is the page's own first lines.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "tutorials" / "train-an-agent.md"
MARKER = "<!-- tutorial script: run by tests/envs/test_tutorial.py -->"


def script() -> str:
    """The fenced Python block right after the page's marker."""
    text = PAGE.read_text(encoding="utf-8")
    assert MARKER in text, f"the tutorial lost its marker: {MARKER}"
    block = re.match(r"\s*```python\n(.*?)```", text.split(MARKER, 1)[1], re.DOTALL)
    assert block, "the marker must be followed by the script's ```python block"
    return block[1]


def test_the_tutorials_agent_wins_more_after_training(tmp_path: Path) -> None:
    code = script()
    assert "EPISODES = 8000" in code
    (tmp_path / "train.py").write_text(code.replace("EPISODES = 8000", "EPISODES = 2000"), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "train.py"], cwd=tmp_path, capture_output=True, text=True, timeout=900, check=False
    )
    assert run.returncode == 0, run.stderr
    rates = [int(rate) for rate in re.findall(r"wins (\d+)% against random", run.stdout)]
    assert len(rates) == 2, run.stdout
    assert rates[1] >= rates[0] + 8, run.stdout  # 52% then 62%
    printed = PAGE.read_text(encoding="utf-8").split("```text\n", 1)[1].splitlines()
    assert run.stdout.splitlines() == printed[:2], "the page's figures are not what its script prints"
