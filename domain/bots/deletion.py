"""Deleting a bot: its name is freed, its unfinished matches are aborted, and none of its keys are left.

Its token stops working at once (the registration goes first, under a check of the token hash, so
a rotation racing the deletion wins or loses whole). Then every match the bot holds a seat in that is
not over, started or still waiting for players, is aborted (no result; void in its tournament), and
last its counters, event stream, running-matches set and seat marks are deleted. A tournament that
has the bot among its entrants voids that bot's later matches unplayed.
"""

from __future__ import annotations

from domain.matches.commands import OnCommit, abort_match
from model.bot import BotRecord
from model.match import WAITING
from model.refusals import Conflict, NotFound, Unauthorized
from store.matches import MatchStore

LOAD_BATCH = 100


def deleted_reason(bot_id: str) -> str:
    """Why a match of a deleted bot was aborted."""
    return f"bot {bot_id} was deleted"


def delete_bot(store: MatchStore, bot: BotRecord, on_commit: OnCommit) -> list[str]:
    """Delete the bot (its token already checked) and abort its unfinished matches; their ids."""
    if not store.bots.unregister(bot):
        raise Unauthorized("the bot token is not valid (it was rotated or the bot deleted meanwhile)")
    aborted = []
    for match_id in unfinished_matches(store, bot.id):
        try:
            abort_match(store, match_id, deleted_reason(bot.id), on_commit)
        except (Conflict, NotFound):  # it ended or expired meanwhile
            continue
        aborted.append(match_id)
    store.bots.purge(bot.id)
    return aborted


def unfinished_matches(store: MatchStore, bot_id: str) -> list[str]:
    """The bot's running matches (its set) and the waiting matches that seat it (the lobby's index)."""
    found = set(store.bots.matches(bot_id))
    waiting = store.ids_in(WAITING)
    for start in range(0, len(waiting), LOAD_BATCH):
        batch = waiting[start : start + LOAD_BATCH]
        for record in store.load_many(batch):
            if record is not None and not record.ended and any(seat.bot == bot_id for seat in record.seats):
                found.add(record.id)
    return sorted(found)
