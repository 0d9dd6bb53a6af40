"""MASTER over contextual epsilon-greedy (Wei & Luo, COLT 2021, Alg. 3 over Alg. 2; the base is
our construction), transcribed
literally: MALG, MASTER and the tests are :class:`ReferenceMasterUCB`'s (objects for the
instances, the block's lists of f~ and rewards, every test recomputed from them); only
the base instance and the rate rho differ. Each instance stores its history
(round, action, importance weight) and recomputes every policy's importance-weighted
value from it at every round: no incremental sums, no compiled code, nothing shared
with :mod:`bandits.contextual.master_contextual` (whose module doc names every step and
reading).

* rho(t) = C (K log(N / delta))^(1/3) / t^(1/3), delta = 1/T unless given (min(rho, 1) for
  MASTER's schedule and thresholds with ``rho_cap``; the base's f~ uses it uncapped).
* The instance's s-th round t: S(pi) = sum over its history of w 1{pi(x_tau) = a_tau};
  f~ = 1 if s = 1 else min(1, max_pi S(pi) / (s - 1) + rho(s - 1)); the greedy action
  is pi(x_t) for the lowest pi of largest S; eps_s = min(1, c_eps (K log(N/delta) / s)^(1/3));
  two uniforms u1, u2: if u1 < eps_s the action min(floor(u2 K), K - 1), else the greedy
  one; p = eps_s / K + (1 - eps_s) 1{a = greedy}; after the reward r, w = r / p.

Use it as ``python run.py algo=custom algo._target_=bandits.reference.ReferenceMasterCtx``.
"""

from __future__ import annotations

import math

import numpy as np

from bandits.reference.common import lowest_argmax
from bandits.reference.master_ucb import ReferenceMasterUCB


class _EpsilonGreedy:
    """One base instance of order ``order`` scheduled on rounds [s, e]."""

    def __init__(self, owner, s, e, order):
        self.owner, self.s, self.e, self.order = owner, s, e, order
        self.history = []  # (round, action, importance weight)

    def sums(self):
        """S(pi) for every policy, from the whole history (rows summed in time order)."""
        pred = self.owner.pred
        if not self.history:
            return [0.0] * pred.shape[1]
        t, a, w = (np.array(v) for v in zip(*self.history, strict=True))
        picks = pred[t] == a[:, None]  # (rounds, N): does policy n pick the action played?
        return list(np.where(picks, w[:, None], 0.0).sum(axis=0))

    def f_tilde(self, t):
        s = len(self.history)
        if s == 0:
            return 1.0
        return min(1.0, max(self.sums()) / s + self.owner.base_rho(s))

    def act(self, t):
        o = self.owner
        greedy = int(o.pred[t, lowest_argmax(self.sums())])
        eps = min(1.0, o.epsilon_constant * (o.log_scale / (len(self.history) + 1)) ** (1.0 / 3.0))
        u1 = o.rng.random()
        u2 = o.rng.random()
        a = min(int(u2 * o.K), o.K - 1) if u1 < eps else greedy
        self.last = (t, a, eps / o.K + (1.0 - eps) * (1.0 if a == greedy else 0.0))
        return a

    def update(self, arm, x, reward):
        t, a, p = self.last
        assert a == arm
        self.history.append((t, a, x / p))


class ReferenceMasterCtx(ReferenceMasterUCB):
    problem_kinds = ("contextual",)

    def __init__(self, base="epsilon_greedy", rho_constant=1.0, epsilon_constant=1.0, rho_cap=False,
                 start_order="zero", rho_hat_constant=6.0, test1_constant=9.0, test2_constant=3.0,
                 test_multiplier=1.0, delta=None):
        super().__init__(rho_constant=rho_constant, rho_cap=rho_cap, start_order=start_order,
                         rho_hat_constant=rho_hat_constant, test1_constant=test1_constant,
                         test2_constant=test2_constant, test_multiplier=test_multiplier, delta=delta,
                         reward_range=[0.0, 1.0])
        self.base = base
        self.epsilon_constant = epsilon_constant

    def needs(self):
        return ("policy_actions", "reward_range")

    def base_rho(self, t):
        """The base's own rate C (K log(N / delta))^(1/3) / t^(1/3), uncapped (its f~)."""
        return self.rho_constant * self.log_scale ** (1.0 / 3.0) / t ** (1.0 / 3.0)

    def rho(self, t):
        return min(1.0, self.base_rho(t)) if self.rho_cap else self.base_rho(t)

    def reset(self, n_arms, horizon, rng, info):
        self.pred = info["policy_actions"]
        delta = 1.0 / horizon if self.delta is None else self.delta
        self.log_scale = n_arms * math.log(self.pred.shape[1] / delta)
        super().reset(n_arms, horizon, rng, info)

    def new_instance(self, s, e, order):
        return _EpsilonGreedy(self, s, e, order)
