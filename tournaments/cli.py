"""The `parlour` command: run a tournament on a Parlour server or in this process, and show its results;
check a match export offline.

parlour tournament rockem_sockem random easy medium --local --plot ratings.png
parlour tournament sundae_split random easy easy medium hard --players 5 --server http://127.0.0.1:8000
parlour tournament icecream easy medium bot:BOT_ID --turn-timer 10 --server http://127.0.0.1:8000
parlour verify match.json

The progress bar (tqdm) and the plot (matplotlib) come with the `tools` extra: pip install 'parlour[tools]'.
"""

from __future__ import annotations

import argparse
import importlib
import json
import secrets
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from model.tournament import FORMATS, ROUND_ROBIN, EntrantRequest
from tournaments.client import ServerError, TournamentBody, TournamentClient
from tournaments.standings_table import render

if TYPE_CHECKING:
    from domain.tournaments.director import TournamentJson
    from tournaments.local import LocalResult
    from tournaments.standings_table import TournamentResult

POLL_SECONDS = 0.5
TOOLS = "pip install 'parlour[tools]'"
CANCELLED = "cancelled"
ENDED = ("finished", CANCELLED)
EPILOG = """\
entrants: a built-in AI level (random, easy, medium, hard; perfect where the game has it) or
bot:ID for a bot registered on the server (POST /v1/bots). A level may enter several times.
--seed is for AI levels only: with a bot among the entrants the server draws the seed.
On a server, Ctrl-C cancels the tournament (its owner token is printed at the start) and
prints the standings so far; the exit status is then 1.

examples:
  parlour tournament rockem_sockem random easy medium --local --plot ratings.png
  parlour tournament sundae_split random easy easy medium hard --players 5 --local
  parlour tournament freeze_factory random easy --players 2 --format swiss --rounds 3 --server http://127.0.0.1:8000
  parlour tournament icecream easy bot:3f2a... --turn-timer 10 --server http://127.0.0.1:8000
"""


