"""Writes examples/two_arms.csv, the problem of the README's `env=table` example: two arms
over 2,000 rounds, one drifting slowly, the other switching once (columns mean_0, mean_1:
the expected reward of each arm at each round; the runner adds Gaussian noise of sd env.R).
And examples/three_classes.csv, the `env=contextual_table env.source=supervised` example:
1,200 rows of 3 Gaussian features (x0, x1, x2) and a label in {0, 1, 2} from a noisy
linear rule (the first 500 rows are held out to fit the policy class).

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

rng = np.random.default_rng(7)
X = rng.standard_normal((1200, 3)).round(4)
W = np.array([[1.5, 0.0, -0.5], [-1.0, 1.2, 0.3], [0.0, -1.0, 1.0]])
labels = (X @ W.T + 0.5 * rng.standard_normal((1200, 3))).argmax(axis=1)
classes = pd.DataFrame(X, columns=["x0", "x1", "x2"]).assign(label=labels)
classes.to_csv(Path(__file__).with_name("three_classes.csv"), index=False)
