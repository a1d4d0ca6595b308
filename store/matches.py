"""The match store: every Redis key of a match and the listings of matches, and the atomic compare-and-set.

Key names (the `{id}` braces are a Redis Cluster hash tag, so a match's keys share one slot):

* `parlour:match:{<id>}`            hash: `version`, `record` (MatchRecord JSON) and `commit` (the id of the
  commit that wrote them, so a commit sent again after its answer was lost knows itself)
* `parlour:match:{<id>}:log`        list: one JSON entry per applied action, oldest first
* `parlour:match:{<id>}:idem:<seat>:<key>`  string: the stored answer to an idempotent request
* `parlour:match:{<id>}:idems:<seat>`  list: the seat's stored answers' keys, newest first; past
  IDEMPOTENT_ANSWERS_KEPT the oldest answer is deleted, so a match keeps at most that many per seat
* `parlour:match:{<id>}:ai:<seat>:<version>`  string: the id of the job that plays that AI turn,
  so each turn is computed by one job even when several changes ask for it
* `parlour:match:{<id>}:move:<seat>`  string: the id of the seat's latest requested move (a hint, or
  applied), claimed with SET NX, so a seat has one such job waiting or running at a time
* `parlour:ai-matches`              set: ids of matches with AI seats, swept for turns that lost their job
* `parlour:timed-matches`           set: ids of matches with a turn timer, swept for deadlines without a job
* `parlour:index:<game|*>:<status|*>`  sorted sets of match ids by creation time, for listing;
  written after the match itself and pruned lazily, so they are an index, never the truth.
* `parlour:finished`                sorted set: `<game> <match id>` by the time (µs) its end was indexed,
  kept as long as a finished match, so a sweep reads only the matches that ended since its last run
* `parlour:challenged-matches`      set: ids of waiting matches that seat a bot, swept for challenges
  that lost their expiry job

Every stored change is also announced on the pub/sub channel `parlour:changes` as
`<match key> <version>`, by the same script that writes it, so any API process can wake the
streams and long-polls that follow that match (a run of moves stored at once is announced once, at
its last version: a listener reads the match and its log from there). A bot's new event is announced
on the same channel (`store/bots.py`); `MatchStore.change_of` reads both.

The bots' keys are `store/bots.py`'s (`MatchStore.bots` is the bot store on the same client), and a
match's watchers (`parlour:match:{<id>}:watchers`, for its spectator pace) `store/watchers.py`'s
(`MatchStore.watchers`). The scripts are `store/lua/matches/*.lua` (see `store/connection.py`).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import redis

from engine import get_game
from model import codec as jsoncodec
from model import settings
from model.match import ABORTED, FINISHED, LogEntry, MatchRecord
from store.bots import BOT_KEY_PREFIX, BotStore, bot_notice
from store.connection import CHANGES_CHANNEL, TIE_MARGIN, lua_script, redis_client
from store.watchers import Watchers

if TYPE_CHECKING:
    from redis.typing import EncodableT, KeyT

MATCH_KEY_PREFIX = "parlour:match:{"
RULES_CHANGED = "rules-changed"
"""The abort reason of a match stored under earlier rules of its game (see `stored_record`)."""


def log_page_of(reply: list[Any]) -> LogPage:
    """The page the log_page script answered."""
    start, stop, before, page, later = reply[:5]
    return LogPage(
        [jsoncodec.loads(raw) for raw in page],
        [jsoncodec.loads(raw) for raw in later],
        None if before < 0 else int(before),
        start + len(page) < stop,
    )


def stored_record(raw: str | bytes) -> MatchRecord:
    """A match as stored; one stored under earlier rules of its game reads as aborted for `rules-changed`.

    Its state cannot be trusted under the new rules, so nothing may play it on: every part of the
    service treats it as over (no AI turn, no timer, no action), and `engine_state` refuses to read it.
    """
    record = MatchRecord.from_json(jsoncodec.loads(raw))
    game = get_game(record.game)
    if game is not None and record.rules_version != game.info.rules_version and not record.ended:
        record.status, record.abort_reason = ABORTED, RULES_CHANGED
    return record


def match_key(match_id: str) -> str:
    """The hash holding a match's record and version."""
    return f"{MATCH_KEY_PREFIX}{match_id}}}"


def log_key(match_id: str) -> str:
    """The list holding a match's applied actions."""
    return f"{match_key(match_id)}:log"


