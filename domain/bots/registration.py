"""What the bots endpoints do, between HTTP and the store: registration, bot tokens, bot seats."""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, TypedDict

from model.bot import BotRecord, SeatNotice
from model.match import ABORTED, MatchRecord, SeatRequest, now_iso
from model.refusals import Conflict, Forbidden, InvalidRequest, NotFound, Unauthorized
from model.tokens import BotToken, bot_matches_hash, bot_token_hash, new_bot_token
from store.bot_directory import BotDirectory
from store.matches import MatchStore

MAX_BOT_ID = 64


def register_bot(store: MatchStore, directory: BotDirectory, name: str) -> tuple[BotRecord, BotToken]:
    """Register a bot under a unique name; its token is returned this once and stored only as a hash."""
    bot_id = secrets.token_urlsafe(9)
    token = new_bot_token(bot_id)
    bot = BotRecord(bot_id, name, bot_token_hash(token), now_iso())
    if not store.bots.register(bot):
        raise Conflict("name-taken", f"a bot named {name!r} is registered already; bot names are unique")
    directory.add(bot.name)
    return bot, token


def rotate_token(store: MatchStore, bot: BotRecord) -> tuple[BotRecord, BotToken]:
    """Give the bot a new token (returned this once); the old one stops working at once."""
    token = new_bot_token(bot.id)
    rotated = replace(bot, token_hash=bot_token_hash(token))
    if not store.bots.rotate(bot.id, bot.token_hash, rotated.token_hash):
        raise Unauthorized("the bot token is not valid (it was rotated or the bot deleted meanwhile)")
    for match_id in store.bots.matches(bot.id):  # their streams opened with the old token end now
        store.announce(match_id)
    return rotated, token


def load_bot(store: MatchStore, bot_id: str) -> BotRecord:
    """The registered bot, or a 404."""
    bot = store.bots.load(bot_id) if len(bot_id) <= MAX_BOT_ID else None
    if bot is None:
        raise NotFound(f"no bot {bot_id!r}")
    return bot


class BotJson(TypedDict):
    """A bot's public profile: who it is, how many matches it plays and has finished, what it accepts unasked."""

    id: str
    name: str
    created_at: str
    matches_playing: int
    matches_finished: int
    policy: str
    max_matches: int | None


class PolicyChange(TypedDict, total=False):
    """A change of a bot's policy and of its cap on matches at once: either or both (`PATCH /v1/bots/{id}`)."""

    policy: str
    max_matches: int | None


def bot_json(store: MatchStore, bot: BotRecord) -> BotJson:
    """A bot's public profile."""
    playing, finished = store.bots.counts(bot.id)
    return {
        "id": bot.id,
        "name": bot.name,
        "created_at": bot.created_at,
        "matches_playing": playing,
        "matches_finished": finished,
        "policy": bot.policy,
        "max_matches": bot.max_matches,
    }


def set_policy(store: MatchStore, bot: BotRecord, changes: PolicyChange) -> BotRecord:
    """Change the bot's policy and its cap on matches at once (those given); the bot as it is now."""
    policy = changes.get("policy", bot.policy)
    max_matches = changes.get("max_matches", bot.max_matches)
    if not store.bots.set_policy(bot.id, policy, max_matches):
        raise NotFound(f"no bot {bot.id!r}")
    return replace(bot, policy=policy, max_matches=max_matches)


def check_bot_token(store: MatchStore, token: BotToken) -> BotRecord:
    """The bot the token belongs to; a 401 if it is not a valid bot token."""
    bot = store.bots.load(token.bot_id) if len(token.bot_id) <= MAX_BOT_ID else None
    if bot is None or not bot_matches_hash(token, bot.token_hash):
        raise Unauthorized("the bot token is not valid")
    return bot


