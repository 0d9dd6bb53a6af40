"""Writes examples/two_arms.csv, the problem of the README's `env=table` example: two arms
over 2,000 rounds, one drifting slowly, the other switching once (columns mean_0, mean_1:
the expected reward of each arm at each round; the runner adds Gaussian noise of sd env.R).

    python examples/make_problem.py
"""

from pathlib import Path

import numpy as np
import pandas as pd

T = 2000
t = np.arange(T)
frame = pd.DataFrame({"mean_0": 0.5 + 0.2 * np.sin(2 * np.pi * t / T),
                      "mean_1": np.where(t < T // 2, 0.4, 0.6)})
frame.round(4).to_csv(Path(__file__).with_name("two_arms.csv"), index=False)
