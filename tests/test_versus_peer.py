"""loadtests.versus_peer's arithmetic: a row's moves from Locust's CSV, CPU per move, medians and the report."""

from __future__ import annotations

from pathlib import Path

from loadtests import versus_peer
from loadtests.versus_peer import Row, Sample

STATS = """\
Type,Name,Request Count,Failure Count,Median Response Time,Average Response Time,Min Response Time,\
Max Response Time,Average Content Size,Requests/s,Failures/s,50%,66%,75%,80%,90%,95%,98%,99%,99.9%,99.99%,100%
POST,/games/icecream/create,10,0,38,61,2,381,25,5,0,38,50,70,90,140,180,240,330,380,380,380
SIO,move,1000,0,22,24,0.4,202,156,500,0,22,27,31,34,42,52,65,75,140,200,200
,Aggregated,1010,1,22,25,0.4,381,153,505,0,22,28,32,34,43,52,66,81,170,330,380
"""


def icecream_rows() -> dict[str, Row]:
    return {row.label: row for row in versus_peer.rows_for(["icecream"])}


def test_a_sample_counts_the_move_row_and_gives_cpu_per_move(tmp_path: Path) -> None:
    stats = tmp_path / "run_stats.csv"
    stats.write_text(STATS)
    sample = versus_peer.read_sample(stats, versus_peer.SOCKET_IO_MOVE, (0.5, 0.0, 0.25))
    assert (sample.moves, sample.moves_per_second, sample.p50_ms, sample.p95_ms) == (1000, 500, 22, 52)
    assert sample.requests_per_move == 1.01 and sample.failures == 1
    assert (sample.server_us, sample.redis_us, sample.locust_us) == (500, 0, 250)


def test_icecream_has_its_five_rows_and_another_game_three() -> None:
    assert list(icecream_rows()) == [
        "Parlour HTTP",
        "Parlour HTTP + stream",
        "Parlour WebSocket",
        "boardgame.io in memory",
        "boardgame.io FlatFile",
    ]
    other = versus_peer.rows_for(["sundae_split"])
    assert [row.label for row in other] == ["Parlour HTTP", "Parlour HTTP + stream", "Parlour WebSocket"]
    assert other[1].user_class == "SundaeSplitStreamPlayer"


def sample(moves_per_second: float, server_us: float, redis_us: float = 0) -> Sample:
    return Sample(moves_per_second, 1, 2, 100, 1.0, 0, server_us, redis_us, 100)


def test_the_report_prints_medians_the_goals_and_why_a_row_is_absent() -> None:
    rows = icecream_rows()
    results = {
        rows["Parlour HTTP"]: [sample(100, 2000), sample(300, 1000), sample(200, 1500)],
        rows["Parlour HTTP + stream"]: [],
        rows["Parlour WebSocket"]: [],
        rows["boardgame.io in memory"]: [sample(1000, 200)],
        rows["boardgame.io FlatFile"]: [sample(250, 1000)],
    }
    absent = {rows["Parlour WebSocket"]: "GET /v1/socket does not upgrade"}
    text = versus_peer.report(list(rows.values()), results, absent)
    assert "icecream Parlour HTTP" in text and "     200" in text  # the median of 100, 300 and 200
    assert "absent: GET /v1/socket does not upgrade" in text
    assert "Parlour HTTP / boardgame.io FlatFile, moves/s: 0.80 (goal, at one request per move: at least 1)" in text
    assert "Parlour WebSocket / boardgame.io in memory" not in text  # no WebSocket figures to compare
