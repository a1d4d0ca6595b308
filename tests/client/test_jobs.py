"""The client asks the AI for a move and waits for its job, against the served app and a real RQ worker; and
the client's version is the API's."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import yaml
from parlour_client import Client, __version__

from tests.api.test_transcripts import run_jobs
from tests.client.conftest import CLIENT_SOURCE

SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"


def test_a_hint_job_is_asked_and_waited_for_until_it_answers_a_legal_move(
    base_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Client(base_url) as client:
        created = client.create_match("icecream", 2, options={"turn_limit": 6}, assistance="allowed")  # two people
        token = created["tokens"][0]["token"]
        asked = client.ai_move(created["id"], token=token, level="random")
        assert (asked["status"], asked["seat"], asked["version"], asked["apply"]) == ("queued", 0, 0, False)
        run_jobs(monkeypatch, redis_url)  # a real RQ worker, in this process, until no job is left
        job = client.wait_for_job(asked["id"], token=token, interval=0.01, limit=30)
        assert job["status"] == "finished" and job["result"] is not None
        legal = client.legal_actions(created["id"], token=token)["actions"]
        assert job["result"]["action"] in legal
        assert client.match(created["id"], token=token)["version"] == 0, "a hint is not applied"


def test_the_client_speaks_the_api_version_of_openapi_yaml() -> None:
    """clients/python/pyproject.toml: 'the API version it speaks (openapi.yaml info.version)'."""
    spec_version = yaml.safe_load(SPEC.read_text())["info"]["version"]
    project = tomllib.loads((CLIENT_SOURCE.parent / "pyproject.toml").read_text())["project"]
    assert project["version"] == __version__ == spec_version
