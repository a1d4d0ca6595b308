"""Golden playthroughs: per game and player count, a pinned seed and action list whose final state hash is pinned.

A silent change of the rules (a different deal, another legal move, a changed score) changes the final state, and
`test_golden.py` fails. When the change is deliberate, regenerate the files and commit them with the change:

    .venv/bin/python -m tests.conformance.golden [game id ...]

Each playthrough is the shortest to its end of a few seeded random playouts, so the files stay small.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from engine import Action, Game, GameState, Rng, all_games, get_game, has_action

GOLDEN_DIR = Path(__file__).parent / "golden"
SEEDS_TRIED = 8  # seeded playouts per game and player count; the shortest is pinned
OPTIONS: dict[str, dict[str, Any]] = {
    "freeze_factory": {"turn_limit": 10},  # without a limit, random sliding runs to thousands of actions
    "robots_love_ice_cream": {"stop_when_lost": True},  # ends once the mission is lost: a planet or two
}
"""Options that keep a game's playthroughs short; other games play with their defaults."""
REGENERATE = ".venv/bin/python -m tests.conformance.golden"


def state_hash(state: GameState) -> str:
    """The sha256 of the canonical JSON text of the whole state."""
    text = json.dumps(state.to_json(), sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def path_of(game: Game) -> Path:
    """The golden file of a game."""
    return GOLDEN_DIR / f"{game.info.id}.json"


def random_playthrough(game: Game, players: int, seed: str) -> tuple[list[tuple[int, Action]], GameState]:
    """Seeded random actions through the checked path to the end: the log and the final state."""
    state, choices = game.start(players, OPTIONS.get(game.info.id), seed), Rng.from_seed(f"choices:{seed}")
    log: list[tuple[int, Action]] = []
    while not state.is_over():
        seat = choices.choice([seat for seat in state.acting_seats() if has_action(state, seat)])
        action = json.loads(json.dumps(state.sample_action(seat, choices)))
        state.play(seat, action)
        log.append((seat, action))
    return log, state


def playthrough(game: Game, players: int) -> dict[str, Any]:
    """The shortest of a few seeded random playthroughs, with its final state hash."""
    found = []
    for index in range(SEEDS_TRIED):
        seed = f"golden:{game.info.id}:{players}p:{index}"
        log, state = random_playthrough(game, players, seed)
        found.append((len(json.dumps(log)), seed, log, state))
    _, seed, log, state = min(found, key=lambda entry: entry[0])
    return {
        "players": players,
        "options": OPTIONS.get(game.info.id),
        "seed": seed,
        "final_state_sha256": state_hash(state),
        "actions": [[seat, action] for seat, action in log],
    }


def golden_text(game: Game) -> str:
    """The golden file of a game: one line per action, so a diff shows what moved."""
    header = {"game": game.info.id, "rules_version": game.info.rules_version, "regenerate": REGENERATE}
    parts = []
    for players in range(game.info.min_players, game.info.max_players + 1):
        entry = playthrough(game, players)
        actions = ",\n".join(f"    {json.dumps(action, sort_keys=True)}" for action in entry.pop("actions"))
        fields = ",\n".join(f'   "{key}": {json.dumps(value, sort_keys=True)}' for key, value in entry.items())
        parts.append(f'  {{\n{fields},\n   "actions": [\n{actions}\n   ]\n  }}')
    fields = ",\n".join(f' "{key}": {json.dumps(value)}' for key, value in header.items())
    return f'{{\n{fields},\n "playthroughs": [\n' + ",\n".join(parts) + "\n ]\n}\n"


def read_golden(game: Game) -> dict[str, Any]:
    """A game's golden file, read back."""
    data: dict[str, Any] = json.loads(path_of(game).read_text())
    return data


def main(game_ids: list[str]) -> None:
    """Write the golden file of each named game (every game when none is named)."""
    games = [get_game(game_id) for game_id in game_ids] if game_ids else all_games()
    GOLDEN_DIR.mkdir(exist_ok=True)
    for game in games:
        if game is None:
            raise SystemExit(f"no such game; games: {[g.info.id for g in all_games()]}")
        path_of(game).write_text(golden_text(game))
        print(f"wrote {path_of(game)} ({path_of(game).stat().st_size} bytes)")


if __name__ == "__main__":
    main(sys.argv[1:])
