"""The runner: follows the bot's event stream, takes or declines challenges, plays each match in a thread of
its own, saves each finished match's export, joins matchmaking pools when idle, and restarts where it
stopped (its stream cursor on disk, its live matches listed again) without replaying anything.

Its events and its actions go on the bot's WebSocket when websocket-client is installed (the `socket` extra)
and the server offers `GET /v1/socket`; otherwise on the event stream, with each action a POST. The config's
`transport` (or PARLOUR_BOT_TRANSPORT, or `--transport`) forces one: `socket` or `http`."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import Any, cast

import httpx
from parlour_client import BotSeat, Challenge, Client, Event, EventStream, LegalActions, ProblemError

from parlour_bot.challenges import verdict
from parlour_bot.channel import BotChannel, SocketClosed, open_channel
from parlour_bot.config import BotConfig
from parlour_bot.engines import Engine, call_hook
from parlour_bot.matchmaking import Matchmaker
from parlour_bot.player import MatchPlayer, Seats, Tally
from parlour_bot.state import StateDir

log = logging.getLogger("parlour_bot")

FATAL = frozenset({401, 403, 404})
"""Statuses of the stream's opening that no retry mends (a wrong token, another bot's id, a deleted bot)."""
PAUSE = 2.0
"""Seconds before the stream is opened again after it failed for good."""
LAST_ANSWER_WAIT = 10.0
"""Seconds a match's player may take, once the match is over, to read the answer to the move it sent last."""


class EventNotHandled(Exception):
    """An event whose handling failed on a busy or unreachable server: it is read again."""


class NoSocket(Exception):
    """`transport = "socket"` and no WebSocket to be had (websocket-client missing, or the server has none)."""


