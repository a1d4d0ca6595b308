"""`parlour verify`: check a match export offline, by replaying it through the engine's checked path.

An export (`GET /v1/matches/{id}/export`, built by domain/matches/export.py) is one JSON object:
`format` ("parlour-match"), `format_version` (1), the match's `id`, `game`, `rules_version`,
`players`, resolved `options`, `seats`, `seed`, `seed_commitment`, `created_at`, `finished_at`,
`status` (finished or aborted), `abort_reason`, `result` and `log`, every entry as stored, in order.
A log entry is an action (`version`, `seat`, `action`, `at`, and `timeout` when a turn timer played
it) or a resignation (`version`, `seat`, `at`, `resign: true`, and `handed_to`, an AI level, when a
co-operative seat was handed to the AI and the match went on).

Verifying checks sha256(seed) against the commitment, starts the game from the seed and options,
plays every action with `GameState.play` (which refuses an illegal one), ends the match at a
resignation that is not handed on, and compares the outcome with the export's `result`.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any, TextIO, TypedDict, cast

from engine import GameState, get_game
from engine.errors import EngineError
from engine.protocol import Game
from engine.result import Result
from model.match import ABORTED, ENDED, FINISHED, LogEntry, ResultJson, seed_commitment

FORMAT = "parlour-match"
FORMAT_VERSION = 1
"""Raised when a field changes meaning or a required one is added; a reader refuses versions it does not know."""

VERIFIED, MISMATCH, NOT_AN_EXPORT = 0, 1, 2
"""Exit statuses of `parlour verify`."""

PLAYING_KINDS = ("human", "bot")
"""Seats a person or a bot plays: those that resign (an AI seat never does)."""
SEAT_KINDS = ("human", "ai", "bot")

REQUIRED: dict[str, type | tuple[type, ...]] = {
    "game": str,
    "rules_version": int,
    "players": int,
    "options": dict,
    "seats": list,
    "seed": str,
    "seed_commitment": str,
    "status": str,
    "result": (dict, type(None)),
    "log": list,
}
"""The fields a verifier reads, with their JSON types."""


class ExportSeatJson(TypedDict):
    """Who held a seat of an exported match (its kind, name, AI level, bot id), never a token or its hash."""

    seat: int
    type: str
    name: str | None
    level: str | None
    bot: str | None


class ParsedExport(TypedDict):
    """What a verifier reads of an export, its JSON types checked (`parse_export`); the log's entries are checked
    one by one as they are replayed."""

    game: str
    rules_version: int
    players: int
    options: dict[str, Any]
    seats: list[ExportSeatJson]  # each its seat's, in order, with a known type
    seed: str
    seed_commitment: str
    status: str  # finished or aborted
    result: ResultJson | None  # as the export claims it: compared whole with the replay's
    log: list[Any]


assert set(ParsedExport.__annotations__) == set(REQUIRED), "REQUIRED checks every field a verifier reads"


class NotAnExport(ValueError):
    """The input is not a Parlour match export this verifier reads (not JSON, another format or version)."""


class Mismatch(Exception):
    """The export does not replay to what it claims; `version` names the first bad log entry, if one is."""

    def __init__(self, detail: str, version: int | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.version = version

    def __str__(self) -> str:
        return self.detail if self.version is None else f"log entry version {self.version}: {self.detail}"


@dataclass(frozen=True)
class Verified:
    """What a verified export replayed to: its game, status, log length and result."""

    game: str
    status: str
    entries: int
    result: Result | None

    def summary(self) -> str:
        """One line for people: the game, the entries replayed and the outcome."""
        if self.result is None:
            outcome = "aborted, no result"
        elif self.result.team_success is not None:
            outcome = ("the team won" if self.result.team_success else "the team lost") + f" ({self.result.reason})"
        elif self.result.is_draw:
            outcome = f"a draw ({self.result.reason})"
        else:
            outcome = f"won by seat {', '.join(map(str, self.result.winners))} ({self.result.reason})"
        return f"verified: {self.game}, {self.entries} log entries replayed from the seed; {outcome}"


def parse_export(text: str) -> ParsedExport:
    """The export in `text`, its format, version and top-level fields checked; NotAnExport otherwise."""
    try:
        data = json.loads(text)
    except ValueError as error:
        raise NotAnExport(f"not JSON ({error})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise NotAnExport(f'not a Parlour match export (no "format": "{FORMAT}")')
    if data.get("format_version") != FORMAT_VERSION:
        raise NotAnExport(
            f"format version {data.get('format_version')!r}: this verifier reads version {FORMAT_VERSION}"
        )
    for name, kind in REQUIRED.items():
        if name not in data or not isinstance(data[name], kind) or isinstance(data[name], bool):
            raise NotAnExport(f"the export's {name!r} is missing or of the wrong type")
    seats = data["seats"]
    if len(seats) != data["players"] or not all(is_seat(seat, index) for index, seat in enumerate(seats)):
        raise NotAnExport(f"the export's 'seats' are not {data['players']} seats, in order, each with its type")
    if data["status"] not in ENDED:
        raise NotAnExport(f"status {data['status']!r}: only a match that is over is exported")
    return cast(ParsedExport, data)  # each of its fields' JSON type is checked above


def is_seat(seat: Any, index: int) -> bool:
    """True for an export's seat `index`: an object naming that seat and its type."""
    return isinstance(seat, dict) and seat.get("seat") == index and seat.get("type") in SEAT_KINDS


