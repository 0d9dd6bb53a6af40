"""Contextual baselines on the same environment draw as ILTCB.

* :class:`EpsilonGreedy`: with probability ``epsilon`` a uniform action, else the
  action of the empirically best policy of the class on all data so far
  (importance-weighted rewards, the same ERM oracle as ILTCB; one oracle call per
  round, served in O(N) by a running vector of policy values).
* :class:`Exp4`: Exp4 of Auer et al. (2002, Fig. 5) over the finite class, experts
  = policies: p_t(a) = (1 - gamma) sum_n w_n 1{pi_n(x_t) = a} / W + gamma / K, and
  w_n <- w_n exp(gamma rhat_t(pi_n(x_t)) / K) with rhat_t(a) = r_t / p_t(a_t) 1{a = a_t};
  gamma = min{1, sqrt(K ln N / ((e - 1) T))} (their tuning with reward bound T);
  weights in log space.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.contextual.common import contextual_problem
from bandits.errors import ConfigError, require_float
from bandits.numerics import argmax_lowest, sample_categorical


@njit(cache=True)
def _epsilon_greedy(pred, rewards, eps, u_explore, u_action, actions):
    T, K = rewards.shape
    N = pred.shape[1]
    values = np.zeros(N)
    for t in range(T):
        greedy = pred[t, argmax_lowest(values)]
        if u_explore[t] < eps:
            a = min(int(u_action[t] * K), K - 1)
        else:
            a = greedy
        actions[t] = a
        p = eps / K + (1.0 - eps) * (1.0 if a == greedy else 0.0)
        w = rewards[t, a] / p
        if w != 0.0:
            for n in range(N):
                if pred[t, n] == a:
                    values[n] += w


@njit(cache=True)
def _exp4(pred, rewards, gamma, u, actions):
    T, K = rewards.shape
    N = pred.shape[1]
    logw = np.zeros(N)
    p = np.empty(K)
    q = np.empty(N)
    for t in range(T):
        m = logw.max()
        s = 0.0
        for n in range(N):
            q[n] = math.exp(logw[n] - m)
            s += q[n]
        for a in range(K):
            p[a] = gamma / K
        for n in range(N):
            p[pred[t, n]] += (1.0 - gamma) * q[n] / s
        a_t = sample_categorical(p, u[t])
        actions[t] = a_t
        xhat = rewards[t, a_t] / p[a_t]
        if xhat != 0.0:
            for n in range(N):
                if pred[t, n] == a_t:
                    logw[n] += gamma * xhat / K


class EpsilonGreedy:
    problem_kinds = ("contextual",)

    def needs(self) -> tuple:
        return ("policy_actions", "reward_range")

    def __init__(self, epsilon: float = 0.05):
        self.epsilon = epsilon

    def check_params(self) -> None:
        e = require_float("algo.epsilon", self.epsilon, minimum=0.0)
        if e > 1:
            raise ConfigError(f"algo.epsilon must lie in [0, 1], got {e}.")

    def play(self, rewards, info, rng, features=None):
        pclass = contextual_problem("epsilon_greedy", rewards, info)
        T = rewards.shape[0]
        u1, u2 = rng.random(T), rng.random(T)
        actions = np.empty(T, dtype=np.int64)
        _epsilon_greedy(pclass.pred, rewards, float(self.epsilon), u1, u2, actions)
        self.derived_ = {"epsilon": float(self.epsilon), "oracle_calls": T}
        return actions


class Exp4:
    problem_kinds = ("contextual",)

    def needs(self) -> tuple:
        return ("policy_actions", "reward_range")

    def __init__(self, gamma: float | None = None):
        self.gamma = gamma

    def check_params(self) -> None:
        g = require_float("algo.gamma", self.gamma, minimum=0.0, strict=True, allow_none=True)
        if g is not None and g > 1:
            raise ConfigError(f"algo.gamma must lie in (0, 1], got {g}.")

    def play(self, rewards, info, rng, features=None):
        pclass = contextual_problem("exp4", rewards, info)
        T, K = rewards.shape
        N = pclass.size
        gamma = float(self.gamma) if self.gamma is not None else \
            min(1.0, math.sqrt(K * math.log(N) / ((math.e - 1) * T)))
        actions = np.empty(T, dtype=np.int64)
        _exp4(pclass.pred, rewards, gamma, rng.random(T), actions)
        self.derived_ = {"gamma": gamma}
        return actions
