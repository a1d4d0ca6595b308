"""The read path keeps each answer per (match, version, viewer): built once, never shown to another viewer,
never served for another version."""

from __future__ import annotations

from dataclasses import replace

from flask.testing import FlaskClient

from api.current import ParlourApp
from domain.matches import commands as service
from domain.matches.reads import Reads
from tests.api.conftest import bearer, create_match


def test_a_kept_answer_is_served_without_engine_work(app: ParlourApp, client: FlaskClient) -> None:
    match = create_match(client, game="sundae_split", players=3, seed="reads-kept")
    record = app.services.store.load(match.id)
    assert record is not None
    reads = Reads()
    first = reads.match(record, 0), reads.legal_actions(record, 0)
    # The same version with a state that would not parse: only a kept answer can be served for it.
    broken = replace(record, state={"not": "a state"})
    assert (reads.match(broken, 0), reads.legal_actions(broken, 0)) == first
    assert reads.seat_match(broken, 0) == f'{first[0][:-1]},"legal_actions":{first[1]}}}'
    # Another viewer of the same version is built afresh (here: from the broken state, so it fails).
    try:
        reads.match(broken, 1)
    except (KeyError, TypeError, ValueError):
        pass
    else:
        raise AssertionError("seat 1's view was served from seat 0's kept answer")


def test_every_viewer_reads_what_the_engine_shows_it_at_every_version(app: ParlourApp, client: FlaskClient) -> None:
    match = create_match(client, game="sundae_split", players=3, seed="reads-viewers")
    viewers: list[int | None] = [0, 1, 2, None]
    for _ in range(4):
        record = app.services.store.load(match.id)
        assert record is not None
        state = service.engine_state(record)
        for _ in range(2):  # the second read is the kept one
            for viewer in viewers:
                headers = bearer(match.tokens[viewer]) if viewer is not None else {}
                read = client.get(match.url(), headers=headers).get_json()
                # A seat's read carries its legal actions at the version; the public's never does.
                if viewer is None:
                    assert read == service.match_json(record, state, None)
                else:
                    assert read == service.seat_match_json(record, state, viewer)
        acting = service.match_json(record, state, None)["to_act"][0]
        legal = client.get(match.url("/legal-actions"), headers=bearer(match.tokens[acting])).get_json()
        assert legal["version"] == record.version
        action = legal.get("example") or legal["actions"][0]
        answer = client.post(
            match.url("/actions"),
            json={"action": action, "expected_version": record.version},
            headers=bearer(match.tokens[acting]),
        )
        assert answer.status_code == 200, answer.get_json()
        if acting == 0:  # a seat that acts reads the new version, not the one it kept
            assert client.get(match.url(), headers=bearer(match.tokens[0])).get_json()["version"] == record.version + 1


def test_a_kept_read_still_answers_304_for_its_etag(client: FlaskClient) -> None:
    match = create_match(client, seed="reads-etag")
    first = client.get(match.url())
    assert first.status_code == 200 and first.headers["ETag"] == '"0"'
    again = client.get(match.url(), headers={"If-None-Match": '"0"'})
    assert again.status_code == 304 and again.get_data() == b""