def verify(export: ParsedExport) -> Verified:
    """Replay a parsed export from its seed through the checked path; Mismatch at the first thing that differs."""
    if seed_commitment(export["seed"]) != export["seed_commitment"]:
        raise Mismatch("sha256(seed) is not the seed_commitment: the seed is not the one committed to")
    game = game_of(export)
    try:
        state = game.start(export["players"], export["options"], export["seed"])
    except EngineError as error:
        raise Mismatch(f"the game does not start with these players and options: {error}") from None
    result, entries = replay_log(game, state, export["seats"], export["log"])
    claimed = export["result"]
    if export["status"] == FINISHED:
        if result is None:
            raise Mismatch("the export says finished but its log does not end the match")
        if claimed != result.to_json():
            raise Mismatch(f"the result is {claimed}, but the log replays to {result.to_json()}")
    if export["status"] == ABORTED:
        if claimed is not None:
            raise Mismatch("an aborted match has no result, but the export gives one")
        if result is not None:
            raise Mismatch("the export says aborted but its log ends the match")
    return Verified(export["game"], export["status"], entries, result if export["status"] == FINISHED else None)


def game_of(export: ParsedExport) -> Game:
    """The export's game, played under the rules it was recorded with; Mismatch if this engine cannot."""
    game = get_game(export["game"])
    if game is None:
        raise Mismatch(f"this engine has no game {export['game']!r}")
    if game.info.rules_version != export["rules_version"]:
        raise Mismatch(
            f"the match was played under version {export['rules_version']} of {game.info.name}'s rules;"
            f" this engine plays version {game.info.rules_version}"
        )
    return game


def replay_log(game: Game, state: GameState, seats: list[ExportSeatJson], log: list[Any]) -> tuple[Result | None, int]:
    """Play every entry in order; the outcome (the game's, or a resignation's) and the entries replayed."""
    versions = entry_versions(log)
    players = len(seats)
    playing = playing_seats(seats, log)
    ended_by: Result | None = None
    for entry, version in zip(log, versions, strict=True):
        if ended_by is not None or state.is_over():
            raise Mismatch("an entry after the match ended", version)
        seat = entry.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise Mismatch(f"seat {seat!r} is not a seat of this match", version)
        if "resign" in entry:
            ended_by = resignation(game, seats, playing, entry, version)
        elif "action" in entry:
            try:
                state.play(seat, entry["action"])
            except EngineError as error:
                raise Mismatch(f"seat {seat}'s action {entry['action']} is refused: {error}", version) from None
        else:
            raise Mismatch("neither an action nor a resignation", version)
    return ended_by or state.result(), len(log)


def entry_versions(log: list[Any]) -> list[int]:
    """Each entry's version, checked to rise along the log before anything is played (joins also count
    versions, so gaps are fine); a reordered log is named as such."""
    versions: list[int] = []
    for index, entry in enumerate(log):
        version = entry.get("version") if isinstance(entry, dict) else None
        if isinstance(version, bool) or not isinstance(version, int):
            raise Mismatch(f"log entry {index + 1} is not an object with a version")
        if versions and version <= versions[-1]:
            raise Mismatch(f"out of order: it comes after version {versions[-1]} (a reordered log?)", version)
        versions.append(version)
    return versions


def playing_seats(seats: list[ExportSeatJson], log: list[Any]) -> set[int]:
    """The seats a human or a bot held when play began: those still held so at the end, and those handed to the AI."""
    handed = {entry.get("seat") for entry in log if isinstance(entry, dict) and "handed_to" in entry}
    return {seat["seat"] for seat in seats if seat["type"] in PLAYING_KINDS} | {s for s in handed if isinstance(s, int)}


def resignation(
    game: Game, seats: list[ExportSeatJson], playing: set[int], entry: LogEntry, version: int
) -> Result | None:
    """What a resignation does, as the server decides it: a competitive match ends with the resigner last; a
    co-operative seat goes to the AI while another human or bot seat plays on (None: the match goes on), else
    the team gives up. `playing` loses a seat handed on."""
    seat: int = entry["seat"]
    if entry["resign"] is not True:
        raise Mismatch(f"resign is {entry['resign']!r}, not true", version)
    if seat not in playing:
        raise Mismatch(f"seat {seat} is played by the AI, and only a human or bot seat resigns", version)
    others = sorted(playing - {seat})
    result = Result.after_resignation(game.info.cooperative, len(seats), seat, bool(others))
    if result is not None:
        if "handed_to" in entry and game.info.cooperative:
            raise Mismatch(
                f"seat {seat} was the last human or bot seat: the team gives up, no seat is handed on", version
            )
        if "handed_to" in entry:
            raise Mismatch("a seat of a competitive game cannot be handed to the AI", version)
        return result
    if "handed_to" not in entry:
        raise Mismatch(f"seats {others} play on, so seat {seat} goes to the AI: the team does not give up", version)
    final = seats[seat]
    if (final["type"], final.get("level")) != ("ai", entry["handed_to"]):
        raise Mismatch(f"seat {seat} went to {entry['handed_to']!r} but the export's seat is not that AI", version)
    playing.discard(seat)
    return None


def read_source(path: str, stdin: TextIO) -> str:
    """The text of FILE, or of standard input for `-`; NotAnExport if it cannot be read."""
    if path == "-":
        return stdin.read()
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise NotAnExport(f"cannot read {path}: {error}") from None


def run(path: str) -> int:
    """`parlour verify FILE`: print what verified and answer 0, or why not and answer 1 (mismatch) or 2."""
    try:
        export = parse_export(read_source(path, sys.stdin))
    except NotAnExport as error:
        print(f"parlour verify: {path}: {error}", file=sys.stderr)
        return NOT_AN_EXPORT
    try:
        verified = verify(export)
    except Mismatch as error:
        print(f"parlour verify: {path}: does not verify: {error}", file=sys.stderr)
        return MISMATCH
    print(verified.summary())
    return VERIFIED
