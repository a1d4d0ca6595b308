"""The boardgame.io peer's Node side (loadtests/peer): its packages installed once, and its server started.

`ensure_installed()` runs `npm ci` in loadtests/peer only when package.json or package-lock.json is newer
than the stamp the last install left (as the Makefile's .venv stamp does), so repeated runs reuse
node_modules. `start_server()` starts `node server.js` on a free loopback port and waits for the line
it prints once it listens.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import IO

PEER_DIR = Path(__file__).resolve().parent / "peer"
STAMP = PEER_DIR / "node_modules" / ".parlour-installed"
LOCK = PEER_DIR / ".install-lock"
MANIFESTS = (PEER_DIR / "package.json", PEER_DIR / "package-lock.json")
INSTALL_TIMEOUT = 600.0  # seconds `npm ci` may take on a slow registry
STORAGES = ("memory", "flatfile")


class NodeMissing(RuntimeError):
    """node or npm is not on PATH."""


def missing_tools() -> list[str]:
    """Which of node and npm are not on PATH."""
    return [tool for tool in ("node", "npm") if shutil.which(tool) is None]


def ensure_installed() -> None:
    """`npm ci` in loadtests/peer unless its stamp is newer than both manifests."""
    missing = missing_tools()
    if missing:
        raise NodeMissing(f"{' and '.join(missing)} not found (Debian: apt-get install nodejs npm)")
    with LOCK.open("w") as lock:  # two test processes, or a test and the benchmark, install once
        fcntl.flock(lock, fcntl.LOCK_EX)
        if STAMP.exists() and all(STAMP.stat().st_mtime >= manifest.stat().st_mtime for manifest in MANIFESTS):
            return
        command = ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel", "error"]
        done = subprocess.run(
            command, cwd=PEER_DIR, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"npm ci in {PEER_DIR} failed:\n{done.stdout}{done.stderr}")
        STAMP.touch()


@dataclass
class PeerServer:
    """A running `node server.js`: its process, port and storage."""

    process: subprocess.Popen[bytes]
    port: int
    storage: str

    @property
    def url(self) -> str:
        """Its base URL on loopback."""
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Stop it (SIGTERM, then SIGKILL after 10 s) and reap it."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_server(storage: str, folder: Path | None = None, log: IO[bytes] | None = None) -> PeerServer:
    """Start boardgame.io serving IceCream with `storage` (FlatFile in `folder`); return once it listens."""
    if storage not in STORAGES:
        raise ValueError(f"storage must be one of {STORAGES}")
    command = ["node", str(PEER_DIR / "server.js"), "--port", "0", "--storage", storage]
    if storage == "flatfile":
        if folder is None:
            raise ValueError("FlatFile storage needs a folder")
        command += ["--dir", str(folder)]
    process = subprocess.Popen(
        command, cwd=PEER_DIR, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log or subprocess.DEVNULL
    )
    assert process.stdout is not None
    line = process.stdout.readline()  # the server's one line once it listens; EOF if it died
    if not line:
        process.wait()
        raise RuntimeError(f"boardgame.io's server ({storage}) exited with code {process.returncode} before listening")
    ready = json.loads(line)
    return PeerServer(process, int(ready["port"]), storage)
