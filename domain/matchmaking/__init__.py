"""Matchmaking: pools that pair bots and people by ladder rating (`pairing`), and the tickets they hold (`tickets`)."""
