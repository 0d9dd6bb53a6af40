"""Beta-Bernoulli Thompson sampling (Agrawal & Goyal, COLT 2012, Alg. 1, with Alg. 2's
Bernoulli trial for rewards in [0, 1]) transcribed literally.

S_i = F_i = 0. Each round: theta_i ~ Beta(S_i + 1, F_i + 1) for i = 1..K in order (the
policy's own Generator), play the argmax (lowest index on ties), observe r~ in [0, 1]
(the reward mapped by the reward range, clipped); r = r~ when r~ is 0 or 1, else one
uniform u and r = 1 if u < r~; S_i += r, F_i += 1 - r. Draws in the same order as
:class:`bandits.algorithms.ThompsonSampling`, so equal seeds give equal trajectories.
"""

from __future__ import annotations

from bandits.algorithms.common import reward_scale
from bandits.reference.common import lowest_argmax


class ReferenceThompson:
    problem_kinds = ("karmed",)

    def __init__(self, reward_range=None):
        self.reward_range = reward_range

    def needs(self) -> tuple:
        return () if self.reward_range is not None else ("reward_range",)

    def reset(self, n_arms, horizon, rng, info):
        self.lo_, self.scale_ = reward_scale(self, info)
        self.rng_ = rng
        self.S_ = [0] * n_arms
        self.F_ = [0] * n_arms

    def select(self, t):
        theta = [self.rng_.beta(self.S_[i] + 1, self.F_[i] + 1) for i in range(len(self.S_))]
        return lowest_argmax(theta)

    def update(self, t, arm, reward):
        r_tilde = min(1.0, max(0.0, (reward - self.lo_) * self.scale_))
        if r_tilde in (0.0, 1.0):
            r = int(r_tilde)
        else:
            r = 1 if self.rng_.random() < r_tilde else 0     # the Bernoulli trial of Alg. 2
        self.S_[arm] += r
        self.F_[arm] += 1 - r
