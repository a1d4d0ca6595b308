"""The ladder's listener, its sweep and its reads: every finished rated match counted once, from any process.

The listener counts a match when its end is stored. Should the process storing the end die before
it counts it (or the count fail), the workers' sweep finds the finished matches without a counted
marker and counts them (and writes the bots' histories they missed). The sweep reads only the matches
that ended since the last sweep (the store's `parlour:finished` feed, by the time each end was
indexed). Counting is one WATCH/MULTI transaction that sets the marker with the ratings it changes,
so two processes never both count it.
"""

from __future__ import annotations

import logging
import time
from typing import TypedDict

import redis

from ai.levels import levels_for
from domain.bots.history import BotHistory, final_result
from domain.ladder.ratings import anchor, bot_entrant, has_ladder, rated_entrants, updated
from domain.matches.commands import result_of
from engine import GameState, Result, all_games, get_game
from model.ladder import Rating
from model.match import FINISHED, MatchRecord
from model.refusals import NotFound
from store.ladder import LadderStore
from store.matches import MatchStore

log = logging.getLogger(__name__)
SWEEP_GRACE = 5.0
"""Seconds a finished match is left to its own listener before the sweep counts it."""
SWEEP_PAGE = 500
SWEEP_OVERLAP = 300
"""Seconds before the last sweep's end that a sweep reads again: an end indexed late (a slow process, a host
whose clock is behind) is still read."""


class LadderRating(TypedDict):
    """A rating as served: the displayed rating mu - 3 sigma, mu, sigma and the matches counted."""

    rating: float
    mu: float
    sigma: float
    games: int


class LeaderboardEntry(TypedDict):
    """One line of a leaderboard: who (a bot with its id, or an AI level), the rating and the rank."""

    kind: str
    name: str
    bot: str | None
    level: str | None
    rating: float
    mu: float
    sigma: float
    games: int
    rank: int


class Leaderboard(TypedDict):
    """A page of a game's ladder, best first, and the cursor of the next page."""

    game: str
    items: list[LeaderboardEntry]
    next_cursor: str | None


class BotRating(TypedDict):
    """A bot's rating in one game, with its rank there."""

    game: str
    rating: float
    mu: float
    sigma: float
    games: int
    rank: int


class HistoryEntry(TypedDict):
    """A bot's rating in a game after one counted match."""

    match: str
    at: str
    rating: float
    mu: float
    sigma: float


class RatingHistory(TypedDict):
    """A page of a bot's rating history in one game, oldest first, and the cursor of the next page."""

    game: str
    items: list[HistoryEntry]
    next_cursor: str | None


