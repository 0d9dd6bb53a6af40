"""Beta-Bernoulli Thompson sampling (Thompson 1933; Agrawal & Goyal, COLT 2012).

Agrawal & Goyal, Alg. 1 (Bernoulli rewards): S_i = F_i = 0 for every arm (the
Beta(1, 1) = uniform prior); each round t, sample theta_i(t) ~ Beta(S_i + 1, F_i + 1)
for every arm, play i(t) = argmax_i theta_i(t), observe r_t and add one to S_i(t) if
r_t = 1, else to F_i(t).

Rewards in [0, 1] (their Alg. 2): observe r~_t in [0, 1], "perform a Bernoulli trial
with success probability r~_t" and update S / F with its outcome r_t. Here:

* a reward y is read as x = (y - lo) * scale (:func:`bandits.algorithms.common.reward_scale`)
  and clipped to [0, 1] (the posterior is for [0, 1] rewards; no effect on Bernoulli
  rewards);
* the Bernoulli trial draws one ``rng.random()`` u and succeeds when u < x -- but only
  when x is neither 0 nor 1: for x = 1 the trial succeeds and for x = 0 it fails with
  probability one, so no uniform is drawn, and on Bernoulli rewards the stream holds
  only the Beta draws (the same binarisation, with the same shortcut, as SMPyBandits'
  ``bernoulliBinarization``).

The stream, in order, each round: K draws ``rng.beta(S_i + 1, F_i + 1)`` for i = 0..K-1
(all from the policy's own Generator, inside the compiled kernel: numba reproduces
numpy's numbers), then at most one ``rng.random()``; the literal transcription
(:mod:`bandits.reference.thompson`) draws the same numbers in the same order. A tie
among the theta_i (probability zero, up to rounding) goes to the lowest index
(:func:`bandits.numerics.argmax_lowest`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bandits.algorithms.common import check_reward_range, reward_scale
from bandits.numerics import argmax_lowest, bernoulli_trial


@njit(cache=True)
def thompson_kernel(rewards, lo, scale, rng, actions):
    """Agrawal & Goyal Alg. 1, with Alg. 2's Bernoulli trial for rewards strictly inside (0, 1)."""
    T, K = rewards.shape
    S, F, theta = np.zeros(K), np.zeros(K), np.empty(K)
    for t in range(T):
        for a in range(K):
            theta[a] = rng.beta(S[a] + 1.0, F[a] + 1.0)
        arm = argmax_lowest(theta)
        actions[t] = arm
        success = bernoulli_trial(min(1.0, max(0.0, (rewards[t, arm] - lo) * scale)), rng)
        S[arm] += success
        F[arm] += 1.0 - success


class ThompsonSampling:
    """Beta-Bernoulli Thompson sampling with the Beta(1, 1) prior (module doc)."""

    problem_kinds = ("karmed",)

    def __init__(self, reward_range=None):
        self.reward_range = reward_range

    def needs(self) -> tuple:
        """The reward range, to map rewards to [0, 1], unless set here (algo.reward_range)."""
        return () if self.reward_range is not None else ("reward_range",)

    def check_params(self) -> None:
        check_reward_range(self.reward_range)

    def play(self, rewards, info, rng, features=None) -> np.ndarray:
        T = rewards.shape[0]
        lo, scale = reward_scale(self, info)
        self.derived_ = {"prior": [1.0, 1.0], "reward_range": [lo, lo + 1.0 / scale]}
        actions = np.empty(T, dtype=np.int64)
        thompson_kernel(rewards, lo, scale, rng, actions)
        return actions
