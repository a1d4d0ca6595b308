"""The WSGI entry point for gunicorn: `gunicorn ops.wsgi:app`."""

from __future__ import annotations

import contextlib
import signal
from types import FrameType

from api.app import create_app
from store.changes import ChangeFeed

app = create_app()


def end_streams_on_sigterm(feed: ChangeFeed) -> None:
    """On SIGTERM, end the held event streams and long-polls before gunicorn's own graceful stop.

    Gunicorn has set its handler by the time it imports this module; it is kept and called after.
    Without this a worker would wait out its graceful timeout for streams that never finish.
    """
    previous = signal.getsignal(signal.SIGTERM)

    def on_sigterm(signum: int, frame: FrameType | None) -> None:
        feed.stop()
        if callable(previous):
            previous(signum, frame)

    with contextlib.suppress(ValueError):  # imported outside the main thread (not by gunicorn): nothing to chain
        signal.signal(signal.SIGTERM, on_sigterm)


end_streams_on_sigterm(app.services.changes)
