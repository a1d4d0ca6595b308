"""The match store: every Redis key the API touches, and the atomic compare-and-set.

Key names (the `{id}` braces are a Redis Cluster hash tag, so a match's keys share one slot):

* `parlour:match:{<id>}`            hash: `version` and `record` (MatchRecord JSON)
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
* `parlour:bot:{<id>}`              hash: a registered bot (`name`, `token_hash`, `created_at`) and its
  counters `last_event` (the number of its newest event) and `finished` (matches it saw end)
* `parlour:bot:{<id>}:events`       stream: the bot's events, entry id `<n>-0` for event n, capped
* `parlour:bot:{<id>}:matches`      set: ids of the bot's matches that started and are not over
* `parlour:bot:{<id>}:seat:<match id>:<seat>`  string: `<phase> <version>`, what the bot was told of
  that seat (`playing` and the version of its last `your-turn`, or `over`), so each event is sent once
* `parlour:bot-names`               hash: a bot's name case-folded (`model.names.fold_name`) -> its id (names are
  unique, and no human or AI seat may take one)
* `parlour:bot:{<id>}:challenges`   sorted set: the bot's pending challenges by expiry (ms), an index
  checked against the match or tournament each names (they are the truth)
* `parlour:bot:{<id>}:challenge:<challenge id>`  string: `pending` or `over`, so a challenge is told
  (and its cancellation) once
* `parlour:bot:{<id>}:challenge-events`  stream: the bot's challenge events, numbered with its other
  events but capped on their own, so no flood of challenges pushes a match event out
* `parlour:challenged-matches`      set: ids of waiting matches that seat a bot, swept for challenges
  that lost their expiry job

A deleted bot leaves none of its keys (`BotStore.unregister`, then `BotStore.purge`).

Every stored change is also announced on the pub/sub channel `parlour:changes` as
`<match key> <version>`, by the same script that writes it, so any API process can wake the
streams and long-polls that follow that match (a run of moves stored at once is announced once, at
its last version: a listener reads the match and its log from there).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import redis

from engine import get_game
from model import codec as jsoncodec
from model import settings
from model.bot import ASK, BotEvent, BotRecord, SeatNotice
from model.match import ABORTED, FINISHED, MatchRecord
from model.names import fold_name

if TYPE_CHECKING:
    from redis.typing import EncodableT, KeyT

# The store's clients decode replies (`decode_responses=True`), so every reply is text, while
# redis-py's hints say `bytes | str` whatever the client: the casts below say what they return.
StreamEntry = tuple[str, dict[str, str]]
"""One entry of a stream as the store reads it: its id and its fields."""

# Compare-and-set of a match. KEYS: the match, its log, and (optional) the Idempotency-Key's answer and
# the seat's list of answer keys. ARGV: the version expected, the new version, the record, the TTL, the
# answer to keep and its TTL, how many answers a seat keeps, then the log entries to append (none for a
# change without a move; several for a run of moves). The answers dropped are keys of the same match.
_COMMIT = """
if KEYS[3] then
  local prior = redis.call('GET', KEYS[3])
  if prior then return {'replay', prior} end
end
local current = redis.call('HGET', KEYS[1], 'version')
if not current then return {'missing', ''} end
if current ~= ARGV[1] then return {'stale', current} end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'record', ARGV[3])
if #ARGV > 7 then redis.call('RPUSH', KEYS[2], unpack(ARGV, 8)) end
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('PUBLISH', 'parlour:changes', KEYS[1] .. ' ' .. ARGV[2])
if KEYS[3] then
  redis.call('SET', KEYS[3], ARGV[5], 'EX', ARGV[6])
  local kept = tonumber(ARGV[7])
  redis.call('LPUSH', KEYS[4], KEYS[3])
  for _, old in ipairs(redis.call('LRANGE', KEYS[4], kept, -1)) do redis.call('DEL', old) end
  redis.call('LTRIM', KEYS[4], 0, kept - 1)
  redis.call('EXPIRE', KEYS[4], ARGV[6])
