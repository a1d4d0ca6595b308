"""An analysis job followed live, as Server-Sent Events: its progress reports, then its end.

    id: 3
    event: progress
    data: {"seat": 0, "exact": false, "iterations": 600, "moves": [...]}

    event: done
    data: {"id": "...", "kind": "analysis", "status": "finished", ..., "result": {"analysis": {...}}}

A `progress` event carries the newest report the search made (its id is the report's number); reports made
between two reads are skipped, since each one replaces the last. The stream ends with one `done` (the job as
`GET /v1/jobs/{id}` answers it) or `failed` (the same, with its error). A client that connects late, or
reconnects with `Last-Event-ID`, gets the newest report it has not seen, then the end if the job has ended.
A comment line is sent as a heartbeat whenever the stream has been quiet for `heartbeat` seconds; the job's
end that no report announces (a job RQ failed, or one that expired) is seen at the next heartbeat.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import redis

from domain.events.match_stream import HEARTBEAT, RETRY_MS, sse_bytes
from store.analysis import AnalysisStore, Progress, analysis_notice
from store.changes import ChangeFeed, Watch

log = logging.getLogger(__name__)
Ending = tuple[str, str]
"""How a stream ends: the event (`done` or `failed`) and its data (JSON text)."""


@dataclass
class AnalysisStream:
    """The SSE text of one analysis job, from the report after `after` (every report if None)."""

    analyses: AnalysisStore
    feed: ChangeFeed
    job_id: str
    after: int | None
    heartbeat: float
    ending: Callable[[Progress], Ending | None]
    """The job's end as its progress and RQ tell it, or None while it waits or runs."""

    def __iter__(self) -> Iterator[bytes]:
        """Chunks to write to the client, as they happen; ends with the job."""
        watch = self.feed.watch(analysis_notice(self.job_id))
        try:
            yield f"retry: {RETRY_MS}\n\n".encode()
            yield from self._events(watch)
        except redis.RedisError as error:
            # The status line is sent already: end the stream, and the client resumes with Last-Event-ID.
            log.warning("event stream of analysis %s ended: %s", self.job_id, error)
        finally:
            self.feed.unwatch(watch)

    def _events(self, watch: Watch) -> Iterator[bytes]:
        """The newest report at each wake (read after the watch began, so none slips between), then the end."""
        seen = self.after or 0
        while True:
            progress = self.analyses.progress(self.job_id)
            if progress.latest is not None and progress.reports > seen:
                yield sse_bytes("progress", progress.latest, progress.reports)
                seen = progress.reports
            ending = self.ending(progress)
            if ending is not None:
                yield sse_bytes(*ending)
                return
            announced = watch.wait(self.heartbeat)
            if self.feed.stopping:  # the server is shutting down: the client resumes elsewhere
                return
            if announced is None:
                yield HEARTBEAT.encode()
