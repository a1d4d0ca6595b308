"""The limits and quotas the load tests run the API with: a load test is no honest client.

Many users from one address at full speed, hundreds of matches or streams at once: every limit and
quota is set far above what a load test reaches, so the limiter still does all its work (counters,
headers) and refuses nothing. `PARLOUR_LIMITS=0` (the benchmark's "no limits" server) turns it off.
"""

from __future__ import annotations

from model.settings import LIMIT_NAMES

OUT_OF_REACH = "1000000/second"
LOAD_TEST_LIMITS = {
    **{f"PARLOUR_LIMIT_{name.upper()}": OUT_OF_REACH for name in LIMIT_NAMES},
    **{
        f"PARLOUR_QUOTA_{name}": "1000000"
        for name in ("MATCHES", "KEPT_MATCHES", "SEATS", "TOURNAMENTS", "BOTS", "STREAMS")
    },
    "PARLOUR_QUOTA_TOURNAMENT_MATCHES": "0",  # the planner's own cap, 2,000
}
"""Environment variables for an API under a load test."""
