"""Freeze Factory's components, read from data.json beside this file."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from engine.info import Assumption

DATA: dict[str, Any] = json.loads(resources.files(__package__).joinpath("data.json").read_text())
SIZE: int = DATA["board_size"]
FLAVOURS: tuple[str, ...] = tuple(DATA["flavours"])
CONES: tuple[frozenset[int], ...] = tuple(frozenset(FLAVOURS.index(f) for f in cone) for cone in DATA["cones"])
START_LAYOUTS: dict[str, tuple[tuple[int, int], ...]] = {
    name: tuple((r, c) for r, c in spaces) for name, spaces in DATA["start_layouts"].items()
}
REMOVED_CONES: dict[int, int] = {int(n): count for n, count in DATA["removed_cones"].items()}
STARTING_HAND: int = DATA["starting_hand"]
NO_ROLL_POINTS: int = DATA["no_roll_points"]
DIE_FACES: tuple[int | str, ...] = tuple(DATA["die_faces"])
SYMBOL = "cone"
MOST_POINTS = max(NO_ROLL_POINTS, *(face for face in DIE_FACES if isinstance(face, int)))
"""The most movement points a turn can have: a roll's highest number, or the 3 taken without rolling."""
EXAMPLE_CONE = frozenset({"hazelnut", "mint", "cherry"})  # 'He moves the hazelnut and mint flavours ... and the cherry'
ASSUMPTIONS = tuple(Assumption.from_json(a) for a in DATA["assumptions"])


def cone_json(cone: int) -> dict[str, Any]:
    """A cone as views show it: its id and its three flavours."""
    return {"id": cone, "flavours": sorted(FLAVOURS[f] for f in CONES[cone])}


def check_data() -> None:
    """Refuse component data that breaks the printed game, with a clear message."""
    if len(FLAVOURS) != 13 or len(set(FLAVOURS)) != 13:
        raise ValueError("Freeze Factory data: 13 different flavours")
    if len(CONES) != 26 or len(set(CONES)) != 26 or any(len(cone) != 3 for cone in CONES):
        raise ValueError("Freeze Factory data: 26 different cones of 3 different flavours")
    if not EXAMPLE_CONE.issubset(FLAVOURS) or frozenset(map(FLAVOURS.index, EXAMPLE_CONE)) not in CONES:
        raise ValueError("Freeze Factory data: the rulebook's example cone (hazelnut, mint, cherry) is missing")
    for name, spaces in START_LAYOUTS.items():
        if len(spaces) != 13 or len(set(spaces)) != 13:
            raise ValueError(f"Freeze Factory data: layout {name} needs 13 different start spaces")
        if any(not (0 <= r < SIZE and 0 <= c < SIZE) for r, c in spaces):
            raise ValueError(f"Freeze Factory data: a start space of layout {name} is off the board")
    if len(DIE_FACES) != 6 or any(face != SYMBOL and face not in (2, 3, 4, 5) for face in DIE_FACES):
        raise ValueError("Freeze Factory data: six die faces, each 2 to 5 or the symbol")


check_data()
