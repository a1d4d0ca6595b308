"""Live events of a match: Server-Sent Events streams and long-polls, woken through Redis."""
