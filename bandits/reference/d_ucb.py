"""Garivier & Moulines' Discounted UCB (ALT 2011, arXiv 0805.3415) transcribed literally:
every round the discounted sums are recomputed from the whole history, straight from
the definitions,

    N_t(gamma, i) = sum_{s <= t} gamma^(t-s) 1{I_s = i},
    X_bar_t(gamma, i) = (1 / N_t(gamma, i)) sum_{s <= t} gamma^(t-s) x_s 1{I_s = i},
    n_t(gamma) = sum_i N_t(gamma, i),   c_t(gamma, i) = 2 B sqrt(xi log n_t(gamma) / N_t(gamma, i)),

over the t rounds already played, and the next arm is argmax X_bar + c (``index="ucb1"``),
or argmax max{q : N_t(gamma, i) kl(X_bar_t(gamma, i), q) <= f(n_t(gamma))}
(``index="kl_ucb"``, f of ``kl_exploration``, rewards clipped to [0, 1]); an arm never
played first; ties to the lowest index. gamma = 1 - (1/4) sqrt(Upsilon_T / T) unless
given. Rewards are read as x = (y - lo) * (1 / (hi - lo)). No incremental update, no
compiled code: an independent check of :class:`bandits.algorithms.discounted.DiscountedUCB`.
"""

from __future__ import annotations

import math

import numpy as np

from bandits.algorithms.common import reward_scale
from bandits.reference.common import kl_exploration, kl_ucb_bound, lowest_argmax


class ReferenceDUCB:
    problem_kinds = ("karmed",)

    def __init__(self, gamma=None, xi=0.6, B=1.0, index="ucb1", kl_exploration="log", kl_c=3.0, Upsilon_T=None,
                 reward_range=None):
        self.gamma = gamma
        self.xi = xi
        self.B = B
        self.index = index
        self.kl_exploration = kl_exploration
        self.kl_c = kl_c
        self.Upsilon_T = Upsilon_T
        self.reward_range = reward_range

    def needs(self):
        return (("Upsilon_T",) if self.gamma is None and self.Upsilon_T is None else ()) + \
            (("reward_range",) if self.reward_range is None else ())

    def reset(self, n_arms, horizon, rng, info):
        self.K_ = n_arms
        if self.gamma is None:
            upsilon = self.Upsilon_T if self.Upsilon_T is not None else info["Upsilon_T"]
            self.gamma_ = 1.0 - 0.25 * math.sqrt(upsilon / horizon)
        else:
            self.gamma_ = float(self.gamma)
        self.lo_, self.scale_ = reward_scale(self, info)
        self.arms_ = np.zeros(horizon, dtype=np.int64)
        self.x_ = np.zeros(horizon)

    def select(self, t):
        s = np.arange(t)
        weight = self.gamma_ ** (t - 1 - s)  # gamma^(t - s) in the paper's 1-based rounds
        N = np.bincount(self.arms_[:t], weights=weight, minlength=self.K_)
        X = np.bincount(self.arms_[:t], weights=weight * self.x_[:t], minlength=self.K_)
        n = N.sum()
        if self.index == "kl_ucb":
            level = kl_exploration(n, self.kl_exploration, self.kl_c)
            return lowest_argmax([kl_ucb_bound(X[i], N[i], level) for i in range(self.K_)])
        scores = [X[i] / N[i] + 2 * self.B * math.sqrt(self.xi * math.log(n) / N[i]) if N[i] > 0 else math.inf
                  for i in range(self.K_)]
        return lowest_argmax(scores)

    def update(self, t, arm, reward):
        self.arms_[t] = arm
        x = (reward - self.lo_) * self.scale_
        self.x_[t] = min(1.0, max(0.0, x)) if self.index == "kl_ucb" else x