def grouped(ended: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Match ids by game."""
    games: dict[str, list[str]] = {}
    for game, match_id in ended:
        games.setdefault(game, []).append(match_id)
    return games


class Ladder:
    """Counts finished matches into the per-game ladders and reads them."""

    def __init__(self, store: LadderStore, matches: MatchStore, history: BotHistory, sweep_every: int) -> None:
        self.store = store
        self.matches = matches
        self.history = history
        self.sweep_every = sweep_every  # seconds between two sweeps, whichever worker takes the sweep's lock

    def after_change(self, record: MatchRecord, state: GameState) -> None:
        """Listener: count a match that just finished (a failure is logged: the sweep counts it later)."""
        if record.status != FINISHED:
            return
        try:
            self.count(record, result_of(record, state))
        except redis.RedisError as error:
            log.warning("match %s: not counted in the ladder yet: %s", record.id, error)

    def count(self, record: MatchRecord, result: Result | None) -> bool:
        """Count a finished match once: True if this call changed ratings."""
        entrants = rated_entrants(record)
        if entrants is None or result is None or result.team_success is not None:
            self.store.mark_unrated(record.game, record.id)
            return False
        anchors = {level: anchor(record.game, level) for level in levels_for(record.game)}

        def update(stored: list[Rating | None]) -> list[Rating]:
            return updated(record.game, entrants, stored, result)

        return self.store.count(record.game, record.id, entrants, update, record.updated_at, anchors)

    def sweep(self, grace: float = SWEEP_GRACE) -> list[str]:
        """Count every finished match its listener missed; their ids.

        It reads the matches whose end was indexed since the last sweep (less `SWEEP_OVERLAP`) and
        `grace` seconds ago or more, so its work is the matches that ended meanwhile, not all kept.
        """
        through = time.time_ns() // 1000 - int(grace * 1_000_000)
        since = max(0, self.store.swept_through() - SWEEP_OVERLAP * 1_000_000)
        counted: list[str] = []
        offset = 0
        while True:
            ended = self.matches.finished_between(since, through, offset, SWEEP_PAGE)
            for game, match_ids in grouped(ended).items():
                counted += self.count_missed(self.store.uncounted(game, match_ids))
            if len(ended) < SWEEP_PAGE:
                break
            offset += SWEEP_PAGE
        self.store.mark_swept(through)
        return counted

    def count_missed(self, match_ids: list[str]) -> list[str]:
        """Count the finished matches whose listener did not (and write the bots' histories they missed)."""
        counted = []
        for record in self.matches.load_many(match_ids):
            if record is None or record.status != FINISHED:
                continue
            result = final_result(record)
            self.history.record(record, result)
            self.count(record, result)
            log.warning("match %s: its end had not been counted in the ladder; counted now", record.id)
            counted.append(record.id)
        return counted

    def sweep_if_due(self) -> list[str]:
        """Sweep, if no worker swept in the last `sweep_every` seconds."""
        return self.sweep() if self.store.hold_sweep(self.sweep_every) else []

    def leaderboard(self, game_id: str, offset: int, limit: int) -> Leaderboard:
        """A page of the game's ladder, best first by mu - 3 sigma."""
        ladder_or_404(game_id)
        rows, size = self.store.board(game_id, offset, limit)
        items = []
        for index, (key, stored) in enumerate(rows):  # stored: the JSON store/ladder.py keeps (name, mu, sigma, games)
            rating = Rating(float(stored["mu"]), float(stored["sigma"]), stored["games"])
            items.append(entrant_json(key, stored["name"], rating, offset + index + 1))
        following = offset + limit if offset + limit < size else None
        return {"game": game_id, "items": items, "next_cursor": str(following) if following is not None else None}

    def ratings_of_bot(self, bot_id: str) -> list[BotRating]:
        """The bot's rating and rank in every game it was rated in."""
        games = [game.info.id for game in all_games() if has_ladder(game.info.id)]
        found = self.store.standing(games, bot_entrant(bot_id))
        ratings: list[BotRating] = []
        for game, (stored, rank) in found.items():
            rating = Rating(float(stored["mu"]), float(stored["sigma"]), stored["games"])
            ratings.append({"game": game, **rating_json(rating), "rank": rank + 1})
        return ratings

    def history_of_bot(self, bot_id: str, game_id: str, start: int, limit: int) -> RatingHistory:
        """A page of the bot's ratings in one game after each counted match, oldest first."""
        ladder_or_404(game_id)
        rows, size = self.store.history(game_id, bot_entrant(bot_id), start, limit)
        items = [history_json(row["match"], row["at"], Rating(float(row["mu"]), float(row["sigma"]))) for row in rows]
        following = start + limit if start + limit < size else None
        return {"game": game_id, "items": items, "next_cursor": str(following) if following is not None else None}

    def forget_bot(self, bot_id: str) -> None:
        """Take a deleted bot off every ladder."""
        self.store.forget([game.info.id for game in all_games()], bot_entrant(bot_id))


def ladder_or_404(game_id: str) -> None:
    """A 404 for an unknown game, or a co-operative one (it has no ladder)."""
    game = get_game(game_id)
    if game is None:
        raise NotFound(f"no game {game_id!r}")
    if game.info.cooperative:
        raise NotFound(f"{game.info.name} is co-operative: the team wins or loses together, so it has no ladder")


def rating_json(rating: Rating) -> LadderRating:
    """A rating as served: the displayed rating mu - 3 sigma, mu, sigma and the matches counted."""
    return {
        "rating": round(rating.ordinal, 4),
        "mu": round(rating.mu, 4),
        "sigma": round(rating.sigma, 4),
        "games": rating.games,
    }


def history_json(match_id: str, at: str, rating: Rating) -> HistoryEntry:
    """A bot's rating after one counted match, as served."""
    return {
        "match": match_id,
        "at": at,
        "rating": round(rating.ordinal, 4),
        "mu": round(rating.mu, 4),
        "sigma": round(rating.sigma, 4),
    }


def entrant_json(key: str, name: str, rating: Rating, rank: int) -> LeaderboardEntry:
    """One line of a leaderboard: who (a bot with its id and name, or an AI level), the rating and the rank."""
    kind, _, ident = key.partition(":")
    return {
        "kind": kind,
        "name": name,
        "bot": ident if kind == "bot" else None,
        "level": ident if kind == "ai" else None,
        **rating_json(rating),
        "rank": rank,
    }
