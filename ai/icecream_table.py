"""IceCream's solution solved once and stored in ai/tables/icecream_solution.bin (204 KB), read in ~0.1 s.

Under a turn limit L the values at the start of turn t depend on t and on the turns after it,
d = L - t, and on nothing else (the limit enters only through `Solution.terminal`). The table
holds F(t, d), every arrangement's value at the start of turn t with d turns after it:
- From T0 = STATIONARY_FROM on, a turn acts like T0 or T0 + 1 of the same parity (see
  `Solution.budget`) with every value moved by the turns between them, so F(t, d) for t > T0 + 1
  is F(T0 or T0 + 1, d) read at turn t. Values are stored relative to their turn (`encode`),
  which makes that move free; the table has turns 1..T0 + 1.
- F(T0, d + 1) is one turn of backward induction from F(T0 + 1, d) and the other way round;
  the build goes on until F(t, D + 2) == F(t, D) for both, so from D on (`periodic_from`) they
  repeat with period 2 for ever (the build finds D = 0). Below T0, F(t, d) comes from F(t + 1, d - 1), so it repeats
  from d = T0 - t + D on; the table keeps d up to one past that.
A limit L reads F(t, L - t); the game without a limit reads the limit T0 + 1 + SETTLED_HORIZON
read as `solve_unlimited` does. Both answer exactly as a fresh solve (tests/ai/test_icecream_table.py).

The file: a magic line, a JSON header (format, fingerprint of the solver's inputs, D, the
payload's SHA-256) and the zlib payload: per turn a block of byte a * depth + d, so that
F(t, d) is one slice. A missing, corrupt or stale file raises `TableError` saying how to rebuild
it (`python -m lab.solve_icecream --build`, about 4 minutes); it is never read as something else.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from ai.icecream_solver import (
    FLAVOURS,
    HORIZON,
    MOVABLE,
    SOLVER_VERSION,
    Solution,
    graph,
    solve,
    solve_unlimited,
    turn_rows,
)
from engine.icecream.game import FIXED_BOTTOM, STACK_SIZE

# From `python -m lab.solve_icecream`: reachable sets repeat with period 2 from 31 points, and
# from turn 31 every position is decided within one turn, so tables of turns 31/32 serve all later turns.
STATIONARY_FROM = 31
SETTLED_HORIZON = 1
UNLIMITED_AS = STATIONARY_FROM + 1 + SETTLED_HORIZON
"""The finite limit whose tables the game without a limit reads (see `solve_unlimited`)."""
LAST_STORED_TURN = STATIONARY_FROM + 1

DEFAULT_PATH = Path(__file__).resolve().parent / "tables" / "icecream_solution.bin"
MAGIC = b"parlour icecream solution\n"
FORMAT = 1
REBUILD = "rebuild it with `python -m lab.solve_icecream --build` (about 4 minutes on one core)"
MAX_CHAIN = 64
"""Give up the build if turns T0 and T0 + 1 do not repeat within this many turns after them."""


class TableError(ValueError):
    """The stored solution is missing, corrupt or built from other solver inputs."""


def solve_fresh(turn_limit: int) -> Solution:
    """The solution solved in this process, as before the table (12-49 s without a limit)."""
    if turn_limit == 0:
        return solve_unlimited(STATIONARY_FROM, SETTLED_HORIZON)
    return solve(turn_limit, stationary_from(turn_limit))


def stationary_from(turn_limit: int) -> int | None:
    """What `solve` is given for a finite limit: turns past T0 + 1 exist only above it."""
    return STATIONARY_FROM if turn_limit > STATIONARY_FROM + 1 else None


def fingerprint() -> str:
    """SHA-256 of what the stored values depend on; a table with another one is stale."""
    order = "/".join(f"{a},{b}" for a, b in graph().arrangements)
    inputs = {
        "solver": SOLVER_VERSION,
        "movable": MOVABLE,
        "flavours": FLAVOURS,
        "horizon": HORIZON,
        "fixed_bottom": FIXED_BOTTOM,
        "stack": STACK_SIZE,
        "stationary_from": STATIONARY_FROM,
        "settled_horizon": SETTLED_HORIZON,
        "arrangements": hashlib.sha256(order.encode()).hexdigest(),
    }
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()


def encode(values: list[int], turn: int) -> bytes:
    """One signed byte per value, relative to `turn`: k > 0 a win at turn + k - 1, -k that loss, 0 a draw."""
    out = bytearray(len(values))
    for i, value in enumerate(values):
        ends = HORIZON - abs(value)
        k = 0 if value == 0 else (ends - turn + 1) * (1 if value > 0 else -1)
        if value and not 1 <= abs(k) <= 127:
            raise ValueError(f"value {value} at turn {turn} does not fit a byte")
        out[i] = k & 0xFF
    return bytes(out)


def decoder(turn: int) -> list[int]:
    """byte -> value at `turn` (the inverse of `encode`)."""
    table = [0] * 256
    for k in range(1, 128):
        table[k], table[256 - k] = HORIZON - (turn + k - 1), -(HORIZON - (turn + k - 1))
    return table


def decode(data: bytes, turn: int) -> list[int]:
    """The values at `turn` of one encoded vector."""
    return list(map(decoder(turn).__getitem__, data))


def depth(turn: int, periodic_from: int) -> int:
    """How many d the table keeps for a turn: up to one past where F(turn, d) repeats."""
    return max(STATIONARY_FROM - turn, 0) + periodic_from + 2


class SolvedTable:
    """F(t, d) for every arrangement, t = 1..T0 + 1, d up to `depth`, one payload of bytes."""

    def __init__(self, periodic_from: int, payload: bytes) -> None:
        self.periodic_from = periodic_from
        self.payload = payload
        self.size = graph().size
        self.offsets: dict[int, int] = {}
        offset = 0
        for turn in range(1, LAST_STORED_TURN + 1):
            self.offsets[turn] = offset
            offset += depth(turn, periodic_from) * self.size
        if offset != len(payload):
            raise TableError(f"the stored solution holds {len(payload)} bytes, not {offset}: {REBUILD}")

    def stored(self, turn: int, turns_after: int) -> tuple[int, int]:
        """The (t, d) of the table that stands for `turn` with `turns_after` turns after it."""
        t0 = STATIONARY_FROM
        t = turn if turn <= t0 + 1 else t0 + (turn - t0) % 2
        cap = depth(t, self.periodic_from) - 2
        d = turns_after if turns_after <= cap + 1 else cap + (turns_after - cap) % 2
        return t, d

    def vector(self, turn: int, turns_after: int) -> bytes:
        """F(turn, turns_after), encoded relative to `turn`."""
        if turn < 1 or turns_after < 0:
            raise ValueError(f"no turn {turn} with {turns_after} turns after it")
        t, d = self.stored(turn, turns_after)
        start, step = self.offsets[t], depth(t, self.periodic_from)
        return self.payload[start + d : start + step * self.size : step]

    def start_values(self, turn: int, turns_after: int) -> list[int]:
        """Every arrangement's value at the start of `turn` with `turns_after` turns after it."""
        return decode(self.vector(turn, turns_after), turn)

    def solution(self, turn_limit: int) -> Solution:
        """The `Solution` for a turn limit (0: none), equal to `solve_fresh(turn_limit)`."""
        if turn_limit < 0:
            raise ValueError("a turn limit is 0 (none) or more")
        if turn_limit == 0:
            return Solution(UNLIMITED_AS, STATIONARY_FROM, True, TurnStarts(self, UNLIMITED_AS))
        return Solution(turn_limit, stationary_from(turn_limit), starts=TurnStarts(self, turn_limit))


