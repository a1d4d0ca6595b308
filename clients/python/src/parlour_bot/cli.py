"""The `parlour-bot` command.

    parlour-bot run bot.toml [--url URL] [--matches N]     play (until N matches are over; default: forever)
    parlour-bot check bot.toml [--url URL] [--against ai:easy]   the engine through adversity, then a report
    parlour-bot register NAME --url URL [--token-file bot.token] register a bot, print its id (and token)

A config mistake is one line naming the key and what is wrong (exit 2), never a traceback.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import FrameType

from parlour_client import Client, ProblemError

from parlour_bot.check import Adversity, run_check
from parlour_bot.config import TRANSPORTS, BotConfig, ConfigError, load_config
from parlour_bot.engines import Engine, EngineError, load_engine
from parlour_bot.runner import Runner

PROG = "parlour-bot"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script."""
    parser = argparse.ArgumentParser(prog=PROG, description="A Parlour bot: one config, one engine class.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="play: accept challenges, join pools when idle, play every match")
    run.add_argument("config", type=Path, help="the bot's TOML config")
    run.add_argument("--url", help="the server's base URL (default: the config's)")
    run.add_argument("--matches", type=int, help="exit once this many matches are over")
    run.add_argument(
        "--transport",
        choices=TRANSPORTS,
        help="auto (the WebSocket when there is one), socket, or http (the event stream and POST); default: "
        "the config's, or PARLOUR_BOT_TRANSPORT",
    )
    check = commands.add_parser("check", help="play the engine through adversity on a local server, then report")
    check.add_argument("config", type=Path, help="the bot's TOML config (its engine and games)")
    check.add_argument("--url", help="the server's base URL (default: the config's)")
    check.add_argument("--against", default="self", help="self (the bot in every seat) or ai:<level>")
    check.add_argument("--game", action="append", help="game:players to play (default: the config's games)")
    check.add_argument("--storm", type=int, default=8, help="requests answered 429 in the storm (0: none)")
    check.add_argument("--outage", type=float, default=3.0, help="seconds the server is down (0: none)")
    check.add_argument("--slow", type=float, default=4.0, help="seconds one answer is held (0: none)")
    check.add_argument("--timeout", type=float, default=180.0, help="seconds the matches may take")
    register = commands.add_parser("register", help="register a bot and print its id and token")
    register.add_argument("name")
    register.add_argument("--url", required=True, help="the server's base URL")
    register.add_argument(
        "--token-file", type=Path, help="write the token to this file (mode 600) instead of printing it"
    )
    args = parser.parse_args(argv)
    try:
        if args.command == "register":
            return register_bot(args.name, args.url, args.token_file)
        config = load_config(args.config, url=args.url)
        setup_logging(config.log_level)
        engine = load_engine(config.engine.path, config.engine.options, config.engine.base)
        if args.command == "check":
            games = [parse_game(text) for text in args.game] if args.game else config_games(config)
            adversity = Adversity(storm=args.storm, outage=args.outage, slow=args.slow)
            report = run_check(
                config, engine, games=games, against=args.against, adversity=adversity, timeout=args.timeout
            )
            print(report.text())
            return 1 if report.problems() else 0
        if args.transport:
            config = replace(config, transport=args.transport)
        return run_bot(config, engine, args.matches)
    except ConfigError as error:
        print(f"{PROG}: config error: {error}", file=sys.stderr)
        return 2
    except EngineError as error:
        print(f"{PROG}: engine error: {error}", file=sys.stderr)
        return 2
    except ProblemError as error:
        print(f"{PROG}: the server refused: {error}", file=sys.stderr)
        return 1


def run_bot(config: BotConfig, engine: Engine, matches: int | None) -> int:
    """Run until done; SIGTERM and SIGINT stop cleanly (the matchmaking tickets cancelled)."""
    runner = Runner(config, engine, matches=matches)

    def stop(signum: int, frame: FrameType | None) -> None:
        runner.stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    return runner.run()


def register_bot(name: str, url: str, token_file: Path | None) -> int:
    """Register a bot; print `{"bot", "name"}` and the token (or write the token to `token_file`)."""
    with Client(url) as client:
        bot = client.register_bot(name)
    answer = {"bot": bot["id"], "name": bot["name"]}
    if token_file is None:
        answer["token"] = bot["token"]
    else:
        token_file.write_text(bot["token"] + "\n")
        os.chmod(token_file, 0o600)
    print(json.dumps(answer), flush=True)
    return 0


def parse_game(text: str) -> tuple[str, int]:
    """`game:players`."""
    game, _, players = text.partition(":")
    if not players.isdigit():
        raise ConfigError("--game", f"{text!r} is not game:players (such as icecream:2)")
    return game, int(players)


def config_games(config: BotConfig) -> list[tuple[str, int]]:
    """The games the config accepts, each for its smallest accepted player count (IceCream for 2 when none)."""
    games = config.challenges.games or {"icecream": None}
    return [(game, min(counts) if counts else default_players(game)) for game, counts in games.items()]


def default_players(game: str) -> int:
    """A player count every game takes: 2, but 3 for Sundae Split's check (its Splitter and two choosers)."""
    return 3 if game == "sundae_split" else 2


def setup_logging(level: str) -> None:
    """One line per message on stderr: time, level, message."""
    logging.basicConfig(
        level=getattr(logging, level.upper()),
        format="%(asctime)s parlour-bot %(levelname)s %(message)s",
        stream=sys.stderr,
    )
    for chatty in ("httpx", "httpcore"):
        logging.getLogger(chatty).setLevel(logging.WARNING)
