"""RestartUCB (Zhao, Zhang, Jiang & Zhou, AISTATS 2020) transcribed literally: OFUL whose
history is emptied at rounds H, 2H, 3H, ... (0-based, counted from the first round it
plays). Each round: V = lambda I + sum over the epoch's history of x x^T, theta_hat by a
direct solve, V^{-1} by a direct inverse, and the argmax of x^T theta_hat + beta_n
||x||_{V^{-1}} (lowest index on ties), beta_n = R sqrt(d ln((1 + n L^2 / lambda) / delta))
+ sqrt(lambda) S with n the epoch's observations so far (OFUL, Abbasi-Yadkori et al. 2011,
Thm. 2), delta = 1/T. ``period``: an integer H, or ``opt``: H from the environment's B_T,
rule ``aistats`` ceil((d T / (1 + B_T))^(2/3)) or ``corrected`` ceil(d^(1/4) (T / (1 + B_T))^(1/2)),
capped at T (the readings of :mod:`bandits.algorithms.restart_linear_ucb`). No incremental
update, no compiled code, no code shared with the kernel.

Use it as ``python run.py algo=custom algo._target_=bandits.reference.ReferenceRestartLinUCB +algo.period=500``.
"""

from __future__ import annotations

import math

import numpy as np

from bandits.reference.common import lowest_argmax


class ReferenceRestartLinUCB:
    problem_kinds = ("karmed", "linear")

    def __init__(self, period="opt", period_rule: str = "aistats", lam: float = 1.0, delta: float | None = None):
        self.period = period
        self.period_rule = period_rule
        self.lam = lam
        self.delta = delta

    def needs(self) -> tuple:
        return ("R", "L", "S") + (("B_T",) if self.period == "opt" else ())

    def reset(self, n_arms, horizon, rng, info):
        self.features_ = info.get("features")
        if self.features_ is None:
            self.features_ = np.eye(n_arms)[None, :, :]
        self.d = self.features_.shape[2]
        self.R, self.L, self.S = info["R"], info["L"], info["S"]
        self.delta_ = 1.0 / horizon if self.delta is None else self.delta
        if self.period == "opt":
            B, T, d = info["B_T"], horizon, self.d
            if self.period_rule == "aistats":
                H = math.ceil((d * T / (1 + B)) ** (2 / 3))
            else:
                H = math.ceil(d ** (1 / 4) * (T / (1 + B)) ** (1 / 2))
        else:
            H = int(self.period)
        self.H = max(1, min(horizon, H))
        self.restarts = []
        self.history = []

    def _actions(self, t):
        return self.features_[t if self.features_.shape[0] > 1 else 0]

    def select(self, t):
        if t > 0 and t % self.H == 0:  # a new epoch: OFUL from scratch
            self.history = []
            self.restarts.append(t)
        d, n = self.d, len(self.history)
        V = self.lam * np.eye(d)
        b = np.zeros(d)
        for x, y in self.history:
            V += np.outer(x, x)
            b += x * y
        theta = np.linalg.solve(V, b)
        Vinv = np.linalg.inv(V)
        beta = self.R * math.sqrt(d * math.log((1 + n * self.L ** 2 / self.lam) / self.delta_)) \
            + math.sqrt(self.lam) * self.S
        return lowest_argmax([x @ theta + beta * math.sqrt(x @ Vinv @ x) for x in self._actions(t)])

    def update(self, t, arm, reward):
        self.history.append((self._actions(t)[arm], reward))
