"""``python -m experiments.figures [--results DIR]``: the plot stage of :mod:`bandits.experiments.plots`."""

from bandits.experiments.plots.stage import main

main()
