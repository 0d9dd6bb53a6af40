"""D-RandLinUCB (Kim & Tewari, UAI 2020) transcribed literally from the authors' code
(``baekjin-kim/NonstationaryLB`` @ 7f8d7d1, ``D_RandLinUCB_class.py``; the paper's text was
not found, so this is the authors' code's reading), with the whole history kept: every round
the discounted statistics are rebuilt from the chosen actions and rewards so far,

    V  = lambda I + sum_s gamma^(n-s) A_s A_s^T,    V~ = lambda I + sum_s gamma^(2(n-s)) A_s A_s^T,
    b  = sum_s gamma^(n-s) X_s A_s                  (n updates: the closed form of the authors' recursion),

theta_hat = pinv(V) b, beta = sqrt(lambda) S + sigma sqrt(2 log(1/delta) + d log(1 + L^2
(1 - gamma^(2n)) / (d lambda (1 - gamma^2)))) (at gamma = 1 the ratio is its limit n), one
Z = ``rng.normal(0, 1)`` (its absolute value for ``couple_opt``) and the index a^T theta_hat +
alpha Z beta sqrt(a^T pinv(V) V~ pinv(V) a) of every action; the largest is played (ties: the
lowest index; the authors break them with K uniforms, a zero-probability event here). An
independent check of :class:`bandits.algorithms.DiscountedRandLinUCB`.

``radius``: the level in beta, ``paper`` = delta, ``horizon`` = delta / T, ``anytime`` =
delta / (2 n (1 + log n)^2), n = 0 read as 1 (Wu 2026, §6.1 and eq. (5)).

``gamma`` is a number in (0, 1] here. Use it as ``python run.py algo=custom
algo._target_=bandits.reference.ReferenceDRandLinUCB +algo.gamma=0.99``.
"""

from __future__ import annotations

import math

import numpy as np

from bandits.reference.common import lowest_argmax


class ReferenceDRandLinUCB:
    problem_kinds = ("karmed", "linear")

    def __init__(self, gamma: float = 0.99, alpha: float = 0.4, option: str = "couple_opt", lam: float = 1.0,
                 delta: float = 0.01, radius: str = "paper"):
        self.radius = radius
        self.gamma = gamma
        self.alpha = alpha
        self.option = option
        self.lam = lam
        self.delta = delta

    def needs(self) -> tuple:
        return ("R", "L", "S")

    def reset(self, n_arms, horizon, rng, info):
        self.features_ = info.get("features")
        if self.features_ is None:
            self.features_ = np.eye(n_arms)[None, :, :]
        self.rng_ = rng
        self.horizon_ = horizon
        self.sigma_, self.L_, self.S_ = info["R"], info["L"], info["S"]
        self.d_ = self.features_.shape[2]
        self.A_, self.X_ = [], []

    def _actions(self, t):
        return self.features_[t if self.features_.shape[0] > 1 else 0]

    def select(self, t):
        g, lam, d, n = self.gamma, self.lam, self.d_, len(self.A_)
        A = np.array(self.A_).reshape(n, d)
        w = g ** np.arange(n - 1, -1, -1, dtype=float)
        V = lam * np.eye(d) + (A * w[:, None]).T @ A
        Vt = lam * np.eye(d) + (A * (w * w)[:, None]).T @ A
        b = A.T @ (w * np.array(self.X_))
        invcov = np.linalg.pinv(V)
        hat_theta = invcov @ b
        ratio = n if g == 1 else (1 - g ** (2 * n)) / (1 - g ** 2)
        if self.radius == "paper":
            level = self.delta
        elif self.radius == "horizon":
            level = self.delta / self.horizon_
        else:
            level = self.delta / (2 * max(n, 1) * (1 + math.log(max(n, 1))) ** 2)
        beta = math.sqrt(lam) * self.S_ + self.sigma_ * math.sqrt(
            2 * math.log(1 / level) + d * math.log(1 + self.L_ ** 2 * ratio / (d * lam)))
        z = self.rng_.normal(0.0, 1.0)
        if self.option == "couple_opt":
            z = abs(z)
        M = invcov @ Vt @ invcov
        scores = [a @ hat_theta + self.alpha * z * beta * math.sqrt(a @ M @ a) for a in self._actions(t)]
        return lowest_argmax(scores)

    def update(self, t, arm, reward):
        self.A_.append(self._actions(t)[arm])
        self.X_.append(reward)
