"""What a job needs: the same services the API builds, once per process, from the same environment."""

from __future__ import annotations

from functools import cache

from api.config import Settings
from api.services import Services, build_services


@cache
def context() -> Services:
    """This process's services (REDIS_URL and the PARLOUR_* settings, as for the API)."""
    return build_services(Settings())
