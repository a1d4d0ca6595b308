"""A bot's cap on matches at once (`max_matches`): a match counts from the moment the bot is seated in it
(it accepted, or its policy did) until the bot is told it is over.

The matches counted are the bot's set of running matches in Redis (`BotStore.matches`), added to by
one script that checks the cap, so two seatings racing for the last place cannot both get it. A match
that ended without the bot being told (a lost notice) is told now, which frees its place.
"""

from __future__ import annotations

from domain.bots.registration import seat_notices
from engine import Result, get_game
from model.bot import BotRecord
from model.match import FINISHED
from model.refusals import Conflict
from store.matches import MatchStore

ADDED, HELD, FULL = 1, 2, 0


def at_capacity(bot: BotRecord, playing: int) -> Conflict:
    """The refusal for a bot whose cap is full."""
    return Conflict(
        "bot-at-capacity",
        f"bot {bot.name!r} plays {playing} matches at once, its maximum ({bot.max_matches}); try once one is over",
        bot=bot.id,
    )


def reserve(store: MatchStore, bot: BotRecord, match_id: str) -> bool:
    """Count the match among the bot's matches at once: True if newly counted, False if it was already.

    A 409 `bot-at-capacity` when its cap is full, even once the matches that ended are told over.
    """
    answer = store.bots.reserve(bot.id, match_id, bot.max_matches)
    if answer == FULL:
        tell_ended(store, bot.id)
        answer = store.bots.reserve(bot.id, match_id, bot.max_matches)
    if answer == FULL:
        raise at_capacity(bot, store.bots.counts(bot.id)[0])
    return answer == ADDED


def check_room(store: MatchStore, bot: BotRecord) -> None:
    """A 409 `bot-at-capacity` if the bot's cap is full now (nothing counted: a challenge it may accept later)."""
    if bot.max_matches is None or store.bots.counts(bot.id)[0] < bot.max_matches:
        return
    tell_ended(store, bot.id)
    playing = store.bots.counts(bot.id)[0]
    if playing >= bot.max_matches:
        raise at_capacity(bot, playing)


def release(store: MatchStore, bot_ids: list[str], match_id: str) -> None:
    """Stop counting a match the bots were not seated in after all (it was never stored, or refused)."""
    for bot_id in bot_ids:
        store.bots.forget_match(bot_id, match_id)


def tell_ended(store: MatchStore, bot_id: str) -> None:
    """Tell the bot of every counted match that is over (a notice lost with a process): it stops counting."""
    match_ids = store.bots.matches(bot_id)
    for record in store.load_many(match_ids):
        if record is None or not record.ended:
            continue  # a missing one may be a match being created: the bot's next connection forgets it
        result = None
        if record.status == FINISHED:
            game = get_game(record.game)
            assert game is not None, f"stored match of unregistered game {record.game}"
            outcome = Result.from_json(record.result) if record.result else game.state_from_json(record.state).result()
            result = outcome.to_json() if outcome else None
        for notice in seat_notices(record, {}, result):
            if notice.bot_id == bot_id:
                store.bots.announce(notice)
