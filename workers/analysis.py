"""The analysis job: search a position for one seat, reporting the top moves as the search deepens.

The job runs on the hints' queue, which every worker serves last, and gives way to the AI seats of live
matches as a requested move does (`workers.jobs.give_way_to_live_seats`): it ends with its best answer so far
once one of their jobs waits, and pauses while one runs. Each report the search makes is kept and announced
(`store/analysis.py`), at most one per REPORT_EVERY s, so the job's event stream (`GET /v1/jobs/{id}/events`)
shows it; the answer is kept and announced the same way before the job returns it, so a stream never waits
for RQ to record the job's end.
"""

from __future__ import annotations

import logging
import time

import redis
from rq import get_current_job

from ai.analysis import Analysis, analyse
from domain.matches.analysis import PositionJson
from engine import get_game
from model.jobs import AnalysisJobResult
from store.analysis import AnalysisStore
from workers.context import context
from workers.jobs import give_way_to_live_seats, refused

log = logging.getLogger(__name__)
REPORT_EVERY = 0.1
"""Seconds between two progress reports of one search kept in Redis (the first is kept at once)."""


class Reporter:
    """A search's `progress`: keeps and announces the newest analysis, at most one per REPORT_EVERY s."""

    def __init__(self, analyses: AnalysisStore, job_id: str, ttl: int) -> None:
        self.analyses = analyses
        self.job_id = job_id
        self.ttl = ttl
        self.next_report = 0.0

    def __call__(self, analysis: Analysis) -> None:
        now = time.monotonic()
        if now < self.next_report:
            return
        self.next_report = now + REPORT_EVERY
        try:
            self.analyses.report(self.job_id, analysis.to_json(), self.ttl)
        except redis.RedisError as error:  # a report lost is only a report late: the search goes on
            log.warning("analysis %s: progress not reported (%s)", self.job_id, error)


def analyse_position(position: PositionJson, iterations: int, time_cap: float) -> AnalysisJobResult:
    """Analyse the position for its seat within `iterations` and `time_cap` s; the top moves, kept and returned."""
    ctx = context()
    job = get_current_job()
    job_id = job.id if job is not None else f"inline-{time.monotonic_ns()}"
    analyses = AnalysisStore(ctx.store.client)
    ttl = ctx.jobs.result_ttl
    game = get_game(position["game"])
    answer: AnalysisJobResult
    if game is None:
        answer = refused("not-found", f"no game {position['game']!r} on this server any more")
    else:
        try:
            state = game.state_from_json(position["state"])
            stop = give_way_to_live_seats(ctx.jobs, until=time.monotonic() + time_cap)
            found = analyse(
                state,
                position["seat"],
                iterations,
                job_id,  # the seed: an analysis is the same however often its job runs
                time_cap=time_cap,
                stop=stop,
                progress=Reporter(analyses, job_id, ttl),
                full_information=position["full_information"],
            )
            answer = {"analysis": found.to_json()}
        except Exception:  # a search that fails would fail again: the job ends with the error, not a retry
            log.exception("analysis %s failed", job_id)
            answer = refused("analysis-failed", "the analysis failed; the error was logged")
    analyses.answer(job_id, answer, ttl)
    return answer
