"""MASTER over UCB1 (Wei & Luo, COLT 2021, PMLR v134) transcribed literally from the
paper's text: objects for the base instances, lists of the block's g~ and rewards, and
every test recomputed from those lists each round. No incremental sums, no compiled code,
no code shared with :mod:`bandits.algorithms.master` (an independent check of
:class:`bandits.algorithms.master.MasterUCB`; the module doc there names every step,
constant and option).

* ALG: UCB1 as App. I.1 writes it (Alg. 7, Eq. (33)): index r_hat_a + c sqrt(log(T/delta) / N+_a),
  N+_a = max(1, N_a), r_hat_a = (sum of a's rewards) / N+_a; f~ = max_a index (Eq. (34)).
  Option ``base_index: auer``: mean + sqrt(c log s / N), s the instance's rounds, an
  unpulled arm at +inf; ``f_tilde_clip``: f~ = min(1, max index).
* rho(t) = sqrt(A L / t) + A L / t with L = log(T/delta) (Eq. (34); ``rho_rule: earlier``:
  L = 1), the two terms times ``rho_constant`` and ``rho_linear``; ``rho_cap``: min(rho, 1)
  (App. F, proof of Theorem 2).
* Procedure 1 / Alg. 2 (MALG), block of order n from round t_n: at tau = t - t_n, for
  m = n..0 with 2^m | tau, one uniform u; if u < rho(2^n) / rho(2^m) a new instance with
  s = t, e = t + 2^m - 1 is scheduled. The active instance covers t with the lowest order.
* Alg. 3 (MASTER): rho_hat(t) = 6 (log2 T + 1) log(T / delta) rho(t) (Lemma 3); blocks from
  n = n0 (0, or floor(log2 T) with ``start_order: floor_log2_T``); U_t = min of the block's
  g~; Test 1 (an instance ends at t and its rounds' mean reward >= U_t + 9 rho_hat(2^m)) and
  Test 2 (the block's mean of g~ - R >= 3 rho_hat(block rounds so far)); a failed test
  restarts from n = n0, otherwise a block's end starts block n + 1.

Use it as ``python run.py algo=custom algo._target_=bandits.reference.ReferenceMasterUCB``.
"""

from __future__ import annotations

import math

from bandits.algorithms.common import reward_scale
from bandits.reference.common import lowest_argmax


class _UCB1:
    """One base instance (ALG) of order ``order`` scheduled on rounds [s, e]."""

    def __init__(self, owner, s, e, order):
        self.owner, self.s, self.e, self.order = owner, s, e, order
        self.N = [0] * owner.K
        self.total = [0.0] * owner.K
        self.rounds = 0

    def indices(self):
        o = self.owner
        out = []
        for a in range(len(self.N)):
            if o.base_index == "alg7":  # Alg. 7, Eq. (33)
                n_plus = max(1, self.N[a])
                out.append(self.total[a] / n_plus + o.ucb_c * math.sqrt(math.log(o.T / o.delta_) / n_plus))
            elif self.N[a] == 0:  # Auer et al. 2002, Fig. 1: play each machine once
                out.append(math.inf)
            else:
                log_s = math.log(self.rounds) if self.rounds > 0 else 0.0
                out.append(self.total[a] / self.N[a] + math.sqrt(o.ucb_c * log_s / self.N[a]))
        return out

    def f_tilde(self, t):
        top = max(self.indices())
        return min(1.0, top) if self.owner.f_tilde_clip else top

    def act(self, t):
        """UCB1's arm (round t plays no part: there is no context)."""
        return lowest_argmax(self.indices())

    def update(self, arm, x, reward):
        """UCB1 learns from the reward mapped to [0, 1], x."""
        self.rounds += 1
        self.N[arm] += 1
        self.total[arm] += x


class ReferenceMasterUCB:
    problem_kinds = ("karmed",)

    def __init__(self, rho_constant=1.0, rho_linear=1.0, rho_rule="paper", rho_cap=False, start_order="zero",
                 rho_hat_constant=6.0, test1_constant=9.0, test2_constant=3.0, test_multiplier=1.0, delta=None,
                 ucb_c=2.0, base_index="alg7", f_tilde_clip=False, reward_range=None):
        self.rho_constant = rho_constant
        self.rho_linear = rho_linear
        self.rho_rule = rho_rule
        self.rho_cap = rho_cap
        self.start_order = start_order
        self.rho_hat_constant = rho_hat_constant
        self.test1_constant = test1_constant
        self.test2_constant = test2_constant
        self.test_multiplier = test_multiplier
        self.delta = delta
        self.ucb_c = ucb_c
        self.base_index = base_index
        self.f_tilde_clip = f_tilde_clip
        self.reward_range = reward_range

    def needs(self):
        return () if self.reward_range is not None else ("reward_range",)

    # Assumption 1's rate for UCB1 (Eq. (34)), capped as in App. F, and MASTER's rho_hat (Lemma 3)
    def rho(self, t):
        L = math.log(self.T / self.delta_) if self.rho_rule == "paper" else 1.0
        value = self.rho_constant * math.sqrt(self.K * L) / t ** 0.5 + self.rho_linear * (self.K * L) / t
        return min(1.0, value) if self.rho_cap else value

    def rho_hat(self, t):
        return self.hat * self.rho(t)

    def first_order(self):
        return 0 if self.start_order == "zero" else int(math.floor(math.log2(self.T)))

    def reset(self, n_arms, horizon, rng, info):
        self.K, self.T, self.rng = n_arms, horizon, rng
        self.lo, self.scale = self.reward_map(info)
        self.delta_ = 1.0 / horizon if self.delta is None else self.delta
        self.hat = self.rho_hat_constant * (math.log2(horizon) + 1.0) * math.log(horizon / self.delta_)
        self.events = []  # (first round of the new block, cause: 0 block end, 1/2/3 Test 1/2/both)
        self.new_block(self.first_order(), 0)

    def reward_map(self, info):
        """(lo, scale): rewards mapped to [0, 1] by (y - lo) * scale for MASTER's tests."""
        return reward_scale(self, info)

    def new_block(self, n, t):
        """Alg. 3: a fresh MALG of length 2^n from round t."""
        self.n, self.t_n = n, t
        self.instances = []
        self.f_hist, self.r_hist = [], []

    def new_instance(self, s, e, order):
        """A fresh base instance (ALG) scheduled on rounds [s, e]: UCB1 here; a subclass
        puts its own base (the OFUL and contextual references do)."""
        return _UCB1(self, s, e, order)

    def select(self, t):
        # Procedure 1: schedule the instances starting now, orders n down to 0
        tau = t - self.t_n
        for m in range(self.n, -1, -1):
            if tau % 2 ** m == 0:
                if self.rng.random() < self.rho(float(2 ** self.n)) / self.rho(float(2 ** m)):
                    self.instances.append(self.new_instance(t, t + 2 ** m - 1, m))
        covering = [alg for alg in self.instances if alg.s <= t <= alg.e]
        self.active = min(covering, key=lambda alg: alg.order)
        self.f = self.active.f_tilde(t)
        return self.active.act(t)

    def update(self, t, arm, reward):
        x = (reward - self.lo) * self.scale
        self.active.update(arm, x, reward)
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
            self.new_block(self.first_order() if cause > 0 else self.n + 1, t + 1)
