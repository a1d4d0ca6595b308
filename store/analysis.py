"""The analysis store: each analysis job's progress and answer, and which job each asker has pending.

Key names:

* `parlour:analysis:{<job_id>}`       hash: `progress` (how many progress reports so far), `latest` (the newest
  report, JSON) and, once the job has an answer, `answer` (what the job returns, JSON); kept as long as the job's
  result (`PARLOUR_JOB_TTL`)
* `parlour:analysis-asker:<asker>`    string: the id of the asker's latest analysis job (`seat:<match>:<seat>` for a
  seat, `addr:<ip>` for anyone else), claimed with SET NX, as long as that job may run

Each report and the answer are announced on `parlour:changes` as `parlour:match:{analysis:<job_id>} <n>` (read by
`MatchStore.change_of` as the notice `analysis:<job_id>`: a match id never holds a colon), so the job's event streams
wake: `n` is the report's number, and the answer's is one past the last report. The script is
`store/lua/analysis/progress.lua`; a claim is handed from an ended job to a new one by the matches' `reclaim.lua`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import redis

from model import codec
from store.connection import lua_script

LATEST = "latest"
ANSWER = "answer"


def analysis_key(job_id: str) -> str:
    """The hash of one analysis job's progress and answer."""
    return f"parlour:analysis:{{{job_id}}}"


def asker_key(asker: str) -> str:
    """Which analysis job an asker (a seat, an address) has pending."""
    return f"parlour:analysis-asker:{asker}"


def analysis_notice(job_id: str) -> str:
    """The name an analysis job's reports are announced under on the change feed (what `change_of` reads)."""
    return f"analysis:{job_id}"


@dataclass(frozen=True)
class Progress:
    """What an analysis job has reported: the number of reports, the newest (JSON text), and its answer once it has
    one (the job's result, JSON text)."""

    reports: int
    latest: str | None
    answer: str | None


class AnalysisStore:
    """Reads and writes analysis jobs' progress and askers' claims (a client that decodes replies)."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self._report = lua_script(client, "analysis", "progress")
        self._reclaim = lua_script(client, "matches", "reclaim")

    def report(self, job_id: str, analysis: object, ttl: int) -> int:
        """Keep the job's newest progress report and announce it; its number (from 1)."""
        return self._announce(job_id, LATEST, codec.dumps(analysis), ttl)

    def answer(self, job_id: str, result: object, ttl: int) -> int:
        """Keep the job's answer (what it returns) and announce its end; the number announced."""
        return self._announce(job_id, ANSWER, codec.dumps(result), ttl)

    def progress(self, job_id: str) -> Progress:
        """What the job has reported so far (nothing yet: no reports, no answer)."""
        reports, latest, answer = cast(
            "list[str | None]", self.client.hmget(analysis_key(job_id), ["progress", LATEST, ANSWER])
        )
        return Progress(int(reports or 0), latest, answer)

    def pending(self, asker: str) -> str | None:
        """The id of the asker's latest analysis job, if its claim is still held."""
        return cast("str | None", self.client.get(asker_key(asker)))

    def claim(self, asker: str, job_id: str, replacing: str | None, ttl: int) -> bool:
        """Give the asker's analysis to this job if it has none, or in place of `replacing`, an ended job."""
        key = asker_key(asker)
        if replacing is None:
            return bool(self.client.set(key, job_id, nx=True, ex=ttl))
        return bool(self._reclaim(keys=[key], args=[replacing, job_id, ttl]))

    def _announce(self, job_id: str, field: str, text: str, ttl: int) -> int:
        notice = f"parlour:match:{{{analysis_notice(job_id)}}}"
        return int(self._report(keys=[analysis_key(job_id)], args=[field, text, ttl, notice]))
