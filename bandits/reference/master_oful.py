"""MASTER over OFUL (Wei & Luo, COLT 2021, Algs. 1-2) transcribed literally: objects for the
base instances (each its own history of (x, y), least squares solved directly every round),
lists of the block's f~ and rewards, and every test recomputed from those lists each round.
No incremental sums, no compiled code, no code shared with
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


class _OFUL:
    """One base instance (ALG) of order ``order`` scheduled on rounds [s, e]."""

    def __init__(self, owner, s, e, order):
        self.owner, self.s, self.e, self.order = owner, s, e, order
        self.history = []

    def indices(self, D):
        o = self.owner
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

    def update(self, x, y):
        self.history.append((x, y))


class ReferenceMasterOFUL:
    problem_kinds = ("karmed", "linear")

    def __init__(self, rho_constant=1.0, rho_linear=1.0, rho_hat_constant=6.0, test1_constant=9.0,
                 test2_constant=3.0, test_multiplier=1.0, delta=None, lam=1.0, reward_range=None):
        self.rho_constant = rho_constant
        self.rho_linear = rho_linear
        self.rho_hat_constant = rho_hat_constant
        self.test1_constant = test1_constant
        self.test2_constant = test2_constant
        self.test_multiplier = test_multiplier
        self.delta = delta
        self.lam = lam
        self.reward_range = reward_range

    def needs(self):
        return ("R", "L", "S") + (("reward_bound",) if self.reward_range is None else ())

    def rho(self, t):
        return self.rho_constant * self.d / math.sqrt(t) + self.rho_linear * self.d / t

    def rho_hat(self, t):
        return self.hat * self.rho(t)

    def reset(self, n_arms, horizon, rng, info):
        self.T, self.rng = horizon, rng
        self.features_ = info.get("features")
        if self.features_ is None:
            self.features_ = np.eye(n_arms)[None, :, :]
        self.d = self.features_.shape[2]
        self.R, self.L, self.S = info["R"], info["L"], info["S"]
        if self.reward_range is None:
            self.lo, self.hi = -info["reward_bound"], info["reward_bound"]
        else:
            self.lo, self.hi = self.reward_range
        self.delta_ = 1.0 / horizon if self.delta is None else self.delta
        self.hat = self.rho_hat_constant * (math.log2(horizon) + 1.0) * math.log(horizon / self.delta_)
        self.events = []  # (first round of the new block, cause: 0 block end, 1/2/3 Test 1/2/both)
        self.new_block(0, 0)

    def new_block(self, n, t):
        """Alg. 2: a fresh MALG of length 2^n from round t."""
        self.n, self.t_n = n, t
        self.instances = []
        self.f_hist, self.r_hist = [], []

    def _actions(self, t):
        return self.features_[t if self.features_.shape[0] > 1 else 0]

    def select(self, t):
        # Alg. 1: schedule the instances starting now, orders n down to 0
        tau = t - self.t_n
        for m in range(self.n, -1, -1):
            if tau % 2 ** m == 0:
                if self.rng.random() < self.rho(float(2 ** self.n)) / self.rho(float(2 ** m)):
                    self.instances.append(_OFUL(self, t, t + 2 ** m - 1, m))
        covering = [alg for alg in self.instances if alg.s <= t <= alg.e]
        self.active = min(covering, key=lambda alg: alg.order)
        scores = self.active.indices(self._actions(t))
        self.f = min(1.0, (max(scores) - self.lo) / (self.hi - self.lo))
        return lowest_argmax(scores)

    def update(self, t, arm, reward):
        self.active.update(self._actions(t)[arm], reward)  # OFUL learns from the raw reward
        x = (reward - self.lo) / (self.hi - self.lo)
        self.f_hist.append(self.f)
        self.r_hist.append(x)
        U = min(self.f_hist)
        fail1 = False
        for alg in self.instances:
            if alg.e == t:
                total = 0.0
                for r in self.r_hist[alg.s - self.t_n:alg.e - self.t_n + 1]:
                    total += r
                threshold = (self.test_multiplier * self.test1_constant) * self.rho_hat(float(2 ** alg.order))
                if total / 2 ** alg.order >= U + threshold:
                    fail1 = True
        length = t - self.t_n + 1
        gap = 0.0
        for f, r in zip(self.f_hist, self.r_hist, strict=True):
            gap += f - r
        fail2 = gap / length >= (self.test_multiplier * self.test2_constant) * self.rho_hat(length)
        cause = int(fail1) + 2 * int(fail2)
        if t + 1 < self.T and (cause > 0 or length == 2 ** self.n):
            self.events.append((t + 1, cause))
            self.new_block(0 if cause > 0 else self.n + 1, t + 1)
