"""Hedging Alg. 1 transcribed literally, with matrices: on the environment's action
vectors (``info["features"]``) if it has them, else on the basis vectors e_1..e_K.

Each round: V_{t-1} = lambda I + sum over the window of X_s X_s^T (line 7),
theta_hat = V^{-1} sum X_s Y_s by a direct solve (line 4), and the argmax of
x^T theta_hat + beta ||x||_{V^{-1}} over x in {e_1..e_K} (line 5, eq. (5)), lowest
index on ties. beta is eq. (3) with delta = 1/T unless given. No incremental
update, no compiled code: an independent check of
:class:`bandits.algorithms.SlidingWindowUCB` (``estimator=ridge``).

Use it as ``python run.py algo=custom algo._target_=bandits.reference.ReferenceSWUCB +algo.window=200``.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from bandits.errors import require_float, require_int
from bandits.reference.common import lowest_argmax


class ReferenceSWUCB:
    problem_kinds = ("karmed", "linear", "pricing")

    def __init__(self, window: int = 1000, lam: float = 1.0, delta: float | None = None):
        self.window = window
        self.lam = lam
        self.delta = delta

    def needs(self) -> tuple:
        return ("R", "L", "S")

    def check_params(self) -> None:
        require_int("algo.window", self.window, minimum=1)
        require_float("algo.lam", self.lam, minimum=0.0, strict=True)

    def reset(self, n_arms, horizon, rng, info):
        self.K_ = n_arms
        self.features_ = info.get("features")
        if self.features_ is None:
            self.features_ = np.eye(n_arms)[None, :, :]
        delta = 1.0 / horizon if self.delta is None else self.delta
        R, L, S, d = info["R"], info["L"], info["S"], self.features_.shape[2]
        self.beta_ = R * math.sqrt(d * math.log((1 + self.window * L ** 2 / self.lam) / delta)) \
            + math.sqrt(self.lam) * S
        self.history_ = deque(maxlen=int(self.window))

    def _actions(self, t):
        return self.features_[t if self.features_.shape[0] > 1 else 0]

    def select(self, t):
        D = self._actions(t)
        d = D.shape[1]
        V = self.lam * np.eye(d)
        b = np.zeros(d)
        for x, y in self.history_:
            V += np.outer(x, x)
            b += x * y
        theta = np.linalg.solve(V, b)
        Vinv = np.linalg.inv(V)
        scores = np.array([x @ theta + self.beta_ * math.sqrt(x @ Vinv @ x) for x in D])
        # ties (within TIE_TOL relative, as rounding makes exact ties unreliable) go to the lowest index
        return lowest_argmax(scores)

    def update(self, t, arm, reward):
        self.history_.append((self._actions(t)[arm], reward))
