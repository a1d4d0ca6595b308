"""Server-Sent Events: the lines of a `text/event-stream` as events (id, event, data; comments skipped)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Event:
    """One event of a stream: its `id` (None for `end`), its name and its decoded JSON `data`."""

    id: int | None
    event: str
    data: Any


@dataclass
class Frame:
    """What one blank-line-terminated block of a stream said, before decoding."""

    id: str | None = None
    event: str = "message"
    data: list[str] | None = None
    retry: int | None = None


def frames(lines: Iterable[str]) -> Iterator[Frame]:
    """Each block of an event stream (per the HTML standard's parsing rules), comments and unknown fields dropped."""
    frame = Frame()
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if frame.data is not None or frame.retry is not None:
                yield frame
            frame = Frame()
            continue
        if line.startswith(":"):
            continue  # a comment: the server's heartbeat
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            frame.data = [*(frame.data or []), value]
        elif name == "event":
            frame.event = value
        elif name == "id" and "\0" not in value:
            frame.id = value
        elif name == "retry" and value.isdigit():
            frame.retry = int(value)


def events(lines: Iterable[str], on_retry: Callable[[int], None] | None = None) -> Iterator[Event]:
    """Each event of a stream with data, its JSON decoded. A block's `retry:` (the reconnection time the
    server asks for, in milliseconds) goes to `on_retry` when given; `retry:`-only blocks yield no event."""
    for frame in frames(lines):
        if frame.retry is not None and on_retry is not None:
            on_retry(frame.retry)
        if frame.data is None:
            continue
        text = "\n".join(frame.data)
        yield Event(int(frame.id) if frame.id else None, frame.event, json.loads(text) if text else None)
