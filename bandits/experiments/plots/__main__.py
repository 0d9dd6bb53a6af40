"""``python -m bandits.experiments.plots [--results DIR]``: the plot stage (:mod:`bandits.experiments.plots.stage`)."""

import sys

from bandits.experiments.plots.stage import main

sys.exit(main())
