"""Perfect play for IceCream: backward induction over turns, a points-left table inside each turn.

A position at a turn start is (arrangement of the ten movable scoops over the two cones, turn T,
mover). Inside turn T the mover spends exactly T points; the table `rows[p][a]` is the best the
mover can force from arrangement `a` with `p` points left, so every (arrangement, points left)
pair is computed once, however many move orders lead to it. A move that stacks the mover's
flavour wins at once; one that stacks the opponent's loses at once (so it is only ever taken
when nothing else is legal); with no points left the value is minus the opponent's value at
the start of turn T + 1, or a draw after the last turn.

Values are integers from the mover's side, ordered as a rational mover prefers them:
a win at turn t is `HORIZON - t` (sooner is larger), a loss at turn t is `t - HORIZON`, a draw
is 0. Turns are absolute, so the opponent's value negates into the mover's without shifting.

The tables assume the default seats (seat 0 yellow, moving at odd turns); a state whose seat 0
is green is read with yellow and green swapped, which is the same game.

`stationary_from` (see `lab.solve_icecream`): once the set of arrangements reachable with exactly
p points, and the set from which p points suffice to stack a flavour, repeat with period 2 in p
for every p >= T0, a budget p >= T0 acts exactly like T0 + (p - T0) % 2, so a table never needs
a row past T0 + 1 points (`Solution.most_points`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from operator import itemgetter
from typing import Any

from engine.icecream.game import IceCreamState

MOVABLE = "YYYYGGGGRR"
FLAVOURS = ("Y", "G")
HORIZON = 1 << 20
"""Larger than any turn (the engine's turn_limit is at most 10,000)."""
SOLVER_VERSION = 1
"""Raise it with any change that alters a value: the stored table (ai/icecream_table.py) is then
refused until `python -m lab.solve_icecream --build` writes it again."""

Arrangement = tuple[str, str]
Gather = Callable[[Sequence[int]], tuple[int, ...]]


@dataclass(frozen=True)
class Value:
    """A position's value for the mover: 'win', 'loss' or 'draw', and the turn the game ends."""

    outcome: str
    turn: int | None

    @classmethod
    def from_score(cls, score: int) -> Value:
        """Decode a table entry."""
        if score > 0:
            return cls("win", HORIZON - score)
        if score < 0:
            return cls("loss", HORIZON + score)
        return cls("draw", None)


def win_score(turn: int) -> int:
    """The mover wins during `turn`."""
    return HORIZON - turn


def stacked(cone: str) -> str:
    """The flavour stacked four high in the cone, or ''."""
    for flavour in FLAVOURS:
        if flavour * 4 in cone:
            return flavour
    return ""


@cache
def distinct_orders(letters: str) -> tuple[str, ...]:
    """Every distinct ordering of `letters`, in sorted order (3,150 for the movable scoops)."""
    if not letters:
        return ("",)
    return tuple(
        first + rest for first in sorted(set(letters)) for rest in distinct_orders(letters.replace(first, "", 1))
    )


def all_arrangements() -> list[Arrangement]:
    """The 34,650 ways to split an ordering of the movable scoops over the two cones.

    The order (sorted orderings, then the cut) indexes every table, the stored one included.
    """
    return [(o[:cut], o[cut:]) for o in distinct_orders(MOVABLE) for cut in range(len(MOVABLE) + 1)]


def move(arrangement: Arrangement, cone: int, scoops: int) -> Arrangement:
    """The top `scoops` scoops of `cone` onto the other cone, in order."""
    source, target = arrangement[cone], arrangement[1 - cone]
    moved = (source[:-scoops], target + source[-scoops:])
    return moved if cone == 0 else (moved[1], moved[0])


def stacked_flavour(arrangement: Arrangement) -> str:
    """The flavour stacked in either cone (the fixed bottom reds never matter), or ''."""
    return stacked(arrangement[0]) or stacked(arrangement[1])


@dataclass
class Graph:
    """Every arrangement, which are stacked, and the moves between them, by cone and cost."""

    arrangements: list[Arrangement]
    index: dict[Arrangement, int]
    flavour: list[str]
    targets: dict[tuple[int, int], list[int]]
    """(cone, scoops) -> per arrangement the safe target's index, or len(arrangements) if none."""
    win_cost: dict[str, list[int]]
    """flavour -> per arrangement the cheapest single move stacking it (99 if none)."""

    @property
    def size(self) -> int:
        """Number of arrangements; also the index of the 'no such move' sentinel."""
        return len(self.arrangements)


@lru_cache(maxsize=1)
def graph() -> Graph:
    """Build the move graph once (a tenth of a second: moves are index arithmetic, not string work)."""
    arrangements = all_arrangements()
    index = {a: i for i, a in enumerate(arrangements)}
    flavour = [stacked_flavour(a) for a in arrangements]
    none, cuts = len(arrangements), len(MOVABLE) + 1
    moved = block_moves(distinct_orders(MOVABLE))
    targets = {(c, k): [none] * none for c in (0, 1) for k in range(1, len(MOVABLE) + 1)}
    win_cost = {f: [99] * none for f in FLAVOURS}
    for (c, k), row in targets.items():
        for cut in range(cuts):
            block = moved_block(c, k, cut)
            if block is None:
                continue
            start, length, new_cut = block
            for i, order in zip(range(cut, none, cuts), moved[start, length], strict=True):
                j = order * cuts + new_cut
                if flavour[i]:
                    continue
                if flavour[j]:
                    win_cost[flavour[j]][i] = min(win_cost[flavour[j]][i], k)
                else:
                    row[i] = j
    return Graph(arrangements, index, flavour, targets, win_cost)


def moved_block(cone: int, scoops: int, cut: int) -> tuple[int, int, int] | None:
    """`move(arrangement, cone, scoops)` on the ordering of both cones (cone 0 bottom to top, then
    cone 1), split at `cut`: (start, length) of the block that goes to the end, and the new cut;
    None if the cone holds fewer scoops."""
    if cone == 0:
        return (cut - scoops, scoops, cut - scoops) if scoops <= cut else None
    rest = len(MOVABLE) - cut - scoops
    return (cut, rest, cut + scoops) if rest >= 0 else None


def block_moves(orders: Sequence[str]) -> dict[tuple[int, int], list[int]]:
    """(start, length) -> per ordering, the index of the ordering with that block moved to the end.

    A block moves by moving its first scoop to the end `length` times, so every list composes
    the one-scoop move: list lookups instead of building strings.
    """
    position = {o: i for i, o in enumerate(orders)}
    moves: dict[tuple[int, int], list[int]] = {}
    for start in range(len(orders[0])):
        one = [position[o[:start] + o[start + 1 :] + o[start]] for o in orders]
        moves[start, 0] = list(range(len(orders)))
        for length in range(1, len(orders[0]) - start + 1):
            moves[start, length] = [one[i] for i in moves[start, length - 1]]
    return moves


@lru_cache(maxsize=1)
def gathers() -> list[tuple[int, Gather]]:
    """(cost, C-speed gather of the target values) for every (cone, scoops) move."""
    g = graph()
    return [(k, itemgetter(*g.targets[c, k])) for (c, k) in g.targets]


def mover_flavour(turn: int) -> str:
    """Seat 0 (yellow in the tables) moves at odd turns."""
    return "Y" if turn % 2 else "G"


def turn_rows(turn: int, budget: int, terminal: Sequence[int]) -> list[list[int]]:
    """rows[p][a]: the mover's value at `a` with p points left in `turn`, for p = 0..budget.

    `terminal` is the value when the points run out (length size + 1; the last entry is the
    sentinel read for moves that do not exist and must be the immediate loss).
    """
    g = graph()
    win_now, lose_now = win_score(turn), -win_score(turn)
    win_cost = g.win_cost[mover_flavour(turn)]
    rows = [list(terminal)]
    rows[0][-1] = lose_now
    for p in range(1, budget + 1):
        columns = [gather(rows[p - k]) for k, gather in gathers() if k <= p]
        wins = [win_now if cost <= p else lose_now for cost in win_cost]
        row = list(map(max, wins, *columns))
        row.append(lose_now)
        rows.append(row)
    return rows


@dataclass
class Solution:
    """Exact values of every arrangement at every turn start for one turn limit."""

    turn_limit: int
    stationary_from: int | None
    unlimited: bool = False
    """Tables of a long enough limit read for the game without one (see `solve_unlimited`)."""
    starts: Mapping[int, Sequence[int]] = field(default_factory=dict)
    """turn -> per arrangement the value for the mover at the start of that turn (solved here, or
    read from the stored table)."""
    _cache: dict[int, list[list[int]]] = field(default_factory=dict, repr=False)

    def budget(self, points: int) -> int:
        """The row that acts like `points` points (period 2 from `stationary_from` on)."""
        t0 = self.stationary_from
        if t0 is None or points <= t0 + 1:
            return points
        return t0 + (points - t0) % 2

    def terminal(self, turn: int) -> list[int]:
        """The mover's value when turn `turn` ends in each arrangement."""
        if turn >= self.turn_limit:
            return [0] * (graph().size + 1)
        return [-v for v in self.starts[turn + 1]] + [0]

    def rows(self, turn: int) -> list[list[int]]:
        """The points-left table of one turn (the last few are cached)."""
        if turn not in self._cache:
            if len(self._cache) >= 4:
                self._cache.pop(next(iter(self._cache)))
            self._cache[turn] = turn_rows(turn, self.most_points(turn), self.terminal(turn))
        return self._cache[turn]

    def most_points(self, turn: int) -> int:
        """The last row a turn's table needs: from `stationary_from` on, a turn stands for later
        ones whose points left may read either periodic row (turn 33 with 32 points left reads
        row 32 of turn 31's table)."""
        t0 = self.stationary_from
        return turn if t0 is None or turn < t0 else t0 + 1

    def table_turn(self, turn: int) -> int:
        """The turn whose table stands for `turn`: itself, or in the game without a limit a turn
        from `stationary_from` on of the same parity (the turns there all act alike)."""
        t0 = self.stationary_from
        if not self.unlimited or t0 is None or turn <= t0 + 1:
            return turn
        return t0 + (turn - t0) % 2

    def score(self, cones: Sequence[str], turn: int, points_left: int) -> int:
        """The table entry for default-seat cones (bottom reds included), with the real end turn."""
        table = self.table_turn(turn)
        if not 1 <= table <= self.turn_limit or not 1 <= points_left <= turn:
            raise ValueError(f"no turn {turn} with {points_left} points left under turn limit {self.turn_limit}")
        i, row = graph().index[cones[0][1:], cones[1][1:]], self.budget(points_left)
        # A whole turn's points: the turn's start value, without building that turn's table.
        score = self.starts[table][i] if row == self.budget(table) else self.rows(table)[row][i]
        shift = turn - table
        return score - shift if score > 0 else score + shift if score < 0 else 0

    def value(self, state: IceCreamState) -> Value:
        """The value of a running engine state for the seat to move."""
        return Value.from_score(self.score(self.check(state), state.turn, state.points_left))

    def best_action(self, state: IceCreamState) -> dict[str, Any]:
        """A move keeping the best value (a win soonest, else a draw, else the latest loss); a stack now first."""
        cones, turn, left = self.check(state), state.turn, state.points_left
        best: tuple[tuple[int, bool], dict[str, Any]] | None = None
        for action in state.legal_actions(state.to_move):
            cone, scoops = action["from_cone"], action["scoops"]
            now = bool(stacked_flavour(move((cones[0], cones[1]), cone, scoops)))
            key = (self.after(cones, turn, left, cone, scoops), now)
            if best is None or key > best[0]:
                best = (key, action)
        assert best is not None, "every running IceCream state has a legal move"
        return best[1]

    def after(self, cones: Sequence[str], turn: int, left: int, cone: int, scoops: int) -> int:
        """The mover's value after one move (default-seat cones)."""
        moved = move((cones[0], cones[1]), cone, scoops)
        flavour = stacked_flavour(moved)
        if flavour:
            return win_score(turn) if flavour == mover_flavour(turn) else -win_score(turn)
        if left > scoops:
            return self.score(moved, turn, left - scoops)
        if turn >= self.turn_limit and not self.unlimited:
            return 0
        return -self.score(moved, turn + 1, turn + 1)

    def check(self, state: IceCreamState) -> list[str]:
        """The state's cones with seat 0 as yellow; refuse finished games or another limit."""
        if state.is_over():
            raise ValueError("the game is over")
        limit = 0 if self.unlimited else self.turn_limit
        if state.options["turn_limit"] != limit:
            raise ValueError(f"solved for turn limit {limit}, not {state.options['turn_limit']}")
        if state.options["first_player_flavour"] == "yellow":
            return list(state.cones)
        return [cone.translate(str.maketrans("YG", "GY")) for cone in state.cones]


def solve(turn_limit: int, stationary_from: int | None = None, down_to: int = 1) -> Solution:
    """Backward induction from the last turn to turn `down_to` (1: all); keeps each turn start's values."""
    if turn_limit < 1:
        raise ValueError("a finite turn limit of at least 1 is needed")
    starts: dict[int, list[int]] = {}
    solution = Solution(turn_limit, stationary_from, starts=starts)
    for turn in range(turn_limit, max(down_to, 1) - 1, -1):
        rows = turn_rows(turn, solution.budget(turn), solution.terminal(turn))
        starts[turn] = rows[-1][:-1]
    return solution


def opening_score(solution: Solution) -> int:
    """The value of the setup for seat 0 at turn 1."""
    return solution.starts[1][graph().index[("YGRYG", "GYRGY")]]


def neighbours() -> list[list[tuple[int, int]]]:
    """Per arrangement its safe (cost, target) moves."""
    g = graph()
    return [[(k, targets[i]) for (_, k), targets in g.targets.items() if targets[i] != g.size] for i in range(g.size)]


def reach_period(max_points: int) -> int | None:
    """The least s with R(p + 2) == R(p) for p = s..s+9, R(p)[a] the set of arrangements reached
    from `a` by safe moves costing exactly p; None if not found by `max_points`.

    R(p) = union over a first move of cost k of R(p - k) of its target, a recurrence of order 10
    in p, so ten equal consecutive pairs make R periodic (period 2) for every larger p.
    """
    g, near = graph(), neighbours()
    rows: list[list[int]] = [[0 if g.flavour[a] else 1 << a for a in range(g.size)]]
    equal_run = 0
    for p in range(1, max_points + 1):
        rows.append([_union(rows, p, moves) for moves in near])
        equal_run = equal_run + 1 if p >= 2 and rows[p] == rows[p - 2] else 0
        if p >= 12:
            rows[p - 12] = []
        if equal_run == 10:
            return p - 11
    return None


def _union(rows: list[list[int]], p: int, moves: list[tuple[int, int]]) -> int:
    """The union of R(p - k) of every target, as a bitset."""
    acc = 0
    for k, target in moves:
        if k <= p:
            acc |= rows[p - k][target]
    return acc


def win_settles() -> int:
    """The least s with 'p points suffice to stack flavour f' the same for every p >= s, both f.

    The set grows with p and follows an order-10 recurrence once p >= 10, so ten unchanged
    steps in a row mean it never changes again.
    """
    g, near = graph(), neighbours()
    settled = 0
    for f in FLAVOURS:
        rows: list[list[bool]] = [[False] * g.size]
        p = unchanged = 0
        while unchanged < 10 or p < 10:
            p += 1
            base = [cost <= p for cost in g.win_cost[f]]
            rows.append([base[a] or any(k <= p and rows[p - k][t] for k, t in near[a]) for a in range(g.size)])
            unchanged = unchanged + 1 if rows[p] == rows[p - 1] else 0
        settled = max(settled, p - 10)
    return settled


def sign(score: int) -> int:
    """1 win, 0 draw, -1 loss."""
    return (score > 0) - (score < 0)


def settled_horizon(t0: int) -> tuple[int, dict[int, list[int]]]:
    """From turn t0 on (turns alike by parity), the least h with the win/draw/loss of every
    arrangement at turns t0 and t0 + 1 the same with h and h + 1 turns to go, and those values.

    Win and loss sets only grow with the horizon, and the pair at h + 1 is a function of the
    pair at h, so one repeat means they never change again: these are the values without limit.
    """
    size = graph().size
    values = {t0: [0] * size, t0 + 1: [0] * size}
    h = 0
    while True:
        new = {}
        for turn in (t0, t0 + 1):
            after = values[t0 + 1 if turn == t0 else t0]
            row = turn_rows(turn, turn, [-v for v in after] + [0])[-1][:-1]
            new[turn] = [sign(v) for v in row]
        if new == values:
            return h, values
        values, h = new, h + 1


def solve_unlimited(t0: int, horizon: int) -> Solution:
    """The game without a turn limit, from the limit t0 + 1 + horizon read with turns mapped by
    parity from t0 on (valid when t0 and horizon come from `reach_period`/`win_settles` and
    `settled_horizon`: every win there takes at most `horizon` turns)."""
    finite = solve(t0 + 1 + horizon, t0)
    return Solution(finite.turn_limit, t0, True, finite.starts)