class Runner:
    """One bot at work. `run()` returns once `matches` matches are over (None: never) or `stop()` is called."""

    def __init__(
        self, config: BotConfig, engine: Engine, client: Client | None = None, *, matches: int | None = None
    ) -> None:
        self.config = config
        self.bot = config.bot_id
        self.client = client or Client(config.url, config.token)
        self.owns_client = client is None
        self.engine = engine
        self.state = StateDir(config.state_dir, config.bot_id)
        self.tally = Tally()
        self.seats = Seats(self.client, engine, config.move_budget, self.state, self.tally)
        self.wanted = matches
        self.over = 0  # matches over in this run
        self.outages = 0  # times the server could not be reached or refused for a while (429, 5xx)
        self.players: dict[str, MatchPlayer] = {}
        self.accepted: set[str] = set()  # challenges accepted whose match has not started yet
        self.deferred: dict[str, Challenge] = {}  # challenges kept for when a match ends (at capacity)
        self.lock = threading.RLock()
        self.stopping = threading.Event()
        self.stream: EventStream | None = None
        self.channel: BotChannel | None = None
        self.no_socket = config.transport == "http"  # True once the socket could not be had: the stream then
        self.matchmaker = Matchmaker(self.client, config.pools, self.state, self.idle, config.matchmaking_rest)

    # --- running ------------------------------------------------------------------------------------

    def run(self) -> int:
        """Play until done or stopped; 0, or 1 when the bot cannot go on (its token refused)."""
        log.info(
            "bot %s starting (engine %s, %d at once)", self.bot, type(self.engine).__name__, self.config.concurrency
        )
        prepared = False
        try:
            while not self.done():
                try:
                    if not prepared:
                        self.prepare()
                        prepared = True
                    self.follow()
                    continue
                except NoSocket as error:
                    log.error("%s", error)
                    return 1
                except EventNotHandled as error:
                    log.warning("%s; trying again", error)
                except ProblemError as error:
                    if error.status in FATAL:
                        log.error("the server refused the bot: %s", error)
                        return 1
                    log.warning("the server is busy or restarting (%s); trying again", error)
                except (httpx.TransportError, httpx.StreamError, SocketClosed, OSError) as error:
                    log.warning("the server is unreachable (%s); trying again", error)
                self.outages += 1
                self.stopping.wait(PAUSE)
            return 0
        finally:
            self.shutdown()

    def prepare(self) -> None:
        """Set the server's policy from the config, cancel stale tickets, and resume the live matches."""
        fields: dict[str, Any] = {}
        if self.config.policy is not None:
            fields["policy"] = self.config.policy
        if self.config.max_matches is not None:
            fields["max_matches"] = self.config.max_matches
        if fields:
            self.client.set_bot_policy(self.bot, **fields)
        self.matchmaker.cancel_saved()
        self.resync()

    def resync(self) -> None:
        """Act on what the server lists now: the live seats (played where the bot may act) and the challenges."""
        for seat in self.client.bot_matches(self.bot, status="playing"):
            self.seat_seen(seat)
        self.consider(list(self.client.bot_challenges(self.bot)))
        self.matchmaker.update()

    def follow(self) -> None:
        """Follow the bot's events on its WebSocket when it can be had (and the config allows), else on its
        event stream; once the socket could not be had, the stream for the rest of the run."""
        if not self.no_socket:
            token = self.client.token or self.config.token
            channel = open_channel(self.config.url, token, after=self.state.cursor())
            if channel is not None:
                self.follow_socket(channel)
                return
            if self.config.transport == "socket":
                raise NoSocket("transport is socket, but no WebSocket: websocket-client missing or none on the server")
            self.no_socket = True
            log.info("no WebSocket (websocket-client missing, or none on the server): following the event stream")
        self.follow_stream()

    def follow_stream(self) -> None:
        """Read the bot's stream from the cursor on disk (or from a snapshot of now), keeping the cursor."""
        cursor = self.state.cursor()
        with self.client.bot_events(self.bot, last_event_id=cursor) as stream:
            self.stream = stream
            if self.stopping.is_set():
                return
            for event in stream:
                self.take(event)
                if self.done():
                    return

    def follow_socket(self, channel: BotChannel) -> None:
        """Read the bot's events on its socket (opened from the cursor on disk), its players acting on it; the
        socket reopens itself after a drop, with `after`. Closed for good while not stopping: SocketClosed."""
        with channel:
            self.channel = self.seats.channel = channel
            try:
                if self.stopping.is_set():
                    return
                log.info("bot %s following its events on the WebSocket", self.bot)
                for event in channel:
                    self.take(event)
                    if self.done():
                        return
            finally:
                self.channel = self.seats.channel = None
        if not self.stopping.is_set():
            raise SocketClosed(*getattr(channel, "_closed_with", (None, "closed")))

    def take(self, event: Event) -> None:
        """Handle one event, then keep its id as the cursor."""
        try:
            self.handle(event)
        except (ProblemError, httpx.TransportError, httpx.StreamError) as error:
            # The cursor stays before this event: the stream opens again and the event comes again.
            raise EventNotHandled(f"event {event.id} ({event.event}) could not be handled: {error}") from error
        if event.id is not None:
            self.state.save_cursor(event.id)

    def done(self) -> bool:
        """True once stopped, or once the matches asked for are over."""
        return self.stopping.is_set() or (self.wanted is not None and self.over >= self.wanted)

    def stop(self) -> None:
        """Stop cleanly (from another thread or a signal handler): the stream closes, tickets are cancelled."""
        self.stopping.set()
        if self.stream is not None:
            self.stream.stop()
        if self.channel is not None:
            self.channel.stop()

    def shutdown(self) -> None:
        """Cancel the tickets and stop the match players."""
        self.stopping.set()
        self.matchmaker.stop()
        with self.lock:
            players = list(self.players.values())
        for player in players:
            player.finish()
        if self.owns_client:
            self.client.close()
        waited = ", ".join(f"{status} x{n}" for status, n in sorted(self.client.waited.items())) or "none"
        log.info(
            "bot %s stopped: %d matches over, %d moves; answers waited out: %s",
            self.bot,
            self.over,
            self.tally.moves,
            waited,
        )

    # --- events ---------------------------------------------------------------------------------------

    def handle(self, event: Event) -> None:
        """React to one event of the bot's stream (an unknown one is nothing)."""
        data: Any = event.data
        if event.event == "snapshot":
            self.snapshot(data)
        elif event.event == "challenge":
            self.consider([cast(Challenge, data)])
        elif event.event == "challenge-canceled":
            log.info("challenge %s %s: %s", data["challenge"], data["status"], data.get("reason"))
            with self.lock:
                self.deferred.pop(data["challenge"], None)
                self.accepted.discard(str(data.get("match")))
            self.matchmaker.update()
        elif event.event == "match-started":
            self.started(data["match"], data["game"], data["seat"], data.get("players"))
        elif event.event == "your-turn":
            self.your_turn(data["match"], data["seat"], data.get("deadline"), data.get("legal_actions"))
        elif event.event == "match-over":
            self.match_over(data["match"], data["seat"], data["status"], data.get("result"))
        else:
            log.debug("event %s %s: not one the runner knows; ignored", event.id, event.event)

    def snapshot(self, data: dict[str, Any]) -> None:
        """What is true now (a stream opened with no cursor): the live seats and the pending challenges."""
        seats: Iterable[BotSeat] = data.get("matches", [])
        if data.get("next_matches"):
            seats = self.client.bot_matches(self.bot, status="playing")
        seats = list(seats)
        for seat in seats:
            self.seat_seen(seat)
        self.ended_unseen({seat["match"] for seat in seats})
        challenges = list(data.get("challenges", []))
        if data.get("next_challenges"):
            challenges = list(self.client.bot_challenges(self.bot))
        self.consider(challenges)
        self.matchmaker.update()

    def ended_unseen(self, live: set[str]) -> None:
        """Matches the runner plays or accepted that the snapshot does not list as live ended before it was taken
        (their `match-over` came before it): read each, and end those that are over."""
        with self.lock:
            tracked = (set(self.players) | self.accepted) - live
        for match_id in sorted(tracked):
            match = self.client.match(match_id)
            if match["status"] not in ("finished", "aborted"):
                continue  # not started yet (other bots to accept): its events are still to come
            for seat in match["seats"]:
                if seat["bot"] == self.bot:
                    self.match_over(match_id, seat["seat"], match["status"], match["result"])
            with self.lock:
                self.accepted.discard(match_id)

    def seat_seen(self, seat: BotSeat) -> None:
        """A live seat listed (on start, or by a snapshot): play it if the bot may act, from the legal actions the
        listing carries (a server before they were listed: read them)."""
        if seat["match"] in self.state.finished:
            return
        self.started(seat["match"], seat["game"], seat["seat"], seat.get("players"), quiet=True)
        self.players[seat["match"]].wake(seat["seat"], seat.get("deadline"), seat.get("legal_actions"))

    def started(self, match_id: str, game: str, seat: int, players: int | None, *, quiet: bool = False) -> None:
        """A match with one of the bot's seats runs: its player starts (once per match)."""
        with self.lock:
            self.accepted.discard(match_id)
            player = self.players.get(match_id)
            if player is None and match_id not in self.state.finished:
                player = MatchPlayer(self.seats, match_id, game)
                player.seats.add(seat)
                self.players[match_id] = player
                player.start()
                found = " (found live)" if quiet else ""
                log.info("match %s started: %s for %s, seat %s%s", match_id, game, players, seat, found)
            elif player is not None:
                player.seats.add(seat)
        self.matchmaker.update()

    def your_turn(self, match_id: str, seat: int, deadline: str | None, legal: LegalActions | None = None) -> None:
        """The seat may act: wake the match's player (starting it if the match is new to this run) with the
        seat's legal actions the event carries."""
        if match_id in self.state.finished:
            return
        if match_id not in self.players:
            self.started(match_id, self.client.match(match_id, seat=seat)["game"], seat, None, quiet=True)
        self.players[match_id].wake(seat, deadline, legal)

    def match_over(self, match_id: str, seat: int, status: str, result: Any) -> None:
        """The match ended: counted once (whatever a restart replays), its export saved, the engine told."""
        with self.lock:
            player = self.players.pop(match_id, None)
        if player is not None:
            player.finish()
            # Its last move's answer may come after the match-over (the server announces the change first): let
            # it be read and journalled before the run may end and close the socket under it.
            player.join(LAST_ANSWER_WAIT)
        if not self.state.record_result(match_id, status, result):
            return  # told again (one event per seat, or replayed after a restart): counted already
        self.over += 1
        log.info("match %s over: %s %s", match_id, status, _summary(result))
        if status == "finished":
            try:
                self.state.save_export(match_id, self.client.export(match_id))
            except (ProblemError, httpx.TransportError) as error:
                log.warning("match %s: its export could not be saved: %s", match_id, error)
        if hasattr(self.engine, "on_end"):
            try:
                call_hook(self.engine, "on_end", self.client.match(match_id, seat=seat), result)
            except Exception:
                log.exception("match %s: the engine's on_end failed", match_id)
                self.tally.add("engine_errors")
        if self.config.rematch and not self.done():
            self.offer_rematch(match_id, seat)
        if self.deferred:
            self.recheck_challenges()
        self.matchmaker.update()

    def offer_rematch(self, match_id: str, seat: int) -> None:
        """Offer (or accept) a rematch; one the server refuses is skipped."""
        try:
            offer = self.client.rematch(match_id, seat=seat)["rematch"]
            log.info("rematch of %s offered: new match %s", match_id, offer.get("match"))
        except ProblemError as error:
            log.info("no rematch of %s: %s", match_id, error)

    # --- challenges -----------------------------------------------------------------------------------

    def consider(self, challenges: list[Challenge]) -> None:
        """Accept or decline each pending challenge by the config's filters; at capacity, keep it for later."""
        for challenge in challenges:
            if challenge.get("status", "pending") != "pending":
                continue
            decision = verdict(challenge, self.config.challenges, self.bot)
            if not decision.accept:
                self.answer(challenge, accept=False, reason=decision.reason)
                continue
            with self.lock:
                busy = len(self.players) + len(self.accepted) >= self.config.concurrency
                if busy:
                    self.deferred[challenge["id"]] = challenge
                    log.info(
                        "challenge %s kept for later: %d matches at once already",
                        challenge["id"],
                        self.config.concurrency,
                    )
                    continue
                self.deferred.pop(challenge["id"], None)
                if challenge.get("match"):
                    self.accepted.add(str(challenge["match"]))
            self.answer(challenge, accept=True)

    def recheck_challenges(self) -> None:
        """Consider the pending challenges as the server lists them now (those kept and gone are dropped)."""
        pending = list(self.client.bot_challenges(self.bot))
        listed = {challenge["id"] for challenge in pending}
        with self.lock:
            self.deferred = {key: kept for key, kept in self.deferred.items() if key in listed}
        self.consider(pending)
        self.matchmaker.update()

    def answer(self, challenge: Challenge, *, accept: bool, reason: str = "") -> None:
        """Accept or decline one challenge; one that ended meanwhile is skipped."""
        try:
            if accept:
                self.client.accept_challenge(self.bot, challenge["id"])
                log.info(
                    "challenge %s accepted: %s for %s", challenge["id"], challenge.get("game"), challenge.get("players")
                )
            else:
                self.client.decline_challenge(self.bot, challenge["id"])
                log.info("challenge %s declined: %s", challenge["id"], reason)
        except (ProblemError, httpx.TransportError) as error:
            with self.lock:
                self.accepted.discard(str(challenge.get("match")))
                busy = not isinstance(error, ProblemError) or error.status == 429 or error.status >= 500
                if busy:
                    self.deferred[challenge["id"]] = challenge
            log.info("challenge %s: %s%s", challenge["id"], error, "; answering again shortly" if busy else "")
            if busy:
                self.reconsider_later()

    def reconsider_later(self) -> None:
        """Read the pending challenges again after a pause (an answer the server could not take now)."""

        def again() -> None:
            try:
                self.recheck_challenges()
            except (ProblemError, httpx.TransportError) as error:
                log.warning("challenges could not be read (%s); trying again shortly", error)
                self.reconsider_later()

        if not self.stopping.is_set():
            timer = threading.Timer(PAUSE, again)
            timer.daemon = True
            timer.start()

    def idle(self) -> bool:
        """True when the bot has no match, no challenge accepted or kept, and is not stopping: time to matchmake."""
        with self.lock:
            return not (self.players or self.accepted or self.deferred or self.done())


def _summary(result: Any) -> str:
    """A result in a few words: the winners and the scores, when it says them."""
    if not isinstance(result, dict):
        return ""
    parts = [f"{key} {result[key]}" for key in ("winners", "scores", "reason") if key in result]
    return "(" + ", ".join(parts) + ")" if parts else ""
