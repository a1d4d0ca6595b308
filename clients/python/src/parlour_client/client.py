"""The Parlour API client: one method per operation a bot or a front end needs, answers as typed dicts."""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Literal, cast, overload

import httpx

from parlour_client.errors import ProblemError
from parlour_client.models import (
    Action,
    AiMoveAccepted,
    Bot,
    BotEvent,
    BotEventList,
    BotListItem,
    BotMatch,
    BotRegistered,
    BotSeat,
    Challenge,
    Export,
    GameEntry,
    Health,
    Job,
    JoinedSeat,
    LeaderboardEntry,
    LeftSeat,
    LegalActions,
    LoggedEntry,
    LogPage,
    Match,
    MatchCreated,
    MatchmakingPool,
    MatchmakingPools,
    MatchmakingTicket,
    MatchSummary,
    RatingPoint,
    RematchAnswer,
    ReplayStep,
    Tournament,
    TournamentSummary,
)
from parlour_client.retry import BUSY, RetryPolicy, retry_after
from parlour_client.socket import Socket, open_socket
from parlour_client.streams import EventStream

Chooser = Callable[[LegalActions], Action]
"""Picks the action to play from what `legal-actions` answered (a listed one, or one built for `constructed`)."""
ENDED_JOB = frozenset({"finished", "failed"})
ENDED_MATCH = frozenset({"finished", "aborted"})
ROCKEM_SOCKEM = "rockem_sockem"
"""The game whose rolls go without `expected_version` (the other seat's rolls move the version all the time)."""


