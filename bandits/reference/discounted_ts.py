"""Raj & Kalyani's discounted Thompson sampling (arXiv 1707.09727, Alg. 2) transcribed
literally: every round the discounted successes and failures are recomputed from the
whole history,

    S_i = sum_{s <= t} gamma^(t-s) r_s 1{I_s = i},   F_i = sum_{s <= t} gamma^(t-s) (1 - r_s) 1{I_s = i},

over the t rounds played; theta_i ~ Beta(S_i + alpha0, F_i + beta0) is drawn for
i = 0..K-1 in order from the policy's Generator, and the arm with the largest sample
is played (ties to the lowest index). The reward x = (y - lo) * (1 / (hi - lo)) is
clipped to [0, 1] and, with ``binarize``, replaced by a Bernoulli(x) trial (Agrawal &
Goyal 2012, Alg. 2): 1 if x = 1, 0 if x = 0, else 1{u < x} with one uniform u from the
same Generator, drawn after the Beta samples of that round. ``gamma: gm`` is
1 - (1/4) sqrt(Upsilon_T / T). An independent check of
:class:`bandits.algorithms.discounted.DiscountedThompson`.
"""

from __future__ import annotations

import math

import numpy as np

from bandits.algorithms.common import reward_scale
from bandits.reference.common import lowest_argmax


class ReferenceDiscountedTS:
    problem_kinds = ("karmed",)

    def __init__(self, gamma=0.75, alpha0=1.0, beta0=1.0, binarize=True, Upsilon_T=None, reward_range=None):
        self.gamma = gamma
        self.alpha0 = alpha0
        self.beta0 = beta0
        self.binarize = binarize
        self.Upsilon_T = Upsilon_T
        self.reward_range = reward_range

    def needs(self):
        return (("Upsilon_T",) if self.gamma == "gm" and self.Upsilon_T is None else ()) + \
            (("reward_range",) if self.reward_range is None else ())

    def reset(self, n_arms, horizon, rng, info):
        self.K_, self.rng_ = n_arms, rng
        if self.gamma == "gm":
            upsilon = self.Upsilon_T if self.Upsilon_T is not None else info["Upsilon_T"]
            self.gamma_ = 1.0 - 0.25 * math.sqrt(upsilon / horizon)
        else:
            self.gamma_ = float(self.gamma)
        self.lo_, self.scale_ = reward_scale(self, info)
        self.arms_ = np.zeros(horizon, dtype=np.int64)
        self.r_ = np.zeros(horizon)

    def select(self, t):
        weight = self.gamma_ ** (t - 1 - np.arange(t))
        S = np.bincount(self.arms_[:t], weights=weight * self.r_[:t], minlength=self.K_)
        F = np.bincount(self.arms_[:t], weights=weight * (1.0 - self.r_[:t]), minlength=self.K_)
        theta = [self.rng_.beta(S[i] + self.alpha0, F[i] + self.beta0) for i in range(self.K_)]
        return lowest_argmax(theta)

    def update(self, t, arm, reward):
        x = min(1.0, max(0.0, (reward - self.lo_) * self.scale_))
        if self.binarize:
            if x == 1.0:
                r = 1.0
            elif x == 0.0:
                r = 0.0
            else:
                r = 1.0 if self.rng_.random() < x else 0.0
        else:
            r = x
        self.arms_[t] = arm
        self.r_[t] = r
