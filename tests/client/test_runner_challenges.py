"""parlour-bot's challenge filters and its cap: a game it does not take and a blocked opponent are declined, and a
challenge beyond its `concurrency` waits until a match ends, then is accepted."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from parlour_bot import RandomEngine, Runner
from parlour_client import Client

from tests.client.test_runner import JOIN, bot_config, start


def test_the_runner_declines_by_its_filters_and_keeps_a_challenge_beyond_its_cap(
    base_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="parlour_bot")
    with Client(base_url) as anyone:
        picky, partner, pest = (anyone.register_bot(name) for name in ("picky", "partner", "pest"))
        challenges = {"games": {"icecream": [2]}, "opponents_blocked": ["pest"]}
        runner = Runner(
            bot_config(base_url, tmp_path / "picky", picky, concurrency=1, challenges=challenges),
            RandomEngine(seed=1),
            matches=2,
        )
        other = Runner(bot_config(base_url, tmp_path / "partner", partner, concurrency=4), RandomEngine(seed=2))
        other_thread = start(other)
        seat = {"type": "bot", "bot": picky["id"]}
        icecream = [
            anyone.create_match(
                "icecream", 2, seats=[seat, {"type": "bot", "bot": partner["id"]}], options={"turn_limit": 20}
            )
            for _ in range(2)
        ]
        sundae = anyone.create_match("sundae_split", 2, seats=[seat, {"type": "bot", "bot": partner["id"]}])
        blocked = anyone.create_match("icecream", 2, seats=[seat, {"type": "bot", "bot": pest["id"]}])
        thread = start(runner)
        thread.join(JOIN)
        other.stop()
        other_thread.join(JOIN)
        assert not thread.is_alive(), "the runner did not play both IceCream matches"
        results = [
            json.loads(line)["match"] for line in (tmp_path / "picky" / "results.jsonl").read_text().splitlines()
        ]
        assert sorted(results) == sorted(match["id"] for match in icecream)
        assert all(anyone.match(match["id"])["status"] == "finished" for match in icecream)
        assert anyone.match(sundae["id"])["status"] == "aborted" and anyone.match(blocked["id"])["status"] == "aborted"
    said = caplog.text
    assert f"challenge match-{sundae['id']} declined: sundae_split is not one of the games accepted" in said
    assert f"challenge match-{blocked['id']} declined: blocked opponents: pest" in said
    assert "kept for later: 1 matches at once already" in said
