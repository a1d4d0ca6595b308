"""Engines: the one plug-in of the runner. An engine is a class with one method,

    def choose(self, game: str, view: Any, legal: LegalActions) -> Action

(plus, if it likes, `on_start(match)` and `on_end(match, result)`), loaded from `module:Class` or
`./file.py:Class`; the config's `[engine] options` are its constructor's keyword arguments. Three ship
here: `RandomEngine` (a random legal action, a random legal split when the answer is `constructed`),
`SplitEngine` (random, but an even-valued split and the best-looking pile in Sundae Split) and
`LocalAI` (Parlour's own AI levels, run in this process; needs the server's package installed).
"""

from __future__ import annotations

import importlib
import importlib.util
import random
import sys
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from parlour_client import Action, LegalActions

from parlour_bot.splits import balanced_split, construct, is_split_space


@runtime_checkable
class Engine(Protocol):
    """What the runner calls for each move: pick (or build) one legal action for the seat."""

    def choose(self, game: str, view: Any, legal: LegalActions) -> Action:
        """The action to play: one of `legal["actions"]`, or one built from `legal`'s schema and constraints."""
        ...


class EngineError(Exception):
    """An engine that cannot be loaded or started; the message says why and what to do."""


class RandomEngine:
    """A random legal action; for `constructed` answers a random legal split (else the server's `example`)."""

    wants_view = False  # the runner need not read the match for it

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: str, view: Any, legal: LegalActions) -> Action:
        """A random listed action, or a random constructed one."""
        if legal["kind"] == "constructed":
            return construct(legal, self.rng)
        return dict(self.rng.choice(legal["actions"]))


class SplitEngine(RandomEngine):
    """Random, except in Sundae Split: an even-valued split as the Splitter (it keeps the pile nobody takes),
    and the open pile that looks best (its face-up points, face-down cards at the average) as a chooser."""

    wants_view = True

    def choose(self, game: str, view: Any, legal: LegalActions) -> Action:
        """A balanced split, the best-looking pile, or a random legal action."""
        if legal["kind"] == "constructed" and is_split_space(legal):
            points = {card["id"]: card_points(card) for card in (view or {}).get("hand", [])}
            return balanced_split(legal, lambda card: points.get(card, 1.0))
        piles = {pile["pile"]: pile for pile in (view or {}).get("piles", [])}
        choices = [action for action in legal["actions"] if action.get("type") == "choose"]
        if game == "sundae_split" and choices and all(action["pile"] in piles for action in choices):
            return dict(max(choices, key=lambda action: pile_worth(piles[action["pile"]])))
        return super().choose(game, view, legal)


def card_points(card: dict[str, Any]) -> float:
    """A Sundae Split card's printed points (1 for a card whose worth is not a number)."""
    points = card.get("points")
    return float(points) if isinstance(points, int | float) else 1.0


def pile_worth(pile: dict[str, Any]) -> float:
    """What an open pile looks worth: its face-up cards' points, 1.5 for each face-down card."""
    return sum(card_points(card) for card in pile.get("face_up", [])) + 1.5 * int(pile.get("face_down_count", 0))


class LocalAI:
    """Parlour's own AI levels, run in this process on a state rebuilt from the seat's view.

    Options: `level` (`random`, `easy`, `medium`, `hard`, `perfect`), `seed`, `time_cap` (seconds).
    Needs the server's package (`engine`, `ai`) importable. It plays from the whole match (`choose_in_match`:
    its view, players and options give the state `Game.state_from_view` rebuilds); a view no state fits is
    played by `RandomEngine`.
    """

    wants_view = True

    def __init__(self, level: str = "easy", seed: int = 0, time_cap: float | None = None) -> None:
        from parlour_bot.local_ai import LocalLevel  # imports the server's packages, or says how to install them

        self.local = LocalLevel(level, seed, time_cap)
        self.fallback = RandomEngine(seed)

    def choose(self, game: str, view: Any, legal: LegalActions) -> Action:
        """The level's move from the view alone (the options taken as the game's defaults), or a random legal one."""
        action = self.local.choose(game, view, legal["seat"])
        return action if action is not None else self.fallback.choose(game, view, legal)

    def choose_in_match(self, match: dict[str, Any], legal: LegalActions) -> Action:
        """The level's move in the match as the seat sees it (its players and options too), or a random legal one."""
        action = self.local.choose_in_match(match, legal["seat"])
        return action if action is not None else self.fallback.choose(match["game"], match["view"], legal)


def load_engine(path: str, options: dict[str, Any], base: Path = Path()) -> Engine:
    """The engine `module:Class` or `./file.py:Class` (relative to `base`), made with `options`."""
    module_name, _, class_name = path.rpartition(":")
    module = _module(module_name, base)
    engine_class = getattr(module, class_name, None)
    if engine_class is None:
        raise EngineError(f"{module_name} has no {class_name}")
    try:
        engine = engine_class(**options)
    except TypeError as error:
        raise EngineError(f"{path} does not take the options {sorted(options)}: {error}") from None
    if not callable(getattr(engine, "choose", None)):
        raise EngineError(f"{path} has no method choose(game, view, legal)")
    return engine  # type: ignore[no-any-return]  # checked above: it has a choose method


def _module(name: str, base: Path) -> Any:
    """The module of an engine path: a file (`./x.py`, relative to `base`) or an importable module."""
    if name.endswith(".py") or "/" in name or "\\" in name:
        file = (base / name).resolve()
        if not file.is_file():
            raise EngineError(f"no engine file {file}")
        spec = importlib.util.spec_from_file_location(f"parlour_bot_engine_{file.stem}", file)
        if spec is None or spec.loader is None:
            raise EngineError(f"cannot load {file}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        raise EngineError(f"cannot import {name}: {error}") from None


def call_hook(engine: Engine, name: str, *args: Any) -> None:
    """Call the engine's optional `on_start` / `on_end` when it has one."""
    hook = getattr(engine, name, None)
    if callable(hook):
        hook(*args)


__all__ = ["Engine", "EngineError", "LocalAI", "RandomEngine", "SplitEngine", "call_hook", "load_engine"]
