"""Scripts that measure and probe a running service: `python -m loadtests.<name>` (not installed)."""
