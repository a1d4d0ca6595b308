"""Game knowledge for the search: it must agree with the engine wherever it stands in for it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ai.knowledge import Knowledge, knowledge_for
from ai.knowledge.freeze_factory import FreezeFactoryKnowledge, cone_distance, in_line, laid, line_up_plan
from ai.knowledge.rockem_sockem import KEEPS, RockemSockemKnowledge, win_chance
from ai.rockem_race import fastest_keep
from engine.freeze_factory import FreezeFactoryState
from engine.freeze_factory.board import lines, slide_target
from engine.freeze_factory.components import CONES, SIZE
from engine.registry import get_game
from engine.rng import Rng
from engine.rockem_sockem import RockemSockemState

FREEZE = FreezeFactoryKnowledge()
ROCKEM = RockemSockemKnowledge()


def freeze_positions(
    players: int, seeds: range, options: dict[str, object] | None = None
) -> Iterator[FreezeFactoryState]:
    """Every position of seeded random Freeze Factory games (claims included)."""
    game = get_game("freeze_factory")
    assert game is not None
    for seed in seeds:
        state = game.start(players, options or {}, seed)
        assert isinstance(state, FreezeFactoryState)
        rng = Rng(seed)
        for _ in range(1500):
            if state.is_over():
                break
            yield state
            seats = [seat for seat in state.acting_seats() if state.legal_actions(seat)]
            seat = rng.choice(seats)
            state.apply_trusted(seat, state.sample_action(seat, rng))


def test_only_freeze_factory_and_rockem_have_knowledge() -> None:
    assert isinstance(knowledge_for("freeze_factory"), FreezeFactoryKnowledge)
    assert isinstance(knowledge_for("rockem_sockem"), RockemSockemKnowledge)
    assert type(knowledge_for("icecream")) is Knowledge
    assert type(knowledge_for("sundae_split")) is Knowledge


# --- Freeze Factory ---------------------------------------------------------------------------
def test_the_cones_laid_are_what_the_engine_lets_fulfil_or_claim() -> None:
    for state in freeze_positions(3, range(3)):
        for seat in range(state.players):
            assert laid(state, seat) == [a for a in state.legal_actions(seat) if a["type"] in ("fulfil", "freeze")]
            for cone in state.hands[seat]:
                assert in_line(state.board, cone) == (cone_distance(state.board, cone)[0] == 0)


def test_every_slide_that_completes_a_cone_is_a_candidate() -> None:
    completions = 0
    for step, state in enumerate(freeze_positions(2, range(4))):
        seat = state.active
        if state.phase != "move" or not state.points_left or step % 4:
            continue
        candidates = FREEZE.candidates(state, seat, Rng(0), 8)
        for action in state.legal_actions(seat):
            if action["type"] != "slide":
                continue
            after = state.clone()
            after.apply_trusted(seat, action)
            if set(after.fulfillable()) - set(state.fulfillable()):
                completions += 1
                assert action in candidates
    assert completions > 5


def test_a_seat_with_a_cone_in_line_fulfils_it_without_searching() -> None:
    found = 0
    for state in freeze_positions(2, range(3)):
        cones = state.fulfillable()
        if cones and state.pile:
            assert FREEZE.obvious(state, state.active) == {"type": "fulfil", "cone": cones[0]}
            found += 1
    assert found


def test_fulfilling_the_last_cone_while_behind_is_left_to_the_search() -> None:
    state = next(freeze_positions(2, range(1)))
    cone = state.hands[0][0]
    others = iter(f for f in range(13) if f not in CONES[cone])
    state.board = [*sorted(CONES[cone]), None, None, *(next(others) if s % 2 else None for s in range(20))]
    state.phase, state.points_left, state.pile = "move", 2, []
    state.turn_lines = list(lines(state.board, SIZE))  # as if seat 0's slides had just formed the line
    assert state.fulfillable() == [cone]
    state.fulfilled[1] = [24, 25]
    assert FREEZE.obvious(state, 0) is None
    state.fulfilled[1] = []
    assert FREEZE.obvious(state, 0) == {"type": "fulfil", "cone": cone}


def test_a_lead_in_cones_scores_higher() -> None:
    state = next(freeze_positions(2, range(1)))
    even = FREEZE.evaluate(state)
    state.fulfilled[0].append(25)
    ahead = FREEZE.evaluate(state)
    assert ahead[0] > even[0] and ahead[1] < even[1]
    assert all(-1 < value < 1 for value in ahead)


# --- Rock'em Sock'em --------------------------------------------------------------------------
def test_the_card_score_is_a_probability_and_symmetric() -> None:
    assert win_chance((3, 2, 0), (3, 2, 0)) == pytest.approx(0.5)
    assert win_chance((1, 2, 2), (3, 2, 0)) + win_chance((3, 2, 0), (1, 2, 2)) == pytest.approx(1.0)
    assert win_chance((1, 2, 2), (3, 2, 0)) < 0.5


def test_the_candidates_are_the_likeliest_distinct_keeps() -> None:
    game = get_game("rockem_sockem")
    assert game is not None
    state = game.start(2, {}, 0)
    assert isinstance(state, RockemSockemState)
    state.phase, state.coin = "race", "colour"
    state.corners[0].dice, state.corners[1].dice = [0, 0, 1, 2], [0, 1, 2, 3]
    for seat in (0, 1):
        dice = state.corners[seat].dice
        assert dice is not None
        candidates = ROCKEM.candidates(state, seat, Rng(0), 8)
        kept = [sorted(dice[i] for i in action["keep"]) for action in candidates]
        assert len(candidates) == KEEPS and len({str(faces) for faces in kept}) == KEEPS
        # the keep with the fewest expected rolls comes first
        assert kept[0] == sorted(dice[i] for i in fastest_keep("colour", dice))
    # two red punches, a red block, a blue uppercut: the three reds, never a lone blue
    assert [0, 0, 1] in [
        sorted(state.corners[0].dice[i] for i in a["keep"]) for a in ROCKEM.candidates(state, 0, Rng(0), 8)
    ]
    assert [2] not in [
        sorted(state.corners[0].dice[i] for i in a["keep"]) for a in ROCKEM.candidates(state, 0, Rng(0), 8)
    ]


def test_a_pending_keep_is_scored_by_the_roll_it_will_make() -> None:
    game = get_game("rockem_sockem")
    assert game is not None
    state = game.start(2, {}, 0)
    assert isinstance(state, RockemSockemState)
    state.phase, state.coin = "race", "colour"
    state.corners[0].dice, state.corners[1].dice = [0, 0, 1, 2], [0, 1, 2, 3]
    good, bad = state.clone(), state.clone()
    good.pending[0], bad.pending[0] = [0, 1, 2], [3]
    assert ROCKEM.evaluate(good)[0] > ROCKEM.evaluate(state)[0] - 1e-9 > ROCKEM.evaluate(bad)[0]


def brute_force_plan_length(board: list[int | None], hand: list[int], points: int) -> int | None:
    """The fewest slides lining up a cone of the hand, by trying every sequence (no pruning)."""
    level = [tuple(board)]
    for depth in range(1, points + 1):
        following = []
        for current in level:
            for space, flavour in enumerate(current):
                for direction in ("up", "down", "left", "right"):
                    if flavour is None:
                        continue
                    target, _ = slide_target(list(current), SIZE, space, direction)  # a Board is a list
                    if target is None:
                        continue
                    moved = list(current)
                    moved[target], moved[space] = flavour, None
                    if any(in_line(moved, cone) for cone in hand):
                        return depth
                    following.append(tuple(moved))
        level = list(set(following))
    return None


def test_the_plan_is_a_shortest_way_to_line_up_a_cone() -> None:
    checked = found = 0
    for step, state in enumerate(freeze_positions(2, range(3))):
        hand = state.hands[state.active]
        if step % 25 or any(in_line(state.board, cone) for cone in hand):
            continue
        plan = line_up_plan(state.board, hand, 2)
        assert (None if plan is None else len(plan)) == brute_force_plan_length(state.board, hand, 2)
        if plan is not None:
            after = state.clone()
            after.phase, after.points_left = "move", len(plan)
            for space, direction in plan:
                after.play(after.active, {"type": "slide", "space": list(divmod(space, SIZE)), "direction": direction})
            assert set(after.fulfillable()) & set(hand)
            found += 1
        checked += 1
    assert checked > 20 and found


def test_a_cone_that_can_be_lined_up_this_turn_is_played_without_searching() -> None:
    state = next(freeze_positions(2, range(1)))
    cone = state.hands[0][0]
    a, b, c = sorted(CONES[cone])
    others = iter(f for f in range(13) if f not in CONES[cone])
    state.board = [a, b, None, None, None, None, None, c, *(next(others) if s % 2 else None for s in range(17))]
    assert FREEZE.obvious(state, 0) == {"type": "no_roll"}
    state.apply_trusted(0, {"type": "no_roll"})
    assert FREEZE.obvious(state, 0) == {"type": "slide", "space": [1, 2], "direction": "up"}
