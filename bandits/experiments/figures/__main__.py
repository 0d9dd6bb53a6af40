"""``python -m bandits.experiments.figures [--results DIR]``: the plot stage under the name it was
documented by; an entry point, not part of the drawing library (:mod:`bandits.experiments.plots`)."""

import sys

from bandits.experiments.plots.stage import main

sys.exit(main())
