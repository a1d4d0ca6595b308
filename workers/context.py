"""What a job needs: the same services the API builds, once per process, from the same environment."""

from __future__ import annotations

import threading
from functools import cache

from domain.wiring import Services, build_services
from model.settings import Settings

stop_requested = threading.Event()
"""Set once this worker process is asked to stop: a turn job playing on hands over at its next move."""


@cache
def context() -> Services:
    """This process's services (REDIS_URL and the PARLOUR_* settings, as for the API)."""
    return build_services(Settings())
