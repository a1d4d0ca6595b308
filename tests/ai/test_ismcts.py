"""The information-set searcher: fresh chance, hidden simultaneous keeps, claim windows, time caps."""

from __future__ import annotations

from typing import Any

import pytest

from ai.ismcts import IsmctsAgent, Option, Tree
from ai.knowledge import Knowledge, knowledge_for
from ai.levels import choose as level_choose
from ai.levels import levels_for
from ai.perfect import PerfectAgent
from ai.play import PASS
from engine.freeze_factory import FreezeFactoryState
from engine.freeze_factory.components import CONES, SIZE
from engine.protocol import Action, GameState
from engine.registry import get_game
from engine.rng import Rng
from engine.rockem_sockem import RockemSockemState
from engine.rockem_sockem.components import KEEP_SETS

AGENT = IsmctsAgent(knowledge_for)


def rockem_race(mode: str, seed: int = 1) -> RockemSockemState:
    """A Rock'em Sock'em round after the first roll of both seats: both may keep dice now."""
    game = get_game("rockem_sockem")
    assert game is not None
    state = game.start(2, {"mode": mode}, seed)
    assert isinstance(state, RockemSockemState)
    while state.phase != "race" or any(corner.dice is None for corner in state.corners):
        if state.phase == "flip":
            state.play(state.flipper, {"type": "flip"})
        else:
            unrolled = [seat for seat in state.acting_seats() if state.corners[seat].dice is None]
            state.play(unrolled[0], {"type": "roll", "keep": []})
    return state


# --- simultaneous steps -----------------------------------------------------------------------
def test_a_keep_not_yet_revealed_never_changes_the_other_seats_choice() -> None:
    base = rockem_race("rounds")
    answers = set()
    for keep in KEEP_SETS:
        state = base.clone()
        state.play(0, {"type": "roll", "keep": list(keep)})
        assert state.acting_seats() == (1,)
        for level in levels_for("rockem_sockem"):
            if level in ("easy", "medium"):
                answers.add((level, str(level_choose(state, 1, level, seed=4))))
        answers.add(("ismcts", str(AGENT.choose(state, 1, 60, 4))))
    # One answer per level whatever seat 0 kept.
    assert len(answers) == len({name for name, _ in answers})


def test_the_second_seat_of_a_step_chooses_in_one_node_whatever_the_first_kept() -> None:
    state = rockem_race("rounds")
    knowledge = knowledge_for("rockem_sockem")
    rng = Rng(5)
    options: list[Option] = [(f"0:{knowledge.key(a)}", a) for a in knowledge.candidates(state, 0, rng, 8)]
    tree = Tree(0, False, options, knowledge, rng, 1.0, 8)
    for _ in range(200):
        tree.iterate(state.determinize(0, rng))
    assert len(tree.root.edges) == len(options) > 1
    children = {id(edge.child) for edge in tree.root.edges.values()}
    assert len(children) == 1, "seat 1 would see seat 0's keep"
    (node,) = tree.root.successors.values()
    assert {edge.mover for edge in node.edges.values()} == {1}


def test_in_realtime_mode_a_roll_is_seen_at_once() -> None:
    state = rockem_race("realtime")
    knowledge = knowledge_for("rockem_sockem")
    rng = Rng(5)
    options: list[Option] = [(f"0:{knowledge.key(a)}", a) for a in knowledge.candidates(state, 0, rng, 8)]
    tree = Tree(0, False, options, knowledge, rng, 1.0, 8)
    for _ in range(200):
        tree.iterate(state.determinize(0, rng))
    assert len({id(edge.child) for edge in tree.root.edges.values()}) == len(options)


