"""One seat played on a running Parlour server: a Gymnasium `Env` whose learning seat's moves go over HTTP.

```python
from parlour_client import Client
from parlour_envs.remote import AgainstAI, RemoteEnv

with Client("http://127.0.0.1:8000") as client:
    env = RemoteEnv("icecream", client, AgainstAI("medium"), turn_limit=20)
    observation, info = env.reset(seed=1)
    ...
```

The environment is the single-agent one's (`parlour_envs.single_agent`) with the other seats on the server: AI
seats at a level, bots, people. Each episode is one match, found by a `Seating`: `AgainstAI` creates a match
with the agent in one seat and the server's AI in the others; `Matchmaking` waits in a matchmaking pool (with a
bot token, a rated pool: the ladder); `Challenges` accepts the next challenge sent to a bot.

What the seat sees is what the server sends it: the observation is the encoding's tensor of the seat's `view`
(`Encoding.observe`), the mask the server's legal actions, encoded on a state rebuilt from that view
(`Game.state_from_view`, which draws what the seat cannot see; the encoding may look at the state only as the
seat sees it) and, for a constructed action (Sundae Split's split), the encoding's own choices on that state. The
seat chooses an action token by token as in the AEC environment; the action goes to the server when its tokens
complete it, at the version of the legal actions it was chosen from. When another seat moved first (a
simultaneous step, a FREEZE! claim) the server refuses it as stale, and the seat chooses again on what the match
is now. A seat that may act out of turn (a claim) may also choose PASS: it lets that version go by.

Between two choices the environment follows the match's event stream (no polling). The seat's legal actions come
with its events and with the answer to its action (`legal_actions`, at their version), so a move is one request;
they are read only when none came with the version the seat chooses at. The client waits out `429`s
for their `Retry-After` and retries what is safe to retry. The reward is the seat's from the server's result
(`Result.rewards`), at the end; an aborted match is truncated. An episode abandoned before its end (`reset`,
`close`, or a token outside the mask, which ends the episode with `illegal_reward`) resigns the seat.

Needs the Python client, `pip install ./clients/python` (importing `parlour_envs` itself does not).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, SupportsFloat, cast

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from engine.protocol import Action, GameState, View, action_text, has_action
from engine.result import Result
from engine.rng import Rng
from parlour_envs import environment
from parlour_envs.aec import ObsDict, ParlourEnv
from parlour_envs.encoding import PASS, Choice, Encoding, Pass, observation
from parlour_envs.single_agent import SEED_BOUND, copied

try:
    from parlour_client import Client, LegalActions, Match, ProblemError
    from parlour_client.client import expected_version
    from parlour_client.streams import EventStream
except ImportError as missing:  # pragma: no cover - the client is an optional install
    raise ImportError(
        "parlour_envs.remote plays on a Parlour server through its Python client: pip install ./clients/python"
    ) from missing

ENDED = frozenset({"finished", "aborted"})
"""A match's statuses once it is over."""
REFUSED_AS_MOVED_ON = frozenset({"stale-version", "not-your-turn", "match-over"})
"""Refusals of an action that mean the match moved on while the seat chose: read it again, choose again."""


@dataclass(frozen=True)
class RemoteSeat:
    """A seat of a match on the server and the token that plays it; `by_bot`: a bot token, sent with `seat=`."""

    match: str
    seat: int
    token: str
    by_bot: bool = False

    @property
    def seat_param(self) -> int | None:
        """The `seat` query parameter the seat's requests carry (a bot may hold several seats of a match)."""
        return self.seat if self.by_bot else None


class Seating(Protocol):
    """Finds the match and seat of one episode."""

    def take_seat(self, client: Client, game: str, players: int, options: dict[str, Any], seed: str) -> RemoteSeat:
        """A seat in a match of `game` for `players`; `seed`: the episode's seed, for a match the seating creates."""
        ...


