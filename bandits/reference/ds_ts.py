"""DS-TS (Qi, Wang & Zhu 2023, arXiv 2305.10718, Algorithm 1) transcribed literally: every
round the discounted count and reward sum of each arm are recomputed from the whole history,

    N_t(gamma, i) = sum_{j <= t} gamma^(t-j) 1{i_j = i},   mu~_t(i) = sum_{j <= t} gamma^(t-j) X_j 1{i_j = i},

over the t rounds played; the mean is mu~ / N (line 11; with ``stale: text`` an arm with N = 0
keeps the mean it had, 0 before its first pull; with ``stale: authors`` an arm with N < 1e-8
gets mean mu~ and scale tau_max, as the authors' code), the scale min(1 / sqrt(N), tau_max)
(line 12), theta_i ~ N(mean_i, scale_i^2) is drawn for i = 0..K-1 in order from the policy's
Generator (line 4) and the arm with the largest sample is played (line 7; ties to the lowest
index). An independent check of
:class:`bandits.algorithms.discounted_gaussian_ts.DiscountedGaussianThompson`.
"""

from __future__ import annotations

import math

import numpy as np

from bandits.algorithms.common import reward_scale
from bandits.reference.common import lowest_argmax


class ReferenceDSTS:
    problem_kinds = ("karmed",)

    def __init__(self, gamma=None, tau_max=0.2, stale="text", Upsilon_T=None, reward_range=None):
        self.gamma = gamma
        self.tau_max = tau_max
        self.stale = stale
        self.Upsilon_T = Upsilon_T
        self.reward_range = reward_range

    def needs(self):
        tuned = (self.gamma is None or self.gamma == "authors") and self.Upsilon_T is None
        return (("Upsilon_T",) if tuned else ()) + (("reward_range",) if self.reward_range is None else ())

    def reset(self, n_arms, horizon, rng, info):
        self.K_, self.rng_ = n_arms, rng
        upsilon = self.Upsilon_T if self.Upsilon_T is not None else info.get("Upsilon_T")
        if self.gamma is None:                      # Corollary 1: 1 - sqrt(B_T / T), B_T phases
            self.gamma_ = 1.0 - math.sqrt((upsilon + 1) / horizon)
        elif self.gamma == "authors":               # the authors' code: 1 - 10 sqrt((B_T - 1) / T)
            self.gamma_ = max(0.0, 1.0 - 10.0 * math.sqrt(upsilon / horizon))
        elif self.gamma == "smooth":                # Sec. 7.2: 1 - 10 / sqrt(T)
            self.gamma_ = max(0.0, 1.0 - 10.0 / math.sqrt(horizon))
        else:
            self.gamma_ = float(self.gamma)
        self.lo_, self.scale_ = reward_scale(self, info)
        self.arms_ = np.zeros(horizon, dtype=np.int64)
        self.x_ = np.zeros(horizon)
        self.mean_ = [0.0] * n_arms                 # line 2
        self.t_ = 0

    def select(self, t):
        weight = self.gamma_ ** (t - 1 - np.arange(t))
        N = np.bincount(self.arms_[:t], weights=weight, minlength=self.K_)
        total = np.bincount(self.arms_[:t], weights=weight * self.x_[:t], minlength=self.K_)
        sd = [0.0] * self.K_
        for i in range(self.K_):
            if self.stale == "authors" and N[i] < 1e-8:
                self.mean_[i], sd[i] = total[i], self.tau_max
            elif N[i] > 0:
                self.mean_[i], sd[i] = total[i] / N[i], min(1.0 / math.sqrt(N[i]), self.tau_max)
            else:
                sd[i] = self.tau_max
        theta = [self.rng_.normal(self.mean_[i], sd[i]) for i in range(self.K_)]
        return lowest_argmax(theta)

    def update(self, t, arm, reward):
        self.arms_[t] = arm
        self.x_[t] = (reward - self.lo_) * self.scale_
