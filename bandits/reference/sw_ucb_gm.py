"""Garivier & Moulines' Sliding-Window UCB (ALT 2011, arXiv 0805.3415) transcribed
literally: every round the window statistics are recomputed from the last min(t, tau)
rounds of the history (t = the rounds played),

    N_t(tau, i) = sum_{s = t-tau+1}^{t} 1{I_s = i},
    X_bar_t(tau, i) = (1 / N_t(tau, i)) sum_{s = t-tau+1}^{t} x_s 1{I_s = i},
    c_t(tau, i) = B sqrt(xi log(min(t, tau)) / N_t(tau, i)),

and the next arm is argmax X_bar + c (``index="ucb1"``), or argmax
max{q : N_t(tau, i) kl(X_bar_t(tau, i), q) <= f(min(t, tau))} (``index="kl_ucb"``, f of
``kl_exploration``, rewards clipped to [0, 1]), an arm absent from the window first (its
index is infinite); ties to the lowest index. tau = floor(2 B sqrt(T log T / Upsilon_T)) in
[1, T] (T when Upsilon_T = 0) unless given. An independent check of
:class:`bandits.algorithms.sliding_window_gm.SlidingWindowUCBGM`.
"""

from __future__ import annotations

import math

import numpy as np

from bandits.algorithms.common import reward_scale
from bandits.reference.common import kl_exploration, kl_ucb_bound, lowest_argmax


def tuned_window(T, upsilon, constant):
    if upsilon == 0:
        return T
    return int(min(T, max(1, math.floor(constant * math.sqrt(T * math.log(T) / upsilon)))))


class ReferenceSWUCBGM:
    problem_kinds = ("karmed",)

    def __init__(self, window=None, xi=0.6, B=1.0, index="ucb1", kl_exploration="log", kl_c=3.0, Upsilon_T=None,
                 reward_range=None):
        self.window = window
        self.xi = xi
        self.B = B
        self.index = index
        self.kl_exploration = kl_exploration
        self.kl_c = kl_c
        self.Upsilon_T = Upsilon_T
        self.reward_range = reward_range

    def needs(self):
        return (("Upsilon_T",) if self.window is None and self.Upsilon_T is None else ()) + \
            (("reward_range",) if self.reward_range is None else ())

    def reset(self, n_arms, horizon, rng, info):
        self.K_ = n_arms
        if self.window is None:
            upsilon = self.Upsilon_T if self.Upsilon_T is not None else info["Upsilon_T"]
            self.tau_ = tuned_window(horizon, upsilon, 2 * self.B)
        else:
            self.tau_ = int(self.window)
        self.lo_, self.scale_ = reward_scale(self, info)
        self.arms_ = np.zeros(horizon, dtype=np.int64)
        self.x_ = np.zeros(horizon)

    def select(self, t):
        first = max(0, t - self.tau_)
        arms, x = self.arms_[first:t], self.x_[first:t]
        scores = []
        for i in range(self.K_):
            n = int((arms == i).sum())
            if n == 0:
                scores.append(math.inf)
            elif self.index == "kl_ucb":
                level = kl_exploration(min(t, self.tau_), self.kl_exploration, self.kl_c)
                scores.append(kl_ucb_bound(x[arms == i].sum(), n, level))
            else:
                scores.append(x[arms == i].sum() / n + self.B * math.sqrt(self.xi * math.log(min(t, self.tau_)) / n))
        return lowest_argmax(scores)

    def update(self, t, arm, reward):
        self.arms_[t] = arm
        x = (reward - self.lo_) * self.scale_
        self.x_[t] = min(1.0, max(0.0, x)) if self.index == "kl_ucb" else x
