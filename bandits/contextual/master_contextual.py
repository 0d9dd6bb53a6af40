"""MASTER over a contextual epsilon-greedy learner, OUR CONSTRUCTION: Wei & Luo, "Non-stationary
reinforcement learning without prior knowledge: an optimal black-box approach", COLT
2021 (PMLR v134), Procedure 1 and Algs. 2-3, over a base of our own choosing (the paper's own
contextual example is MASTER over ILTCB, App. I.6: :mod:`bandits.contextual.master_iltcb`,
config ``master_iltcb``). Parameter-free: told
neither the number nor the size of the changes, only T (for the logarithms), the finite
policy class (``policy_actions``, T x N: every policy's action at every round, all an
ERM oracle needs) and that rewards lie in [0, 1].

Source note. MASTER's steps and constants are read from the paper's text (see
:mod:`bandits.algorithms.master`); the epsilon-greedy base and its rate are ours: the paper
gives no epsilon-greedy example. Its rate t^(-1/3) is slower than the sqrt(1/t) rate of the
paper's contextual bases (ILTCB, FALCON), so MASTER over it targets the slower rates of such a
base. Every step of the base below is a reading, named as such.

MASTER, MALG and the tests are the K-armed module's base-agnostic pieces
(:func:`~bandits.algorithms.master.malg_schedule`, ``malg_active``, ``master_test1``,
``test2_fails``, ``master_block_end``, ``rho_hat_factor``, ``max_order``); only the base
and its rate rho are new here:

* rho_hat(t) = c_hat (log2 T + 1) log(T / delta) rho(t), c_hat = ``rho_hat_constant`` = 6
  (Lemma 3), delta = ``delta`` = 1/T; ``rho_cap`` and ``start_order`` as for ``master_ucb``
  (the cap applies to MASTER's use of rho, not to the base's own f~).
* MALG (Alg. 1) schedules an order-m instance at aligned positions with probability
  rho(2^n) / rho(2^m) = 2^((m - n) / 3) for the rate below.
* Test 1: an order-m instance ends at t and its rounds' mean reward >= U_t +
  9 rho_hat(2^m); Test 2: the block's mean of f~ - R >= 3 rho_hat(t - t_n + 1) (9, 3 =
  ``test1_constant``, ``test2_constant``; ``test_multiplier`` = 1 multiplies both, a
  smaller value only for experiments that make the tests fire).

The base (ALG, Assumption 1), ``base: epsilon_greedy`` (the only choice). One fresh
instance per scheduled interval (one live instance per order), restarted from scratch.
An instance that has played s - 1 rounds plays its s-th round t as follows (reading; the
same learner and ERM oracle as :class:`bandits.contextual.baselines.EpsilonGreedy`, with
a decreasing exploration rate, which a base needs to meet Assumption 1):

* eps_s = min(1, c_eps (K log(N / delta) / s)^(1/3)), c_eps = ``epsilon_constant`` = 1
  (the standard epsilon-greedy / epoch-greedy rate, Langford & Zhang 2007: stationary
  regret O((K log(N/delta))^(1/3) t^(2/3))). eps_1 = 1 whenever c_eps^3 K log(N/delta) >= 1.
* ERM oracle: pihat = argmax_pi S(pi), S(pi) = sum over the instance's rounds tau of
  w_tau 1{pi(x_tau) = a_tau}, w_tau = r_tau / p_tau(a_tau) (ties: lowest index); the
  greedy action is pihat(x_t). O(N) per round, S kept incrementally (IW rewards never
  change once observed).
* Draws: u1, u2 (two uniforms every round, from the trial's Generator, after MALG's
  scheduling draws). If u1 < eps_s, a_t = min(floor(u2 K), K - 1) (uniform), else the
  greedy action. p_t(a_t) = eps_s / K + (1 - eps_s) 1{a_t = pihat(x_t)}.
* f~_t = 1 if s = 1, else min(1, max_pi S(pi) / (s - 1) + rho(s - 1)): the best
  importance-weighted mean value of the class on the instance's data plus the rate (the
  reading of "optimistic estimate of the optimal policy value", in [0, 1]).
* rho(t) = C (K log(N / delta) / t)^(1/3), C = ``rho_constant`` = 1 (reading: the rate of
  the IW deviation at these eps, sqrt(sum_tau K / eps_tau log(N/delta)) / t =
  O((K log(N/delta) / t)^(1/3)), and of the regret; constants hidden). With it, f~ is
  optimistic on the good event (i) and (1/t) sum (f~ - R) = O(rho(t)) (ii) when the
  world is stationary; C = 1 is not a proven constant, a larger C only raises every
  threshold.

ILTCB does meet MASTER's condition, with the optimistic estimate the paper builds for it
(App. I.6); MASTER over ILTCB is ``master_iltcb``.

With the paper's constants no test can fire at practical horizons: at T = 1e5, K = 5,
N = 500 the smallest thresholds are 9 rho_hat(2^16) = 2.4e3 and 3 rho_hat(T) = 701,
while the tested means lie in [-1, 1] (``derived_`` records them). MASTER is then this
epsilon-greedy restarted at the doubling block ends, with random multi-scale instances.

Events (``events_``, the form the contextual figures read): ``restarts``, a list of
``{"round": r, "test": k}``, the first round of each test-triggered new epoch (k = 1, 2,
3 = Test 1, Test 2, both); ``blocks``, a list of ``{"round": r, "n": order}``, every
block start (round 0 included). ``derived_`` counts ``test_restarts`` (and per test)
and ``block_restarts``, and records the smallest thresholds.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from bandits.algorithms.common import check_delta, resolve_delta
from bandits.algorithms.master import (
    START_ORDERS,
    Rate,
    check_assumption1,
    malg_active,
    malg_schedule,
    master_block_end,
    master_rate,
    master_test1,
    rate_at,
    rate_table,
    rho_hat_factor,
    smallest_thresholds,
    start_order,
    test2_fails,
)
from bandits.contextual.common import contextual_problem
from bandits.errors import ConfigError, require_choice, require_float
from bandits.numerics import argmax_lowest

# scale = K log(N / delta); rate MASTER's rho (capped with rho_cap), base the base's own (for f~);
# hat = c_hat (log2 T + 1) log(T / delta); c2 = test_multiplier * test2_constant; n0 the first order
MasterCtxConstants = namedtuple("MasterCtxConstants", "scale rate base eps_c hat c2 n0")

THIRD = 1.0 / 3.0
BASES = ("epsilon_greedy",)


@njit(cache=True)
def eps_of(s, scale, eps_c):
    """eps_s = min(1, c_eps (K log(N / delta) / s)^(1/3)) at the instance's s-th round."""
    return min(1.0, eps_c * (scale / s) ** THIRD)


