"""What the runner keeps on disk, so that a restart loses and replays nothing.

<state_dir>/cursor            the bot id and the last event handled (atomic: a temp file, then a rename)
<state_dir>/results.jsonl     one line per match over: the match counted once, whatever a restart replays
<state_dir>/moves.jsonl       one line per action the server accepted (match, seat, version, action)
<state_dir>/tickets.json      the matchmaking tickets held (cancelled on a clean stop, checked on a start)
<state_dir>/exports/<id>.json each finished match's export (`GET /v1/matches/{id}/export`)
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any


class StateDir:
    """The runner's folder: its stream cursor, its results, its accepted moves, its tickets and the exports."""

    def __init__(self, folder: Path, bot_id: str) -> None:
        self.folder = folder
        self.bot_id = bot_id
        (folder / "exports").mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        for journal in ("results.jsonl", "moves.jsonl"):
            self.end_torn_line(journal)
        self.finished: set[str] = {line["match"] for line in self.lines("results.jsonl")}

    # --- the stream cursor ------------------------------------------------------------------------

    def cursor(self) -> int | None:
        """The id of the last event handled, None before the first run (or when the folder was another bot's)."""
        try:
            bot, event_id = (self.folder / "cursor").read_text().split()
            return int(event_id) if bot == self.bot_id else None
        except (OSError, ValueError):
            return None

    def save_cursor(self, event_id: int) -> None:
        """Keep `event_id` as the cursor, atomically (a crash leaves the old cursor or the new one)."""
        self.write_atomically("cursor", f"{self.bot_id} {event_id}\n")

    # --- results and moves ------------------------------------------------------------------------

    def record_result(self, match_id: str, status: str, result: Any) -> bool:
        """Count the match over once: True the first time, False when it was counted already."""
        with self._lock:
            if match_id in self.finished:
                return False
            self.finished.add(match_id)
            self.append("results.jsonl", {"match": match_id, "status": status, "result": result})
            return True

    def record_move(self, match_id: str, seat: int, version: int | None, action: Any) -> None:
        """Note an action the server accepted."""
        with self._lock:
            self.append("moves.jsonl", {"match": match_id, "seat": seat, "version": version, "action": action})

    def save_export(self, match_id: str, export: Any) -> Path:
        """Keep a finished match's export."""
        path = self.folder / "exports" / f"{match_id}.json"
        self.write_atomically(f"exports/{match_id}.json", json.dumps(export))
        return path

    # --- matchmaking tickets ----------------------------------------------------------------------

    def tickets(self) -> dict[str, Any]:
        """The tickets held, by id."""
        try:
            return dict(json.loads((self.folder / "tickets.json").read_text()))
        except (OSError, ValueError):
            return {}

    def save_tickets(self, tickets: dict[str, Any]) -> None:
        """Keep the tickets held."""
        self.write_atomically("tickets.json", json.dumps(tickets))

    # --- files --------------------------------------------------------------------------------------

    def lines(self, name: str) -> list[dict[str, Any]]:
        """The JSON lines of a journal (a torn last line, from a crash mid-write, is skipped)."""
        try:
            text = (self.folder / name).read_text()
        except OSError:
            return []
        found = []
        for line in text.splitlines():
            try:
                found.append(json.loads(line))
            except ValueError:
                continue
        return found

    def end_torn_line(self, name: str) -> None:
        """End a journal's last line if a crash tore it, so the next line starts on a line of its own."""
        path = self.folder / name
        if path.exists() and path.stat().st_size and not path.read_bytes().endswith(b"\n"):
            with path.open("a") as journal:
                journal.write("\n")

    def append(self, name: str, line: dict[str, Any]) -> None:
        """Append one JSON line and flush it to the disk."""
        with (self.folder / name).open("a") as journal:
            journal.write(json.dumps(line) + "\n")
            journal.flush()
            os.fsync(journal.fileno())

    def write_atomically(self, name: str, text: str) -> None:
        """Write a file whole or not at all: a temp file in the same folder, synced, then renamed over it."""
        target = self.folder / name
        handle, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
        try:
            with os.fdopen(handle, "w") as file:
                file.write(text)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temp, target)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
