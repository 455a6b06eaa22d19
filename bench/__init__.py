"""Benchmarks: ``python bench/run.py`` measures codetest against the bare floor (see docs/bench.md)."""