def idempotency_key(match_id: str, seat: int, key: str) -> str:
    """The stored answer to a request sent with an Idempotency-Key."""
    return f"{match_key(match_id)}:idem:{seat}:{key}"


def idempotency_keys_key(match_id: str, seat: int) -> str:
    """The list of a seat's stored answers' keys, newest first."""
    return f"{match_key(match_id)}:idems:{seat}"


def ai_turn_key(match_id: str, seat: int, version: int) -> str:
    """Which job plays an AI seat's turn at one version of a match."""
    return f"{match_key(match_id)}:ai:{seat}:{version}"


def requested_move_key(match_id: str, seat: int) -> str:
    """Which job computes the move a seat asked for (its latest request)."""
    return f"{match_key(match_id)}:move:{seat}"


FINISHED_FEED_KEY = "parlour:finished"


def index_key(game: str | None, status: str | None) -> str:
    """The listing index for a game (or all games) and a status (or all statuses)."""
    return f"parlour:index:{game or '*'}:{status or '*'}"


AI_MATCHES_KEY = "parlour:ai-matches"
TIMED_MATCHES_KEY = "parlour:timed-matches"
CHALLENGED_MATCHES_KEY = "parlour:challenged-matches"
AI_TURN_CLAIM_TTL = 3600
"""Seconds a turn's claim is kept: longer than any job with all its retries (4 x 330 s at most)."""
AI_MATCH_TTL = int(settings.AI_MATCH_TTL.default)
"""Seconds a finished match that only the AI played is kept (PARLOUR_AI_MATCH_TTL): nobody waits to read it."""
IDEMPOTENT_ANSWERS_KEPT = 8
"""Answers to Idempotency-Keys a seat keeps: a client retries the requests it lost the answers of, its last few."""
ENTRIES_ARG = 8
"""The commit script's arguments from which on are the log entries."""
COMMIT_ID_BYTES = 8
"""Random bytes of a commit's id, which tells a commit sent again (after a lost answer) from another writer's."""
WRITTEN_KEPT = 512
"""Versions a process keeps of those it stored, with their log entries, for its own events (`written_entries`)."""
MISSING = object()


def plays_itself(record: MatchRecord) -> bool:
    """True for a match a client created whose every seat the server's AI plays (no tournament's)."""
    return record.tournament is None and all(seat.ai_level is not None for seat in record.seats)


@dataclass(frozen=True)
class Cursor:
    """A position in a listing index: a match's creation time and id."""

    created_us: int
    match_id: str

    def comes_after(self, other: Cursor) -> bool:
        """True when this entry is listed after `other` (newest first, ties by id descending)."""
        return (self.created_us, self.match_id) < (other.created_us, other.match_id)

    def text(self) -> str:
        """The opaque form handed to clients."""
        return f"{self.created_us}:{self.match_id}"

    @classmethod
    def parse(cls, text: str) -> Cursor | None:
        """Read a cursor back, or None if it is not one."""
        created, _, match_id = text.partition(":")
        # isascii too: str.isdigit accepts `²` (which int refuses) and `١٢` (which int reads as 12).
        return cls(int(created), match_id) if created.isascii() and created.isdigit() and match_id else None


@dataclass(frozen=True)
class CommitOutcome:
    """What a compare-and-set did: `ok`, `stale` (with the current version), `missing` or `replay`."""

    kind: str
    version: int | None = None
    replayed: str | None = None


@dataclass(frozen=True)
class LogPage:
    """Consecutive entries of a match's log, with what redacting them needs (`MatchStore.log_page`)."""

    entries: list[LogEntry]  # oldest first
    later: list[LogEntry]  # the entries after the page among the log's newest `tail`
    before: int | None  # the version of the entry just before the page; None when the page starts the log
    more: bool  # entries after the page exist


@dataclass(frozen=True)
class Idempotent:
    """An Idempotency-Key to store the answer under, with the answer to store."""

    key: str
    answer: str


class AlreadyStored(Exception):
    """A match with this id is stored already (`MatchStore.create` with `once`)."""


