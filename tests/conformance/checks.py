"""Protocol checks shared by the conformance suite: each takes a game and a state and asserts.

Written only against engine.protocol so every registered game, present and future, goes through
them: enumerated or constructed action spaces, one or several acting seats, competitive or
co-operative results, perfect or hidden information.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from engine import (
    Action,
    ActionRejected,
    Game,
    GameState,
    IllegalAction,
    MatchOver,
    NotYourTurn,
    OptionSpec,
    Result,
    Rng,
    TooManyActions,
)
from engine.protocol import CONSTRUCTED, ENUMERATED, action_text
from tests.conformance.hidden import HiddenMoves

SECRET_KEYS = frozenset({"rng", "seed"})
CONSTRUCTED_SAMPLES = 4  # sample_action draws tried per seat when the space is too big to list
DETERMINIZATIONS = 2  # rngs tried per viewer at each deep check
REFUSALS = 12  # actions not in a seat's list tried through the checked path per seat at each deep check
MUTATED = 3  # listed actions per seat whose near misses are among them


def canon(value: Any) -> Any:
    """The value as a client would get it back: through JSON text, so tuples and lists compare equal.

    Fails (TypeError / ValueError) if the value is not plain JSON.
    """
    return json.loads(json.dumps(value, allow_nan=False))


def walk(value: Any, path: str = "$") -> Iterator[tuple[str, str | None, Any]]:
    """Every (path, dict key or None, value) in nested JSON, the root included."""
    yield path, None, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}.{key}", key, item
            yield from walk(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from walk(item, f"{path}[{index}]")


@dataclass
class Secrets:
    """What no view may show: the seed, and the RNG state (at the start and now)."""

    seed: str
    rng_states: set[int] = field(default_factory=set)

    def assert_absent(self, value: Any, what: str) -> None:
        """Fail if the JSON value holds a secret key, the seed text or an RNG state integer."""
        for path, key, item in walk(value):
            assert key not in SECRET_KEYS, f"{what} has the key {key!r} at {path}"
            if isinstance(item, int) and not isinstance(item, bool):
                assert item not in self.rng_states, f"{what} shows the RNG state at {path}"
            if isinstance(item, str):
                assert self.seed not in item, f"{what} shows the seed at {path}"


def random_options(game: Game, rng: Rng) -> dict[str, Any]:
    """A random but cheap choice for every option: ints stay near their minimum or default."""
    chosen: dict[str, Any] = {}
    for spec in game.info.options.specs:
        chosen[spec.name] = _random_value(spec, rng)
    return chosen


def _random_value(spec: OptionSpec, rng: Rng) -> Any:
    if spec.kind == "bool":
        return rng.below(2) == 1
    if spec.kind == "choice":
        return rng.choice(spec.choices)
    low = spec.default if spec.minimum is None else spec.minimum
    values = {spec.default, *range(low, low + 3)}
    if spec.maximum is not None:
        values = {v for v in values if v <= spec.maximum}
    return rng.choice(sorted(values))


def candidate_actions(state: GameState, seat: int, rng: Rng) -> list[Action]:
    """What an acting seat may do: every listed action, or the example and samples of a constructed space."""
    try:
        legal = state.legal_actions(seat)
    except TooManyActions:
        space = state.action_space(seat)
        assert space["kind"] == CONSTRUCTED, "legal_actions raised TooManyActions but the space is not constructed"
        assert {"schema", "constraints", "example"} <= set(space), f"constructed space lacks keys: {sorted(space)}"
        canon(space)
        return [space["example"], *(state.sample_action(seat, rng) for _ in range(CONSTRUCTED_SAMPLES))]
    space = state.action_space(seat)
    assert space["kind"] == ENUMERATED, f"legal_actions listed actions but action_space is {space['kind']!r}"
    assert canon(space["actions"]) == canon(legal), "action_space's actions differ from legal_actions"
    if seat in state.waiting_for():
        assert legal, f"the game waits for seat {seat} but it has no legal action"
    texts = [json.dumps(action, sort_keys=True) for action in legal]
    assert len(set(texts)) == len(texts), "legal_actions lists an action twice"
    for _ in range(CONSTRUCTED_SAMPLES if legal else 0):
        sample = state.sample_action(seat, rng)
        assert canon(sample) in canon(legal), f"sample_action gave {sample!r}, which is not listed"
    return legal


def check_actions_apply(state: GameState, seat: int, actions: list[Action]) -> None:
    """Every candidate plays on a clone through the checked path, and apply_trusted lands on the same state."""
    before = canon(state.to_json())
    for action in actions:
        checked, trusted = state.clone(), state.clone()
        checked.play(seat, action)
        trusted.apply_trusted(seat, action)
        assert canon(checked.to_json()) == canon(trusted.to_json()), f"play and apply_trusted differ on {action!r}"
    assert canon(state.to_json()) == before, "playing on clones changed the original"


def check_turn_errors(state: GameState, some_action: Action) -> None:
    """Seats that may not act get NotYourTurn; seats that do not exist are refused."""
    acting = state.acting_seats()
    for seat in range(state.players):
        if seat in acting:
            continue
        assert state.legal_actions(seat) == [], f"seat {seat} cannot act but has legal actions"
        with pytest.raises(NotYourTurn):
            state.clone().play(seat, some_action)
    for seat in (-1, state.players):
        with pytest.raises(ActionRejected):
            state.clone().play(seat, some_action)


def check_refusals(state: GameState, seat: int, strangers: list[Action], rng: Rng) -> None:
    """Actions the seat's list lacks (others' actions, mutated ones) are refused by `play` and change nothing.

    Only for a listed space: a constructed one (a split) has no list to be missing from.
    """
    try:
        legal = state.legal_actions(seat)
    except TooManyActions:
        return
    listed = {action_text(action) for action in legal}
    originals = list(legal)
    rng.shuffle(originals)
    pool = [*strangers, *(mutant for action in originals[:MUTATED] for mutant in mutations(action))]
    rng.shuffle(pool)
    unlisted = (action for action in pool if action_text(action) not in listed)
    copy = state.clone()
    before = canon(copy.to_json())
    for action in itertools.islice(unlisted, REFUSALS):
        try:
            copy.play(seat, action)
        except IllegalAction as refused:
            assert refused.reason, f"the refusal of {action!r} gives no reason"
            continue
        raise AssertionError(f"seat {seat} may play {action!r}, which its legal actions do not list")
    assert canon(copy.to_json()) == before, "a refused action changed the state"


def mutations(action: Action) -> Iterator[Action]:
    """Near misses of a listed action: an unknown type, a key more or less, each value nudged or in another form."""
    yield {**action, "type": f"{action.get('type')}!"}
    yield {**action, "extra": 1}
    for key, value in action.items():
        yield {name: item for name, item in action.items() if name != key}
        for other in _nudged(value):
            yield {**action, key: other}


def _nudged(value: Any) -> Iterator[Any]:
    """Values next to this one, and the same value written in another JSON form (1.0 or true for 1)."""
    if isinstance(value, bool):
        yield not value
        yield int(value)
    elif isinstance(value, int):
        yield from (value + 1, value - 1, -1, 10**6, float(value), str(value))
        if value in (0, 1):
            yield bool(value)
    elif isinstance(value, str):
        yield from (value + "?", "")
    elif isinstance(value, list):
        yield from (value[:-1], [*value, *value[-1:]], [*value, None], None)
        if value:
            yield [*_nudged(value[0])][:1] + value[1:]
    elif value is None:
        yield from (0, [])


def check_json_round_trip(game: Game, state: GameState) -> None:
    """state_from_json(to_json) through JSON text is the same state with the same views and choices."""
    data = canon(state.to_json())
    back = game.state_from_json(json.loads(json.dumps(data)))
    assert canon(back.to_json()) == data, "to_json after a JSON round trip differs"
    assert_same_outside(state, back, "the JSON round trip")


def check_clone(state: GameState, rng: Rng) -> None:
    """A clone equals the original and shares nothing with it, in either direction."""
    copy = state.clone()
    assert copy is not state and copy.rng is not state.rng, "a clone must have its own state and RNG"
    before = canon(state.to_json())
    assert canon(copy.to_json()) == before, "a clone differs from its original"
    assert_same_outside(state, copy, "a clone")
    if state.is_over():
        return
    seat = rng.choice(copy.waiting_for())
    copy.play(seat, copy.sample_action(seat, rng))
    assert canon(state.to_json()) == before, "playing on a clone changed the original"
    source = state.clone()
    kept = source.clone()
    seat = rng.choice(source.waiting_for())
    source.play(seat, source.sample_action(seat, rng))
    assert canon(kept.to_json()) == before, "playing on a state changed a clone taken before"


def assert_same_outside(first: GameState, second: GameState, what: str) -> None:
    """Same seats to act, result, views for everyone and choices for every acting seat."""
    assert first.acting_seats() == second.acting_seats(), f"{what} changed acting_seats"
    assert first.is_over() == second.is_over(), f"{what} changed is_over"
    assert first.result() == second.result(), f"{what} changed the result"
    for viewer in viewers(first):
        assert canon(first.view(viewer)) == canon(second.view(viewer)), f"{what} changed the view of {viewer}"
    for seat in first.acting_seats():
        assert same_json(choices(first, seat), choices(second, seat)), f"{what} changed seat {seat}'s legal actions"
    for seat in first.waiting_for():
        assert same_json(first.default_action(seat), second.default_action(seat)), (
            f"{what} changed seat {seat}'s default action"
        )


def choices(state: GameState, seat: int) -> Any:
    """What the seat may do: its listed actions, or its action space when they are too many to list."""
    try:
        return state.legal_actions(seat)
    except TooManyActions:
        return state.action_space(seat)


def same_json(first: Any, second: Any) -> bool:
    """True if both values read the same through JSON (a tuple is its list); quick when they are equal as they are."""
    return bool(first == second) or canon(first) == canon(second)


def viewers(state: GameState) -> list[int | None]:
    """The public and every seat."""
    return [None, *range(state.players)]


def check_views(game: Game, state: GameState, secrets: Secrets, rng: Rng, hidden: HiddenMoves) -> None:
    """Views are JSON, leak no secret, and cannot tell the state from its determinizations (which move hidden parts)."""
    secrets.rng_states.add(state.rng.state)
    before = canon(state.to_json())
    for viewer in viewers(state):
        seen = canon(state.view(viewer))
        secrets.assert_absent(seen, f"the view of {viewer}")
        for _ in range(DETERMINIZATIONS):
            guess = state.determinize(viewer, Rng(rng.next_u64()))
            assert guess is not state and guess.rng is not state.rng, "determinize must return a new state and RNG"
            assert canon(guess.view(viewer)) == seen, f"a determinization for {viewer} looks different to {viewer}"
            assert guess.acting_seats() == state.acting_seats(), "a determinization changed who acts"
            assert guess.waiting_for() == state.waiting_for(), "a determinization changed whom the game waits for"
            if viewer is not None and viewer in state.acting_seats():
                _assert_same_choices(state, guess, viewer)
            hidden.record(game, before, guess, viewer)
        assert canon(state.to_json()) == before, f"determinize({viewer}) changed the original"


def _assert_same_choices(state: GameState, guess: GameState, seat: int) -> None:
    """A seat knows what it may do: its listed actions survive determinization."""
    try:
        legal = state.legal_actions(seat)
    except TooManyActions:
        return
    assert canon(guess.legal_actions(seat)) == canon(legal), f"a determinization changed seat {seat}'s actions"


def check_redaction(state: GameState, seat: int, action: Action, secrets: Secrets) -> None:
    """A logged action, as any viewer may see it, is JSON and leaks no secret."""
    for viewer in viewers(state):
        shown = canon(state.redact_action(seat, action, viewer))
        secrets.assert_absent(shown, f"action of seat {seat} redacted for {viewer}")


def check_log_pages(state: GameState, log: list[tuple[int, Action]], rng: Rng) -> None:
    """A page of the log, with the newest `log_tail` moves after it, is redacted as in the whole log."""
    if not log:
        return
    for viewer in viewers(state):
        whole = canon(state.redact_log(log, viewer))
        for _ in range(3):
            start = rng.below(len(log))
            stop = start + 1 + rng.below(len(log) - start)
            later = log[max(stop, len(log) - state.log_tail) :]
            page = canon(state.redact_log_page(log[start:stop], later, viewer))
            assert page == whole[start:stop], f"log page {start}:{stop} for {viewer} differs from the whole log's"


def check_running(state: GameState) -> None:
    """While the game runs: someone acts, no result, zero rewards."""
    acting = state.acting_seats()
    assert not state.is_over()
    assert acting, "nobody may act but the game is not over"
    assert list(acting) == sorted(set(acting)), f"acting_seats must be distinct and in seat order: {acting}"
    waiting = state.waiting_for()
    assert waiting and set(waiting) <= set(acting), f"waiting_for {waiting} must be acting seats {acting}"
    assert all(0 <= seat < state.players for seat in acting), f"acting_seats out of range: {acting}"
    assert state.result() is None, "a running game has a result"


def check_default_actions(state: GameState) -> None:
    """Every seat the game waits for has a deterministic, plain-JSON default action that the checked path accepts."""
    for seat in state.waiting_for():
        action = state.default_action(seat)
        assert canon(action) == action, f"seat {seat}'s default action is not plain JSON: {action!r}"
        copy = state.clone()
        assert copy.default_action(seat) == action, f"seat {seat}'s default action differs on a clone"
        try:
            copy.play(seat, canon(action))
        except ActionRejected as error:
            raise AssertionError(f"seat {seat}'s default action {action!r} is refused: {error}") from error


def check_finished(game: Game, state: GameState, some_action: Action) -> None:
    """Once over: nobody acts, every seat gets MatchOver, and the result is well formed."""
    assert state.is_over(), "the playout stopped but the game is not over"
    assert state.acting_seats() == (), f"seats {state.acting_seats()} may act after the end"
    for seat in range(state.players):
        assert state.legal_actions(seat) == [], f"seat {seat} has legal actions after the end"
        with pytest.raises(MatchOver):
            state.clone().play(seat, some_action)
    result = state.result()
    assert result is not None, "a finished game has no result"
    check_result(game, state.players, result)
    assert state.rewards() == result.rewards()


def check_result(game: Game, players: int, result: Result) -> None:
    """Scores and rewards per seat, a ranking covering every seat once, winners the first group."""
    assert len(result.scores) == players
    low, high = game.info.min_utility, game.info.max_utility
    assert all(low <= score <= high for score in result.scores), f"scores {result.scores} outside [{low}, {high}]"
    seats = [seat for group in result.ranking for seat in group]
    assert sorted(seats) == list(range(players)), f"ranking {result.ranking} does not cover every seat once"
    assert all(result.ranking), "a ranking group is empty"
    if game.info.cooperative:
        assert result.team_success is not None, "a co-operative game's result needs team_success"
        if not result.team_success:
            assert result.winners == (), "a co-operative loss has winners"
        else:
            assert result.winners == result.ranking[0]
    else:
        assert result.team_success is None, "a competitive game's result has team_success"
        assert result.winners == result.ranking[0], "winners are not the first ranking group"
    rewards = result.rewards()
    assert len(rewards) == players and all(-1.0 <= r <= 1.0 for r in rewards), rewards
    assert Result.from_json(canon(result.to_json())) == result, "the result does not survive JSON"
