"""A compare-and-set sent now and read later (`MatchStore.send_commit`, the AI relay's path): the same outcomes as
`commit`, on a real Redis."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from api.current import ParlourApp
from domain.matches.commands import checked_move, engine_state, send_moves
from store.matches import MatchStore
from tests.api.conftest import Match, read_log


def first_move(store: MatchStore, match: Match) -> tuple[int, dict[str, Any]]:
    """The seat that acts first and its first legal action."""
    record = store.load(match.id)
    assert record is not None
    state = engine_state(record)
    seat = state.waiting_for()[0]
    return seat, state.legal_actions(seat)[0]


def test_a_sent_commit_stores_the_move_even_after_redis_forgot_its_script(
    app: ParlourApp, client: FlaskClient, match: Match
) -> None:
    store = app.services.store
    store.client.script_flush()  # as after a restart of Redis: EVALSHA answers NOSCRIPT
    seat, action = first_move(store, match)
    record = store.load(match.id)
    assert record is not None
    outcome = send_moves(store, [checked_move(record, seat, action, record.version)]).outcome()
    assert (outcome.kind, outcome.version) == ("ok", record.version + 1)
    assert store.version(match.id) == record.version + 1
    assert [entry["action"] for entry in read_log(client, match.id)["entries"]] == [action]


def test_a_sent_commit_on_a_version_that_moved_on_stores_nothing(
    app: ParlourApp, client: FlaskClient, match: Match
) -> None:
    store = app.services.store
    seat, action = first_move(store, match)
    record = store.load(match.id)
    assert record is not None
    late = checked_move(record, seat, action, record.version)
    assert send_moves(store, [checked_move(record, seat, action, record.version)]).outcome().kind == "ok"
    outcome = send_moves(store, [late]).outcome()
    assert (outcome.kind, outcome.version) == ("stale", record.version + 1)
    assert store.version(match.id) == record.version + 1
    assert len(read_log(client, match.id)["entries"]) == 1
