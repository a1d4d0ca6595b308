"""Who a finished match rates and how: entrants, the AI levels' fixed anchors, and the Plackett-Luce update.

A match is rated when every seat is a rated entrant (a registered bot or a built-in AI level), at least
one seat is a bot and no bot holds two seats; a human seat makes it unrated, and so does a match that
allows assistance (fair play: its seats could ask the AI for every move, so its result says nothing of
theirs). The AI levels anchor the scale: their ratings are fixed at `ANCHORS` (assumed values, spaced by
their strength order, not measured) and never move, so a bot's rating reads against the same yardstick in
every game and however many bots come and go. Bots start at openskill's default (mu 25, sigma 25/3).
Co-operative games have no ladder: the team wins or loses together, so there is no order to rate.
"""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce

from ai.level_ratings import rating as level_rating
from domain.tournaments.standings import place_of
from engine import Result, get_game
from model.ladder import Entrant, Rating
from model.match import Assistance, MatchRecord

ANCHORS: dict[str, float] = {"random": 15.0, "easy": 20.0, "medium": 25.0, "hard": 30.0, "perfect": 35.0}
"""Each AI level's fixed mu where its rating in a game was not measured (an assumption: five apart in their
strength order, `medium` at the default 25)."""
ANCHOR_SIGMA = 2.0
"""The fixed uncertainty of an assumed anchor (an assumption: small, so the anchors hold the scale in place)."""
MODEL = PlackettLuce()


def bot_entrant(bot_id: str) -> str:
    """A bot's entrant key."""
    return f"bot:{bot_id}"


def has_ladder(game_id: str) -> bool:
    """True for a registered competitive game (co-operative games have no ladder)."""
    game = get_game(game_id)
    return game is not None and not game.info.cooperative


def anchor(game_id: str, level: str) -> Rating:
    """The fixed rating of a built-in AI level in a game: measured, else assumed."""
    measured = level_rating(game_id, level)
    if measured is not None:
        return Rating(measured.mu, measured.sigma)
    return Rating(ANCHORS.get(level, MODEL.mu), ANCHOR_SIGMA)


def rated_entrants(record: MatchRecord) -> list[Entrant] | None:
    """The entrant of every seat, in seat order, when the match is rated; None when it is not.

    Never rated: a co-operative game, a match that allows assistance (a seat that may ask the AI for its
    moves measures the AI, not itself), a human or open seat, no bot, a bot holding two seats."""
    if not has_ladder(record.game) or record.assistance == Assistance.ALLOWED:
        return None
    entrants = []
    for seat in record.seats:
        if seat.ai_level is not None:
            entrants.append(Entrant(f"ai:{seat.ai_level}", seat.ai_level))
        elif seat.bot is not None and not seat.pending:
            entrants.append(Entrant(bot_entrant(seat.bot), seat.name or seat.bot))
        else:
            return None  # a human seat (or an empty one): unrated
    bots = [entrant.key for entrant in entrants if not entrant.anchored]
    if not bots or len(set(bots)) != len(bots):
        return None  # nobody to rate, or a bot playing itself
    return entrants


def updated(
    game_id: str, entrants: Sequence[Entrant], current: Sequence[Rating | None], result: Result
) -> list[Rating]:
    """Every entrant's rating after a match of the game (anchors unchanged), each with one more game counted."""
    pairs = zip(entrants, current, strict=True)
    before = [
        anchor(game_id, entrant.level) if entrant.level is not None else stored or default()
        for entrant, stored in pairs
    ]
    ranks = [place_of(result.ranking, seat)[0] for seat in range(len(entrants))]
    teams = MODEL.rate([[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before], ranks=ranks)
    after = []
    for entrant, old, team, stored in zip(entrants, before, teams, current, strict=True):
        games = (stored.games if stored else 0) + 1
        moved = old if entrant.anchored else Rating(team[0].mu, team[0].sigma)
        after.append(Rating(moved.mu, moved.sigma, games))
    return after


def default() -> Rating:
    """A new bot's rating: openskill's default."""
    return Rating(MODEL.mu, MODEL.sigma)