class PendingCommit:
    """A compare-and-set sent on a connection of its own, whose reply is read when it is needed."""

    def __init__(
        self,
        store: MatchStore,
        connection: Any,
        record: MatchRecord,
        previous_status: str,
        call: tuple[list[KeyT], list[EncodableT]],
    ) -> None:
        self.store = store
        self.connection = connection
        self.record = record
        self.previous_status = previous_status
        self.call = call

    def outcome(self) -> CommitOutcome:
        """Read the reply (once), as `MatchStore.commit` answers."""
        pool = self.store.client.connection_pool
        try:
            kind, value = self.connection.read_response()
        except redis.exceptions.NoScriptError:  # a Redis that restarted forgot the script: it did not run
            keys, args = self.call
            kind, value = self.store._commit(keys=keys, args=args)
        except BaseException:
            self.connection.disconnect()  # what it was in the middle of reading is of no use to the next user
            raise
        finally:
            pool.release(self.connection)
        return self.store._committed(self.record, self.previous_status, kind, value)


class MatchStore:
    """Reads and writes matches in Redis; the only module that knows the key names."""

    @classmethod
    def from_url(
        cls, url: str, finished_ttl: int, idle_ttl: int, idempotency_ttl: int, ai_match_ttl: int = AI_MATCH_TTL
    ) -> MatchStore:
        """A store on the Redis server at `url` (strings decoded as UTF-8)."""
        return cls(redis_client(url, decode_responses=True), finished_ttl, idle_ttl, idempotency_ttl, ai_match_ttl)

    def __init__(
        self,
        client: redis.Redis,
        finished_ttl: int,
        idle_ttl: int,
        idempotency_ttl: int,
        ai_match_ttl: int = AI_MATCH_TTL,
    ) -> None:
        self.client = client
        self.finished_ttl = finished_ttl
        self.ai_match_ttl = ai_match_ttl
        self.idle_ttl = idle_ttl
        self.idempotency_ttl = idempotency_ttl
        self._commit = lua_script(client, "matches", "commit")
        self._reclaim = lua_script(client, "matches", "reclaim")
        self._log_page = lua_script(client, "matches", "log_page")
        self._written: OrderedDict[tuple[str, int], str | None] = OrderedDict()
        self._written_lock = threading.Lock()
        self.bots = BotStore(client, finished_ttl, idle_ttl)
        self.watchers = Watchers(client)

    def subscribe_changes(self) -> redis.client.PubSub:
        """A pub/sub connection subscribed to the change notices (read them with `change_of`)."""
        # redis-py annotates pubsub() only from 8.2 on; the ignore covers the older releases we allow.
        pubsub: redis.client.PubSub = self.client.pubsub()  # type: ignore[no-untyped-call, unused-ignore]
        pubsub.subscribe(CHANGES_CHANNEL)
        return pubsub

    @staticmethod
    def change_of(data: str) -> tuple[str, int] | None:
        """The (match id, version) a change notice announces, or (`bot_notice(bot id)`, event number) for a bot's
        new event; None if it is neither."""
        key, _, version = data.rpartition(" ")
        if not (key.endswith("}") and version.isdigit()):
            return None
        if key.startswith(MATCH_KEY_PREFIX):
            return key[len(MATCH_KEY_PREFIX) : -1], int(version)
        if key.startswith(BOT_KEY_PREFIX):  # a bot's new event, numbered `version`
            return bot_notice(key[len(BOT_KEY_PREFIX) : -1]), int(version)
        return None

    def announce(self, match_id: str) -> None:
        """Announce the match's current version again, unchanged: its streams wake and check their tokens anew."""
        version = self.version(match_id)
        if version is not None:
            self.client.publish(CHANGES_CHANNEL, f"{match_key(match_id)} {version}")

    def version(self, match_id: str) -> int | None:
        """The stored version of a match, or None if there is none (one cheap read)."""
        raw = self.client.hget(match_key(match_id), "version")
        return int(raw) if raw is not None else None

    def ping(self) -> bool:
        """True when Redis answers."""
        return bool(self.client.ping())

    def create(self, record: MatchRecord, once: bool = False) -> None:
        """Store a new match at its version, with its listing (one transaction: all of it or, say when full, none).

        `once`: only if no match has that id yet (else `AlreadyStored`): for an id chosen ahead, which a process
        that resumes someone's interrupted work may create too.
        """
        with self.client.pipeline(transaction=True) as pipe:
            if once:
                pipe.watch(match_key(record.id))  # type: ignore[no-untyped-call, unused-ignore]
            if not self._queue_create(record, pipe, once):
                raise AlreadyStored(record.id)
            try:
                pipe.execute()
            except redis.WatchError:  # created meanwhile by another process
                raise AlreadyStored(record.id) from None

    def _queue_create(self, record: MatchRecord, pipe: Any, once: bool) -> bool:
        """Queue the commands of `create` (the key watched when `once`); False, queueing none, if the match exists."""
        key = match_key(record.id)
        if once:
            if pipe.exists(key):
                return False
            pipe.multi()
        pipe.hset(key, mapping={"version": record.version, "record": jsoncodec.dumps(record.to_json())})
        pipe.expire(key, self.ttl_for(record))
        if record.turn_seconds is not None:
            pipe.sadd(TIMED_MATCHES_KEY, record.id)  # with the match itself: the timer sweep must know it
        if record.start_by is not None:
            pipe.sadd(CHALLENGED_MATCHES_KEY, record.id)  # likewise for the challenges' expiry
        self._index(record, previous_status=None, pipe=pipe)
        return True

    def load(self, match_id: str) -> MatchRecord | None:
        """The stored match, or None if there is none (or it expired)."""
        raw = self.client.hget(match_key(match_id), "record")
        return stored_record(raw) if raw else None

    def commit(
        self,
        record: MatchRecord,
        expected_version: int,
        log_entry: LogEntry | None = None,
        idempotent: Idempotent | None = None,
        seat: int | None = None,
        previous_status: str | None = None,
    ) -> CommitOutcome:
        """Write the record (and log entry) only if the stored version is still `expected_version`."""
        entries = [log_entry] if log_entry else []
        keys, args = self._commit_arguments(record, expected_version, entries, idempotent, seat)
        kind, value = self._commit(keys=keys, args=args)
        if kind == "ok":
            self._wrote(record, expected_version, entries, args[ENTRIES_ARG:])
        return self._committed(record, previous_status, kind, value)

    def _wrote(
        self, record: MatchRecord, expected_version: int, entries: Sequence[LogEntry], texts: Sequence[EncodableT]
    ) -> None:
        """Keep the versions this process just stored, with their log entries as written (None: no entry)."""
        by_version: dict[int, str | None] = dict.fromkeys(range(expected_version + 1, record.version + 1))
        for entry, text in zip(entries, texts, strict=True):
            by_version[entry["version"]] = str(text)
        with self._written_lock:
            for version, written in by_version.items():
                self._written[(record.id, version)] = written
            while len(self._written) > WRITTEN_KEPT:
                self._written.popitem(last=False)

    def written_entries(self, match_id: str, after: int, upto: int) -> list[LogEntry] | None:
        """The log entries of versions `after` + 1 to `upto`, if this process stored every one of those versions
        (lately); None otherwise (then read them with `log_page`)."""
        with self._written_lock:
            texts = [self._written.get((match_id, version), MISSING) for version in range(after + 1, upto + 1)]
        if MISSING in texts:
            return None
        return [jsoncodec.loads(text) for text in texts if isinstance(text, str)]

    def send_commit(
        self, record: MatchRecord, expected_version: int, entries: Sequence[LogEntry], previous_status: str
    ) -> PendingCommit:
        """`commit`, sent now and its reply read later (`PendingCommit.outcome`), so work can go on meanwhile.

        `entries`: the log entries of the moves from `expected_version` to the record's, one per version.
        """
        keys, args = self._commit_arguments(record, expected_version, entries, None, None)
        connection: Any = self.client.connection_pool.get_connection()  # redis-py leaves send_command untyped
        try:
            connection.send_command("EVALSHA", self._commit.sha, len(keys), *keys, *args)
        except BaseException:
            self.client.connection_pool.release(connection)
            raise
        return PendingCommit(self, connection, record, previous_status, (keys, args))

    def _commit_arguments(
        self,
        record: MatchRecord,
        expected_version: int,
        entries: Sequence[LogEntry],
        idempotent: Idempotent | None,
        seat: int | None,
    ) -> tuple[list[KeyT], list[EncodableT]]:
        """The commit script's keys and arguments."""
        keys: list[KeyT] = [match_key(record.id), log_key(record.id)]
        if idempotent is not None and seat is not None:
            keys += [idempotency_key(record.id, seat, idempotent.key), idempotency_keys_key(record.id, seat)]
        ttl = self.ttl_for(record)
        args: list[EncodableT] = [
            str(expected_version),
            str(record.version),
            jsoncodec.dumps(record.to_json()),
            ttl,
            idempotent.answer if idempotent else "",
            min(self.idempotency_ttl, ttl),  # an answer goes with its match, if that goes first
            IDEMPOTENT_ANSWERS_KEPT,
            secrets.token_hex(COMMIT_ID_BYTES),
            *(jsoncodec.dumps(entry) for entry in entries),  # from ENTRIES_ARG on
        ]
        return keys, args

    def _committed(self, record: MatchRecord, previous_status: str | None, kind: str, value: str) -> CommitOutcome:
        """The outcome of the commit script's reply; the listings follow a stored change of status."""
        if kind == "replay":
            return CommitOutcome("replay", replayed=value)
        if kind == "ok" and previous_status != record.status:
            self._index(record, previous_status)
        return CommitOutcome(kind, int(value) if value else None)

    def stored_answer(self, match_id: str, seat: int, key: str) -> str | None:
        """The answer stored for an Idempotency-Key, if any."""
        return cast("str | None", self.client.get(idempotency_key(match_id, seat, key)))

    def claim_ai_turn(self, match_id: str, seat: int, version: int, job_id: str) -> bool:
        """True if this job plays the AI seat at this version: the first to ask, or a retry of it."""
        return seat in self.claim_ai_turns(match_id, version, {seat: job_id})

    def claim_ai_turns(self, match_id: str, version: int, job_ids: dict[int, str]) -> set[int]:
        """Claim each seat's turn at this version for its job (one round trip); the seats whose job holds it."""
        pipe = self.client.pipeline(transaction=False)
        for seat, job_id in job_ids.items():
            key = ai_turn_key(match_id, seat, version)
            pipe.set(key, job_id, nx=True, ex=AI_TURN_CLAIM_TTL)
            pipe.get(key)  # SET NX is the claim; the holder read after it says whose it is
        replies = pipe.execute()
        holders = replies[1::2]
        return {seat for (seat, job_id), holder in zip(job_ids.items(), holders, strict=True) if holder == job_id}

    def ai_turn_claim(self, match_id: str, seat: int, version: int) -> str | None:
        """The id of the job given an AI seat's turn at this version, if any."""
        return cast("str | None", self.client.get(ai_turn_key(match_id, seat, version)))

    def reclaim_ai_turn(self, match_id: str, seat: int, version: int, lost_job: str, job_id: str) -> bool:
        """Hand a turn whose job was lost to a new job, unless someone else already did."""
        key = ai_turn_key(match_id, seat, version)
        return bool(self._reclaim(keys=[key], args=[lost_job, job_id, AI_TURN_CLAIM_TTL]))

    def requested_move(self, match_id: str, seat: int) -> str | None:
        """The id of the job given the seat's latest requested move, if any."""
        return cast("str | None", self.client.get(requested_move_key(match_id, seat)))

    def claim_requested_move(self, match_id: str, seat: int, job_id: str, replacing: str | None, ttl: int) -> bool:
        """Give the seat's requested move to this job if it has none, or in place of `replacing`, an ended job."""
        key = requested_move_key(match_id, seat)
        if replacing is None:
            return bool(self.client.set(key, job_id, nx=True, ex=ttl))
        return bool(self._reclaim(keys=[key], args=[replacing, job_id, ttl]))

    def track_ai_match(self, match_id: str) -> None:
        """Remember a running match with AI seats, for the sweep."""
        self.client.sadd(AI_MATCHES_KEY, match_id)

    def untrack_ai_match(self, match_id: str) -> None:
        """Forget a match that finished or expired."""
        self.client.srem(AI_MATCHES_KEY, match_id)

    def ai_matches(self) -> list[str]:
        """Every tracked match with AI seats."""
        return sorted(cast("set[str]", self.client.smembers(AI_MATCHES_KEY)))

    def untrack_timed_match(self, match_id: str) -> None:
        """Forget a timed match that finished or expired."""
        self.client.srem(TIMED_MATCHES_KEY, match_id)

    def timed_matches(self) -> list[str]:
        """Every tracked match with a turn timer."""
        return sorted(cast("set[str]", self.client.smembers(TIMED_MATCHES_KEY)))

    def challenged_matches(self) -> list[str]:
        """Every tracked waiting match that seats a bot (its challenges expire)."""
        return sorted(cast("set[str]", self.client.smembers(CHALLENGED_MATCHES_KEY)))

    def untrack_challenged_match(self, match_id: str) -> None:
        """Forget a challenged match that started, ended or expired."""
        self.client.srem(CHALLENGED_MATCHES_KEY, match_id)

    def log(self, match_id: str) -> list[LogEntry]:
        """Every applied action of a match, oldest first (the whole log, for tools and tests; the API reads pages)."""
        return [jsoncodec.loads(raw) for raw in self.client.lrange(log_key(match_id), 0, -1)]

    def log_page(
        self, match_id: str, after: int, limit: int, upto: int, tail: int = 0, newest: bool = False
    ) -> LogPage:
        """Up to `limit` entries with versions above `after` and at most `upto`: the oldest, or the `newest`.

        One script reads only those entries (and the log's newest `tail` after them, for redaction).
        """
        args = [after, limit, upto, tail, int(newest)]
        return log_page_of(self._log_page(keys=[log_key(match_id)], args=args))

    def load_with_log(self, match_id: str, after: int, limit: int) -> tuple[MatchRecord, LogPage] | None:
        """The stored match and the newest `limit` entries of its log after version `after`, read together in one
        round trip (what an event shows); None if the match is gone."""
        args = [after, limit, 0, 0, 1]
        reply = self._log_page(keys=[log_key(match_id), match_key(match_id)], args=args)
        raw = reply[5]
        return (stored_record(raw), log_page_of(reply)) if raw else None

    def ttl_for(self, record: MatchRecord) -> int:
        """Finished matches live `finished_ttl` seconds (`ai_match_ttl` at most if the AI played alone); others
        expire after `idle_ttl` without a change."""
        if not record.ended:
            return self.idle_ttl
        return min(self.finished_ttl, self.ai_match_ttl) if plays_itself(record) else self.finished_ttl

    def stored(self, match_ids: list[str]) -> list[bool]:
        """Whether each match is still stored (one round trip; nothing read)."""
        pipe = self.client.pipeline(transaction=False)
        for match_id in match_ids:
            pipe.exists(match_key(match_id))
        return [bool(found) for found in pipe.execute()]

    def list_ids(self, game: str | None, status: str | None, limit: int, after: Cursor | None) -> list[Cursor]:
        """Up to `limit` (creation time, id) pairs, newest first, strictly after the cursor if given."""
        high = str(after.created_us) if after else "+inf"
        # Ties on the creation microsecond are ordered by id; fetch a margin so a page never skips one.
        rows = cast(
            "list[tuple[str, float]]",
            self.client.zrevrangebyscore(
                index_key(game, status), high, "-inf", start=0, num=limit + TIE_MARGIN, withscores=True
            ),
        )
        cursors = [Cursor(int(score), member) for member, score in rows]
        return [c for c in cursors if after is None or c.comes_after(after)][:limit]

    def load_many(self, match_ids: list[str]) -> list[MatchRecord | None]:
        """Several matches in one round trip."""
        pipe = self.client.pipeline(transaction=False)
        for match_id in match_ids:
            pipe.hget(match_key(match_id), "record")
        return [stored_record(raw) if raw else None for raw in pipe.execute()]

    def finished_between(self, since_us: int, through_us: int, offset: int, limit: int) -> list[tuple[str, str]]:
        """(game, match id) of matches whose end was indexed between the two times (µs), oldest first, a page."""
        members = cast(
            "list[str]",
            self.client.zrangebyscore(FINISHED_FEED_KEY, since_us, through_us, start=offset, num=limit),
        )
        return [cast("tuple[str, str]", tuple(member.split(" ", 1))) for member in members]

    def ids_in(self, status: str) -> list[str]:
        """Every indexed match id of a status (all games), oldest first; an index, so some may be gone."""
        return list(cast("list[str]", self.client.zrange(index_key(None, status), 0, -1)))

    def forget_in(self, game: str | None, status: str | None, match_id: str) -> None:
        """Drop an expired match from one index."""
        self.client.zrem(index_key(game, status), match_id)

    def _index(self, record: MatchRecord, previous_status: str | None, pipe: Any = None) -> None:
        """Move the match to its status's indexes (after the match itself is written, or in `pipe` with it)."""
        score = record.created_us
        oldest = (time.time() - max(self.finished_ttl, self.idle_ttl) - 60) * 1_000_000
        own = pipe is None
        pipe = self.client.pipeline(transaction=False) if own else pipe
        for game in (record.game, None):
            if previous_status:
                pipe.zrem(index_key(game, previous_status), record.id)
            for status in (record.status, None):
                pipe.zadd(index_key(game, status), {record.id: score})
                pipe.zremrangebyscore(index_key(game, status), "-inf", oldest)
        if record.status == FINISHED and previous_status != FINISHED:
            pipe.zadd(FINISHED_FEED_KEY, {f"{record.game} {record.id}": time.time_ns() // 1000})
            pipe.zremrangebyscore(FINISHED_FEED_KEY, "-inf", oldest)
        if own:
            pipe.execute()
