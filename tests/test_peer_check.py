"""boardgame.io's IceCream (loadtests/peer) and Parlour's engine agree move by move on a few seeded games.

The benchmark measures boardgame.io serving this game, so it must be the same game: loadtests.peer_check plays
seeded random games on both sides and compares every step (player to move, legal moves, cones, turn, points,
result, refused moves). Then boardgame.io's server (in memory, and with FlatFile storage) plays a match with the
benchmark's socket.io client (loadtests/peer_protocol.py), ending as the engine ends it.

It needs node and npm (its packages are installed once into loadtests/peer/node_modules, again only when the
lockfile changes); without them the tests are skipped, unless PARLOUR_REQUIRE_NODE=1 (CI), where they fail.
"""

from __future__ import annotations

import json
import os
import random
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from engine.icecream import GAME, IceCreamState
from engine.icecream.game import OPTIONS
from loadtests import peer_check
from loadtests.peer_node import ensure_installed, missing_tools, start_server
from loadtests.peer_protocol import SocketIoSeat, icecream_moves

SEEDS = range(1, 13)  # both flavours, with and without a turn limit, won and drawn


@pytest.fixture(scope="module")
def node() -> None:
    """Skip without node and npm, or fail when PARLOUR_REQUIRE_NODE=1."""
    missing = missing_tools()
    if missing:
        problem = f"{' and '.join(missing)} not found (Debian: apt-get install nodejs npm)"
        if os.environ.get("PARLOUR_REQUIRE_NODE") == "1":
            pytest.fail(f"PARLOUR_REQUIRE_NODE=1 but the boardgame.io peer cannot be checked: {problem}", pytrace=False)
        pytest.skip(problem)


def test_the_peer_plays_the_engines_icecream_move_by_move(node: None) -> None:
    games, moves = peer_check.check_games(SEEDS)
    assert games == len(SEEDS) and moves > 0


def test_the_check_sees_a_different_result() -> None:
    """The comparison is not vacuous: a game over that the engine does not see is a disagreement."""
    state = GAME.new_state(2, OPTIONS.resolve({}), 0)
    assert isinstance(state, IceCreamState)
    answer = {
        "player": "0",
        "moves": [[0, 1], [1, 1]],
        "gameover": {"winner": "1"},
        "state": {"cones": list(state.cones), "turn": 1, "pointsLeft": 1},
    }
    with pytest.raises(peer_check.Disagreement, match="gameover"):
        peer_check.compare(state, answer, "a hand-made answer")


def lobby(url: str, path: str, body: dict[str, Any]) -> Any:
    """A POST to boardgame.io's lobby API; its JSON answer."""
    request = urllib.request.Request(
        url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


# FlatFile's node-persist queues its writes for up to a second, and a match's next move waits for the last one's
# write: a turn limit of 3 ends that match within 6 moves (as a draw, unless a flavour is stacked first).
OPTIONS_BY_STORAGE = {"memory": {}, "flatfile": {"turn_limit": 3}}


@pytest.mark.parametrize("storage", ["memory", "flatfile"])
def test_the_peer_server_plays_a_match_over_socket_io(node: None, storage: str, tmp_path: Path) -> None:
    ensure_installed()
    options = OPTIONS_BY_STORAGE[storage]
    server = start_server(storage, tmp_path / "flatfile")
    seats: dict[str, SocketIoSeat] = {}
    try:
        created = lobby(server.url, "/games/icecream/create", {"numPlayers": 2, "setupData": options})
        match_id = created["matchID"]
        for player in ("0", "1"):
            joined = lobby(server.url, f"/games/icecream/{match_id}/join", {"playerID": player, "playerName": player})
            seats[player] = SocketIoSeat(server.url, match_id, player, joined["playerCredentials"])
        engine = GAME.new_state(2, OPTIONS.resolve(options), 0)
        assert isinstance(engine, IceCreamState)
        state, chooser = seats["0"].state, random.Random(7)
        while state["ctx"].get("gameover") is None:
            mover = seats[state["ctx"]["currentPlayer"]]
            assert int(mover.player_id) == engine.to_move
            move = chooser.choice(icecream_moves(state))
            mover.move(move)
            engine.play(engine.to_move, {"type": "move", "from_cone": move[0], "scoops": move[1]})
            for seat in seats.values():  # both seats receive the update
                seat.read_until(lambda: seat.state["_stateID"] > state["_stateID"])  # noqa: B023 (read now)
            state = mover.state
            assert state["G"]["cones"] == engine.cones
        assert engine.outcome is not None and state["ctx"]["gameover"] == peer_check.expected_gameover(engine)
    finally:
        for seat in seats.values():
            seat.close()
        server.stop()
    if storage == "flatfile":
        assert any((tmp_path / "flatfile").iterdir()), "FlatFile stored nothing"