class TurnStarts(Mapping[int, list[int]]):
    """turn -> start values under one turn limit, decoded when read (the last few kept)."""

    def __init__(self, table: SolvedTable, turn_limit: int) -> None:
        self.table = table
        self.turn_limit = turn_limit
        self.decoded: dict[int, list[int]] = {}

    def __getitem__(self, turn: int) -> list[int]:
        """The values at the start of `turn`."""
        if not 1 <= turn <= self.turn_limit:
            raise KeyError(turn)
        if turn not in self.decoded:
            if len(self.decoded) >= 4:
                self.decoded.pop(next(iter(self.decoded)))
            self.decoded[turn] = self.table.start_values(turn, self.turn_limit - turn)
        return self.decoded[turn]

    def __len__(self) -> int:
        """One entry per turn."""
        return self.turn_limit

    def __iter__(self) -> Iterator[int]:
        """Turns 1..limit."""
        return iter(range(1, self.turn_limit + 1))


def build(report: Callable[[str], None] | None = None) -> SolvedTable:
    """Solve every F(t, d) the table keeps by backward induction (about 4 minutes)."""
    values: dict[tuple[int, int], bytes] = {}
    periodic_from = _build_stationary_turns(values, report)
    for turn in range(STATIONARY_FROM - 1, 0, -1):
        for d in range(depth(turn, periodic_from)):
            values[turn, d] = one_turn(turn, None if d == 0 else values[turn + 1, d - 1])
        if report:
            report(f"turn {turn}: {depth(turn, periodic_from)} tables")
    return SolvedTable(periodic_from, _payload(values, periodic_from))


