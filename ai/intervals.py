"""Confidence intervals for the rates the benchmarks and tournaments report."""

from __future__ import annotations

import math

Z95 = 1.959964
"""The standard normal quantile of a two-sided 95% interval."""


def wilson(successes: int, trials: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a success rate ((0, 1) with no trials)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + Z95 * Z95 / trials
    centre = (p + Z95 * Z95 / (2 * trials)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / trials + Z95 * Z95 / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)
