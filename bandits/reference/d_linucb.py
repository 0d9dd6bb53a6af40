"""D-LinUCB (Russac, Vernade & Cappe, NeurIPS 2019, Algorithm 1) transcribed literally,
with matrices: on the environment's action vectors (``info["features"]``) if it has
them, else on the basis vectors e_1..e_K.

Each round t (t - 1 observations so far):
beta_{t-1} = sqrt(lambda) S + sigma sqrt(2 log(1/delta) + d log(1 + L^2 (1 - gamma^(2(t-1)))
/ (lambda d (1 - gamma^2)))) (at gamma = 1 the ratio is its limit t - 1); theta_hat =
V^{-1} b by a direct solve; the index a^T theta_hat + beta sqrt(a^T V^{-1} V~ V^{-1} a)
with np.linalg.inv; argmax, lowest index on ties. After the reward X_t of the chosen
A_t: V = gamma V + A A^T + (1 - gamma) lambda I, V~ = gamma^2 V~ + A A^T + (1 - gamma^2)
lambda I, b = gamma b + X_t A_t. No factorisation, no compiled code: an independent check
of :class:`bandits.algorithms.DiscountedLinUCB`.

``radius`` names the confidence level inside beta: ``paper`` = delta; ``horizon`` = delta / T
(Wu 2026, §6.1); ``anytime`` = delta / (2 n (1 + log n)^2) after n = t - 1 observations (Wu
2026, eq. (5)), n = 0 read as n = 1.

``gamma`` is a number in (0, 1] here (the tuned value is the caller's to compute);
delta null = 1/T. Use it as
``python run.py algo=custom algo._target_=bandits.reference.ReferenceDLinUCB +algo.gamma=0.99``.
"""

from __future__ import annotations

import math

import numpy as np

from bandits.errors import require_choice, require_float
from bandits.reference.common import lowest_argmax


class ReferenceDLinUCB:
    problem_kinds = ("karmed", "linear")

    def __init__(self, gamma: float = 0.99, lam: float = 1.0, delta: float | None = None, radius: str = "paper"):
        self.gamma = gamma
        self.lam = lam
        self.delta = delta
        self.radius = radius

    def needs(self) -> tuple:
        return ("R", "L", "S")

    def check_params(self) -> None:
        require_float("algo.gamma", self.gamma, minimum=0.0, strict=True)
        require_float("algo.lam", self.lam, minimum=0.0, strict=True)
        require_choice("algo.radius", self.radius, {"paper", "horizon", "anytime"})

    def reset(self, n_arms, horizon, rng, info):
        self.features_ = info.get("features")
        if self.features_ is None:
            self.features_ = np.eye(n_arms)[None, :, :]
        d = self.features_.shape[2]
        self.delta_ = 1.0 / horizon if self.delta is None else self.delta
        self.horizon_ = horizon
        self.sigma_, self.L_, self.S_, self.d_ = info["R"], info["L"], info["S"], d
        self.b_ = np.zeros(d)
        self.V_ = self.lam * np.eye(d)
        self.Vt_ = self.lam * np.eye(d)
        self.n_ = 0  # observations so far (t - 1 at round t)

    def _actions(self, t):
        return self.features_[t if self.features_.shape[0] > 1 else 0]

    def level(self):
        """The confidence level in beta after n_ observations, by the ``radius`` rule."""
        if self.radius == "paper":
            return self.delta_
        if self.radius == "horizon":
            return self.delta_ / self.horizon_
        t = max(self.n_, 1)
        return self.delta_ / (2 * t * (1 + math.log(t)) ** 2)

    def beta(self):
        g, n, lam, d = self.gamma, self.n_, self.lam, self.d_
        ratio = n if g == 1 else (1 - g ** (2 * n)) / (1 - g ** 2)
        return math.sqrt(lam) * self.S_ + self.sigma_ * math.sqrt(
            2 * math.log(1 / self.level()) + d * math.log(1 + self.L_ ** 2 * ratio / (lam * d)))

    def select(self, t):
        theta = np.linalg.solve(self.V_, self.b_)
        Vinv = np.linalg.inv(self.V_)
        M = Vinv @ self.Vt_ @ Vinv
        beta = self.beta()
        scores = [a @ theta + beta * math.sqrt(a @ M @ a) for a in self._actions(t)]
        return lowest_argmax(scores)

    def update(self, t, arm, reward):
        a, g, d = self._actions(t)[arm], self.gamma, self.d_
        self.V_ = g * self.V_ + np.outer(a, a) + (1 - g) * self.lam * np.eye(d)
        self.Vt_ = g ** 2 * self.Vt_ + np.outer(a, a) + (1 - g ** 2) * self.lam * np.eye(d)
        self.b_ = g * self.b_ + reward * a
        self.n_ += 1
