"""Choose ILTCB's ``practical`` C_scale on a tuning instance that no experiment uses.

    python scripts/tune_iltcb.py

Tuning instance: drifting_contextual, switching, 3 pieces, K = 5, d = 10, N = 500,
T = 1e5, root seed 99 (experiments use seeds 0-20), 3 trials. Prints the mean
final regret for each candidate; the smallest is written into PRESETS by hand.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bandits.contextual.iltcb import ILTCB  # noqa: E402
from bandits.environments import DriftingContextual  # noqa: E402

T = 100_000
env = DriftingContextual(n_pieces=3)
inst = env.instance(T, np.random.default_rng(99))
for scale in (1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1.0):
    regrets = []
    for trial in range(3):
        rewards = env.rewards(inst, np.random.default_rng(1000 + trial))
        actions = ILTCB(preset="theory", C_scale=scale).play(rewards, inst.info, np.random.default_rng(2000 + trial))
        regrets.append((inst.optimal - inst.means[np.arange(T), actions]).sum())
    print(f"C_scale={scale:g}: mean final regret {np.mean(regrets):.0f}")
