"""The benchmark baseline: per-seat MCTS on the `mcts` package (`MctsAgent`), with determinization.

Only the benchmarks play it (`python -m lab.ai_strength --opponent determinized`, `python -m lab.ai_speed`);
the levels play `ai.ismcts.IsmctsAgent`, and neither searcher imports the other.
"""
