"""A bot through the Python client: registered, challenged over its event stream and by long-poll, its seat
listed, its turns played with its bot token until the match is over."""

from __future__ import annotations

import random

from parlour_client import Client, Event

from tests.client.test_client import random_legal


def test_a_bot_accepts_its_challenge_from_its_stream_and_plays_its_match_to_the_end(base_url: str) -> None:
    rng = random.Random(5)
    with Client(base_url) as anyone:
        bot = anyone.register_bot("client-bot")
        match = anyone.create_match("icecream", 2, seats=[{"type": "bot", "bot": bot["id"]}, {"type": "human"}])
        person = next(seat["token"] for seat in match["tokens"] if seat["seat"] == 1)
    with Client(base_url, bot["token"]) as client:
        challenges = list(client.bot_challenges(bot["id"]))
        assert [challenge["match"] for challenge in challenges] == [match["id"]]
        polled = next(client.bot_events_poll(bot["id"], wait=5))
        assert polled["event"] == "challenge" and polled["data"]["id"] == challenges[0]["id"]

        seen: list[Event] = []
        with client.bot_events(bot["id"]) as stream:
            for event in stream:
                seen.append(event)
                if event.event == "snapshot":  # a stream opened with no cursor starts with what is true now
                    for pending in event.data["challenges"]:
                        client.accept_challenge(bot["id"], pending["id"])
                elif event.event == "challenge":
                    client.accept_challenge(bot["id"], event.data["id"])
                elif event.event == "your-turn":
                    assert [seat["match"] for seat in client.bot_matches(bot["id"])] == [match["id"]]
                    client.play_turn(match["id"], None, random_legal(rng), seat=event.data["seat"])
                elif event.event == "match-over":
                    break
                while client.play_turn(match["id"], person, random_legal(rng)) is not None:
                    pass  # the person's turns, between the bot's
        names = [event.event for event in seen]
        assert names[0] in ("snapshot", "challenge") and "match-started" in names and names[-1] == "match-over"
        numbered = [event.id for event in seen if event.event != "snapshot"]
        assert numbered == sorted({number for number in numbered if number is not None})
        assert list(client.bot_matches(bot["id"])) == []
        assert client.match(match["id"])["status"] == "finished"