class Client:
    """A client of one Parlour server. `token` is the default bearer token; every method takes another.

    Every request waits out a `429` (per `Retry-After`). GETs, and actions (sent with an
    `Idempotency-Key` that the server uses to apply each action once), are also retried after a
    `502`, `503`, `504` or a lost connection, with capped, jittered exponential backoff. Other
    writes are not: the server cannot tell a retry from a second request.
    """

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.token = token
        self.retry = retry or RetryPolicy()
        self.waited: Counter[int] = Counter()
        """Refusals waited out and tried again, by status (`429`, `503` ...; `0` for a lost connection)."""
        self.timeout = timeout
        self._sleep = sleep
        self._http = httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout, transport=transport)

    def close(self) -> None:
        """Close the connections."""
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # --- the server ----------------------------------------------------------------------------

    def health(self) -> Health:
        """`GET /v1/health`."""
        return cast(Health, self._json("GET", "/v1/health"))

    def games(self) -> list[GameEntry]:
        """`GET /v1/games`: the catalog."""
        answer = self._json("GET", "/v1/games")
        return cast(list[GameEntry], answer["items"] if isinstance(answer, dict) else answer)

    def game(self, game_id: str) -> GameEntry:
        """`GET /v1/games/{id}`: one game's entry (players, options, AI levels)."""
        return cast(GameEntry, self._json("GET", f"/v1/games/{game_id}"))

    def leaderboard(self, game_id: str) -> Iterator[LeaderboardEntry]:
        """`GET /v1/games/{id}/leaderboard`, every page: the game's rated bots, best first."""
        return cast(Iterator[LeaderboardEntry], self._items(f"/v1/games/{game_id}/leaderboard", None, {}))

    def openapi(self) -> dict[str, Any]:
        """`GET /v1/openapi.json`: the API's description (an open JSON object, as the spec says)."""
        return cast(dict[str, Any], self._json("GET", "/v1/openapi.json"))

    # --- matches -------------------------------------------------------------------------------

    def create_match(self, game: str, players: int, *, token: str | None = None, **fields: Any) -> MatchCreated:
        """`POST /v1/matches`; `fields` are the request's other fields (options, seed, seats, open_seats ...)."""
        body = {"game": game, "players": players, **fields}
        return cast(MatchCreated, self._json("POST", "/v1/matches", token=token, json=body))

    def match(self, match_id: str, *, token: str | None = None, seat: int | None = None) -> Match:
        """`GET /v1/matches/{id}`: the match as the token's seat (or the public) may see it."""
        return cast(Match, self._json("GET", f"/v1/matches/{match_id}", token=token, params=_seat(seat)))

    def matches(self, *, game: str | None = None, status: str | None = None) -> Iterator[MatchSummary]:
        """`GET /v1/matches`, every page: the listed matches (filtered by game and status)."""
        params = {key: value for key, value in (("game", game), ("status", status)) if value is not None}
        return cast(Iterator[MatchSummary], self._items("/v1/matches", None, params))

    def abort(self, match_id: str, *, owner_token: str) -> Match:
        """`POST /v1/matches/{id}/abort`, with the match's owner token."""
        return cast(Match, self._json("POST", f"/v1/matches/{match_id}/abort", token=owner_token))

    def rematch(self, match_id: str, *, token: str | None = None, seat: int | None = None) -> RematchAnswer:
        """`POST /v1/matches/{id}/rematch`: offer (or accept) a rematch of a finished match."""
        path = f"/v1/matches/{match_id}/rematch"
        return cast(RematchAnswer, self._json("POST", path, token=token, params=_seat(seat)))

    def replay_step(self, match_id: str, step: int, *, seat: int | None = None) -> ReplayStep:
        """`GET /v1/matches/{id}/replay/{step}`: an ended match after its first `step` actions (`seat`'s view)."""
        path = f"/v1/matches/{match_id}/replay/{step}"
        return cast(ReplayStep, self._json("GET", path, params=_seat(seat)))

    def export(self, match_id: str) -> Export:
        """`GET /v1/matches/{id}/export`: a finished match, whole, to verify offline (`parlour verify`)."""
        return cast(Export, self._json("GET", f"/v1/matches/{match_id}/export"))

    def join(
        self, match_id: str, *, seat: int | None = None, name: str | None = None, token: str | None = None
    ) -> JoinedSeat:
        """`POST /v1/matches/{id}/join`: take an open seat (a bot token seats the bot itself)."""
        body = {key: value for key, value in (("seat", seat), ("name", name)) if value is not None}
        return cast(JoinedSeat, self._json("POST", f"/v1/matches/{match_id}/join", token=token, json=body))

    def leave(self, match_id: str, *, token: str | None = None, seat: int | None = None) -> LeftSeat:
        """`POST /v1/matches/{id}/leave`: the seat opens again (before the start only)."""
        path = f"/v1/matches/{match_id}/leave"
        return cast(LeftSeat, self._json("POST", path, token=token, params=_seat(seat)))

    def resign(self, match_id: str, *, token: str | None = None, seat: int | None = None) -> Match:
        """`POST /v1/matches/{id}/resign`."""
        return cast(Match, self._json("POST", f"/v1/matches/{match_id}/resign", token=token, params=_seat(seat)))

    def legal_actions(self, match_id: str, *, token: str | None = None, seat: int | None = None) -> LegalActions:
        """`GET /v1/matches/{id}/legal-actions`: what the seat may do now, and the `version` to send."""
        path = f"/v1/matches/{match_id}/legal-actions"
        return cast(LegalActions, self._json("GET", path, token=token, params=_seat(seat)))

    def act(
        self,
        match_id: str,
        action: Action,
        *,
        expected_version: int | None,
        token: str | None = None,
        seat: int | None = None,
        idempotency_key: str | None = None,
    ) -> Match:
        """`POST /v1/matches/{id}/actions` at `expected_version` (None: sent without one, as a Rock'em Sock'em
        roll goes); retried safely under one `Idempotency-Key`."""
        key = idempotency_key or str(uuid.uuid4())
        body: dict[str, Any] = {"action": action}
        if expected_version is not None:
            body["expected_version"] = expected_version
        path = f"/v1/matches/{match_id}/actions"
        headers = {"Idempotency-Key": key}
        return cast(Match, self._json("POST", path, token=token, params=_seat(seat), json=body, headers=headers))

    def log_pages(
        self, match_id: str, *, token: str | None = None, seat: int | None = None, after: int = 0, limit: int = 100
    ) -> Iterator[LogPage]:
        """Every page of `GET /v1/matches/{id}/log` after version `after`, following `next_after`."""
        cursor: int | None = after
        while cursor is not None:
            params = {**_seat(seat), "after": cursor, "limit": limit}
            page = cast(LogPage, self._json("GET", f"/v1/matches/{match_id}/log", token=token, params=params))
            yield page
            cursor = page["next_after"]

    def log(
        self, match_id: str, *, token: str | None = None, seat: int | None = None, after: int = 0
    ) -> Iterator[LoggedEntry]:
        """Every log entry (an action, or a resignation) after version `after`, page after page."""
        for page in self.log_pages(match_id, token=token, seat=seat, after=after):
            yield from page["entries"]

    def match_events(
        self,
        match_id: str,
        *,
        token: str | None = None,
        seat: int | None = None,
        last_event_id: int | None = None,
        rematch: bool = False,
    ) -> EventStream:
        """`GET /v1/matches/{id}/events` as an iterator of events (`match`, then `end`), resuming by itself."""
        params: dict[str, Any] = {**_seat(seat), **({"rematch": "true"} if rematch else {})}
        return self._stream(f"/v1/matches/{match_id}/events", token, params, last_event_id)

    def match_updates(
        self, match_id: str, *, token: str | None = None, seat: int | None = None, after: int = 0, wait: float = 25.0
    ) -> Iterator[Match]:
        """The match each time its version passes `after` (long-polling `GET /v1/matches/{id}`), until it ends."""
        while True:
            params = {**_seat(seat), "after": after, "wait": wait}
            match = cast(
                Match,
                self._json("GET", f"/v1/matches/{match_id}", token=token, params=params, timeout=wait + self.timeout),
            )
            if match["version"] > after or match["status"] in ENDED_MATCH:
                yield match
                after = match["version"]
            if match["status"] in ENDED_MATCH:
                return

    def play_turn(
        self,
        match_id: str,
        token: str | None,
        choose: Chooser,
        *,
        seat: int | None = None,
        attempts: int = 5,
        game: str | None = None,
        legal: LegalActions | None = None,
    ) -> Match | None:
        """Play the seat's action if it may act: take its legal actions (`legal`, when already in hand: the
        previous answer's `legal_actions` or an event's; else read them), let `choose` pick (or build, for
        `constructed`), send it at their `version` (the version rule: a Rock'em Sock'em roll, when `game` says
        so, goes without one), and on `stale-version` (another seat moved first, as both may in a simultaneous
        step) read again and choose again. None when it may not act.

        The answer carries the seat's `legal_actions` at the new version: pass them as `legal` to the next call,
        and a move costs one request."""
        for _ in range(attempts):
            if legal is None:
                legal = self.legal_actions(match_id, token=token, seat=seat)
            if not legal["may_act"]:
                return None
            action = choose(legal)
            version = expected_version(game, action, legal["version"])
            try:
                return self.act(match_id, action, expected_version=version, token=token, seat=seat)
            except ProblemError as error:
                if error.code != "stale-version":
                    raise
            legal = None  # what they were at a version gone by: read them again
        raise ProblemError(409, "stale-version", f"the match moved on {attempts} times while this seat chose")

    def socket(
        self, *, token: str | None = None, match: str | None = None, seat: int | None = None, after: int | None = None
    ) -> Socket | None:
        """`GET /v1/socket` for the token's seat or bot (parlour_client.socket): its events and actions on one
        connection; None without websocket-client or a server socket (then use the streams and `act`)."""
        return open_socket(str(self._http.base_url), token or self.token or "", match=match, seat=seat, after=after)

    # --- AI moves ------------------------------------------------------------------------------

    def ai_move(
        self,
        match_id: str,
        *,
        token: str | None = None,
        seat: int | None = None,
        level: str | None = None,
        apply: bool = False,
    ) -> AiMoveAccepted:
        """`POST /v1/matches/{id}/ai-move`: ask the AI for the seat's move (a hint, or applied with `apply`)."""
        body: dict[str, Any] = {"apply": apply, **({"level": level} if level else {})}
        path = f"/v1/matches/{match_id}/ai-move"
        return cast(AiMoveAccepted, self._json("POST", path, token=token, params=_seat(seat), json=body))

    def job(self, job_id: str, *, token: str | None = None) -> Job:
        """`GET /v1/jobs/{id}`."""
        return cast(Job, self._json("GET", f"/v1/jobs/{job_id}", token=token))

    def wait_for_job(
        self, job_id: str, *, token: str | None = None, interval: float = 0.25, limit: float = 120.0
    ) -> Job:
        """Poll a job until it is `finished` or `failed` (every `interval` seconds, doubling up to 2 s)."""
        waited = 0.0
        while True:
            job = self.job(job_id, token=token)
            if job["status"] in ENDED_JOB or waited >= limit:
                return job
            self._sleep(interval)
            waited += interval
            interval = min(2.0, interval * 2)

    # --- bots ----------------------------------------------------------------------------------

    def register_bot(self, name: str, **fields: Any) -> BotRegistered:
        """`POST /v1/bots`: the bot and its token (shown this once)."""
        return cast(BotRegistered, self._json("POST", "/v1/bots", json={"name": name, **fields}))

    def bot(self, bot_id: str) -> Bot:
        """`GET /v1/bots/{id}`."""
        return cast(Bot, self._json("GET", f"/v1/bots/{bot_id}"))

    def bots(self, *, q: str | None = None) -> Iterator[BotListItem]:
        """`GET /v1/bots`, every page (names containing `q`)."""
        return cast(Iterator[BotListItem], self._items("/v1/bots", None, {"q": q} if q else {}))

    def set_bot_policy(self, bot_id: str, *, token: str | None = None, **fields: Any) -> Bot:
        """`PATCH /v1/bots/{id}`: `policy` (`ask`, `tournaments`, `anyone`) and/or `max_matches`."""
        return cast(Bot, self._json("PATCH", f"/v1/bots/{bot_id}", token=token, json=fields))

    def rotate_bot_token(self, bot_id: str, *, token: str | None = None) -> BotRegistered:
        """`POST /v1/bots/{id}/token`: a new token (shown once); the old one stops working."""
        return cast(BotRegistered, self._json("POST", f"/v1/bots/{bot_id}/token", token=token))

    def delete_bot(self, bot_id: str, *, token: str | None = None) -> None:
        """`DELETE /v1/bots/{id}`."""
        self._json("DELETE", f"/v1/bots/{bot_id}", token=token)

    def bot_ratings(self, bot_id: str, game: str) -> Iterator[RatingPoint]:
        """`GET /v1/bots/{id}/ratings`, every page: the bot's rating history in one competitive game."""
        return cast(Iterator[RatingPoint], self._items(f"/v1/bots/{bot_id}/ratings", None, {"game": game}))

    @overload
    def bot_matches(
        self, bot_id: str, *, status: Literal["playing"] = "playing", token: str | None = None
    ) -> Iterator[BotSeat]: ...

    @overload
    def bot_matches(
        self, bot_id: str, *, status: Literal["running", "finished", "all"], token: str | None = None
    ) -> Iterator[BotMatch]: ...

    @overload
    def bot_matches(
        self, bot_id: str, *, status: str, token: str | None = None
    ) -> Iterator[BotSeat] | Iterator[BotMatch]: ...

    def bot_matches(
        self, bot_id: str, *, status: str = "playing", token: str | None = None
    ) -> Iterator[BotSeat] | Iterator[BotMatch]:
        """`GET /v1/bots/{id}/matches`, every page: the bot's live seats (`playing`, its token) or its history."""
        items = self._items(f"/v1/bots/{bot_id}/matches", token, {"status": status})
        return cast(Iterator[BotSeat], items) if status == "playing" else cast(Iterator[BotMatch], items)

    def bot_challenges(self, bot_id: str, *, token: str | None = None) -> Iterator[Challenge]:
        """`GET /v1/bots/{id}/challenges`, every page: the challenges waiting for an answer."""
        return cast(Iterator[Challenge], self._items(f"/v1/bots/{bot_id}/challenges", token, {}))

    def accept_challenge(self, bot_id: str, challenge_id: str, *, token: str | None = None) -> Challenge:
        """`POST /v1/bots/{id}/challenges/{challenge}/accept`."""
        path = f"/v1/bots/{bot_id}/challenges/{challenge_id}/accept"
        return cast(Challenge, self._json("POST", path, token=token))

    def decline_challenge(self, bot_id: str, challenge_id: str, *, token: str | None = None) -> Challenge:
        """`POST /v1/bots/{id}/challenges/{challenge}/decline`."""
        path = f"/v1/bots/{bot_id}/challenges/{challenge_id}/decline"
        return cast(Challenge, self._json("POST", path, token=token))

    def bot_events(self, bot_id: str, *, token: str | None = None, last_event_id: int | None = None) -> EventStream:
        """`GET /v1/bots/{id}/events` as an iterator of events, resuming by itself with `Last-Event-ID`."""
        return self._stream(f"/v1/bots/{bot_id}/events", token, {}, last_event_id)

    def bot_events_poll(
        self, bot_id: str, *, token: str | None = None, after: int = 0, wait: float = 25.0
    ) -> Iterator[BotEvent]:
        """The bot's events (`{id, event, data}`) by long-poll, one call after another, forever."""
        while True:
            params = {"after": after, "wait": wait}
            path = f"/v1/bots/{bot_id}/events"
            answer = self._json("GET", path, token=token, params=params, timeout=wait + self.timeout)
            page = cast(BotEventList, answer)
            yield from page["events"]
            after = int(page["last_event_id"])

    # --- matchmaking ---------------------------------------------------------------------------

    def matchmaking_pools(self) -> list[MatchmakingPool]:
        """`GET /v1/matchmaking`: every pool (`game`, `players`, `rated`) and how many tickets wait in it."""
        return cast(MatchmakingPools, self._json("GET", "/v1/matchmaking"))["items"]

    def join_matchmaking(
        self, game: str, players: int, *, rated: bool = True, token: str | None = None, **fields: Any
    ) -> MatchmakingTicket:
        """`POST /v1/matchmaking`: a ticket in the pool of `game` for `players` (the caller's waiting one if any)."""
        body = {"game": game, "players": players, "rated": rated, **fields}
        return cast(MatchmakingTicket, self._json("POST", "/v1/matchmaking", token=token, json=body))

    def matchmaking_ticket(
        self, ticket_id: str, *, token: str | None = None, wait: float | None = None
    ) -> MatchmakingTicket:
        """`GET /v1/matchmaking/{id}`: the ticket now, or (with `wait`) once it is no longer `waiting`."""
        params = {"wait": wait} if wait else None
        timeout = wait + self.timeout if wait else None
        path = f"/v1/matchmaking/{ticket_id}"
        return cast(MatchmakingTicket, self._json("GET", path, token=token, params=params, timeout=timeout))

    def cancel_matchmaking(self, ticket_id: str, *, token: str | None = None) -> MatchmakingTicket:
        """`POST /v1/matchmaking/{id}/cancel`: leave the pool."""
        return cast(MatchmakingTicket, self._json("POST", f"/v1/matchmaking/{ticket_id}/cancel", token=token))

    # --- tournaments ---------------------------------------------------------------------------

    def create_tournament(self, game: str, entrants: list[dict[str, Any]], **fields: Any) -> Tournament:
        """`POST /v1/tournaments`: the tournament, with its `owner_token` (shown once)."""
        body = {"game": game, "entrants": entrants, **fields}
        return cast(Tournament, self._json("POST", "/v1/tournaments", json=body))

    def tournaments(self, *, status: str | None = None) -> Iterator[TournamentSummary]:
        """`GET /v1/tournaments`, every page."""
        params = {"status": status} if status else {}
        return cast(Iterator[TournamentSummary], self._items("/v1/tournaments", None, params))

    def tournament(self, tournament_id: str) -> Tournament:
        """`GET /v1/tournaments/{id}`: progress, standings, crosstable and ratings."""
        return cast(Tournament, self._json("GET", f"/v1/tournaments/{tournament_id}"))

    def cancel_tournament(self, tournament_id: str, *, owner_token: str) -> Tournament:
        """`POST /v1/tournaments/{id}/cancel`, with the tournament's owner token."""
        return cast(Tournament, self._json("POST", f"/v1/tournaments/{tournament_id}/cancel", token=owner_token))

    # --- the wire ------------------------------------------------------------------------------

    def _items(self, path: str, token: str | None, params: dict[str, Any]) -> Iterator[Any]:
        """Every item of a cursor-paged listing (the caller casts them to the listing's item type)."""
        cursor: str | None = None
        while True:
            page = self._json("GET", path, token=token, params={**params, **({"cursor": cursor} if cursor else {})})
            yield from page["items"]
            cursor = page.get("next_cursor")
            if cursor is None:
                return

    def _json(
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        params: dict[str, Any] | None = None,
        json: Any = None,
        headers: dict[str, str] | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Send a request (retried as the class says) and answer its decoded JSON body."""
        request = self._request(method, path, token, params, json, headers, timeout)
        response = self._send(request, stream=False)
        return response.json() if response.content else None

    def _request(
        self,
        method: str,
        path: str,
        token: str | None,
        params: dict[str, Any] | None,
        json: Any,
        headers: dict[str, str] | None,
        timeout: float | None = None,
    ) -> httpx.Request:
        bearer = token if token is not None else self.token
        all_headers = {**({"Authorization": f"Bearer {bearer}"} if bearer else {}), **(headers or {})}
        extensions = {"timeout": httpx.Timeout(timeout).as_dict()} if timeout is not None else None
        return self._http.build_request(
            method, path, params=params, json=json, headers=all_headers, extensions=extensions
        )

    def _send(self, request: httpx.Request, *, stream: bool) -> httpx.Response:
        """Send, waiting out 429s and (for a request safe to repeat) 502/503/504 and lost connections."""
        repeatable = request.method == "GET" or "Idempotency-Key" in request.headers
        policy = self.retry
        for attempt in range(policy.attempts):
            last = attempt == policy.attempts - 1
            try:
                response = self._http.send(request, stream=stream)
            except httpx.TransportError as error:
                # A connection never made sent nothing: any request may go again.
                if last or not (repeatable or isinstance(error, httpx.ConnectError)):
                    raise
                self.waited[0] += 1
                self._sleep(policy.backoff_wait(attempt))
                continue
            if response.status_code < 400:
                return response
            wait = self._wait_before_retry(response, attempt, repeatable)
            if last or wait is None:
                raise _problem(response)
            response.close()
            self.waited[response.status_code] += 1
            self._sleep(wait)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _wait_before_retry(self, response: httpx.Response, attempt: int, repeatable: bool) -> float | None:
        """Seconds to wait before trying a refused request again; None when it must not be retried."""
        if response.status_code == 429:
            after = retry_after(response)
            if after is None:
                return self.retry.backoff_wait(attempt)
            return after if after <= self.retry.max_retry_after else None
        if response.status_code in BUSY and repeatable:
            after = retry_after(response)
            return min(after, self.retry.cap) if after is not None else self.retry.backoff_wait(attempt)
        return None

    def _stream(self, path: str, token: str | None, params: dict[str, Any], last_event_id: int | None) -> EventStream:
        """An event stream of `path`, each (re)connection sending the last event id seen."""

        @contextmanager
        def opener(after: int | None) -> Iterator[httpx.Response]:
            headers = {"Accept": "text/event-stream", **({"Last-Event-ID": str(after)} if after is not None else {})}
            request = self._request("GET", path, token, params, None, headers, None)
            response = self._send(request, stream=True)
            try:
                yield response
            finally:
                response.close()

        def backoff(failures: int, retry: float | None) -> None:
            """Before a reconnection: the server's `retry:` when it sent one (or the backoff after failures in a
            row, if longer), else at once the first time and the backoff after; never more than the cap."""
            wait = self.retry.backoff_wait(failures - 1) if failures else 0.0
            if retry is not None:
                wait = max(wait, retry)
            if wait > 0:
                self._sleep(min(wait, self.retry.cap))

        return EventStream(opener, last_event_id, backoff, self.retry.attempts)


def expected_version(game: str | None, action: Action, version: int) -> int | None:
    """The `expected_version` to send with `action` decided on at `version` (the spec's version rule):
    `version`, except for a Rock'em Sock'em roll, which goes without one."""
    if game == ROCKEM_SOCKEM and action.get("type") == "roll":
        return None
    return version


def _seat(seat: int | None) -> dict[str, Any]:
    """The `seat` query parameter, when given."""
    return {"seat": seat} if seat is not None else {}


def _problem(response: httpx.Response) -> ProblemError:
    """The refusal of an answer, its body read (also for a streamed answer)."""
    try:
        response.read()
        body: Any = response.json()
    except ValueError:
        body = response.text
    finally:
        response.close()
    return ProblemError.from_answer(response.status_code, body)
