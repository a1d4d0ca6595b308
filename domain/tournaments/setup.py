"""Build a checked `Plan` from what a caller asked for (the API's body or the CLI's flags).

Every check a tournament needs beyond the shape of the request lives here, so the server and
`parlour tournament --local` refuse the same things with the same words.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, NotRequired, TypedDict

from ai.levels import levels_for
from engine import InvalidOptions, all_games, get_game
from engine.protocol import Game
from model.match import TurnTimerRequest
from model.tournament import ROUND_ROBIN, SWISS, Entrant, EntrantRequest, Plan

MAX_MATCHES = 2000
"""The most matches one tournament may plan."""
MAX_ROUNDS = 50
TURN_LIMIT = 200
"""The `turn_limit` a tournament sets for a game that has one when the options leave it at 0 (no limit):
IceCream and Freeze Factory may otherwise never end between AI players or on timeout defaults."""


class PlanError(ValueError):
    """A request a tournament cannot be made from: the field at fault and why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


BotName = Callable[[str], str | None]
"""Looks a registered bot up by id: its name, or None when there is no such bot."""


class PlanRequest(TypedDict):
    """What a plan is made from: a tournament request (the API's or the command line's) with its seed drawn.

    Left out or None, a key takes the default `build_plan` gives it."""

    game: str
    entrants: list[EntrantRequest]
    seed: str
    players: NotRequired[int | None]
    options: NotRequired[dict[str, Any]]
    format: NotRequired[str]
    rounds: NotRequired[int | None]
    games_per_pairing: NotRequired[int | None]
    turn_timer: NotRequired[TurnTimerRequest | None]
    parallel: NotRequired[int | None]


def build_plan(request: PlanRequest, bot_name: BotName | None = None, max_matches: int = MAX_MATCHES) -> Plan:
    """A checked plan from a request with game, players, options, entrants, format, rounds, games_per_pairing, seed.

    `max_matches`: the most matches the plan may have (a server may take fewer than MAX_MATCHES).
    """
    timer = request.get("turn_timer")
    game = game_or_error(request["game"])
    players = players_for(game, request.get("players"))
    entrants = entrants_for(game, request["entrants"], players, bot_name)
    games = request.get("games_per_pairing") or players
    plan = Plan(
        game=game.info.id,
        players=players,
        options=options_for(game, request.get("options") or {}),
        entrants=entrants,
        format=request.get("format") or ROUND_ROBIN,
        rounds=rounds_for(request.get("format") or ROUND_ROBIN, request.get("rounds"), len(entrants)),
        games_per_pairing=games,
        seed=str(request["seed"]),
        cooperative=game.info.cooperative,
        turn_timer=timer["seconds"] if timer is not None else None,
        parallel=request.get("parallel") or 8,
    )
    if plan.total_matches() > max_matches:
        raise PlanError("entrants", f"that plans {plan.total_matches()} matches; at most {max_matches}")
    return plan


def check_seed_may_be_chosen(specs: Sequence[EntrantRequest]) -> None:
    """A chosen tournament seed only when every entrant is a built-in AI level: else a PlanError on `seed`.

    Every match seed derives from it, so whoever picks it can foresee every shuffle and roll a bot meets.
    """
    bots = [index for index, spec in enumerate(specs) if spec["type"] != "ai"]
    if bots:
        raise PlanError(
            "seed",
            f"a chosen seed lets its chooser foresee every match, so it is only for tournaments of built-in AI "
            f"levels; entrants {bots} are bots: leave seed out for a server seed (revealed at the end)",
        )


def game_or_error(game_id: str) -> Game:
    """The registered game, or a PlanError naming the games there are."""
    game = get_game(game_id)
    if game is None:
        known = ", ".join(g.info.id for g in all_games())
        raise PlanError("game", f"unknown game {game_id!r}; games: {known}")
    return game


def players_for(game: Game, players: int | None) -> int:
    """Players per match: as asked, within the game's counts; by default 2 (or the game's minimum if higher)."""
    info = game.info
    if players is None:
        return max(info.min_players, min(2, info.max_players))
    if not info.min_players <= players <= info.max_players:
        raise PlanError("players", f"{info.id} is for {info.min_players} to {info.max_players} players, not {players}")
    return players


def options_for(game: Game, options: dict[str, Any]) -> dict[str, Any]:
    """The game's options resolved, with a turn limit set where the game has one and none was given."""
    try:
        resolved = game.info.options.resolve(options)
    except InvalidOptions as error:
        raise PlanError("options", str(error)) from error
    if resolved.get("turn_limit") == 0:
        resolved["turn_limit"] = TURN_LIMIT
    return resolved


def rounds_for(format_name: str, rounds: int | None, entrants: int) -> int:
    """Swiss rounds (by default enough to find a winner: ceil(log2 entrants)); a round robin is one stage."""
    if format_name == ROUND_ROBIN:
        if rounds is not None:
            raise PlanError("rounds", "a round robin has no rounds to choose; rounds are for swiss")
        return 1
    if format_name != SWISS:
        raise PlanError("format", f"unknown format {format_name!r}; formats: {ROUND_ROBIN}, {SWISS}")
    chosen = rounds if rounds is not None else max(1, math.ceil(math.log2(entrants)))
    if not 1 <= chosen <= MAX_ROUNDS:
        raise PlanError("rounds", f"a swiss tournament has 1 to {MAX_ROUNDS} rounds")
    return chosen


def entrants_for(
    game: Game, specs: Sequence[EntrantRequest], players: int, bot_name: BotName | None
) -> tuple[Entrant, ...]:
    """The entrants, each checked (a level the game offers, a registered bot), named uniquely."""
    if len(specs) < max(2, players):
        raise PlanError("entrants", f"{len(specs)} entrants for matches of {players}; at least {max(2, players)}")
    offered = levels_for(game.info.id)
    entrants = []
    for index, spec in enumerate(specs):
        if spec["type"] == "ai":
            level = spec.get("level")
            if level is None or level not in offered:
                levels = ", ".join(offered)
                raise PlanError(
                    "entrants", f"entrant {index}: {game.info.id} has no AI level {level!r}; levels: {levels}"
                )
            entrants.append(Entrant(spec.get("name") or level, "ai", level=level))
        else:
            bot = spec.get("bot")
            name = bot_name(bot) if bot_name is not None and bot is not None else None
            if bot is None or name is None:
                raise PlanError("entrants", f"entrant {index}: no registered bot {bot!r}")
            entrants.append(Entrant(spec.get("name") or name, "bot", bot=bot))
    return unique_names(entrants)


def unique_names(entrants: list[Entrant]) -> tuple[Entrant, ...]:
    """The entrants with repeated names told apart: `easy`, `easy #2`, ..."""
    seen: dict[str, int] = {}
    named = []
    for entrant in entrants:
        seen[entrant.name] = seen.get(entrant.name, 0) + 1
        count = seen[entrant.name]
        name = entrant.name if count == 1 else f"{entrant.name} #{count}"
        named.append(Entrant(name, entrant.type, entrant.level, entrant.bot))
    return tuple(named)