def _build_stationary_turns(values: dict[tuple[int, int], bytes], report: Callable[[str], None] | None) -> int:
    """Fill F(T0, d) and F(T0 + 1, d) until both repeat with period 2; the first d of the repeat."""
    t0, t1 = STATIONARY_FROM, STATIONARY_FROM + 1
    values[t0, 0], values[t1, 0] = one_turn(t0, None), one_turn(t1, None)
    for d in range(1, MAX_CHAIN):
        # Turn T0 + 2 is read as T0: relative values need no shift.
        values[t0, d], values[t1, d] = one_turn(t0, values[t1, d - 1]), one_turn(t1, values[t0, d - 1])
        if report:
            report(f"turns {t0}/{t1} with {d} turn(s) after")
        if d >= 2 and values[t0, d] == values[t0, d - 2] and values[t1, d] == values[t1, d - 2]:
            del values[t0, d], values[t1, d]
            return d - 2
    raise RuntimeError(f"turns {t0} and {t1} did not repeat within {MAX_CHAIN} turns: no table")


def one_turn(turn: int, after: bytes | None) -> bytes:
    """F(turn, d) from F(turn + 1, d - 1) (encoded at turn + 1), or with no turn after it (None)."""
    size = graph().size
    terminal = [0] * (size + 1) if after is None else [-v for v in decode(after, turn + 1)] + [0]
    budget = Solution(turn, STATIONARY_FROM).budget(turn)
    return encode(turn_rows(turn, budget, terminal)[-1][:-1], turn)


def _payload(values: dict[tuple[int, int], bytes], periodic_from: int) -> bytes:
    """Every turn's block, arrangement-major so that F(t, d) is the slice [d::depth]."""
    blocks = []
    for turn in range(1, LAST_STORED_TURN + 1):
        n = depth(turn, periodic_from)
        block = bytearray(n * graph().size)
        for d in range(n):
            block[d::n] = values[turn, d]
        blocks.append(bytes(block))
    return b"".join(blocks)


def to_bytes(table: SolvedTable) -> bytes:
    """The file's bytes: magic, header line, compressed payload."""
    payload = zlib.compress(table.payload, 9)
    header = {
        "format": FORMAT,
        "fingerprint": fingerprint(),
        "periodic_from": table.periodic_from,
        "payload_sha256": hashlib.sha256(payload).hexdigest(),
    }
    return MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + payload


def from_bytes(data: bytes, source: str = "the stored solution") -> SolvedTable:
    """Check and read a file's bytes; `TableError` if they are not a table for this solver."""
    if not data.startswith(MAGIC) or b"\n" not in data[len(MAGIC) :]:
        raise TableError(f"{source} is not an IceCream solution file: {REBUILD}")
    line, payload = data[len(MAGIC) :].split(b"\n", 1)
    try:
        header = json.loads(line)
        periodic_from = int(header["periodic_from"])
    except (ValueError, KeyError, TypeError) as error:
        raise TableError(f"{source} has an unreadable header ({error}): {REBUILD}") from None
    if header.get("format") != FORMAT or header.get("fingerprint") != fingerprint():
        raise TableError(f"{source} is stale: it was built from other solver inputs or another format; {REBUILD}")
    if hashlib.sha256(payload).hexdigest() != header.get("payload_sha256"):
        raise TableError(f"{source} is corrupt (checksum mismatch): {REBUILD}")
    try:
        return SolvedTable(periodic_from, zlib.decompress(payload))
    except zlib.error as error:
        raise TableError(f"{source} is corrupt ({error}): {REBUILD}") from None


def read(path: Path = DEFAULT_PATH) -> SolvedTable:
    """The stored table; `TableError` if the file is missing, corrupt or stale."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise TableError(f"{path} is missing: {REBUILD}") from None
    return from_bytes(data, str(path))


def write(table: SolvedTable, path: Path = DEFAULT_PATH) -> int:
    """Write the table atomically (a reader never sees half a file); the bytes written."""
    data = to_bytes(table)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + f".{os.getpid()}.partial")
    partial.write_bytes(data)
    os.replace(partial, path)
    return len(data)


def mismatches(table: SolvedTable, cells: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The (t, d) among `cells` whose stored F(t, d) is not one turn of backward induction from
    the stored F(t + 1, d - 1) (or from no turn after it, d = 0): spot checks of a table."""
    wrong = []
    for turn, d in cells:
        after = None if d == 0 else table.vector(turn + 1, d - 1)
        if table.vector(turn, d) != one_turn(turn, after):
            wrong.append((turn, d))
    return wrong