# ----------------------------------------------------------------------------- the epsilon-greedy base

@njit(cache=True)
def eg_reset(values, plays, m):
    """A fresh epsilon-greedy instance of order m: no data."""
    plays[m] = 0.0
    values[m, :] = 0.0


@njit(cache=True)
def eg_act(pred, t, K, values, plays, m, c, rng):
    """The instance's action at round t, its probability and its f~ (module doc)."""
    s = plays[m]
    row = values[m]
    f = 1.0 if s == 0.0 else min(1.0, row.max() / s + rate_at(s, c.base))
    greedy = pred[t, argmax_lowest(row)]
    eps = eps_of(s + 1.0, c.scale, c.eps_c)
    u1 = rng.random()
    u2 = rng.random()
    a = min(int(u2 * K), K - 1) if u1 < eps else int(greedy)
    p = eps / K + (1.0 - eps) * (1.0 if a == greedy else 0.0)
    return a, p, f


@njit(cache=True)
def eg_update(pred, t, values, plays, m, a, w):
    """Add the importance-weighted reward w to every policy that picks a at round t."""
    plays[m] += 1.0
    if w != 0.0:
        for n in range(pred.shape[1]):
            if pred[t, n] == a:
                values[m, n] += w


# ----------------------------------------------------------------------------- MASTER over epsilon-greedy

