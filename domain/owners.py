"""Owners: whoever creates a match or a tournament gets its owner token, and alone may stop it.

The owner token (`owner.<id>.<secret>`, model/tokens.py) is shown once in the creation answer and
stored only as its SHA-256 hash, beside the match or tournament it owns. It acts for no seat.
"""

from __future__ import annotations

from dataclasses import dataclass

from model.refusals import Forbidden, Unauthorized
from model.tokens import BotToken, Credential, OwnerToken, bot_matches_hash, matches_hash, owner_matches_hash
from store.matches import MatchStore
from store.tournaments import TournamentStore

MAX_ID = 64
ABORTED_BY_OWNER = "aborted by its owner before it started"


@dataclass(frozen=True)
class Stores:
    """Where owned things are kept: matches and tournaments (and the bots, in the match store)."""

    matches: MatchStore
    tournaments: TournamentStore


def cancelled_reason(tournament_id: str) -> str:
    """Why a match of a cancelled tournament was aborted."""
    return f"tournament {tournament_id} was cancelled by its owner"


def check_owner(stores: Stores, token: Credential | None, owned_id: str, owner_hash: str | None, what: str) -> None:
    """Pass for the owner token of `owned_id`; 401 without a valid token, 403 for a valid token that is not its owner's.

    `what` names the thing owned (`match`, `tournament`) in the refusals.
    """
    if token is None:
        raise Unauthorized(
            f"this endpoint needs the {what}'s owner token, from its creation answer: "
            f"Authorization: Bearer owner.{owned_id}.<secret>"
        )
    if isinstance(token, OwnerToken) and token.owned_id == owned_id:
        if owner_matches_hash(token, owner_hash):
            return
        raise Unauthorized(f"the owner token is not valid for {what} {owned_id}")
    if not is_valid_anywhere(stores, token):
        raise Unauthorized("the token is not valid")
    if owner_hash is None:
        raise Forbidden(f"{what} {owned_id} has no owner token: the server started it (a tournament's match, say)")
    raise Forbidden(f"this token does not own {what} {owned_id}: only the owner token from its creation answer does")


def is_valid_anywhere(stores: Stores, token: Credential) -> bool:
    """True when the token is one the server handed out: its seat, bot, match or tournament keeps its hash."""
    if isinstance(token, BotToken):
        bot = stores.matches.bots.load(token.bot_id) if len(token.bot_id) <= MAX_ID else None
        return bot is not None and bot_matches_hash(token, bot.token_hash)
    if isinstance(token, OwnerToken):
        return owner_matches_hash(token, owner_hash_of(stores, token.owned_id))
    record = stores.matches.load(token.match_id) if len(token.match_id) <= MAX_ID else None
    if record is None or token.seat >= len(record.seats):
        return False
    return matches_hash(token, record.seats[token.seat].token_hash)


def owner_hash_of(stores: Stores, owned_id: str) -> str | None:
    """The stored owner-token hash of the match or tournament with that id, if there is one."""
    if len(owned_id) > MAX_ID:
        return None
    record = stores.matches.load(owned_id)
    if record is not None:
        return record.owner_hash
    return stores.tournaments.owner_hash(owned_id)
