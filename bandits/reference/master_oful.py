"""MASTER over OFUL (Wei & Luo, COLT 2021, Algs. 1-2) transcribed literally: objects for the
base instances (each its own history of (x, y), least squares solved directly every round),
lists of the block's f~ and rewards, and every test recomputed from those lists each round.
MALG, MASTER and the tests are :class:`ReferenceMasterUCB`'s; only the base instance, the
rate and the reward map differ. No incremental sums, no compiled code, no code shared with
:mod:`bandits.algorithms.master_oful` (an independent check of
:class:`bandits.algorithms.MasterOFUL`; the module doc there names every step and constant).

* ALG: OFUL (Abbasi-Yadkori et al. 2011): V = lambda I + sum x x^T over the instance's own
  history, theta_hat = V^{-1} b by a direct solve, action argmax x^T theta_hat + beta_n ||x||_{V^{-1}}
  (lowest index on ties), beta_n = R sqrt(d ln((1 + n L^2 / lambda) / delta)) + sqrt(lambda) S,
  n = the instance's plays; f~ = min(1, (max index - lo) / (hi - lo)), [lo, hi] = [-b, b] with
  b = reward_bound (or reward_range).
* rho(t) = C d / sqrt(t) + c_lin d / t; rho_hat(t) = c_hat (log2 T + 1) log(T / delta) rho(t).
* MALG (Alg. 1) and MASTER (Alg. 2) exactly as :mod:`bandits.reference.master_ucb`.

Use it as ``python run.py algo=custom algo._target_=bandits.reference.ReferenceMasterOFUL``.
"""

from __future__ import annotations

import math

import numpy as np

from bandits.reference.common import lowest_argmax
from bandits.reference.master_ucb import ReferenceMasterUCB


class _OFUL:
    """One base instance (ALG) of order ``order`` scheduled on rounds [s, e]."""

    def __init__(self, owner, s, e, order):
        self.owner, self.s, self.e, self.order = owner, s, e, order
        self.history = []

    def indices(self, t):
        o = self.owner
        D = o.actions(t)
        d, n = D.shape[1], len(self.history)
        V = o.lam * np.eye(d)
        b = np.zeros(d)
        for x, y in self.history:
            V += np.outer(x, x)
            b += x * y
        theta = np.linalg.solve(V, b)
        Vinv = np.linalg.inv(V)
        beta = o.R * math.sqrt(d * math.log((1 + n * o.L ** 2 / o.lam) / o.delta_)) + math.sqrt(o.lam) * o.S
        return [x @ theta + beta * math.sqrt(x @ Vinv @ x) for x in D]

    def f_tilde(self, t):
        return min(1.0, (max(self.indices(t)) - self.owner.lo) * self.owner.scale)

    def act(self, t):
        self.t = t
        return lowest_argmax(self.indices(t))

    def update(self, arm, x, reward):
        """OFUL learns from the raw reward (the linear model is in y), not from x."""
        self.history.append((self.owner.actions(self.t)[arm], reward))


class ReferenceMasterOFUL(ReferenceMasterUCB):
    problem_kinds = ("karmed", "linear")

    def __init__(self, rho_constant=1.0, rho_linear=1.0, rho_hat_constant=6.0, test1_constant=9.0,
                 test2_constant=3.0, test_multiplier=1.0, delta=None, lam=1.0, reward_range=None):
        super().__init__(rho_constant=rho_constant, rho_linear=rho_linear, rho_hat_constant=rho_hat_constant,
                         test1_constant=test1_constant, test2_constant=test2_constant,
                         test_multiplier=test_multiplier, delta=delta, reward_range=reward_range)
        self.lam = lam

    def needs(self):
        return ("R", "L", "S") + (("reward_bound",) if self.reward_range is None else ())

    def rho(self, t):
        return self.rho_constant * self.d / math.sqrt(t) + self.rho_linear * self.d / t

    def reward_map(self, info):
        """[-b, b] with b = reward_bound onto [0, 1], unless reward_range is set."""
        lo, hi = (-info["reward_bound"], info["reward_bound"]) if self.reward_range is None else self.reward_range
        return float(lo), 1.0 / (float(hi) - float(lo))

    def reset(self, n_arms, horizon, rng, info):
        self.features_ = info.get("features")
        if self.features_ is None:
            self.features_ = np.eye(n_arms)[None, :, :]
        self.d = self.features_.shape[2]
        self.R, self.L, self.S = info["R"], info["L"], info["S"]
        self.delta_ = 1.0 / horizon if self.delta is None else self.delta
        super().reset(n_arms, horizon, rng, info)

    def new_instance(self, s, e, order):
        return _OFUL(self, s, e, order)

    def actions(self, t):
        return self.features_[t if self.features_.shape[0] > 1 else 0]