@njit(cache=True)
def master_ctx_kernel(pred, rewards, c, rho_pow, thr1, rng, actions, xs, events):
    """Alg. 2 over Alg. 1 over the epsilon-greedy base; events as in
    :func:`bandits.algorithms.master.master_ucb_kernel`. Returns the number of events."""
    T, K = rewards.shape
    M = rho_pow.shape[0] - 1
    ends = np.full(M + 1, -1, np.int64)
    started = np.zeros(M + 1, np.bool_)
    values, plays = np.zeros((M + 1, pred.shape[1])), np.zeros(M + 1)
    n, t_n, U, gap, n_events = c.n0, 0, np.inf, 0.0, 0
    for t in range(T):
        tau = t - t_n
        malg_schedule(ends, t, tau, n, rho_pow, rng, started)
        for m in range(n + 1):
            if started[m]:
                eg_reset(values, plays, m)
        m = malg_active(ends, t, n)
        a, p, f = eg_act(pred, t, K, values, plays, m, c, rng)
        actions[t] = a
        x = rewards[t, a]  # only the chosen action's reward; rewards lie in [0, 1]
        xs[t] = x
        eg_update(pred, t, values, plays, m, a, x / p)
        U = min(U, f)
        gap += f - x
        cause = 0
        if master_test1(ends, n, t, xs, U, thr1):
            cause += 1
        if test2_fails(gap, float(tau + 1), c.c2 * (c.hat * rate_at(float(tau + 1), c.rate))):
            cause += 2
        n, n_events, new = master_block_end(events, n_events, t, T, tau, n, cause, ends, c.n0)
        if new:
            t_n, U, gap = t + 1, np.inf, 0.0
    return n_events


def record_master_ctx(algo, p: dict, events: np.ndarray, thresholds: tuple, n0: int) -> None:
    """``events_`` (the form the contextual figures read) and ``derived_`` from the kernel's
    events (first round of a block, cause), for every contextual MASTER; epochs start at order n0."""
    tests = events[events[:, 1] > 0]
    orders, n = [n0], n0
    for cause in events[:, 1]:
        n = n0 if cause > 0 else n + 1
        orders.append(n)
    algo.events_ = {"restarts": [{"round": int(r), "test": int(k)} for r, k in tests],
                    "blocks": [{"round": int(r), "n": int(o)}
                               for r, o in zip([0] + [int(r) for r in events[:, 0]], orders, strict=True)]}
    algo.derived_ = {**p, "min_test1_threshold": float(thresholds[0]), "min_test2_threshold": float(thresholds[1]),
                     "test_restarts": int(len(tests)),
                     "test1_restarts": int(np.sum(tests[:, 1] == 1)),
                     "test2_restarts": int(np.sum(tests[:, 1] == 2)),
                     "both_tests_restarts": int(np.sum(tests[:, 1] == 3)),
                     "block_restarts": int(np.sum(events[:, 1] == 0))}


def check_master_ctx_params(algo) -> None:
    """The MASTER keys every contextual MASTER shares."""
    require_float("algo.rho_constant", algo.rho_constant, minimum=0.0, strict=True)
    for name in ("rho_hat_constant", "test1_constant", "test2_constant", "test_multiplier"):
        require_float(f"algo.{name}", getattr(algo, name), minimum=0.0)
    if not isinstance(algo.rho_cap, bool):
        raise ConfigError(f"algo.rho_cap must be true or false, got {algo.rho_cap!r}.")
    require_choice("algo.start_order", algo.start_order, set(START_ORDERS))
    check_delta(algo.delta)


