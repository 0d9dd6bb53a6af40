"""kl-UCB for Bernoulli rewards (Garivier & Cappé, COLT 2011, Alg. 1) transcribed literally.

"Initialization: pull each arm of {1, ..., K} once. For t = K to n - 1: pull
a_{t+1} = argmax_a max{q in Theta : N_a(t) d(mu_hat_a(t), q) <= log(t) + c log(log(t))}",
d the Bernoulli divergence, t the number of pulls so far. Every arm's index is solved
(:func:`bandits.algorithms.indices.klucb_index`) every round, with no pruning; the mean
is recomputed from the arm's list of rewards (mapped to [0, 1] by the reward range and
clipped to [0, 1]); ties go to the lowest index. An independent check of the pruned
argmax of :class:`bandits.algorithms.KLUCB`.
"""

from __future__ import annotations

import math

from bandits.algorithms.common import reward_scale
from bandits.algorithms.indices import klucb_index
from bandits.reference.common import lowest_argmax


class ReferenceKLUCB:
    problem_kinds = ("karmed",)

    def __init__(self, c: float = 0.0, reward_range=None):
        self.c = c
        self.reward_range = reward_range

    def needs(self) -> tuple:
        return () if self.reward_range is not None else ("reward_range",)

    def reset(self, n_arms, horizon, rng, info):
        self.lo_, self.scale_ = reward_scale(self, info)
        self.rewards_ = [[] for _ in range(n_arms)]

    def select(self, t):
        for a, seen in enumerate(self.rewards_):
            if not seen:
                return a                                # "pull each arm once"
        n = sum(len(seen) for seen in self.rewards_)    # t of Alg. 1: pulls so far (since the last reset)
        level = math.log(n) + self.c * math.log(math.log(n))
        return lowest_argmax([klucb_index(sum(seen), len(seen), level) for seen in self.rewards_])

    def update(self, t, arm, reward):
        self.rewards_[arm].append(min(1.0, max(0.0, (reward - self.lo_) * self.scale_)))
