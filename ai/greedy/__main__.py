"""`python -m ai.greedy`: greedy against random (see ai/greedy/versus.py)."""

from __future__ import annotations

from ai.greedy.versus import main

if __name__ == "__main__":
    main()
