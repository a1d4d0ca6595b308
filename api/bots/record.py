"""The stored form of a registered bot, and the events its stream carries."""

from __future__ import annotations

from dataclasses import dataclass

MATCH_STARTED, YOUR_TURN, MATCH_OVER = "match-started", "your-turn", "match-over"
BOT_EVENTS = (MATCH_STARTED, YOUR_TURN, MATCH_OVER)


@dataclass(frozen=True)
class BotRecord:
    """A bot as stored: its id, public name, creation time and its token's hash (never the token)."""

    id: str
    name: str
    token_hash: str
    created_at: str


@dataclass(frozen=True)
class BotEvent:
    """One event of a bot's stream: its number (the SSE id), its name and its JSON data as text."""

    id: int
    event: str
    data: str


@dataclass(frozen=True)
class SeatNotice:
    """What one change of a match means for one bot seat: the candidate events, each sent at most once."""

    bot_id: str
    match_id: str
    seat: int
    version: int
    finished: bool
    may_act: bool
    started: str  # the JSON data of each event, sent if due
    your_turn: str
    over: str
