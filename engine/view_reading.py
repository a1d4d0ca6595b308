"""Reading back the values of a view a client sent (`Game.rebuild_from_view`), for the rules to count with.

`Game.state_from_view` checks that the rebuilt state shows the seat exactly the view sent, and a value copied
into the state as it came passes that check whatever it is: 1.0 or true where the game shows 1 (equal in
Python), a seat past the last, a count below zero. The rules then fail on it later, in a search. A rebuild
reads each number the rules count with through these, which refuse anything else with ViewMismatch.
"""

from __future__ import annotations

from typing import Any

from engine.errors import ViewMismatch


def whole(value: Any, what: str, most: int | None = None) -> int:
    """A count the view shows: an integer (not a boolean, not 1.0) from 0 to `most`; else ViewMismatch."""
    if type(value) is not int or value < 0 or (most is not None and value > most):
        span = "a whole number" if most is None else f"a whole number up to {most}"
        raise ViewMismatch(f"{what} is {span}, not {value!r}")
    return value


def seat_index(value: Any, players: int, what: str) -> int:
    """A seat the view names: an integer from 0 to players - 1; else ViewMismatch."""
    if type(value) is not int or not 0 <= value < players:
        raise ViewMismatch(f"{what} is a seat from 0 to {players - 1}, not {value!r}")
    return value
