"""IceCream for boardgame.io (loadtests/peer/game.js) checked move by move against Parlour's engine.

    .venv/bin/python -m loadtests.peer_check [--games 200] [--seed 1]

Each seeded game draws its options (either flavour for the first player; no turn limit, or one of 1 to
40 turns), then plays random legal moves to the end on both sides: Parlour's `engine.icecream` in
Python, and boardgame.io's own game reducer (the one its server's master runs) in Node
(loadtests/peer/check.js, one JSON line per command). At every step both must name the same player
to move, the same legal moves (boardgame.io's `ai.enumerate` against `legal_actions`), the same
cones, turn and points left, and the same result (`ctx.gameover` against the engine's outcome); now
and then a move one of them refuses must be refused by the other. Exits 1 at the first difference.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from engine.icecream import GAME, IceCreamState
from engine.icecream.game import OPTIONS
from loadtests.peer_node import PEER_DIR, ensure_installed

ILLEGAL_ODDS = 0.2  # how often a step also tries a refused move on both sides
MAX_STEPS = 20_000  # random games end within a few thousand moves; this only bounds a bug


class Disagreement(AssertionError):
    """The two games differ at a step."""


class PeerGame:
    """check.js running in Node: send it a command, read its answer."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            ["node", str(PEER_DIR / "check.js")],
            cwd=PEER_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,  # boardgame.io's "ERROR: invalid move" lines
            text=True,
        )

    def ask(self, command: dict[str, Any]) -> dict[str, Any]:
        """One command, one answer."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"check.js exited with code {self.process.wait()}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        """End the Node process."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)

    def __enter__(self) -> PeerGame:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def random_options(rng: random.Random) -> dict[str, Any]:
    """A game's options: either first flavour; no turn limit half the time, else 1 to 40 turns."""
    return {
        "first_player_flavour": rng.choice(["yellow", "green"]),
        "turn_limit": 0 if rng.random() < 0.5 else rng.randint(1, 40),
    }


def expected_gameover(state: IceCreamState) -> dict[str, Any] | None:
    """What boardgame.io's ctx.gameover should be for the engine's outcome."""
    if state.outcome is None:
        return None
    if state.outcome.is_draw:
        return {"draw": True}
    (winner,) = state.outcome.winners
    return {"winner": str(winner)}


def compare(state: IceCreamState, peer: dict[str, Any], where: str) -> None:
    """Raise Disagreement unless the JS answer shows the engine's position, moves and result."""
    seen = {
        "cones": peer["state"]["cones"],
        "turn": peer["state"]["turn"],
        "points_left": peer["state"]["pointsLeft"],
        "gameover": peer["gameover"],
        "moves": sorted(map(tuple, peer["moves"])),
    }
    wanted = {
        "cones": state.cones,
        "turn": state.turn,
        "points_left": state.points_left,
        "gameover": expected_gameover(state),
        "moves": sorted((a["from_cone"], a["scoops"]) for a in state.legal_actions(state.to_move)),
    }
    if state.outcome is None:
        seen["player"], wanted["player"] = peer["player"], str(state.to_move)
    if seen != wanted:
        differ = {key: (wanted[key], seen[key]) for key in wanted if wanted[key] != seen.get(key)}
        raise Disagreement(f"{where}: engine, boardgame.io differ on {differ}")


def refused_move(state: IceCreamState, rng: random.Random) -> list[int]:
    """A move the rules refuse now: more scoops than the points left or than the cone holds."""
    cone = rng.choice([0, 1])
    return [cone, max(state.points_left, state.movable_scoops(cone)) + rng.randint(1, 3)]


def check_game(peer: PeerGame, seed: int) -> int:
    """Play one seeded random game on both sides, comparing every step; the number of moves played."""
    rng = random.Random(seed)
    options = random_options(rng)
    state = GAME.new_state(2, OPTIONS.resolve(options), seed)
    assert isinstance(state, IceCreamState)
    answer = peer.ask({"op": "new", "options": options})
    for step in range(MAX_STEPS):
        where = f"seed {seed}, options {options}, move {step}"
        compare(state, answer, where)
        if state.outcome is not None:
            return step
        if rng.random() < ILLEGAL_ODDS:
            move = refused_move(state, rng)
            refused = peer.ask({"op": "move", "args": move})
            if refused["ok"]:
                raise Disagreement(f"{where}: boardgame.io accepted {move}, which the engine refuses")
            compare(state, refused, where + " (after a refused move)")
        action = rng.choice(state.legal_actions(state.to_move))
        answer = peer.ask({"op": "move", "args": [action["from_cone"], action["scoops"]]})
        if not answer["ok"]:
            raise Disagreement(f"{where}: boardgame.io refused {action}, which the engine lists")
        state.play(state.to_move, action)
    raise Disagreement(f"seed {seed}: no end after {MAX_STEPS} moves")


def check_games(seeds: Sequence[int]) -> tuple[int, int]:
    """Check every seed's game; (games, moves) checked. Raises Disagreement at the first difference."""
    ensure_installed()
    moves = 0
    with PeerGame() as peer:
        for seed in seeds:
            moves += check_game(peer, seed)
        peer.close()
    return len(seeds), moves


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: check --games seeded games, print how many moves agreed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=200, help="seeded random games (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="the first seed (default 1)")
    args = parser.parse_args(argv)
    try:
        games, moves = check_games(range(args.seed, args.seed + args.games))
    except Disagreement as difference:
        print(f"peer check failed: {difference}", file=sys.stderr)
        return 1
    print(f"boardgame.io's IceCream and Parlour's agree on every step of {games} games ({moves} moves)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
