"""MASTER over ILTCB (Wei & Luo, COLT 2021, PMLR v134: Alg. 3 over Alg. 2 over App. I.6's
Alg. 12) transcribed literally: Procedure 1, MALG, MASTER and the tests are
:class:`ReferenceMasterUCB`'s (objects for the instances, the block's lists of g~ and rewards,
every test recomputed from them); only the base instance and the rate differ. Each instance
stores its history (round, action, importance weight) and recomputes every policy's
importance-weighted value from it at every round: no incremental sums, no compiled code,
nothing shared with :mod:`bandits.contextual.master_iltcb` (whose module doc names every step,
constant and option) except the OP solver, :func:`bandits.contextual.op_solver.solve_op`
(Agarwal et al.'s coordinate descent, tested on its own against the OP's constraints by brute
force in ``tests/test_contextual.py``).

* rho(t) = C sqrt(A log(N T / delta) / t), delta = 1/T unless given (min(rho, 1) with ``rho_cap``).
* The instance's s-th round t (s - 1 rounds of its data): if it re-solves now (every round
  s >= 2, or s - 1 a power of 2 with ``op_schedule: doubling``), Q = the OP's solution on its
  history with mu = min(1/(2A), sqrt(log(N T / delta) / (A s))) and psi; at s = 1 Q is the
  point mass on policy 0. p(a) = (1 - A mu) sum_pi Q(pi) 1[pi(x_t) = a] + mu; one uniform u,
  a = the first action whose cumulative p exceeds u. f~ = max_pi R_hat(pi) + c2 A sqrt(log(N T / delta)
  / (A max(1, s - 1))), R_hat(pi) = (1/(s - 1)) sum over the history of w 1[pi(x_tau) = a_tau]
  (0 with no history). After the reward r, w = r / p(a).

Use it as ``python run.py algo=custom algo._target_=bandits.reference.ReferenceMasterILTCB``.
"""

from __future__ import annotations

import math

import numpy as np

from bandits.contextual.op_solver import solve_op
from bandits.contextual.policy_class import FinitePolicyClass
from bandits.reference.master_ucb import ReferenceMasterUCB


class _ILTCB:
    """One base instance of order ``order`` scheduled on rounds [s, e]."""

    def __init__(self, owner, s, e, order):
        self.owner, self.s, self.e, self.order = owner, s, e, order
        self.history = []  # (round, action, importance weight)
        self.Q = ([0], [1.0])
        self.mu = owner.mu_of(1)

    def value(self, policy):
        """The policy's summed importance-weighted reward over the history, in time order."""
        total = 0.0
        for t, a, w in self.history:
            if self.owner.pred[t, policy] == a:
                total += w
        return total

    def f_tilde(self, t):
        o = self.owner
        s = len(self.history) + 1
        best = max(self.value(pi) for pi in range(o.pred.shape[1]))
        mean = best / (s - 1) if s > 1 else 0.0
        f = mean + o.f_tilde_constant * o.K * math.sqrt(o.log_term / (o.K * max(1, s - 1)))
        return min(1.0, f) if o.f_tilde_clip else f

    def act(self, t):
        o = self.owner
        s = len(self.history) + 1
        if s >= 2 and (o.op_schedule == "every_round" or math.log2(s - 1).is_integer()):
            rows = np.array([h[0] for h in self.history], dtype=np.int64)
            acts = np.zeros(o.T, dtype=np.int64)
            wts = np.zeros(o.T)
            for r, a, w in self.history:
                acts[r], wts[r] = a, w
            mu = o.mu_of(s)
            res = solve_op(o.pclass, rows, acts, wts, mu, o.psi)
            self.Q, self.mu = (list(res.support), list(res.weights)), mu
        q = [0.0] * o.K
        for pi, weight in zip(*self.Q, strict=True):
            q[int(o.pred[t, pi])] += weight
        p = [(1.0 - o.K * self.mu) * v + self.mu for v in q]
        u = o.rng.random()
        acc, a = 0.0, o.K - 1
        for i, v in enumerate(p):
            acc += v
            if u < acc:
                a = i
                break
        self.last = (t, a, p[a])
        return a

    def update(self, arm, x, reward):
        t, a, p = self.last
        assert a == arm
        self.history.append((t, a, x / p))


class ReferenceMasterILTCB(ReferenceMasterUCB):
    problem_kinds = ("contextual",)

    def __init__(self, psi=100.0, f_tilde_constant=1.0, op_schedule="doubling", rho_constant=1.0, rho_cap=False,
                 start_order="zero", rho_hat_constant=6.0, test1_constant=9.0, test2_constant=3.0,
                 test_multiplier=1.0, delta=None, f_tilde_clip=False):
        super().__init__(rho_constant=rho_constant, rho_cap=rho_cap, start_order=start_order,
                         rho_hat_constant=rho_hat_constant, test1_constant=test1_constant,
                         test2_constant=test2_constant, test_multiplier=test_multiplier, delta=delta,
                         f_tilde_clip=f_tilde_clip, reward_range=[0.0, 1.0])
        self.psi = psi
        self.f_tilde_constant = f_tilde_constant
        self.op_schedule = op_schedule

    def needs(self):
        return ("policy_actions", "reward_range")

    def mu_of(self, s):
        return min(1.0 / (2 * self.K), math.sqrt(self.log_term / (self.K * s)))

    def rho(self, t):
        value = self.rho_constant * math.sqrt(self.K * self.log_term) / t ** 0.5
        return min(1.0, value) if self.rho_cap else value

    def reset(self, n_arms, horizon, rng, info):
        self.pred = np.asarray(info["policy_actions"])
        self.pclass = FinitePolicyClass(self.pred, n_arms)
        delta = 1.0 / horizon if self.delta is None else self.delta
        self.log_term = math.log(self.pred.shape[1] * horizon / delta)
        self.K = n_arms
        super().reset(n_arms, horizon, rng, info)

    def new_instance(self, s, e, order):
        return _ILTCB(self, s, e, order)
