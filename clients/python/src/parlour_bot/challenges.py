"""Which challenges the bot takes: the config's games, player counts, opponents and rated-only filters."""

from __future__ import annotations

from dataclasses import dataclass

from parlour_client import Challenge

from parlour_bot.config import Filters

RATED_SEATS = frozenset({"bot", "ai"})
"""A match counts on the ladder only when every seat is a bot or a built-in AI level (and no bot holds two)."""


@dataclass(frozen=True)
class Verdict:
    """Accept (`accept`), or decline with a `reason`."""

    accept: bool
    reason: str = ""


ACCEPT = Verdict(True)


def verdict(challenge: Challenge, filters: Filters, bot_id: str) -> Verdict:
    """Whether the config's filters accept the challenge, and why not when they do not."""
    game, players = challenge.get("game", ""), challenge.get("players", 0)
    if challenge.get("type") == "tournament" and not filters.tournaments:
        return Verdict(False, "tournaments are not accepted")
    if filters.games:
        if game not in filters.games:
            return Verdict(False, f"{game} is not one of the games accepted ({', '.join(sorted(filters.games))})")
        counts = filters.games[game]
        if counts is not None and players not in counts:
            return Verdict(False, f"{game} for {players} is not accepted (only for {sorted(counts)})")
    opponents = opponent_names(challenge, bot_id)
    blocked = sorted(opponents & filters.blocked)
    if blocked:
        return Verdict(False, f"blocked opponents: {', '.join(blocked)}")
    if filters.allowed and not opponents <= filters.allowed:
        return Verdict(False, f"opponents not allowed: {', '.join(sorted(opponents - filters.allowed))}")
    if filters.rated_only and not is_rated(challenge, bot_id):
        return Verdict(False, "only rated matches are accepted (every seat a bot or an AI level)")
    return ACCEPT


def opponent_names(challenge: Challenge, bot_id: str) -> set[str]:
    """The names of the other players: bots' names, `ai:<level>` (and `ai`) for AI seats, `human` for others."""
    names: set[str] = set()
    players = challenge.get("seats") or challenge.get("entrants") or []
    for player in players:
        if player.get("bot") == bot_id:
            continue
        if player.get("type") == "ai":
            names |= {"ai", f"ai:{player.get('level')}"}
        elif player.get("type") == "bot":
            names.add(str(player.get("name") or player.get("bot")))
        else:
            names.add(str(player.get("name") or "human"))
    return names


def is_rated(challenge: Challenge, bot_id: str) -> bool:
    """True when the match would count on the ladder: every seat a bot or an AI, no bot in two seats."""
    players = challenge.get("seats") or challenge.get("entrants") or []
    bots = [player.get("bot") for player in players if player.get("type") == "bot"]
    return all(player.get("type") in RATED_SEATS for player in players) and len(bots) == len(set(bots))