end
return {'ok', ARGV[2]}
"""

# Read part of a match's log. Versions rise along the list but are not positions (a join or an
# abort changes the version without an entry), so positions are found by binary search; entry i
# has a version of at least i + 1, so the entries after version `after` start at position `after`
# at the latest. KEYS: the log. ARGV: after, limit, upto (the version of the record read: entries
# written since are left out), tail, newest (1: the newest `limit` entries after `after`, else
# the oldest). Answers the page's first position, the end position (the log as of `upto`), the
# version of the entry before the page (-1 if none), the page and the `tail` entries after it.
_LOG_PAGE = """
local key = KEYS[1]
local after, limit, upto = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tail, newest = tonumber(ARGV[4]), ARGV[5] == '1'
local function version_at(i)
  return tonumber(cjson.decode(redis.call('LINDEX', key, i))['version'])
end
local function first_above(v, lo, hi)
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if version_at(mid) > v then hi = mid else lo = mid + 1 end
  end
  return lo
end
local stop = redis.call('LLEN', key)
if stop > 0 and version_at(stop - 1) > upto then stop = first_above(upto, 0, stop) end
local start = first_above(after, 0, math.min(stop, after))
if newest then start = math.max(start, stop - limit) end
local finish = math.min(start + limit, stop)
local before = -1
if start > 0 then before = version_at(start - 1) end
local page, later = {}, {}
if finish > start then page = redis.call('LRANGE', key, start, finish - 1) end
local from = math.max(finish, stop - tail)
if from < stop then later = redis.call('LRANGE', key, from, stop - 1) end
return {start, stop, before, page, later}
"""


REDIS_POOL_SIZE = 64
"""Redis connections a client keeps per process; under gevent thousands of requests share them."""
REDIS_POOL_WAIT = 20
"""Seconds a request waits for a free connection before it fails (503)."""


def redis_client(url: str, decode_responses: bool = False) -> redis.Redis:
    """A client on `url` whose commands wait for a free pooled connection instead of failing when all are busy."""
    pool = redis.BlockingConnectionPool.from_url(
        url,
        max_connections=REDIS_POOL_SIZE,
        timeout=REDIS_POOL_WAIT,
        decode_responses=decode_responses,
        socket_timeout=5,
        health_check_interval=30,
    )
    return redis.Redis(connection_pool=pool)


def is_store_full(error: redis.RedisError) -> bool:
    """True when Redis refused a write for want of memory (`maxmemory` reached; a script's error says OOM too).

    Under `noeviction` Redis refuses a script at its first write that may grow memory, before it has
    written anything (it would not stop one half-way), so a refused commit or announce changed nothing.
    """
    return isinstance(error, redis.exceptions.OutOfMemoryError) or "OOM command not allowed" in str(error)


CHANGES_CHANNEL = "parlour:changes"
"""The pub/sub channel every stored change is announced on (the commit script names it too)."""
_MATCH_KEY_PREFIX = "parlour:match:{"


RULES_CHANGED = "rules-changed"
"""The abort reason of a match stored under earlier rules of its game (see `stored_record`)."""


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
    return f"parlour:match:{{{match_id}}}"


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
_RECLAIM = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  return 1
end
return 0
"""
_TIE_MARGIN = 50
AI_TURN_CLAIM_TTL = 3600
"""Seconds a turn's claim is kept: longer than any job with all its retries (4 x 330 s at most)."""
AI_MATCH_TTL = int(settings.AI_MATCH_TTL.default)
"""Seconds a finished match that only the AI played is kept (PARLOUR_AI_MATCH_TTL): nobody waits to read it."""
IDEMPOTENT_ANSWERS_KEPT = 8
"""Answers to Idempotency-Keys a seat keeps: a client retries the requests it lost the answers of, its last few."""


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

    entries: list[dict[str, Any]]  # oldest first
    later: list[dict[str, Any]]  # the entries after the page among the log's newest `tail`
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
        self._commit = client.register_script(_COMMIT)
        self._reclaim = client.register_script(_RECLAIM)
        self._log_page = client.register_script(_LOG_PAGE)
        self.bots = BotStore(client, finished_ttl, idle_ttl)

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
        if key.startswith(_MATCH_KEY_PREFIX):
            return key[len(_MATCH_KEY_PREFIX) : -1], int(version)
        if key.startswith(_BOT_KEY_PREFIX):  # a bot's new event, numbered `version`
            return bot_notice(key[len(_BOT_KEY_PREFIX) : -1]), int(version)
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
        log_entry: dict[str, Any] | None = None,
        idempotent: Idempotent | None = None,
        seat: int | None = None,
        previous_status: str | None = None,
    ) -> CommitOutcome:
        """Write the record (and log entry) only if the stored version is still `expected_version`."""
        entries = [log_entry] if log_entry else []
        keys, args = self._commit_arguments(record, expected_version, entries, idempotent, seat)
        kind, value = self._commit(keys=keys, args=args)
        return self._committed(record, previous_status, kind, value)

    def send_commit(
        self, record: MatchRecord, expected_version: int, entries: Sequence[dict[str, Any]], previous_status: str
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
        entries: Sequence[dict[str, Any]],
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
            *(jsoncodec.dumps(entry) for entry in entries),
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

    def log(self, match_id: str) -> list[dict[str, Any]]:
        """Every applied action of a match, oldest first (the whole log, for tools and tests; the API reads pages)."""
        return [jsoncodec.loads(raw) for raw in self.client.lrange(log_key(match_id), 0, -1)]

    def log_page(
        self, match_id: str, after: int, limit: int, upto: int, tail: int = 0, newest: bool = False
    ) -> LogPage:
        """Up to `limit` entries with versions above `after` and at most `upto`: the oldest, or the `newest`.

        One script reads only those entries (and the log's newest `tail` after them, for redaction).
        """
        args = [after, limit, upto, tail, int(newest)]
        start, stop, before, page, later = self._log_page(keys=[log_key(match_id)], args=args)
        return LogPage(
            [jsoncodec.loads(raw) for raw in page],
            [jsoncodec.loads(raw) for raw in later],
            None if before < 0 else int(before),
            start + len(page) < stop,
        )

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
                index_key(game, status), high, "-inf", start=0, num=limit + _TIE_MARGIN, withscores=True
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


# --- bots ------------------------------------------------------------------------------------
BOT_NAMES_KEY = "parlour:bot-names"
BOT_EVENTS_KEPT = 1000
"""Events a bot's stream keeps (about: Redis trims whole nodes); a bot away longer resyncs on reconnect."""

# Tell a bot what one change means for one of its seats, each event once: `match-started` the first
# time the seat is seen running, `your-turn` when it may act at a version newer than the last one it
# was told, `match-over` once; nothing once the bot is deleted (no key of it is made again). Several
# processes may announce versions out of order; the mark keeps the newest. KEYS: bot hash, matches
# set, seat mark, events stream. ARGV: match id, version, finished (0/1), may act (0/1), the three
# events' data (no `match-started` data for a match aborted before the bot was told it started), the
# mark's TTL while playing and once over, and the stream's cap. Answers the numbers of the events it
# appended.
_ANNOUNCE = """
if redis.call('HEXISTS', KEYS[1], 'name') == 0 then return {} end
local mark = redis.call('GET', KEYS[3])
local phase, last = 'new', -1
if mark then
  local space = string.find(mark, ' ')
  phase, last = string.sub(mark, 1, space - 1), tonumber(string.sub(mark, space + 1))
end
if phase == 'over' then return {} end
local version = tonumber(ARGV[2])
local sent = {}
local function emit(event, data)
  local n = redis.call('HINCRBY', KEYS[1], 'last_event', 1)
  redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[10], n .. '-0', 'event', event, 'data', data)
  redis.call('PUBLISH', 'parlour:changes', KEYS[1] .. ' ' .. n)
  table.insert(sent, n)
end
if phase == 'new' then
  redis.call('SADD', KEYS[2], ARGV[1])
  if ARGV[5] ~= '' then emit('match-started', ARGV[5]) end
end
if ARGV[3] == '1' then
  emit('match-over', ARGV[7])
  if redis.call('SREM', KEYS[2], ARGV[1]) == 1 then redis.call('HINCRBY', KEYS[1], 'finished', 1) end
  redis.call('SET', KEYS[3], 'over ' .. version, 'EX', ARGV[9])
  return sent
end
if ARGV[4] == '1' and version > last then
  emit('your-turn', ARGV[6])
  last = version
end
redis.call('SET', KEYS[3], 'playing ' .. last, 'EX', ARGV[8])
return sent
"""


# Replace a bot's token hash, only if it is still the one the caller proved. KEYS: bot hash. ARGV: old, new.
_ROTATE = """
if redis.call('HGET', KEYS[1], 'token_hash') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'token_hash', ARGV[2])
return 1
"""
# Unregister a bot whose token hash is still the one the caller proved: its name and token go at once.
_UNREGISTER = """
if redis.call('HGET', KEYS[1], 'token_hash') ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[1], 'name', 'token_hash', 'created_at')
return 1
"""
_FREE_NAME = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
"""
# Tell a bot of a new challenge, once. KEYS: bot hash, pending challenges, challenge mark, challenge
# events. ARGV: challenge id, expiry (ms), event data, the mark's TTL, the stream's cap.
_ISSUE = """
if redis.call('HEXISTS', KEYS[1], 'name') == 0 then return {} end
if not redis.call('SET', KEYS[3], 'pending', 'NX', 'EX', ARGV[4]) then return {} end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
local n = redis.call('HINCRBY', KEYS[1], 'last_event', 1)
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[5], n .. '-0', 'event', 'challenge', 'data', ARGV[3])
redis.call('PUBLISH', 'parlour:changes', KEYS[1] .. ' ' .. n)
return {n}
"""
# A challenge is over (accepted, declined, expired, or its match or tournament ended): drop it from
# the pending ones, and tell the bot once with `challenge-canceled` if the data is given and it was
# told of the challenge. KEYS as for _ISSUE. ARGV: challenge id, event data or '', the mark's TTL, cap.
_RESOLVE = """
if redis.call('HEXISTS', KEYS[1], 'name') == 0 then return {} end
local mark = redis.call('GET', KEYS[3])
if mark == 'over' then return {} end
redis.call('SET', KEYS[3], 'over', 'EX', ARGV[3])
redis.call('ZREM', KEYS[2], ARGV[1])
if mark ~= 'pending' or ARGV[2] == '' then return {} end
local n = redis.call('HINCRBY', KEYS[1], 'last_event', 1)
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[4], n .. '-0', 'event', 'challenge-canceled', 'data', ARGV[2])
redis.call('PUBLISH', 'parlour:changes', KEYS[1] .. ' ' .. n)
return {n}
"""
# Count a match among the bot's matches at once, if its cap leaves room. KEYS: the bot's matches.
# ARGV: match id, cap (0: none). Answers 1 when added, 2 when it was counted already, 0 when full.
_RESERVE = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 2 end
local cap = tonumber(ARGV[2])
if cap > 0 and redis.call('SCARD', KEYS[1]) >= cap then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
return 1
"""
_SET_POLICY = """
if redis.call('HEXISTS', KEYS[1], 'name') == 0 then return 0 end
redis.call('HSET', KEYS[1], 'policy', ARGV[1], 'max_matches', ARGV[2])
return 1
"""
BOT_CHALLENGES_KEPT = 1000
"""Challenge events a bot's stream keeps, apart from its match events (about, as for BOT_EVENTS_KEPT)."""


