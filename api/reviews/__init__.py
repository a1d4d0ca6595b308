"""The reviews resource: a finished match's review, asked for and read (domain/matches/reviews.py)."""