@pytest.mark.parametrize("mode", ["rounds", "realtime"])
def test_every_seat_that_may_act_gets_a_legal_answer_at_every_level(mode: str) -> None:
    game = get_game("rockem_sockem")
    assert game is not None
    state = game.start(2, {"mode": mode}, 9)
    rng = Rng(9)
    asked = 0
    while not state.is_over() and asked < 60:
        for seat in state.acting_seats():
            for level in ("random", "easy", "perfect"):
                state.clone().play(seat, level_choose(state, seat, level, seed=asked))
                asked += 1
        seat = rng.choice(state.acting_seats())
        state.play(seat, state.sample_action(seat, rng))
    assert asked >= 60


def test_a_seat_that_already_answered_is_not_asked_to_stall_the_step() -> None:
    state = rockem_race("rounds")
    state.play(0, {"type": "roll", "keep": []})
    with pytest.raises(ValueError, match="no legal action"):
        AGENT.choose(state, 0, 10, 0)


# --- chance is drawn afresh -------------------------------------------------------------------
def test_every_iteration_rolls_new_dice() -> None:
    """The package's determinized tree sees one future per sample; this one sees a new roll each time."""
    state = rockem_race("rounds")
    seen = set()
    rng = Rng(1)
    for _ in range(30):
        world = state.determinize(0, rng)
        world.apply_trusted(0, {"type": "roll", "keep": []})
        world.apply_trusted(1, {"type": "roll", "keep": []})
        seen.add(tuple(world.corners[0].dice or ()))
    assert len(seen) > 20


# --- claim windows ----------------------------------------------------------------------------
def claim_setup() -> tuple[FreezeFactoryState, dict[str, Any], int]:
    """Seat 0 to slide with 2 points; one slide lines up the cone in seat 1's hand (which seat 0 cannot see).

    No other three tiles stand in a line before or after that slide.
    """
    game = get_game("freeze_factory")
    assert game is not None
    state = game.start(2, {}, 0)
    assert isinstance(state, FreezeFactoryState)
    cone = state.hands[1][0]
    a, b, c = sorted(CONES[cone])
    others = [f for f in range(13) if f not in (a, b, c)]
    board: list[int | None] = [None] * (SIZE * SIZE)
    board[0], board[1], board[7] = a, b, c  # c one step below where it completes the top row
    for space, flavour in zip((4, 9, 11, 13, 15, 17, 19, 20, 21, 23), others, strict=True):
        board[space] = flavour
    state.board = board
    # Seat 0 holds another cone with c, so sliding c is one of its candidates.
    state.hands[0] = [next(i for i, other in enumerate(CONES) if c in other and i != cone)]
    state.phase, state.points_left = "move", 2
    return state, {"type": "slide", "space": [1, 2], "direction": "up"}, cone


def test_the_claimer_claims_in_the_tree_when_a_slide_lines_up_its_cone() -> None:
    state, slide, cone = claim_setup()
    knowledge = knowledge_for("freeze_factory")
    rng = Rng(2)
    options: list[Option] = [(f"0:{knowledge.key(a)}", a) for a in knowledge.candidates(state, 0, rng, 8)]
    assert any(action == slide for _, action in options)
    tree = Tree(0, False, options, knowledge, rng, knowledge.exploration, 8)
    for _ in range(400):
        world = state.clone()  # the real hands, so seat 1 surely holds the cone
        world.rng = Rng(rng.next_u64())
        tree.iterate(world)
    after = tree.root.edges[f"0:{knowledge.key(slide)}"].child
    assert after is not None
    claim = after.edges[f"1:{knowledge.key({'type': 'freeze', 'cone': cone})}"]
    passing = after.edges[f"1:{PASS}"]
    assert claim.visits > passing.visits
    assert claim.mean(1) > passing.mean(1)
    # and the slide that hands seat 1 a cone is not what seat 0 prefers
    assert tree.root.edges[f"0:{knowledge.key(slide)}"].mean(0) < max(e.mean(0) for e in tree.root.edges.values())


