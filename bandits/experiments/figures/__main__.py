"""``python -m bandits.experiments.figures [--results DIR]``: the plot stage (see the package docstring)."""

from bandits.experiments.figures.stage import main

main()
