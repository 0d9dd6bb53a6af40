"""MASTER over OFUL (Wei & Luo, COLT 2021, PMLR v134) transcribed literally from the paper's
text: objects for the base instances (each its own history of (a, y), least squares solved
directly every round), lists of the block's g~ and rewards, and every test recomputed from
those lists each round. Procedure 1, MALG (Alg. 2), MASTER (Alg. 3) and the tests are
:class:`ReferenceMasterUCB`'s; only the base instance, the rate and the reward map differ. No
incremental sums, no compiled code, no code shared with :mod:`bandits.algorithms.master_oful`
(an independent check of :class:`bandits.algorithms.MasterOFUL`; the module doc there names
every step, constant and option).

* ALG: OFUL as App. I.2 writes it (Alg. 8, Eq. (35)): Lambda = lam I + sum a a^T over the
  instance's own history, theta_hat = Lambda^{-1} sum y a by a direct solve, action
  argmax a^T theta_hat + 2 beta ||a||_{Lambda^{-1}} (lowest index on ties), beta = 4 sqrt(d log(T/delta));
  f~ = max of that (Eq. (36)), mapped to [0, 1] by (f - lo) / (hi - lo), [lo, hi] = [-b, b] with
  b = reward_bound (or reward_range). ``radius: oful``: OFUL's usual
  beta_n = R sqrt(d ln((1 + n L^2 / lambda) / delta)) + sqrt(lambda) S, not doubled;
  ``f_tilde_clip``: f~ clipped at 1.
* rho(t) = 4 d log(T/delta) / sqrt(t) (Eq. (36), times rho_constant, plus rho_linear d log(T/delta) / t);
  ``rho_rule: earlier``: C d / sqrt(t) + c_lin d / t; ``rho_cap``: min(rho, 1).

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
        if o.radius == "paper":  # Alg. 8: 2 beta, beta = 4 sqrt(d log(T / delta))
            width = 2.0 * (4.0 * math.sqrt(d * math.log(o.T / o.delta_)))
        else:
            width = o.R * math.sqrt(d * math.log((1 + n * o.L ** 2 / o.lam) / o.delta_)) + math.sqrt(o.lam) * o.S
        return [x @ theta + width * math.sqrt(x @ Vinv @ x) for x in D]

    def f_tilde(self, t):
        f = (max(self.indices(t)) - self.owner.lo) * self.owner.scale
        return min(1.0, f) if self.owner.f_tilde_clip else f

    def act(self, t):
        self.t = t
        return lowest_argmax(self.indices(t))

    def update(self, arm, x, reward):
        """OFUL learns from the raw reward (the linear model is in y), not from x."""
        self.history.append((self.owner.actions(self.t)[arm], reward))


class ReferenceMasterOFUL(ReferenceMasterUCB):
    problem_kinds = ("karmed", "linear")

    def __init__(self, rho_constant=1.0, rho_linear=0.0, rho_rule="paper", rho_cap=False, start_order="zero",
                 radius="paper", rho_hat_constant=6.0, test1_constant=9.0, test2_constant=3.0, test_multiplier=1.0,
                 delta=None, lam=1.0, f_tilde_clip=False, reward_range=None):
        super().__init__(rho_constant=rho_constant, rho_linear=rho_linear, rho_rule=rho_rule, rho_cap=rho_cap,
                         start_order=start_order, rho_hat_constant=rho_hat_constant, test1_constant=test1_constant,
                         test2_constant=test2_constant, test_multiplier=test_multiplier, delta=delta,
                         f_tilde_clip=f_tilde_clip, reward_range=reward_range)
        self.radius = radius
        self.lam = lam

    def needs(self):
        return (("R", "L", "S") if self.radius == "oful" else ()) + (
            ("reward_bound",) if self.reward_range is None else ())

    def rho(self, t):
        if self.rho_rule == "paper":  # Eq. (36): beta sqrt(d log(T/delta) / t) = 4 d log(T/delta) / sqrt(t)
            L = math.log(self.T / self.delta_)
            value = self.rho_constant * 4.0 * self.d * L / t ** 0.5 + self.rho_linear * self.d * L / t
        else:
            value = self.rho_constant * self.d / t ** 0.5 + self.rho_linear * self.d / t
        return min(1.0, value) if self.rho_cap else value

    def reward_map(self, info):
        """[-b, b] with b = reward_bound onto [0, 1], unless reward_range is set."""
        lo, hi = (-info["reward_bound"], info["reward_bound"]) if self.reward_range is None else self.reward_range
        return float(lo), 1.0 / (float(hi) - float(lo))

    def reset(self, n_arms, horizon, rng, info):
        self.features_ = info.get("features")
        if self.features_ is None:
            self.features_ = np.eye(n_arms)[None, :, :]
        self.d = self.features_.shape[2]
        if self.radius == "oful":
            self.R, self.L, self.S = info["R"], info["L"], info["S"]
        self.delta_ = 1.0 / horizon if self.delta is None else self.delta
        super().reset(n_arms, horizon, rng, info)

    def new_instance(self, s, e, order):
        return _OFUL(self, s, e, order)

    def actions(self, t):
        return self.features_[t if self.features_.shape[0] > 1 else 0]