@dataclass(frozen=True)
class AgainstAI:
    """A new match: the agent in `seat` (None: a seat drawn from the episode's seed), the server's AI elsewhere.

    `opponents`: a level for every other seat, or a level per seat. The match is created with the episode's seed,
    and the server seeds its AI moves from it, so against AI seats a seed replays a match. `turn_timer`: seconds
    a seat may take (None: none).
    """

    opponents: str | Mapping[int, str] = "random"
    seat: int | None = 0
    name: str = "agent"
    turn_timer: int | None = None

    def take_seat(self, client: Client, game: str, players: int, options: dict[str, Any], seed: str) -> RemoteSeat:
        seat = Rng.from_seed(f"seat:{seed}").below(players) if self.seat is None else self.seat
        if not 0 <= seat < players:
            raise ValueError(f"there is no seat {seat} among {players} players")
        levels = (
            self.opponents if isinstance(self.opponents, Mapping) else dict.fromkeys(range(players), self.opponents)
        )
        seats = [
            {"type": "human", "name": self.name} if other == seat else {"type": "ai", "level": levels[other]}
            for other in range(players)
        ]
        fields: dict[str, Any] = {"options": options, "seed": seed, "seats": seats, "unlisted": True}
        if self.turn_timer is not None:
            fields["turn_timer"] = {"seconds": self.turn_timer}
        created = client.create_match(game, players, **fields)
        token = next(entry["token"] for entry in created["tokens"] if entry["seat"] == seat)
        return RemoteSeat(created["id"], seat, token)


@dataclass(frozen=True)
class Matchmaking:
    """A seat from a matchmaking pool of the game and player count: a bot's (`bot_token`; `rated` pools are the
    ladder) or, without a token, a person's named `name`. Each ticket is long-polled `wait` seconds at a time; an
    expired ticket is replaced."""

    bot_token: str | None = None
    rated: bool = True
    name: str = "agent"
    wait: float = 25.0

    def take_seat(self, client: Client, game: str, players: int, options: dict[str, Any], seed: str) -> RemoteSeat:
        while True:
            extra = {} if self.bot_token else {"name": self.name}
            ticket = client.join_matchmaking(game, players, rated=self.rated, token=self.bot_token, **extra)
            holder = self.bot_token or ticket.get("token")
            while ticket["status"] == "waiting":
                ticket = client.matchmaking_ticket(ticket["id"], token=holder, wait=self.wait)
            if ticket["status"] == "matched" and ticket["match"] is not None and ticket["seat"] is not None:
                if self.bot_token is not None:
                    return RemoteSeat(ticket["match"], ticket["seat"], self.bot_token, by_bot=True)
                seat_token = ticket.get("seat_token")
                if seat_token is None:
                    raise RuntimeError(f"matched ticket {ticket['id']} holds no seat token")
                return RemoteSeat(ticket["match"], ticket["seat"], seat_token)
            if ticket["status"] != "expired":
                raise RuntimeError(f"matchmaking ticket {ticket['id']} was {ticket['status']}: {ticket['reason']}")


@dataclass(frozen=True)
class Challenges:
    """The next challenge to a match of the game and player count sent to a bot, accepted (the bot's event stream
    is followed from its snapshot of pending challenges; other challenges are left to answer)."""

    bot: str
    bot_token: str

    def take_seat(self, client: Client, game: str, players: int, options: dict[str, Any], seed: str) -> RemoteSeat:
        with client.bot_events(self.bot, token=self.bot_token) as events:
            for event in events:
                if event.event not in ("snapshot", "challenge"):
                    continue
                for challenge in event.data["challenges"] if event.event == "snapshot" else [event.data]:
                    match = challenge["match"]
                    if challenge["type"] != "match" or (challenge["game"], challenge["players"]) != (game, players):
                        continue
                    try:
                        client.accept_challenge(self.bot, challenge["id"], token=self.bot_token)
                    except ProblemError as refused:
                        if refused.status == 409:  # over, expired or taken meanwhile: wait for another
                            continue
                        raise
                    return RemoteSeat(match, challenge["your_seats"][0], self.bot_token, by_bot=True)
        raise RuntimeError(f"bot {self.bot}'s event stream ended")


@dataclass
class Decision:
    """What the seat chooses from at one version: its legal actions as token sequences, and PASS where it may."""

    version: int
    encoded: list[tuple[tuple[int, ...], Action]]
    state: GameState
    pass_token: int | None
    constructed: bool
    chosen: tuple[int, ...] = ()


