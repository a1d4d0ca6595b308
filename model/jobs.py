"""What each RQ job returns: the result RQ stores as JSON (`result_ttl`), one shape per job.

The workers (`workers/jobs.py`, `workers/challenges.py`, `workers/timers.py`) build them; the HTTP
layer reads a requested move's back (`api/jobs/views.py`), the tests and RQ's dashboard the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict, final

from engine import Action

if TYPE_CHECKING:
    from ai.analysis import AnalysisJson

TurnOutcome = Literal[
    "applied", "paced", "superseded", "nothing-to-do", "not-an-ai-seat", "refused", "match-over-or-gone"
]
"""What became of one AI turn a turn job took on (`paced`: its move was found early for the match's spectator pace,
and a job on the timer queue stores it when due, `workers/pace.py`); or a paced move's job (`play_paced_move`)."""


class TurnResult(TypedDict):
    """One AI turn a turn job took on (`play_one_turn`): what became of it, the version when it was played or
    passed over at one, the refusal's code when the match refused it."""

    outcome: TurnOutcome
    match: str
    seat: int
    version: NotRequired[int]
    code: NotRequired[str]


class TurnJobResult(TurnResult):
    """A turn job's result (`play_ai_turn`): its last turn's, and how many moves it stored in all."""

    moves: int


@final
class MoveAnswer(TypedDict):
    """A requested move's result (`compute_move`): the action at `version`, and where it was applied, if it was."""

    action: Action
    version: int
    applied: bool
    applied_version: int | None


class JobError(TypedDict):
    """Why a requested move could not be given: a refusal's stable code and what it says."""

    code: str
    detail: str


@final
class MoveRefused(TypedDict):
    """A requested move's result when none could be given: the job counts as failed."""

    error: JobError


MoveJobResult = MoveAnswer | MoveRefused
"""What a requested move's job (`workers.jobs.compute_move`) returns."""


@final
class AnalysisAnswer(TypedDict):
    """An analysis job's result (`workers.analysis.analyse_position`): the search's top moves at its end."""

    analysis: AnalysisJson


AnalysisJobResult = AnalysisAnswer | MoveRefused
"""What an analysis job returns: the analysis, or why none could be given (the job counts as failed)."""


class AdvanceJobResult(TypedDict):
    """A tournament advance job's result (`advance_tournament`): the tournament it advanced."""

    tournament: str


class ExpireMatchResult(TypedDict):
    """A match expiry job's result (`expire_match`): `expired`, or `started-or-over` when there was nothing to do."""

    outcome: str
    match: str


class ExpireTournamentResult(TypedDict):
    """A tournament expiry job's result (`expire_tournament`): the tournament's status after its advance (or `gone`)."""

    outcome: str
    tournament: str


TimeoutOutcome = Literal["deadline-moved", "match-over-or-gone", "acted-in-time", "refused", "timed-out"]
"""What became of a seat's timeout."""


class TimeoutJobResult(TypedDict):
    """A timeout job's result (`time_out_seat`): what became of the timeout; the version when the seat acted in time
    or timed out, the refusal's code when the match refused the default action, how late (s) a timeout was played."""

    outcome: TimeoutOutcome
    match: str
    seat: int
    version: NotRequired[int]
    code: NotRequired[str]
    late: NotRequired[float]


class RequestedMove(TypedDict):
    """A move a seat asked the AI for (`POST .../ai-move`), as its answers start: the job, its status, whose move."""

    id: str
    status: str
    match: str
    seat: int
    version: int
    level: str
    apply: bool


ReviewOutcome = Literal["stored", "handed-over", "match-gone", "not-finished", "superseded"]
"""What became of a match's review job: stored; handed over to a job queued after the live AI turns that
waited (its positions so far kept); the match gone or not a finished one; or another job holds the review."""


class ReviewJobResult(TypedDict):
    """A review job's result (`review_match`): what became of it, and how many moves it reviewed."""

    outcome: ReviewOutcome
    match: str
    moves: int