def bot_key(bot_id: str) -> str:
    """The hash holding a bot's record and counters."""
    return f"{_BOT_KEY_PREFIX}{bot_id}}}"


_BOT_KEY_PREFIX = "parlour:bot:{"


def bot_notice(bot_id: str) -> str:
    """The name a bot's new events are announced under on the change feed (a match id never holds a colon)."""
    return f"bot:{bot_id}"


def bot_events_key(bot_id: str) -> str:
    """The capped stream of a bot's events."""
    return f"{bot_key(bot_id)}:events"


def bot_matches_key(bot_id: str) -> str:
    """The set of a bot's running matches."""
    return f"{bot_key(bot_id)}:matches"


def bot_seat_key(bot_id: str, match_id: str, seat: int) -> str:
    """What a bot was told of one of its seats."""
    return f"{bot_key(bot_id)}:seat:{match_id}:{seat}"


def bot_challenges_key(bot_id: str) -> str:
    """The sorted set of a bot's pending challenges, by expiry."""
    return f"{bot_key(bot_id)}:challenges"


def bot_challenge_key(bot_id: str, challenge_id: str) -> str:
    """What a bot was told of one challenge: `pending` or `over`."""
    return f"{bot_key(bot_id)}:challenge:{challenge_id}"


def bot_challenge_events_key(bot_id: str) -> str:
    """The capped stream of a bot's challenge events."""
    return f"{bot_key(bot_id)}:challenge-events"


