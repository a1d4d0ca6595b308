"""Tournaments between players (AI levels and bots): schedules, standings, ratings, and the `parlour` CLI.

This package is pure like `engine/`: no Flask, no Redis. The API (`api/tournaments/`) stores a
tournament's plan and outcomes in Redis and plays its matches on the workers; `tournaments.local`
plays the same plan in process. Both use `plan.next_slots` and `ratings.report`, so a tournament
run either way with the same seed has the same schedule and match seeds.
"""
