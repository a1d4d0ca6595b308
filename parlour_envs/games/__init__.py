"""One encoding per game: its action tokens and its observation tensor (parlour_envs/encoding.py)."""
