"""External bots: registered players that act for their seats with their own token."""
