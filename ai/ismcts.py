"""Information-set MCTS: one tree for the searching seat, a fresh hidden world and fresh chance each iteration.

Why not the package's tree (ai/baseline/search.py): a node of the `mcts` package holds one state, so a
search on it sees one deal of the hidden cards and one future of the dice per determinization,
and plans as if it knew them (in Rock'em Sock'em it keeps whatever dice that world's RNG is about
to match). Here a node holds statistics only and every iteration replays its path in a new world
`state.determinize(seat, rng)`, whose RNG is fresh too, so each edge is judged over many deals
and many rolls (single-observer ISMCTS, open loop):

* An edge is (mover, action); a node's edges that are legal in the iteration's world are its
  available ones, and UCB1 counts how often an edge was available instead of the parent's visits.
  Each edge keeps every seat's total reward and is chosen for the seat that moves (1 to 5 seats,
  co-operative rewards included).
* The node an edge leads to is keyed by what the *next* mover sees of the action
  (`redact_action`): in Rock'em rounds the second seat of a step chooses in one node whatever the
  first one kept, so the tree never lets a seat see a keep that has not been revealed; a Sundae
  chooser cannot tell splits apart by their face-down cards.
* Who moves where several seats may act, and the PASS of a claim window: the search's turn rule,
  `ai.play.next_mover`.
* Candidate moves, playouts and the score at a playout's cut-off come from the game's
  `Knowledge`, which the agent is handed (OpenSpiel's injected evaluator): `IsmctsAgent(knowledge)`
  takes a lookup from game id to knowledge (`ai.knowledge.knowledge_for` in `ai.levels`), and
  this module imports no game's knowledge itself.

The answer is the root action with the most visits; for one seed and one budget it is always
the same unless `time_cap` seconds run out first or `stop()` says so (then the best so far).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ai.play import PASS, next_mover
from engine.rng import Rng

if TYPE_CHECKING:
    from ai.knowledge import Knowledge
    from engine.protocol import Action, GameState

KnowledgeFor = Callable[[str], "Knowledge"]
"""What a searcher is handed: the knowledge it plays a game with, by game id."""

Credit = Callable[["GameState", list[float]], list[float]]
"""Per seat, what else an iteration adds up at backup, from its last world (over, or cut off) and its rewards."""

Option = tuple[str, "Action | None"]
"""A node's choice: its key (mover and canonical action) and the action (None for PASS)."""


@dataclass(eq=False)
class Edge:
    """One (mover, action) out of a node: visits, availability, every seat's total reward, the node it leads to."""

    mover: int
    action: Action | None
    visits: int = 0
    available: int = 0
    totals: list[float] = field(default_factory=list)
    child: Node | None = None
    credits: list[float] = field(default_factory=list)
    """Every seat's total of the tree's `credit` (empty unless the tree has one), beside `totals`."""

    def mean(self, seat: int) -> float:
        """The seat's mean reward through this edge."""
        return self.totals[seat] / self.visits if self.visits else 0.0


@dataclass(eq=False)
class Node:
    """A position of the searching seat's tree: its edges and the nodes they lead to, by what is seen."""

    edges: dict[str, Edge] = field(default_factory=dict)
    successors: dict[str, Node] = field(default_factory=dict)


