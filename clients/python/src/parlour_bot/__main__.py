"""`python -m parlour_bot`: the same as the `parlour-bot` command."""

from __future__ import annotations

import sys

from parlour_bot.cli import main

if __name__ == "__main__":
    sys.exit(main())