class RemoteEnv(gymnasium.Env[ObsDict, np.int64]):
    """A game on a Parlour server for one learning seat; `seating` finds each episode's match (see the module).

    `client` is a `parlour_client.Client` (or the server's base URL: the environment then owns a client);
    `players` and the game's options are the environment's, and the match must have them.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012 (Gymnasium's instance variable)

    def __init__(
        self,
        game: str,
        client: Client | str,
        seating: Seating,
        *,
        players: int | None = None,
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        template: ParlourEnv = environment(game).raw_env(players=players, render_mode=render_mode, **options)
        self.game_id = game
        self.game = template.encoding.game
        self.players = template.players
        self.options = template.options
        self.template_encoding: Encoding = template.encoding
        self.encoding = template.encoding
        """The encoding of the episode's match (another than the template's when the match has other options)."""
        self.seating = seating
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.metadata = {**type(self).metadata, "name": f"{template.metadata['name']}_remote"}
        self.observation_space: spaces.Space[ObsDict] = template.observation_space(template.possible_agents[0])
        self.action_space: spaces.Space[np.int64] = template.action_space(template.possible_agents[0])
        self._owns_client = isinstance(client, str)
        self.client = Client(client) if isinstance(client, str) else client
        self.seat: RemoteSeat | None = None
        self.match: Match | None = None
        self.episode_seed = 0
        self._events: EventStream | None = None
        self._decision: Decision | None = None
        self._done = True

    # --- the episode ------------------------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        """Leave the last match if it still runs (resigning), take a seat in a new one and wait for its first choice."""
        super().reset(seed=seed)
        self._abandon()
        self.episode_seed = int(self.np_random.integers(SEED_BOUND)) if seed is None else seed
        self.seat = self.seating.take_seat(
            self.client, self.game_id, self.players, self.options, str(self.episode_seed)
        )
        self.match = None
        self.encoding = self.template_encoding
        self._decision = None
        self._done = False
        seat = self.seat
        self._events = self.client.match_events(seat.match, token=seat.token, seat=seat.seat_param)
        self._follow(after=-1)
        return self._observe(), self._info()

    def step(self, action: np.int64 | int) -> tuple[ObsDict, SupportsFloat, bool, bool, dict[str, Any]]:
        """Choose one token: when it completes an action, send it and follow the match to the seat's next choice."""
        if self._done or self.seat is None or self.match is None:
            raise RuntimeError("the episode is over: call reset()")
        if self.match["status"] in ENDED:  # over before the seat's first choice: this step tells it, whatever it is
            return self._outcome()
        decision = self._decision
        offered = self._offered()
        token = int(action)
        if decision is None or token not in offered:
            self._abandon()
            return self._observe(), self.illegal_reward, True, False, {**self._info(), "illegal_action": True}
        choice = offered[token]
        if choice is None:
            decision.chosen = (*decision.chosen, token)
            return self._observe(), 0.0, False, False, self._info()
        self._decision = None
        if not isinstance(choice, Pass):
            self._send(choice, decision.version)
        self._follow(after=decision.version)
        return self._outcome()

    def render(self) -> str | None:
        """The seat's view as text (`render_mode="ansi"`)."""
        if self.render_mode is None or self.match is None:
            return None
        return self.encoding.render(self.match["view"])

    def close(self) -> None:
        """Resign a match still running, and close the client if the environment opened it."""
        self._abandon()
        if self._owns_client:
            self.client.close()

    # --- following the match ----------------------------------------------------------------------------------
    def _follow(self, after: int) -> None:
        """Read the match's events until the seat has a choice at a version past `after`, or the match is over."""
        assert self._events is not None and self.seat is not None
        if self.match is not None and self._consider(self.match, after, self.match.get("legal_actions")):
            return
        for event in self._events:
            if event.event == "end":
                break
            match: Match = event.data["match"]
            if self.match is None:
                self._adopt(match)
            elif match["version"] < self.match["version"]:
                continue
            self.match = match
            if self._consider(match, after, event.data.get("legal_actions")):
                return
        self.match = self.client.match(self.seat.match, token=self.seat.token, seat=self.seat.seat_param)
        self._end()

    def _adopt(self, match: Match) -> None:
        """Take the match's players and options: its encoding is the environment's, or one with the same spaces."""
        if match["game"] != self.game_id or match["players"] != self.players:
            found, wanted = f"{match['players']}-player {match['game']}", f"{self.players}-player {self.game_id}"
            raise RuntimeError(f"the seat is in a {found} match, not a {wanted} one")
        if match["options"] != self.encoding.options:
            encoding = type(self.encoding)(self.players, dict(match["options"]))
            if (encoding.num_actions, encoding.observation_size) != (
                self.encoding.num_actions,
                self.encoding.observation_size,
            ):
                raise RuntimeError(f"the match's options {match['options']} change the environment's spaces")
            self.encoding = encoding

    def _consider(self, match: Match, after: int, given: LegalActions | None = None) -> bool:
        """True when the match is over or the seat chooses now (its decision made ready). `given`: the seat's legal
        actions as they came with the match (its event's, or the answer to its action); read when none did for
        this version."""
        assert self.seat is not None
        if match["status"] in ENDED:
            self._end()
            return True
        seat = self.seat.seat
        if match["version"] <= after or match["status"] != "active" or seat not in match["to_act"]:
            return False
        rng = Rng.from_seed(f"remote:{self.episode_seed}:{match['version']}")
        state = self.game.state_from_view(match["view"], seat, match["players"], match["options"], rng)
        if not has_action(state, seat):
            return False
        legal = given if given is not None and given["version"] == match["version"] else None
        if legal is None:
            legal = self.client.legal_actions(self.seat.match, token=self.seat.token, seat=self.seat.seat_param)
        if not legal["may_act"] or legal["version"] != match["version"]:
            return False  # the match moved on meanwhile: its next event comes
        self._decision = self._decide(state, seat, legal, claim=seat not in match["waiting_for"])
        return True

    def _decide(self, state: GameState, seat: int, legal: LegalActions, claim: bool) -> Decision:
        """The seat's choices at the legal actions' version: the listed actions' tokens, or the encoding's own
        choices for a constructed action; PASS where the seat acts out of turn and the encoding offers it."""
        pass_token = None
        if claim:
            pass_token = next((t for t, c in self.encoding.choices(state, seat, ()).items() if c is PASS), None)
        if legal["kind"] == "enumerated":
            encoded = [(self.encoding.encode(state, seat, action), action) for action in legal.get("actions", [])]
            return Decision(legal["version"], encoded, state, pass_token, constructed=False)
        return Decision(legal["version"], [], state, pass_token, constructed=True)

    def _offered(self) -> dict[int, Choice]:
        """The tokens the seat may choose now and what each leads to (an action, None for more tokens, PASS)."""
        decision = self._decision
        if decision is None or self.seat is None:
            return {}
        chosen, depth = decision.chosen, len(decision.chosen)
        if decision.constructed:
            offered = self.encoding.choices(decision.state, self.seat.seat, chosen)
        else:
            offered = {}
            for tokens, action in decision.encoded:
                if tokens[:depth] == chosen and len(tokens) > depth:
                    offered[tokens[depth]] = action if len(tokens) == depth + 1 else None
        if decision.pass_token is not None and not chosen:
            offered[decision.pass_token] = PASS
        return offered

    def _send(self, action: Action, version: int) -> None:
        """Play the action at the version it was chosen at; a match that moved on meanwhile is read again."""
        assert self.seat is not None
        sent = expected_version(self.game_id, action, version)
        try:
            self.match = self.client.act(
                self.seat.match, action, expected_version=sent, token=self.seat.token, seat=self.seat.seat_param
            )
        except ProblemError as refused:
            # An action sent without a version (a Rock'em roll) meets the match as it is now, perhaps past it.
            moved_on = refused.code in REFUSED_AS_MOVED_ON or (sent is None and refused.code == "illegal-action")
            if not moved_on:
                raise RuntimeError(
                    f"the server refused {action_text(action)}: {refused.code}: {refused.detail}"
                ) from refused

    def _end(self) -> None:
        self._decision = None
        if self._events is not None:
            self._events.close()
            self._events = None

    # --- what the seat is told --------------------------------------------------------------------------------
    def _outcome(self) -> tuple[ObsDict, SupportsFloat, bool, bool, dict[str, Any]]:
        assert self.match is not None and self.seat is not None
        status, result = self.match["status"], self.match["result"]
        terminated = status == "finished"
        truncated = status == "aborted"
        reward = (
            Result.from_json(cast(dict[str, Any], result)).rewards()[self.seat.seat] if terminated and result else 0.0
        )
        self._done = terminated or truncated
        return self._observe(), reward, terminated, truncated, self._info()

    def _observe(self) -> ObsDict:
        """The seat's tensor from the view the server sent, and its mask of the tokens it may choose now."""
        assert self.match is not None and self.seat is not None
        chosen = self._decision.chosen if self._decision is not None else ()
        tensor = observation(self.encoding, self.match["view"], self.seat.seat, chosen)
        mask: npt.NDArray[np.int8] = np.zeros(self.encoding.num_actions, dtype=np.int8)
        mask[list(self._offered())] = 1
        return {"observation": tensor, "action_mask": mask}

    def _info(self) -> dict[str, Any]:
        assert self.match is not None and self.seat is not None
        view: View = self.match["view"]
        return {
            "seat": self.seat.seat,
            "match": self.seat.match,
            "version": self.match["version"],
            "episode_seed": self.episode_seed,
            "view": copied(view),
        }

    def _abandon(self) -> None:
        """Resign the seat of a match still running (the episode ends before the match does)."""
        seat, match = self.seat, self.match
        self._end()
        self._done = True
        if seat is None or (match is not None and match["status"] in ENDED):
            return
        with contextlib.suppress(ProblemError):  # over or gone meanwhile
            self.match = self.client.resign(seat.match, token=seat.token, seat=seat.seat_param)