def bot_itself(store: MatchStore, bot: BotRecord, token: BotToken | None) -> BotRecord:
    """The bot as it is now, if the token is its own: 401 without a valid bot token, 403 for another bot's."""
    if token is None:
        raise Unauthorized(f"this endpoint needs bot {bot.id}'s token: Authorization: Bearer bot.{bot.id}.<secret>")
    holder = check_bot_token(store, token)
    if holder.id != bot.id:
        raise Forbidden(f"this token is bot {holder.id}'s, not bot {bot.id}'s")
    return holder


def bot_seat(store: MatchStore, record: MatchRecord, token: BotToken, seat: int | None) -> int:
    """The seat the bot token acts for in this match: `seat` if the bot holds it, or its only seat.

    401 for a bad bot token, 403 for a match or seat the bot does not hold, 400 when the bot holds
    several seats of the match and the request names none.
    """
    bot = check_bot_token(store, token)
    held = [s.seat for s in record.seats if s.bot == bot.id]
    if not held:
        raise Forbidden(f"bot {bot.id} holds no seat in match {record.id}; a bot token acts only for its own seats")
    if seat is None:
        if len(held) > 1:
            raise InvalidRequest(
                f"bot {bot.id} holds seats {held} of this match: name one with ?seat=N",
                errors={"seat": [f"one of {held}"]},
            )
        return held[0]
    if seat not in held:
        raise Forbidden(f"bot {bot.id} does not hold seat {seat} of this match; its seats: {held}")
    return seat


def bot_seats_of(store: MatchStore, specs: list[SeatRequest]) -> dict[int, BotRecord]:
    """The registered bot of every `bot` seat asked for; a 400 naming the seat of an unknown one."""
    bots = {}
    for seat, spec in enumerate(specs):
        if spec["type"] != "bot":
            continue
        bot_id = spec["bot"] or ""  # a bot seat always names its bot (the request's schema checks it)
        bot = store.bots.load(bot_id) if 0 < len(bot_id) <= MAX_BOT_ID else None
        if bot is None:
            raise InvalidRequest(
                f"seat {seat}: no bot {spec['bot']!r} is registered",
                errors={"seats": {str(seat): {"bot": ["no such bot"]}}},
            )
        bots[seat] = bot
    return bots


def refuse_bot_name(store: MatchStore, name: str | None, where: str, own_bot: str | None = None) -> None:
    """A 409 `name-taken` when `name` is a registered bot's (whatever its case), unless it is `own_bot`'s.

    Seat lists and standings show names, so nobody may pass for a registered bot there.
    """
    holder = store.bots.bot_named(name) if name is not None else None
    if holder is not None and holder != own_bot:
        raise Conflict("name-taken", f"{where}: {name!r} is a registered bot's name; only that bot is shown by it")


def seat_notices(
    record: MatchRecord, acting: Mapping[int, dict[str, Any]], result: dict[str, Any] | None
) -> list[SeatNotice]:
    """What the change to `record` means for each seated bot (`acting`: the legal actions of each seat that may
    act now, which its `your-turn` carries, so the bot acts without reading them).

    A bot that has not accepted its challenge is not seated: it is told nothing of the match itself.
    """
    notices = []
    for seat in record.seats:
        if seat.bot is None or seat.pending:
            continue
        where = {"match": record.id, "seat": seat.seat}
        started = {**where, "game": record.game, "players": record.players, "version": record.version}
        turn = {**where, "version": record.version, "deadline": record.deadlines.get(str(seat.seat))}
        if seat.seat in acting:
            turn["legal_actions"] = acting[seat.seat]
        over = {**where, "version": record.version, "status": record.status, "result": result}
        notices.append(
            SeatNotice(
                seat.bot,
                record.id,
                seat.seat,
                record.version,
                record.ended,
                seat.seat in acting,
                "" if record.status == ABORTED else compact(started),  # aborted: it may never have started
                compact(turn),
                compact(over),
            )
        )
    return notices


def compact(value: Any) -> str:
    """JSON text without spaces."""
    return json.dumps(value, separators=(",", ":"))
