"""UCB1 (Auer, Cesa-Bianchi & Fischer 2002, Fig. 1) transcribed literally.

"Initialization: play each machine once. Loop: play machine j that maximizes
x_bar_j + sqrt(2 ln n / n_j), where x_bar_j is the average reward obtained from machine
j, n_j is the number of times machine j has been played so far, and n is the overall
number of plays done so far." Each round recomputes every average from the list of the
arm's rewards (no running sums); the constant 2 is ``c``; rewards are mapped to [0, 1]
by the reward range; ties go to the lowest index. An independent check of
:class:`bandits.algorithms.UCB1` (``python run.py algo=custom
algo._target_=bandits.reference.ReferenceUCB1 env=piecewise_bernoulli``).
"""

from __future__ import annotations

import math

from bandits.algorithms.common import reward_scale
from bandits.algorithms.indices import ucb1_index
from bandits.reference.common import lowest_argmax


class ReferenceUCB1:
    problem_kinds = ("karmed",)

    def __init__(self, c: float = 2.0, reward_range=None):
        self.c = c
        self.reward_range = reward_range

    def needs(self) -> tuple:
        return () if self.reward_range is not None else ("reward_range",)

    def reset(self, n_arms, horizon, rng, info):
        self.lo_, self.scale_ = reward_scale(self, info)
        self.rewards_ = [[] for _ in range(n_arms)]   # every reward seen, per arm, in [0, 1]

    def select(self, t):
        for j, seen in enumerate(self.rewards_):
            if not seen:
                return j                                # "play each machine once"
        n = sum(len(seen) for seen in self.rewards_)    # plays done so far (since the last reset)
        return lowest_argmax([ucb1_index(sum(seen), len(seen), math.log(n), self.c) for seen in self.rewards_])

    def update(self, t, arm, reward):
        self.rewards_[arm].append((reward - self.lo_) * self.scale_)
