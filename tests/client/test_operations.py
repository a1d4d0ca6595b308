"""The rest of the API's operations through the client: listings, abort, rematch, replay, export, a bot's
policy, token and deletion, the leaderboard and ratings, tournaments."""

from __future__ import annotations

import pytest
from parlour_client import Client, ProblemError

AI = [{"type": "ai", "level": "random"}, {"type": "ai", "level": "easy"}]


def test_matches_are_listed_aborted_replayed_exported_and_offered_a_rematch(base_url: str) -> None:
    with Client(base_url) as client:
        assert client.openapi()["info"]["version"] == "0.1.0"
        waiting = client.create_match("icecream", 2, open_seats=[1])
        assert waiting["id"] in {match["id"] for match in client.matches(game="icecream")}
        client.abort(waiting["id"], owner_token=waiting["owner_token"])
        assert client.match(waiting["id"])["status"] == "aborted"

        match = client.create_match("icecream", 2, seed="operations")
        seats = {seat["seat"]: seat["token"] for seat in match["tokens"]}
        client.resign(match["id"], token=seats[0])
        replayed = client.replay_step(match["id"], 0, seat=1)
        assert replayed["step"] == 0 and replayed["steps"] == 1 and replayed["viewer"] == 1
        assert client.export(match["id"])["seed"] == "operations"
        offer = client.rematch(match["id"], token=seats[1])
        assert offer["rematch"]["waiting_for"] == [0]


def test_a_bot_sets_its_policy_rotates_its_token_and_is_deleted(base_url: str) -> None:
    with Client(base_url) as client:
        bot = client.register_bot("rotating")
        assert client.set_bot_policy(bot["id"], token=bot["token"], policy="anyone")["policy"] == "anyone"
        assert bot["id"] in {listed["id"] for listed in client.bots(q="rotat")}
        assert list(client.bot_ratings(bot["id"], "icecream")) == []
        assert isinstance(list(client.leaderboard("icecream")), list)
        fresh = client.rotate_bot_token(bot["id"], token=bot["token"])["token"]
        with pytest.raises(ProblemError) as refused:
            client.bot_challenges(bot["id"], token=bot["token"]).__next__()
        assert refused.value.status == 401
        client.delete_bot(bot["id"], token=fresh)
        with pytest.raises(ProblemError) as gone:
            client.bot(bot["id"])
        assert gone.value.status == 404


def test_a_tournament_is_created_listed_read_and_canceled(base_url: str) -> None:
    with Client(base_url) as client:
        tournament = client.create_tournament("rockem_sockem", AI)
        assert tournament["id"] in {listed["id"] for listed in client.tournaments()}
        assert client.tournament(tournament["id"])["game"] == "rockem_sockem"
        canceled = client.cancel_tournament(tournament["id"], owner_token=tournament["owner_token"])
        assert canceled["status"] == "cancelled"