def test_an_ai_seat_in_a_claim_window_claims_at_every_level() -> None:
    state, slide, cone = claim_setup()
    state.play(0, slide)
    assert state.legal_actions(1) == [{"type": "freeze", "cone": cone}]
    for level in levels_for("freeze_factory"):
        assert level_choose(state, 1, level, seed=0, time_cap=5.0) == {"type": "freeze", "cone": cone}


# --- time cap and determinism -----------------------------------------------------------------
def opening(game_id: str, players: int = 2) -> tuple[GameState, int]:
    game = get_game(game_id)
    assert game is not None
    state = game.start(players, {}, "cap")
    return state, state.waiting_for()[0]


@pytest.mark.parametrize("game_id", ["icecream", "sundae_split", "freeze_factory", "rockem_sockem"])
def test_a_cap_that_is_not_hit_changes_nothing(game_id: str) -> None:
    state, seat = opening(game_id)
    assert AGENT.choose(state, seat, 40, 3, time_cap=3600.0) == AGENT.choose(state, seat, 40, 3)


@pytest.mark.parametrize("game_id", ["icecream", "sundae_split", "rockem_sockem"])
def test_a_cap_that_is_hit_still_answers_a_legal_action(game_id: str) -> None:
    state, seat = (rockem_race("rounds"), 0) if game_id == "rockem_sockem" else opening(game_id)
    tree, _ = AGENT.search(state, seat, 10**9, 3, time_cap=0.0)
    assert tree is not None and sum(edge.visits for edge in tree.root.edges.values()) == 1
    state.clone().play(seat, AGENT.choose(state, seat, 10**9, 3, time_cap=0.0))


class StopAfter:
    """A stop signal that holds from its `calls`-th question on, counting the questions."""

    def __init__(self, calls: int) -> None:
        self.calls = calls
        self.asked = 0

    def __call__(self) -> bool:
        self.asked += 1
        return self.asked >= self.calls


@pytest.mark.parametrize("game_id", ["icecream", "sundae_split", "rockem_sockem"])
def test_a_stop_signal_ends_the_search_with_the_answer_of_the_iterations_done(game_id: str) -> None:
    state, seat = (rockem_race("rounds"), 0) if game_id == "rockem_sockem" else opening(game_id)
    stop = StopAfter(12)
    tree, _ = AGENT.search(state, seat, 10**9, 3, stop=stop)
    assert tree is not None and sum(edge.visits for edge in tree.root.edges.values()) == 12
    assert AGENT.choose(state, seat, 10**9, 3, stop=StopAfter(12)) == AGENT.choose(state, seat, 12, 3)


def test_a_stop_signal_that_never_holds_changes_nothing() -> None:
    state, seat = opening("sundae_split")
    stop = StopAfter(10**9)
    assert AGENT.choose(state, seat, 40, 3, stop=stop) == AGENT.choose(state, seat, 40, 3)
    assert stop.asked == 39  # asked before every iteration but the first


def test_the_perfect_rockem_keep_reads_only_what_the_seat_sees() -> None:
    base = rockem_race("rounds")
    answers = set()
    for keep in KEEP_SETS:
        state = base.clone()
        state.play(0, {"type": "roll", "keep": list(keep)})
        answers.add(str(PerfectAgent().choose(state, 1, 0, 0)))
    assert len(answers) == 1


# --- knowledge is handed to the searcher ------------------------------------------------------
class LastAction(Knowledge):
    """Knowledge that settles every choice with the seat's last legal action."""

    def obvious(self, state: GameState, seat: int) -> Action | None:
        return state.legal_actions(seat)[-1]


def test_the_search_plays_with_the_knowledge_it_is_handed() -> None:
    asked: list[str] = []

    def lookup(game_id: str) -> Knowledge:
        asked.append(game_id)
        return LastAction()

    state, seat = opening("icecream")
    last = state.legal_actions(seat)[-1]
    assert IsmctsAgent(knowledge_for).choose(state, seat, 50, 3) != last
    assert IsmctsAgent(lookup).choose(state, seat, 50, 3) == last
    assert asked == ["icecream"]