def master_ctx_factors(algo, T: int) -> dict:
    """delta, rho_hat's factor, the tests' multiples, the cap and the starting order."""
    delta = resolve_delta(algo.delta, T)
    return {"delta": delta, "rho_constant": float(algo.rho_constant),
            "rho_hat_factor": rho_hat_factor(algo.rho_hat_constant, T, delta),
            "test1_multiple": float(algo.test_multiplier) * float(algo.test1_constant),
            "test2_multiple": float(algo.test_multiplier) * float(algo.test2_constant),
            "rho_cap": bool(algo.rho_cap), "start_order": start_order(algo, T)}


class MasterContextual:
    """MASTER (Wei & Luo 2021, Alg. 3 over Alg. 2) over contextual epsilon-greedy with the ERM
    oracle over a finite policy class (our construction); see the module doc for every step
    and constant."""

    problem_kinds = ("contextual",)

    def __init__(self, base: str = "epsilon_greedy", rho_constant: float = 1.0, epsilon_constant: float = 1.0,
                 rho_cap: bool = False, start_order: str = "zero", rho_hat_constant: float = 6.0,
                 test1_constant: float = 9.0, test2_constant: float = 3.0, test_multiplier: float = 1.0,
                 delta: float | None = None):
        self.base = base
        self.rho_constant = rho_constant
        self.epsilon_constant = epsilon_constant
        self.rho_cap = rho_cap
        self.start_order = start_order
        self.rho_hat_constant = rho_hat_constant
        self.test1_constant = test1_constant
        self.test2_constant = test2_constant
        self.test_multiplier = test_multiplier
        self.delta = delta

    def needs(self) -> tuple:
        return ("policy_actions", "reward_range")

    def check_params(self) -> None:
        require_choice("algo.base", self.base, set(BASES))
        require_float("algo.epsilon_constant", self.epsilon_constant, minimum=0.0, strict=True)
        check_master_ctx_params(self)

    def base_rate(self, p: dict) -> Rate:
        """rho(t) = C (K log(N / delta) / t)^(1/3), uncapped: the base's own rate (its f~)."""
        return Rate(p["rho_constant"] * p["log_scale"] ** THIRD, THIRD, 0.0, math.inf)

    def rate(self, p: dict) -> Rate:
        """The same rate as MASTER uses it (capped at 1 with ``rho_cap``)."""
        base = self.base_rate(p)
        return master_rate(self, base.coef, base.power, base.lin)

    def resolve(self, T: int, info: dict, K: int | None = None) -> dict:
        """The constants of a horizon T (recorded with every result): K actions (``info["K"]``
        unless given) and N policies (the columns of ``info["policy_actions"]``). Refuses a rate
        that breaks Assumption 1."""
        K = int(info["K"]) if K is None else int(K)
        N = int(np.shape(info["policy_actions"])[1])
        p = {"base": self.base, **master_ctx_factors(self, T), "n_policies": int(N),
             "epsilon_constant": float(self.epsilon_constant)}
        p["log_scale"] = float(K) * math.log(N / p["delta"])
        check_assumption1(self, self.rate(p), T)
        return p

    def constants(self, p: dict) -> MasterCtxConstants:
        return MasterCtxConstants(p["log_scale"], self.rate(p), self.base_rate(p), p["epsilon_constant"],
                                  p["rho_hat_factor"], p["test2_multiple"], p["start_order"])

    def play(self, rewards, info, rng, features=None):
        pclass = contextual_problem("master_ctx", rewards, info)
        T, K = rewards.shape
        p = self.resolve(T, info, K)
        rate = self.rate(p)
        rho_pow = rate_table(rate, T)
        thr1 = p["test1_multiple"] * (p["rho_hat_factor"] * rho_pow)
        actions = np.empty(T, dtype=np.int64)
        events = np.empty((T, 2), dtype=np.int64)
        count = master_ctx_kernel(pclass.pred, np.ascontiguousarray(rewards, dtype=np.float64), self.constants(p),
                                  rho_pow, thr1, rng, actions, np.empty(T), events)
        record_master_ctx(self, p, events[:count], smallest_thresholds(p, rate, T), p["start_order"])
        return actions
