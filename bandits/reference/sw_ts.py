"""Trovo, Paladino, Restelli & Gatti's sliding-window Thompson sampling (JAIR 2020;
Beta-SWTS in Fiandri, Metelli & Trovo 2024, Alg. 1) transcribed literally: every
round the successes S and plays N of each arm are counted over the last min(t, tau)
rounds of the history, theta_i ~ Beta(alpha0 + S_i, beta0 + N_i - S_i) is drawn for
i = 0..K-1 in order from the policy's Generator, and the largest sample's arm is played
(ties to the lowest index). The reward x = (y - lo) * (1 / (hi - lo)) is clipped to
[0, 1] and, with ``binarize``, replaced by a Bernoulli(x) trial (one uniform only when
0 < x < 1, drawn after the round's Beta samples). tau = floor(c sqrt(T log T /
Upsilon_T)) in [1, T] (T when Upsilon_T = 0), c = ``window_constant``, unless given.
An independent check of :class:`bandits.algorithms.sliding_window_gm.SlidingWindowThompson`.
"""

from __future__ import annotations

import numpy as np

from bandits.algorithms.common import reward_scale
from bandits.reference.common import lowest_argmax
from bandits.reference.sw_ucb_gm import tuned_window


class ReferenceSWTS:
    problem_kinds = ("karmed",)

    def __init__(self, window=None, window_constant=2.0, alpha0=1.0, beta0=1.0, binarize=True, Upsilon_T=None,
                 reward_range=None):
        self.window = window
        self.window_constant = window_constant
        self.alpha0 = alpha0
        self.beta0 = beta0
        self.binarize = binarize
        self.Upsilon_T = Upsilon_T
        self.reward_range = reward_range

    def needs(self):
        return (("Upsilon_T",) if self.window is None and self.Upsilon_T is None else ()) + \
            (("reward_range",) if self.reward_range is None else ())

    def reset(self, n_arms, horizon, rng, info):
        self.K_, self.rng_ = n_arms, rng
        if self.window is None:
            upsilon = self.Upsilon_T if self.Upsilon_T is not None else info["Upsilon_T"]
            self.tau_ = tuned_window(horizon, upsilon, self.window_constant)
        else:
            self.tau_ = int(self.window)
        self.lo_, self.scale_ = reward_scale(self, info)
        self.arms_ = np.zeros(horizon, dtype=np.int64)
        self.r_ = np.zeros(horizon)

    def select(self, t):
        first = max(0, t - self.tau_)
        arms, r = self.arms_[first:t], self.r_[first:t]
        theta = []
        for i in range(self.K_):
            n = float((arms == i).sum())
            s = float(r[arms == i].sum())
            theta.append(self.rng_.beta(self.alpha0 + s, self.beta0 + n - s))
        return lowest_argmax(theta)

    def update(self, t, arm, reward):
        x = min(1.0, max(0.0, (reward - self.lo_) * self.scale_))
        if self.binarize:
            r = 1.0 if x == 1.0 else 0.0 if x == 0.0 else (1.0 if self.rng_.random() < x else 0.0)
        else:
            r = x
        self.arms_[t] = arm
        self.r_[t] = r
