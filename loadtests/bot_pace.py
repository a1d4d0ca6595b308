"""How fast an honest bot acts at full speed, against the default rate limits: the figure behind them.

    .venv/bin/python -m loadtests.bot_pace [--matches 8] [--game rockem_sockem] [--workers 2]

Starts the whole service with its default limits (no warm-up), registers a bot, seats it in
`--matches` matches at once against the `random` AI, lets the bot runner (`parlour-bot` with
RandomEngine, clients/python) play them all to the end, then prints the bot's actions per second (the
busiest second) and per minute (the busiest 60 s) from the matches' logs, beside the default
`PARLOUR_LIMIT_ACTIONS`, and whether the bot was ever refused `429` (the runner's client waits each one
out; its last log line counts them).
"""

from __future__ import annotations

import argparse
import bisect
import os
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from loadtests.ai_latency import running_service, stamp
from loadtests.benchmark import ROOT
from model.settings import LimitSettings

BOT_TIMEOUT = 900.0


def busiest(times: list[float], window: float) -> int:
    """The most timestamps within any `window` seconds."""
    times = sorted(times)
    return max((bisect.bisect_right(times, t + window) - i for i, t in enumerate(times)), default=0)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the bot against the service and print its pace."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--matches", type=int, default=8, help="matches the bot plays at once (default 8)")
    parser.add_argument("--game", default="rockem_sockem", help="the game (default rockem_sockem)")
    parser.add_argument("--workers", type=int, default=2, help="AI workers (default 2)")
    args = parser.parse_args(argv)
    with running_service(args.workers, warm_up=False, prefix="parlour-bot-pace-", limits={}) as service:
        bot = service.call("/v1/bots", {"name": "pace"})
        seats = [{"type": "bot", "bot": bot["id"]}, {"type": "ai", "level": "random"}]
        matches = [
            service.call("/v1/matches", {"game": args.game, "players": 2, "seats": seats}) for _ in range(args.matches)
        ]
        with tempfile.TemporaryDirectory(prefix="parlour-bot-pace-") as folder:
            config = Path(folder) / "bot.toml"
            config.write_text(
                f'url = "{service.base}"\ntoken_env = "PARLOUR_BOT_TOKEN"\nstate_dir = "state"\n'
                f"concurrency = {args.matches}\n[engine]\noptions = {{ seed = 1 }}\n"
            )
            env = {
                **os.environ,
                "PARLOUR_BOT_TOKEN": bot["token"],
                "PYTHONPATH": str(ROOT / "clients" / "python" / "src"),
            }
            command = [sys.executable, "-m", "parlour_bot", "run", str(config), "--matches", str(args.matches)]
            with tempfile.TemporaryFile() as output:
                code = subprocess.run(
                    command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT, timeout=BOT_TIMEOUT
                ).returncode
                output.seek(0)
                text = output.read().decode(errors="replace")
                refused = "429 x" in text
                if refused:
                    print(text.strip().splitlines()[-1])  # the runner's last line counts the answers it waited out
        times = []
        for match in matches:
            after: int | None = 0
            while after is not None:  # every page of the log, not only the first
                log = service.call(f"/v1/matches/{match['id']}/log?limit=500&after={after}")
                times += [stamp(entry["at"]) for entry in log["entries"] if entry["seat"] == 0]
                after = log["next_after"]
    per_second = Counter(int(t) for t in times)
    span = max(times) - min(times) if times else 0.0
    limit = LimitSettings().actions
    print(
        f"{args.game}, bot against random x {args.matches} at once, {args.workers} AI workers: "
        f"{len(times)} bot actions in {span:.0f} s ({len(times) / span if span else 0:.1f}/s on average); "
        f"busiest second {max(per_second.values(), default=0)}, busiest 60 s {busiest(times, 60.0)}; "
        f"default PARLOUR_LIMIT_ACTIONS {limit}; bot exit code {code}, refused: {'yes' if refused else 'no'}"
    )
    return 0 if code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
