"""Choose Ada-ILTCB+'s ``practical`` test constants on tuning instances no experiment uses.

    python scripts/tune_ada.py

Tuning instances: drifting_contextual (K = 5, d = 10, N = 500), T = 3e4, root seed 99:
one with 3 switching pieces and one stationary (a restart there is a false alarm).
C_scale is ILTCB's tuned value (1e-10); C0_scale stays 1. For each (D_scale, V_scale)
the score is the mean final regret over both instances and 2 trials; the smallest
score is written into PRESETS by hand. The printed table is the record.
"""

import itertools
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bandits.contextual.ada_iltcb_plus import AdaILTCBPlus  # noqa: E402
from bandits.environments import DriftingContextual  # noqa: E402

T = 30_000
instances = []
for pieces in (3, 1):
    env = DriftingContextual(n_pieces=pieces)
    instances.append((pieces, env, env.instance(T, np.random.default_rng(99))))
for D_scale, V_scale in itertools.product((1e-6, 3e-6, 1e-5, 3e-5), (1e-4, 1e-3, 1e-2)):
    scores, restarts = [], []
    for pieces, env, inst in instances:
        for trial in range(2):
            rewards = env.rewards(inst, np.random.default_rng(1000 + trial))
            algo = AdaILTCBPlus(preset="practical", D_scale=D_scale, V_scale=V_scale)
            actions = algo.play(rewards, inst.info, np.random.default_rng(2000 + trial))
            scores.append((inst.optimal - inst.means[np.arange(T), actions]).sum())
            restarts.append(f"S{pieces}:{len(algo.derived_['restarts'])}")
    print(f"D_scale={D_scale:g} V_scale={V_scale:g}: mean regret {np.mean(scores):.0f}  restarts {' '.join(restarts)}")
