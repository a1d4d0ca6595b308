"""GET /v1/socket: one WebSocket per seat or bot carrying its events and its actions (docs/reference/websocket.md)."""