class BotStore:
    """Reads and writes registered bots and their event streams (`MatchStore.bots`)."""

    def __init__(self, client: redis.Redis, finished_ttl: int, idle_ttl: int) -> None:
        self.client = client
        self.finished_ttl = finished_ttl
        self.idle_ttl = idle_ttl
        self._announce = client.register_script(_ANNOUNCE)
        self._rotate = client.register_script(_ROTATE)
        self._unregister = client.register_script(_UNREGISTER)
        self._free_name = client.register_script(_FREE_NAME)
        self._issue = client.register_script(_ISSUE)
        self._resolve = client.register_script(_RESOLVE)
        self._reserve = client.register_script(_RESERVE)
        self._set_policy = client.register_script(_SET_POLICY)

    def register(self, bot: BotRecord) -> bool:
        """Store a new bot; False (and nothing stored) if its name is taken."""
        if not self.client.hsetnx(BOT_NAMES_KEY, fold_name(bot.name), bot.id):
            return False
        fields: dict[EncodableT, EncodableT] = {
            "name": bot.name,
            "token_hash": bot.token_hash,
            "created_at": bot.created_at,
        }
        self.client.hset(bot_key(bot.id), mapping={**fields, "last_event": 0, "finished": 0})
        return True

    def bot_named(self, name: str) -> str | None:
        """The id of the bot registered under this name, compared case-folded (`fold_name`); None if none is."""
        bot_id = self.client.hget(BOT_NAMES_KEY, fold_name(name))
        return str(bot_id) if bot_id is not None else None

    def load(self, bot_id: str) -> BotRecord | None:
        """The stored bot, or None if there is none."""
        raw = cast(
            "list[Any]",
            self.client.hmget(bot_key(bot_id), ["name", "token_hash", "created_at", "policy", "max_matches"]),
        )
        if raw[0] is None:
            return None
        return BotRecord(
            bot_id, raw[0], raw[1], raw[2], raw[3] or ASK, int(raw[4]) if raw[4] and raw[4] != "0" else None
        )

    def set_policy(self, bot_id: str, policy: str, max_matches: int | None) -> bool:
        """Store the bot's policy and cap (None: no cap); False when there is no such bot."""
        return bool(self._set_policy(keys=[bot_key(bot_id)], args=[policy, max_matches or 0]))

    def reserve(self, bot_id: str, match_id: str, cap: int | None) -> int:
        """Count the match among the bot's matches at once if `cap` leaves room: 1 added, 2 counted already, 0 full."""
        return int(self._reserve(keys=[bot_matches_key(bot_id)], args=[match_id, cap or 0]))

    def issue_challenge(self, bot_id: str, challenge_id: str, expires_ms: int, data: str) -> list[int]:
        """Tell the bot of a challenge and list it as pending, once; the number of the event appended."""
        keys = self._challenge_keys(bot_id, challenge_id)
        args: list[EncodableT] = [challenge_id, expires_ms, data, self.idle_ttl, BOT_CHALLENGES_KEPT]
        return [int(n) for n in self._issue(keys=keys, args=args)]

    def resolve_challenge(self, bot_id: str, challenge_id: str, canceled: str = "") -> list[int]:
        """A challenge is over: no longer pending; `canceled` (event data) tells a bot that was told of it, once."""
        keys = self._challenge_keys(bot_id, challenge_id)
        args: list[EncodableT] = [challenge_id, canceled, self.finished_ttl, BOT_CHALLENGES_KEPT]
        return [int(n) for n in self._resolve(keys=keys, args=args)]

    def _challenge_keys(self, bot_id: str, challenge_id: str) -> list[str]:
        return [
            bot_key(bot_id),
            bot_challenges_key(bot_id),
            bot_challenge_key(bot_id, challenge_id),
            bot_challenge_events_key(bot_id),
        ]

    def pending_challenges(self, bot_id: str, limit: int, after: tuple[int, str] | None) -> list[tuple[str, int]]:
        """Up to `limit` (challenge id, expiry ms) of the bot's pending challenges, soonest first, after the cursor."""
        low = str(after[0]) if after else "-inf"
        rows = cast(
            "list[tuple[str, float]]",
            self.client.zrangebyscore(
                bot_challenges_key(bot_id), low, "+inf", start=0, num=limit + _TIE_MARGIN, withscores=True
            ),
        )
        found = [(member, int(score)) for member, score in rows]
        if after is not None:
            found = [(member, score) for member, score in found if (score, member) > (after[0], after[1])]
        return found[:limit]

    def pending_count(self, bot_id: str) -> int:
        """How many challenges the bot has pending (as far as its index knows)."""
        return int(self.client.zcard(bot_challenges_key(bot_id)))

    def token_hash(self, bot_id: str) -> str | None:
        """The hash of the bot's current token, or None once the bot is deleted."""
        return cast("str | None", self.client.hget(bot_key(bot_id), "token_hash"))

    def rotate(self, bot_id: str, old_hash: str, new_hash: str) -> bool:
        """Replace the bot's token hash if it is still `old_hash` (the old token stops working at once)."""
        return bool(self._rotate(keys=[bot_key(bot_id)], args=[old_hash, new_hash]))

    def unregister(self, bot: BotRecord) -> bool:
        """Delete the bot's name and token if its token hash is still the one read; frees its name."""
        if not self._unregister(keys=[bot_key(bot.id)], args=[bot.token_hash]):
            return False
        self._free_name(keys=[BOT_NAMES_KEY], args=[fold_name(bot.name), bot.id])
        return True

    def purge(self, bot_id: str) -> int:
        """Delete every key left of an unregistered bot (counters, events, matches, challenges, marks); how many.

        The seat and challenge marks are found with one SCAN of the key space each (a bot is deleted rarely).
        """
        deleted = 0
        keys = [bot_key(bot_id), bot_events_key(bot_id), bot_matches_key(bot_id)]
        keys += [bot_challenges_key(bot_id), bot_challenge_events_key(bot_id)]
        batch: list[str] = []
        for pattern in (f"{bot_key(bot_id)}:seat:*", f"{bot_key(bot_id)}:challenge:*"):
            for key in self.client.scan_iter(match=pattern, count=1000):
                batch.append(key)
                if len(batch) >= 500:
                    deleted += int(self.client.unlink(*batch))
                    batch = []
        return deleted + int(self.client.unlink(*keys, *batch))

    def counts(self, bot_id: str) -> tuple[int, int]:
        """How many of the bot's matches are running, and how many it saw finish."""
        pipe = self.client.pipeline(transaction=False)
        pipe.scard(bot_matches_key(bot_id))
        pipe.hget(bot_key(bot_id), "finished")
        playing, finished = pipe.execute()
        return int(playing), int(finished or 0)

    def matches(self, bot_id: str) -> list[str]:
        """Ids of the bot's running matches (as far as it was told)."""
        return sorted(cast("set[str]", self.client.smembers(bot_matches_key(bot_id))))

    def forget_match(self, bot_id: str, match_id: str) -> None:
        """Drop a match that expired before the bot was told it ended."""
        self.client.srem(bot_matches_key(bot_id), match_id)

    def announce(self, notice: SeatNotice) -> list[int]:
        """Append the events this change means for one bot seat, each at most once; their numbers."""
        keys = [
            bot_key(notice.bot_id),
            bot_matches_key(notice.bot_id),
            bot_seat_key(notice.bot_id, notice.match_id, notice.seat),
            bot_events_key(notice.bot_id),
        ]
        args: list[EncodableT] = [
            notice.match_id,
            notice.version,
            int(notice.finished),
            int(notice.may_act),
            notice.started,
            notice.your_turn,
            notice.over,
            self.idle_ttl,
            self.finished_ttl,
            BOT_EVENTS_KEPT,
        ]
        return [int(n) for n in self._announce(keys=keys, args=args)]

    def events_after(self, bot_id: str, after: int, count: int = 100) -> list[BotEvent]:
        """The bot's kept events numbered above `after`, oldest first (at most `count`)."""
        keys = (bot_events_key(bot_id), bot_challenge_events_key(bot_id))
        rows = [
            row
            for key in keys
            for row in cast("list[StreamEntry]", self.client.xrange(key, f"({after}-0", "+", count=count))
        ]
        # Both streams are numbered from one counter: merged in order, the first `count` are all there is up to there.
        events = sorted((bot_event(entry_id, fields) for entry_id, fields in rows), key=lambda event: event.id)
        return events[:count]


def bot_event(entry_id: str, fields: dict[str, str]) -> BotEvent:
    """A stream entry (`<n>-0`, event and data) as a bot event."""
    return BotEvent(int(entry_id.split("-")[0]), fields["event"], fields["data"])
