"""The guide builds with `mkdocs build --strict` and no warning: every nav page exists, every link and anchor
resolves, and the reference pages' generators run (CI's check of the docs; `make docs` builds the same)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of a config into `site`."""
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config)]
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [*command, "--site-dir", str(site)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def warnings(output: str) -> list[str]:
    """The log lines MkDocs writes at WARNING or above."""
    return [line for line in output.splitlines() if line.startswith(("WARNING", "ERROR", "CRITICAL"))]


def test_the_guide_builds_strictly_without_a_warning(tmp_path: Path) -> None:
    done = build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    assert warnings(done.stdout + done.stderr) == []
    assert (tmp_path / "site" / "reference" / "settings.html").is_file()


def test_a_broken_link_or_anchor_fails_the_build(tmp_path: Path) -> None:
    """The validation settings of mkdocs.yml turn a link to a missing page, or a missing anchor, into a failure."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\n[gone](missing.md) and [no anchor](other.md#nowhere)\n")
    (docs / "other.md").write_text("# Other\n")
    config.update(docs_dir=str(docs), nav=["index.md", "other.md"], hooks=[], exclude_docs="")
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    done = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0
    found = "\n".join(warnings(done.stdout + done.stderr))
    assert "missing.md" in found and "nowhere" in found