def parser() -> argparse.ArgumentParser:
    """The command line: `parlour tournament GAME ENTRANT... (--server URL | --local) [options]`."""
    top = argparse.ArgumentParser(prog="parlour", description="Parlour's command-line tool.")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = commands.add_parser(
        "tournament",
        help="run a tournament and print its standings",
        description="Run a tournament between AI levels (and bots, on a server), with a progress bar; "
        "print the standings, ratings and crosstable at the end.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("game", help="the game id, e.g. rockem_sockem, sundae_split, icecream, freeze_factory")
    run.add_argument("entrants", nargs="+", metavar="ENTRANT", help="an AI level, or bot:ID (server only)")
    where = run.add_mutually_exclusive_group(required=True)
    where.add_argument("--server", metavar="URL", help="create the tournament on this Parlour server and follow it")
    where.add_argument("--local", action="store_true", help="play it in this process (AI levels only, no server)")
    run.add_argument("--players", type=int, help="players per match (default: 2, or the game's minimum)")
    run.add_argument("--format", choices=FORMATS, default=ROUND_ROBIN, help="default: %(default)s")
    run.add_argument("--rounds", type=int, help="Swiss rounds (default: log2 of the entrants, rounded up)")
    run.add_argument("--games-per-pairing", type=int, help="matches per pairing, seats rotated (default: players)")
    run.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a game option (repeatable)")
    run.add_argument("--turn-timer", type=int, metavar="SECONDS", help="each seat's time to act (server only)")
    run.add_argument("--parallel", type=int, help="matches the server runs at once (default 8)")
    run.add_argument(
        "--seed", help="the tournament's seed, AI levels only (default: a random one; on a server, the server's)"
    )
    run.add_argument("--plot", metavar="FILE.png", help="save a plot of the ratings and their 95%% intervals")
    run.add_argument("--json", action="store_true", help="print the whole result as JSON instead of tables")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    check = commands.add_parser(
        "verify",
        help="check a match export offline: its seed, every action and its result",
        description="Replay a match export (GET /v1/matches/{id}/export) through the engine's checked path: "
        "sha256(seed) against the commitment, every log entry in order, then the result. "
        "Exit 0 when it verifies, 1 when something differs (the first bad entry is named), "
        "2 when the file is not an export.",
    )
    check.add_argument("file", metavar="FILE", help="the export's JSON file, or - for standard input")
    return top


def option_value(text: str) -> tuple[str, Any]:
    """`name=value` with value read as JSON when it is JSON (numbers, true/false), as text otherwise."""
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise SystemExit(f"parlour: --option takes NAME=VALUE, not {text!r}")
    try:
        return name, json.loads(raw)
    except ValueError:
        return name, raw


def entrant_spec(text: str) -> EntrantRequest:
    """An entrant as the API takes it: `easy` -> an AI level, `bot:ID` -> a registered bot."""
    if text.startswith("bot:"):
        return {"type": "bot", "bot": text.removeprefix("bot:")}
    return {"type": "ai", "level": text}


def request_of(args: argparse.Namespace) -> TournamentBody:
    """The body of POST /v1/tournaments from the command line (a server draws the seed unless one is given)."""
    request: TournamentBody = {
        "game": args.game,
        "entrants": [entrant_spec(text) for text in args.entrants],
        "format": args.format,
        "options": dict(option_value(text) for text in args.option),
    }
    if args.seed is not None:
        request["seed"] = args.seed
    if args.players is not None:
        request["players"] = args.players
    if args.rounds is not None:
        request["rounds"] = args.rounds
    if args.games_per_pairing is not None:
        request["games_per_pairing"] = args.games_per_pairing
    if args.parallel is not None:
        request["parallel"] = args.parallel
    if args.turn_timer is not None:
        request["turn_timer"] = {"seconds": args.turn_timer}
    return request


def require_tool(module: str, purpose: str) -> None:
    """Exit with one line saying how to install a module of the `tools` extra that the command needs."""
    try:
        importlib.import_module(module)
    except ImportError:
        raise SystemExit(f"parlour: {purpose} needs {module}, which is not installed: {TOOLS}") from None


def run_local(request: TournamentBody, quiet: bool) -> LocalResult:
    """Play the tournament in process with a progress bar; its result in the API's form."""
    from tqdm import tqdm

    from domain.tournaments.setup import build_plan
    from tournaments.local import result_json, run

    if any(spec["type"] == "bot" for spec in request["entrants"]):
        raise SystemExit("parlour: bots play only on a server: use --server URL")
    if "turn_timer" in request:
        raise SystemExit("parlour: --turn-timer needs a server (local AI levels never run out of time)")
    # Locally a random seed is drawn here; a server draws its own, secret until the end (and the
    # only one it takes when a bot enters).
    seed = request["seed"] if "seed" in request else secrets.token_hex(8)
    plan = build_plan({**request, "seed": seed})
    with tqdm(total=plan.total_matches(), unit="match", disable=quiet, file=sys.stderr) as bar:

        def progress(done: int, total: int) -> None:
            bar.update(done - bar.n)

        slots, outcomes = run(plan, progress)
    return result_json(plan, slots, outcomes)


def run_server(url: str, request: TournamentBody, quiet: bool) -> TournamentJson:
    """Create the tournament on the server and follow it to its end with a progress bar.

    Ctrl-C cancels it on the server with its owner token (the standings so far are printed);
    so does its owner elsewhere, with the token printed here.
    """
    from tqdm import tqdm

    client = TournamentClient(url)
    body, owner_token = client.create(request)
    print(f"tournament {body['id']}: {client.base}{body['url']} (owner token: {owner_token})", file=sys.stderr)
    with tqdm(total=body["progress"]["total"], unit="match", disable=quiet, file=sys.stderr) as bar:
        try:
            while True:
                bar.update(body["progress"]["done"] - bar.n)
                if body["status"] == "waiting":  # bot entrants have not all accepted their challenge yet
                    bar.set_postfix_str(f"waiting for bots to accept, until {body.get('challenge_expires_at')}")
                else:
                    bar.set_postfix_str(f"round {body['progress']['round']}/{body['progress']['rounds']}")
                if body["status"] == "aborted":
                    raise ServerError(f"tournament {body['id']} was aborted: {body.get('abort_reason')}")
                if body["status"] in ENDED:
                    break
                time.sleep(POLL_SECONDS)
                body = client.get(body["id"])
        except KeyboardInterrupt:
            body = client.cancel(body["id"], owner_token)
    if body["status"] == CANCELLED:
        print(f"tournament {body['id']} was cancelled: the standings so far", file=sys.stderr)
    return body


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; 0 on success, 1 for a tournament cancelled or an export that does not verify,
    2 for a request the server or the plan refused or a file that is not an export."""
    args = parser().parse_args(argv)
    if args.command == "verify":
        from domain.matches.verify import run as verify

        return verify(args.file)
    require_tool("tqdm", "the progress bar")
    if args.plot:
        require_tool("matplotlib", "--plot")
    request = request_of(args)
    result: TournamentResult
    try:
        result = run_server(args.server, request, args.quiet) if args.server else run_local(request, args.quiet)
    except ServerError as error:
        print(f"parlour: {error}", file=sys.stderr)
        return 2
    except ValueError as error:  # a PlanError: the same words the server would answer with
        print(f"parlour: {error}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2) if args.json else render(result))
    if args.plot:
        from tournaments.plot import plot_ratings

        plot_ratings(result, args.plot)
        print(f"ratings plotted to {args.plot}", file=sys.stderr)
    return 1 if result.get("status") == CANCELLED else 0


if __name__ == "__main__":
    raise SystemExit(main())
