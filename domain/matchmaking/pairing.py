"""The pools: entering a ticket, pairing the waiting ones into matches, and the sweep that widens, pairs and expires.

Pairing is one script per pool (`store/lua/matchmaking/pair.lua`), so however many API processes and
workers pair the same pool at once, a ticket is paired once or still waits, never twice. The script marks
each group `paired` under a new match id; the process then stores the match through the same path as any
match (`store_new_match`), and settles the group: `matched`, or back to waiting when a bot could not be
seated (its ticket is cancelled with the reason). A process that dies in between leaves the group to the sweep,
which stores the match under the same id (once) and settles it.

The match is unlisted, its seed the server's, its seats in a random order; a bot sits as it does when its
policy accepts a challenge (counted against its `max_matches`), and a person's seat is reserved for its
ticket until the holder reads it (`tickets.take_seat`). Seats still reserved after `PARLOUR_CHALLENGE_SECONDS`
abort the match, as an unanswered challenge does. An unrated pool's match is marked counted-unrated in the
ladder before it is stored, so even a match of bots only is never rated; a rated pool's match is rated by the
ladder's own rule (every seat a bot).
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass

from domain.bots import capacity
from domain.bots.registration import refuse_bot_name
from domain.ladder.ratings import bot_entrant, default, has_ladder
from domain.matches.commands import (
    NewMatch,
    OnCommit,
    abort_match,
    game_or_400,
    new_match_id,
    store_new_match,
)
from domain.matchmaking.tickets import now_ms
from domain.quotas import Holdings
from engine import all_games
from model.bot import BotRecord
from model.ladder import Rating
from model.match import WAITING, MatchRecord, MatchRequest, SeatRecord, TurnTimerRequest
from model.matchmaking import Pool, Ticket, TicketStatus
from model.refusals import Conflict, InvalidRequest, NotFound
from model.settings import MatchmakingSettings, Settings
from model.tokens import OwnerToken, new_owner_token, owner_token_hash
from store.ladder import LadderStore
from store.matches import AlreadyStored, MatchStore
from store.matchmaking import KEPT_AFTER, Group, MatchmakingStore, Pairing
from store.quotas import QuotaStore

log = logging.getLogger(__name__)
GROUPS_PER_PAIRING = 16
"""Groups one pairing script may form; a pool with more to pair is paired again at once."""
SWEEP_GRACE_MS = 5000
"""A group paired this long ago whose match is still unsettled lost its process: the sweep seats it."""
BOT_DELETED, BOT_AT_CAPACITY = "bot-deleted", "bot-at-capacity"


@dataclass(frozen=True)
class Entered:
    """A ticket entered (or the bot's waiting one, `created` False) and, for a person, its token shown once."""

    ticket: Ticket
    created: bool
    token: OwnerToken | None = None


def every_pool() -> list[Pool]:
    """Every pool there is: each game and player count, rated only where the game has a ladder."""
    pools: list[Pool] = []
    for game in all_games():
        info = game.info
        for players in range(info.min_players, info.max_players + 1):
            pools.extend(Pool(info.id, players, rated) for rated in (True, False) if has_ladder(info.id) or not rated)
    return pools


def pool_or_400(game_id: str, players: int, rated: bool) -> Pool:
    """The pool asked for; a 400 naming what is wrong (an unknown game, a player count it has not, no ladder)."""
    info = game_or_400(game_id).info
    if not info.min_players <= players <= info.max_players:
        raise InvalidRequest(
            f"{info.name} is played by {info.min_players} to {info.max_players} players",
            errors={"players": [f"{info.min_players} to {info.max_players}"]},
        )
    if rated and not has_ladder(info.id):
        raise InvalidRequest(
            f"{info.name} is co-operative: it has no ladder, so its pools are unrated",
            errors={"rated": ["false for a co-operative game"]},
        )
    return Pool(info.id, players, rated)


def random_seats(players: int) -> list[int]:
    """A random order of the seats, from the server's randomness."""
    return secrets.SystemRandom().sample(range(players), players)


class Matchmaker:
    """Enters tickets into pools, pairs them into matches, and sweeps the pools nobody asked about lately."""

    def __init__(
        self,
        store: MatchStore,
        tickets: MatchmakingStore,
        ladder: LadderStore,
        settings: MatchmakingSettings,
        challenge_seconds: int,
        quota: Holdings,
    ) -> None:
        self.store = store
        self.tickets = tickets
        self.ladder = ladder
        self.settings = settings
        self.challenge_seconds = challenge_seconds
        self.quota = quota

    @classmethod
    def build(cls, store: MatchStore, ladder: LadderStore, settings: Settings) -> Matchmaker:
        """The matchmaker on the match store's Redis, its people's tickets counted against `PARLOUR_QUOTA_TICKETS`."""
        tickets = MatchmakingStore(store.client)

        def still_waiting(ticket_ids: list[str]) -> list[bool]:
            found = [tickets.load(ticket_id) for ticket_id in ticket_ids]
            return [t is not None and t.status in (TicketStatus.WAITING, TicketStatus.PAIRED) for t in found]

        keep = settings.matchmaking.seconds + KEPT_AFTER
        quota = Holdings(QuotaStore(store.client), "tickets", settings.limits.tickets, still_waiting, ttl=keep)
        return cls(store, tickets, ladder, settings.matchmaking, settings.challenge_seconds, quota)

    # --- entering ---------------------------------------------------------------------------------
    def rating_of(self, pool: Pool, bot: BotRecord | None) -> float:
        """A bot's ladder rating in the pool's game (mu - 3 sigma); the ladder's default for a person or a new bot."""
        if bot is not None and has_ladder(pool.game):
            found = self.ladder.standing([pool.game], bot_entrant(bot.id)).get(pool.game)
            if found is not None:
                stored = found[0]
                return Rating(float(stored["mu"]), float(stored["sigma"])).ordinal
        return default().ordinal

    def enter(
        self,
        pool: Pool,
        bot: BotRecord | None,
        name: str | None,
        window: float | None,
        client: str,
        on_commit: OnCommit,
    ) -> Entered:
        """Enter a bot (its waiting ticket if it has one in the pool) or a person, then pair the pool at once."""
        if bot is None:
            if name is None:
                raise InvalidRequest("a person enters under a name", errors={"name": ["required without a bot token"]})
            refuse_bot_name(self.store, name, "name")
        else:
            held = self.tickets.waiting_ticket_of(pool, bot.id)
            ticket = self.tickets.load(held) if held is not None else None
            if ticket is not None and ticket.status is TicketStatus.WAITING:
                return Entered(ticket, created=False)
            capacity.check_room(self.store, bot)
        created = now_ms()
        ticket_id = pool.new_ticket_id()
        token = new_owner_token(ticket_id) if bot is None else None
        ticket = Ticket(
            id=ticket_id,
            pool=pool,
            status=TicketStatus.WAITING,
            bot=bot.id if bot is not None else None,
            name=bot.name if bot is not None else str(name),
            rating=self.rating_of(pool, bot),
            window=self.settings.window if window is None else window,
            created_ms=created,
            expires_ms=created + 1000 * self.settings.seconds,
            token_hash=owner_token_hash(token) if token is not None else None,
            client=client if bot is None else None,
        )
        if token is None:
            entered, held = self.tickets.enter(ticket, self.settings.seconds)
            if not entered:
                return Entered(self.load(held), created=False)
        else:
            with self.quota.hold(client) as hold:
                self.tickets.enter(ticket, self.settings.seconds)
                hold.confirm(ticket_id)
        self.pair(pool, on_commit)
        return Entered(self.load(ticket_id), created=True, token=token)

    def load(self, ticket_id: str) -> Ticket:
        """The stored ticket, or a 404."""
        ticket = self.tickets.load(ticket_id)
        if ticket is None:
            raise NotFound(f"no matchmaking ticket {ticket_id!r} (it may have expired)")
        return ticket

    def refresh(self, ticket: Ticket, on_commit: OnCommit) -> Ticket:
        """The ticket, its pool paired first if it waits past its expiry (so a read never shows it waiting then)."""
        if ticket.status is TicketStatus.WAITING and ticket.expires_ms <= now_ms():
            self.pair(ticket.pool, on_commit)
            return self.load(ticket.id)
        return ticket

    # --- pairing ----------------------------------------------------------------------------------
    def pair(self, pool: Pool, on_commit: OnCommit, at_ms: int | None = None) -> Pairing:
        """Expire the pool's overdue tickets and seat every group that fits now (`at_ms`: now, for tests)."""
        expired: list[str] = []
        groups: list[Group] = []
        while True:
            plans = [(new_match_id(), random_seats(pool.players)) for _ in range(GROUPS_PER_PAIRING)]
            at = at_ms if at_ms is not None else now_ms()
            pairing = self.tickets.pair(pool, at, self.settings.widen, self.settings.window_cap, plans)
            expired += pairing.expired
            groups += pairing.groups
            for group in pairing.groups:
                self.seat(pool, group, on_commit)
            if len(pairing.groups) < GROUPS_PER_PAIRING:
                return Pairing(expired, groups)

    def seat(self, pool: Pool, group: Group, on_commit: OnCommit) -> MatchRecord | None:
        """Store the group's match (once, under its id) and settle its tickets; None when it could not be seated."""
        tickets = {ticket_id: self.tickets.load(ticket_id) for ticket_id in group.seats}
        seats = [SeatRecord(seat) for seat in range(pool.players)]
        bots: list[BotRecord] = []
        refused: dict[str, str] = {}
        for ticket_id, ticket in tickets.items():
            seat = group.seats[ticket_id]
            if ticket is None:
                refused[ticket_id] = "gone"
            elif ticket.bot is None:
                seats[seat] = SeatRecord(seat, name=ticket.name, pending=True)  # reserved for the ticket's holder
            elif (bot := self.store.bots.load(ticket.bot)) is None:
                refused[ticket_id] = BOT_DELETED
            else:
                seats[seat] = SeatRecord(seat, name=bot.name, bot=bot.id)
                bots.append(bot)
        if refused:
            self.unseated(pool, group, refused)
            return None
        game = game_or_400(pool.game)
        request = MatchRequest(
            game=pool.game,
            players=pool.players,
            options={},
            seed=None,
            open_seats=[],
            seats=None,
            turn_timer=TurnTimerRequest(seconds=self.settings.turn_seconds) if self.settings.turn_seconds else None,
            unlisted=True,
        )
        if not pool.rated:
            self.ladder.mark_unrated(pool.game, group.match_id)  # before it exists, so it can never be rated
        new = NewMatch(game, request, seats, [], bots, self.challenge_seconds)
        try:
            record, state, _ = store_new_match(
                self.store, group.match_id, new, secrets.token_hex(32), None, bots_accepted=True, tokens=[]
            )
        except AlreadyStored:  # a process before this one stored it, then died before settling
            stored = self.store.load(group.match_id)
            if stored is not None and stored.status == WAITING:
                self.tickets.add_claims(stored.id, now_ms() + 1000 * self.challenge_seconds)
            self.tickets.settle(pool, group, dict.fromkeys(group.seats, TicketStatus.MATCHED.value))
            return stored
        except Conflict as refusal:
            if refusal.code != BOT_AT_CAPACITY:
                raise
            full = refusal.extra.get("bot")
            self.unseated(pool, group, {t: BOT_AT_CAPACITY for t, k in tickets.items() if k and k.bot == full})
            return None
        if record.status == WAITING:  # seats reserved for people
            self.tickets.add_claims(record.id, now_ms() + 1000 * self.challenge_seconds)
        self.tickets.settle(pool, group, dict.fromkeys(group.seats, TicketStatus.MATCHED.value))
        log.info("matchmaking %s: match %s seats %s", pool.name, record.id, group.seats)
        on_commit(record, state)
        return record

    def unseated(self, pool: Pool, group: Group, refused: dict[str, str]) -> None:
        """The group could not be seated: the refused tickets are cancelled with the reason, the others wait again."""
        outcomes = {ticket_id: refused.get(ticket_id, TicketStatus.WAITING.value) for ticket_id in group.seats}
        self.tickets.settle(pool, group, outcomes)
        log.info("matchmaking %s: group for %s not seated: %s", pool.name, group.match_id, refused)

    # --- the sweep --------------------------------------------------------------------------------
    def sweep(self, on_commit: OnCommit, at_ms: int | None = None) -> list[Pairing]:
        """Pair every busy pool (windows widen with time), seat groups a lost process left, abort unclaimed seats."""
        now = at_ms if at_ms is not None else now_ms()
        pairings = []
        for pool in self.tickets.busy_pools(every_pool()):
            for group, paired_at in self.tickets.forming(pool):
                if now - paired_at >= SWEEP_GRACE_MS:
                    if group.seats:
                        self.seat(pool, group, on_commit)
                    else:
                        self.tickets.drop_forming(pool, group.match_id)
            pairings.append(self.pair(pool, on_commit, at_ms))
        self.abort_unclaimed(on_commit, now)
        return pairings

    def abort_unclaimed(self, on_commit: OnCommit, at_ms: int) -> list[str]:
        """Abort the matchmade matches whose reserved seats nobody took in time; their ids."""
        aborted = []
        for match_id in self.tickets.due_claims(at_ms):
            record = self.store.load(match_id)
            if record is not None and record.status == WAITING:
                unclaimed = [seat.seat for seat in record.seats if seat.pending and seat.bot is None]
                reason = f"seats {unclaimed} were reserved for matchmaking tickets whose holders never came for them"
                try:
                    abort_match(self.store, match_id, reason, on_commit, waiting_only=True)
                    aborted.append(match_id)
                except (Conflict, NotFound):  # it started, ended or expired meanwhile
                    pass
            self.tickets.drop_claims(match_id)
        return aborted
