"""Experiment runner, result store, summaries, figures and benchmarks."""
