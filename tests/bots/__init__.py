"""The bot runner (`parlour-bot`, clients/python/src/parlour_bot) against a server whose store comes and goes."""
