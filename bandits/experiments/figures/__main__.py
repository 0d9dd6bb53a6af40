"""``python -m bandits.experiments.figures [--results DIR]``: the plot stage (see the package docstring)."""

import sys

from bandits.experiments.figures.stage import main

sys.exit(main())
