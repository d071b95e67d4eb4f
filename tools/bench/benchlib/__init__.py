"""Pieces of tools/bench/run: one job per module (proc, variants, workloads, stats, extras, report)."""
