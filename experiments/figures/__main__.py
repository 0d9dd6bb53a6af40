"""``python -m experiments.figures [--results DIR]``: the plot stage (see the package docstring)."""

from experiments.figures.stage import main

main()
