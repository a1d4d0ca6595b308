"""The ladder: one openskill rating per game for every rated entrant (registered bots and the built-in AI levels)."""
