"""``python -m experiments.figures [--results DIR]``: the plot stage of :mod:`bandits.experiments.figures`."""

from bandits.experiments.plots.stage import main

main()
