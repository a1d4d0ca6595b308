"""`python -m ai.greedy`: greedy against random (see lab/greedy_versus.py)."""

from __future__ import annotations

from lab.greedy_versus import main

if __name__ == "__main__":
    main()
