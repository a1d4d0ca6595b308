"""The matchmaking resource: pools to enter, tickets to follow and cancel."""
