"""The bot-notice listener: what a stored change means for the bots holding seats, told each once."""

from __future__ import annotations

import logging

import redis

from domain.bots.registration import seat_notices
from domain.matches.commands import legal_actions_json, result_of
from engine import GameState
from model.match import FINISHED, WAITING, MatchRecord
from store.matches import MatchStore

log = logging.getLogger(__name__)


def tell_bots(store: MatchStore, record: MatchRecord, state: GameState) -> None:
    """Tell the bots holding seats what a stored change means for them: started, your turn, over (each once).

    A failure is logged, not raised: the change is stored, and a bot's stream tells it again when it reconnects.
    """
    if record.status == WAITING or all(seat.bot is None for seat in record.seats):
        return
    # Worked out once per (version, seat) here, where the state is in hand: each `your-turn` carries them.
    legal = {seat.seat: legal_actions_json(record, state, seat.seat) for seat in record.seats if seat.bot is not None}
    acting = {seat: actions for seat, actions in legal.items() if actions["may_act"]}
    result = result_of(record, state) if record.status == FINISHED else None  # an aborted match has none
    try:
        for notice in seat_notices(record, acting, result.to_json() if result else None):
            store.bots.announce(notice)
    except redis.RedisError as error:
        log.warning("match %s: the bots were not told of version %d: %s", record.id, record.version, error)
