"""The benchmark baseline: per-seat MCTS on the `mcts` package (`MctsAgent`), with determinization.

Only the benchmarks play it (`python -m ai.strength --opponent determinized`, `python -m ai.speed`);
the levels play `ai.ismcts.IsmctsAgent`, and neither searcher imports the other.
"""
