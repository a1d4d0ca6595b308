"""The `parlour` command: run a tournament on a server or in this process, show its results, verify an export.

It builds on the domain: a tournament played here (`tournaments.local`) uses the same plan, schedule
(`domain.tournaments.plan.next_slots`) and standings (`domain.tournaments.standings.report`) as the
server, so a tournament run either way with the same seed has the same schedule and match seeds. Its
progress bar (tqdm) and plots (matplotlib) come with the `tools` extra: pip install 'parlour[tools]'.
"""
