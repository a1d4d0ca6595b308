"""The stored form of a registered bot, and the events its stream carries."""

from __future__ import annotations

from dataclasses import dataclass

MATCH_STARTED, YOUR_TURN, MATCH_OVER = "match-started", "your-turn", "match-over"
CHALLENGE, CHALLENGE_CANCELED = "challenge", "challenge-canceled"
BOT_EVENTS = (MATCH_STARTED, YOUR_TURN, MATCH_OVER, CHALLENGE, CHALLENGE_CANCELED)

ASK, TOURNAMENTS, ANYONE = "ask", "tournaments", "anyone"
POLICIES = (ASK, TOURNAMENTS, ANYONE)
"""Which challenges a bot accepts without being asked: none (`ask`, the default), tournaments', or every one."""


@dataclass(frozen=True)
class BotRecord:
    """A bot as stored: its id, public name, creation time, its token's hash (never the token) and its policy."""

    id: str
    name: str
    token_hash: str
    created_at: str
    policy: str = ASK
    max_matches: int | None = None  # the most matches it plays at once; None: no cap

    def accepts(self, tournament: bool) -> bool:
        """True when the bot's policy accepts such a challenge without asking it."""
        return self.policy == ANYONE or (tournament and self.policy == TOURNAMENTS)


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