@dataclass
class Tree:
    """One search: the root and the knowledge, exploration and sampling it runs with."""

    seat: int
    claiming: bool
    root_options: list[Option]
    knowledge: Knowledge
    rng: Rng
    exploration: float
    split_samples: int
    root: Node = field(default_factory=Node)
    credit: Credit | None = None
    """What else to add up per seat at backup (an analysis' win shares); None in play, which needs only rewards."""

    def iterate(self, world: GameState) -> None:
        """Select and expand down the tree in this world, play out, back up every seat's reward."""
        node, mover, claiming = self.root, self.seat, self.claiming
        last: int | None = None
        passed: frozenset[int] = frozenset()
        path: list[Edge] = []
        while True:
            options = self.root_options if node is self.root else self.options(world, mover, claiming)
            edge, fresh = self.select(node, mover, options)
            path.append(edge)
            if edge.action is None:
                passed = passed | {mover}
            else:
                self.knowledge.apply(world, mover, edge.action)
                last = last if claiming else mover
                passed = frozenset()
            following, claiming = next_mover(world, last, passed)
            if edge.child is None:
                edge.child = node.successors.setdefault(self.seen(world, edge, following), Node())
            node = edge.child
            if following is None:
                rewards = world.rewards()
                break
            mover = following
            if fresh:
                rewards = self.playout(world, mover, claiming, last, passed)
                break
        for edge in path:
            edge.visits += 1
            edge.totals = (
                list(rewards) if not edge.totals else [t + r for t, r in zip(edge.totals, rewards, strict=True)]
            )
        if self.credit is not None:
            credits = self.credit(world, rewards)
            for edge in path:
                edge.credits = (
                    list(credits) if not edge.credits else [t + c for t, c in zip(edge.credits, credits, strict=True)]
                )

    def options(self, world: GameState, mover: int, claiming: bool) -> list[Option]:
        """The mover's candidate actions in this world, with PASS in a claim window."""
        actions = self.knowledge.candidates(world, mover, self.rng, self.split_samples)
        key = self.knowledge.key
        found: list[Option] = [(f"{mover}:{key(action)}", action) for action in actions]
        if claiming:
            found.append((f"{mover}:{PASS}", None))
        return found

    def select(self, node: Node, mover: int, options: list[Option]) -> tuple[Edge, bool]:
        """An unexpanded option at random, else the available edge with the best UCB1 for the mover."""
        unexpanded: list[Option] = []
        available: list[Edge] = []
        for key, action in options:
            edge = node.edges.get(key)
            if edge is None:
                unexpanded.append((key, action))
            else:
                edge.available += 1
                available.append(edge)
        if unexpanded:
            key, action = unexpanded[self.rng.below(len(unexpanded))] if len(unexpanded) > 1 else unexpanded[0]
            edge = node.edges[key] = Edge(mover, action, available=1)
            return edge, True
        best_value, best = -math.inf, available[0]
        for edge in available:
            value = edge.totals[mover] / edge.visits + self.exploration * math.sqrt(
                math.log(edge.available) / edge.visits
            )
            if value > best_value:
                best_value, best = value, edge
        return best, False

    def seen(self, world: GameState, edge: Edge, viewer: int | None) -> str:
        """The key of the node an edge leads to: the action as the next mover sees it."""
        if edge.action is None:
            return f"{edge.mover}:{PASS}"
        shown = edge.action if viewer is None else world.redact_action(edge.mover, edge.action, viewer)
        return f"{edge.mover}:{self.knowledge.key(shown)}"

    def playout(
        self, world: GameState, mover: int | None, claiming: bool, last: int | None, passed: frozenset[int]
    ) -> list[float]:
        """Play the knowledge's policy to the end or its cut-off; every seat's reward."""
        knowledge, rng = self.knowledge, self.rng
        mark, steps = knowledge.playout_mark(world), 0
        while mover is not None:
            if knowledge.cut_off(world, mark, steps):
                return knowledge.evaluate(world)
            if claiming:
                action = knowledge.playout_claim(world, mover, rng)
                if action is None:
                    passed = passed | {mover}
                    mover, claiming = next_mover(world, last, passed)
                    continue
            else:
                action = knowledge.playout_action(world, mover, rng)
            knowledge.apply(world, mover, action)
            steps += 1
            last = last if claiming else mover
            passed = frozenset()
            mover, claiming = next_mover(world, last, passed)
        return world.rewards()


@dataclass(frozen=True)
class IsmctsAgent:
    """Single-observer open-loop ISMCTS with a reward per seat (see the module); `budget` is iterations.

    `knowledge` gives the game knowledge the search plays each game with.
    """

    knowledge: KnowledgeFor = field(repr=False)
    split_samples: int = 8
    exploration: float | None = None  # None: the game's knowledge decides

    def choose(
        self,
        state: GameState,
        seat: int,
        budget: int,
        seed: int | str,
        time_cap: float | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> Action:
        """The root action with the most visits (ties: the better mean, then the first candidate)."""
        tree, candidates = self.search(state, seat, budget, seed, time_cap, stop)
        if tree is None:
            return candidates[0]
        edges = [tree.root.edges.get(key) for key, _ in tree.root_options]

        def rank(index: int) -> tuple[int, float, int]:
            edge = edges[index]
            return (0, -math.inf, -index) if edge is None else (edge.visits, edge.mean(seat), -index)

        return candidates[max(range(len(candidates)), key=rank)]

    def search(
        self,
        state: GameState,
        seat: int,
        budget: int,
        seed: int | str,
        time_cap: float | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> tuple[Tree | None, list[Action]]:
        """The searched tree (None when there is one candidate) and the root candidates; `stop()` ends it early."""
        deadline = None if time_cap is None else time.perf_counter() + time_cap
        rng = Rng.from_seed(f"ismcts:{seed}")
        knowledge = self.knowledge(state.game_id)
        world = state.determinize(seat, rng)
        obvious = knowledge.obvious(world, seat)
        if obvious is not None:
            return None, [obvious]
        candidates = knowledge.candidates(world, seat, rng, self.split_samples)
        if not candidates:
            raise ValueError(f"seat {seat} has no legal action")
        if len(candidates) == 1:
            return None, candidates
        tree = Tree(
            seat,
            seat not in state.waiting_for(),
            [(f"{seat}:{knowledge.key(action)}", action) for action in candidates],
            knowledge,
            rng,
            knowledge.exploration if self.exploration is None else self.exploration,
            self.split_samples,
        )
        for done in range(max(1, budget)):
            if done and ((deadline is not None and time.perf_counter() >= deadline) or (stop is not None and stop())):
                break
            tree.iterate(state.determinize(seat, rng))
        return tree, candidates
