"""``python -m bandits.experiments.docs [--results DIR] [--out DIR]``: the docs stage
(:mod:`bandits.experiments.docs.render`)."""

import sys

from bandits.experiments.docs.render import main

sys.exit(main())
