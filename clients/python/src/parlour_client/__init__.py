"""parlour-client: a typed client of the Parlour API (retries, event streams as iterators, `play_turn`)."""

from __future__ import annotations

from parlour_client.client import Chooser, Client
from parlour_client.errors import ProblemError
from parlour_client.models import (
    Action,
    AiMoveAccepted,
    BotRegistered,
    BotSeat,
    Challenge,
    Job,
    JoinedSeat,
    LegalActions,
    LogEntry,
    LogPage,
    Match,
    MatchCreated,
    MatchmakingTicket,
    SeatToken,
    Snapshot,
)
from parlour_client.retry import RetryPolicy
from parlour_client.sse import Event
from parlour_client.streams import EventStream

__version__ = "0.1.0"
__all__ = [
    "Action",
    "AiMoveAccepted",
    "BotRegistered",
    "BotSeat",
    "Challenge",
    "Chooser",
    "Client",
    "Event",
    "EventStream",
    "Job",
    "JoinedSeat",
    "LegalActions",
    "LogEntry",
    "LogPage",
    "Match",
    "MatchCreated",
    "MatchmakingTicket",
    "ProblemError",
    "RetryPolicy",
    "SeatToken",
    "Snapshot",
]
