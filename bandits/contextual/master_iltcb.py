"""MASTER over ILTCB: Wei & Luo, "Non-stationary reinforcement learning without prior
knowledge: an optimal black-box approach", COLT 2021 (PMLR v134), Procedure 1 and
Algs. 2-3, with ILOVETOCONBANDITS as App. I.6 writes it (Alg. 12) as the base: the paper's
own contextual example (Table 1: "MASTER + ILTCB", the successor to Ada-ILTCB+ on the
same problems). Parameter-free: told neither the number nor the size of the changes, only
T (for the logarithms), the finite policy class (``policy_actions``, T x N: every policy's
action at every round, all an ERM oracle needs) and that rewards lie in [0, 1].

MASTER, MALG, the tests, rho_hat, delta = 1/T, ``rho_cap`` and ``start_order`` are
:mod:`bandits.algorithms.master`'s (read from the paper's text; see that module's doc). The
base, read from App. I.6 (A = K actions, Pi the N policies):

* One fresh ILTCB instance per scheduled interval (one live instance per order). At its
  s-th round (s - 1 rounds of its own data so far) it plays a_t ~ Q^mu(. | x_t),
  Q^mu(a | x) = (1 - A mu) sum_pi Q(pi) 1[pi(x) = a] + mu, and learns the importance-weighted
  reward r_t 1[a_t = a] / p_t(a) of the action it chose.
* Q solves Alg. 12's two constraints on the instance's data with mu = mu_s:
  sum_pi Q(pi) Reg_hat(pi) <= 2 c' A mu and, for every pi,
  (1/(s - 1)) sum 1 / Q^mu(pi(x_tau) | x_tau) <= 2 A + Reg_hat(pi) / (c' mu):
  Agarwal et al.'s (OP) with psi = c' (``psi`` = 100, their value, "psi := 100"; c' is
  "some universal constant" in Alg. 12), solved by their coordinate descent
  (:func:`bandits.contextual.op_solver.solve_op`, with C nu = psi mu), the leftover mass on
  the empirically best policy (their Alg. 4). At s = 1 (no data) Q is the point mass on
  policy 0 (the empty data's empirical best).
* mu_s = min(1 / (2A), sqrt(log(|Pi| T / delta) / (A s))): Alg. 12's mu_t, capped at 1/(2A)
  as in Agarwal et al.'s Alg. 1 (Alg. 12 states no cap, but Q^mu is a distribution only for
  A mu <= 1).
* ``op_schedule``: Alg. 12 computes Q_t every round (``every_round``). The default
  ``doubling`` re-solves only before the rounds s with s - 1 a power of 2 (s = 2, 3, 5, 9,
  ...), keeping Q and its mu in between: Agarwal et al.'s epoch schedule (their Alg. 1 with
  tau_m = 2^(m - 1)), a documented deviation that makes the base affordable (one OP per
  doubling of an instance's data instead of one per round).
* f~_t = max_pi R_hat(pi) + c2 A mu_{s-1} (App. I.6), R_hat(pi) the instance's
  importance-weighted mean value of pi over its s - 1 rounds, mu uncapped (Alg. 12's
  definition) and taken at max(1, s - 1) (reading: at s = 1 there is no data, R_hat = 0, and
  mu_0 is undefined; as Alg. 7's N+ = max(1, N)). c2 = ``f_tilde_constant`` = 1 (a
  "universal constant" the text leaves open: the natural value; ``ctx_master_sensitivity``
  shows the verdict's dependence on it). ``f_tilde_clip: true`` clips f~ at 1.
* rho(t) = sqrt(A log(|Pi| T / delta) / t) (App. I.6), times ``rho_constant`` (1).

The rounds run compiled (:func:`iltcb_master_rounds`, one numba loop as the reference's
rounds), back in Python only when an instance must solve its OP (:func:`solve_op`).

Randomness: per round, MALG's scheduling draws (:func:`bandits.algorithms.master.malg_schedule`'s
order), then one uniform for the action (inverse CDF over actions 0..A-1). The OP is
deterministic. :mod:`bandits.reference.master_iltcb` draws the same.

Events and ``derived_`` as ``master_ctx`` (:func:`bandits.contextual.master_contextual.record_master_ctx`),
plus ``op_solves`` (the number of OP solves).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from bandits.algorithms.master import (
    Rate,
    check_assumption1,
    malg_active,
    malg_schedule,
    master_block_end,
    master_rate,
    master_test1,
    rate_table,
    rate_values,
    smallest_thresholds,
    test2_fails,
)
from bandits.contextual.common import contextual_problem
from bandits.contextual.master_contextual import check_master_ctx_params, master_ctx_factors, record_master_ctx
from bandits.contextual.op_solver import solve_op
from bandits.errors import ConfigError, require_choice, require_float
from bandits.numerics import sample_categorical

OP_SCHEDULES = ("doubling", "every_round")


def solve_before(s: int, schedule: str) -> bool:
    """Whether the instance re-solves its OP before its s-th round (s - 1 rounds of data)."""
    return op_due(s, schedule == "every_round")


@njit(cache=True)
def op_due(s, every_round):
    """:func:`solve_before` with the schedule as a flag (``every_round`` or doubling)."""
    if s < 2:
        return False
    return every_round or ((s - 1) & (s - 2)) == 0


@njit(cache=True)
def mu_explore(log_term, K, s):
    """Alg. 12's mu_s, capped at 1/(2A) (Agarwal et al.'s Alg. 1): log_term = log(|Pi| T / delta)."""
    return min(1.0 / (2 * K), math.sqrt(log_term / (K * s)))


# The constants of one trial (thresholds and rates as in master_ucb_kernel, the OP schedule as a
# flag) and its state, which lives across the calls of iltcb_master_rounds: per order m of
# instance, its rounds rows[off[m]:off[m] + nrows[m]], its IW value of every policy values[m],
# its Q (support[m, :supp_len[m]] with weights supp_w) and mu[m]; ints = (n, t_n, n_events,
# the instance waiting for its OP), floats = (U, gap).
IltcbConstants = namedtuple("IltcbConstants", "thr1 rho_pow rho_t hat c2 n0 log_term c_f clip every_round")
IltcbState = namedtuple("IltcbState", "ends started off rows nrows values support supp_w supp_len mu actions "
                                      "weights xs events probs ints floats")


@njit(cache=True)
def iltcb_master_rounds(t0, resume, rewards, pred, rng, c, st):
    """MASTER's rounds t0, t0 + 1, ... (the module doc, line by line as the loop of
    :class:`bandits.reference.master_iltcb.ReferenceMasterILTCB`) until the active
    instance must re-solve its OP before it acts: returns that round (its scheduling
    draws done, the instance in ``st.ints[3]``), or T at the end. ``resume``: round t0's
    scheduling was done by the call that returned t0 and its OP is now solved."""
    T, K = rewards.shape
    N = pred.shape[1]
    n, t_n, n_events = st.ints[0], st.ints[1], st.ints[2]
    U, gap = st.floats[0], st.floats[1]
    probs = st.probs
    for t in range(t0, T):
        tau = t - t_n
        if resume and t == t0:
            m = st.ints[3]
        else:
            malg_schedule(st.ends, t, tau, n, c.rho_pow, rng, st.started)
            for j in range(n + 1):
                if st.started[j]:  # a fresh instance: no data, Q the point mass on policy 0, mu_1
                    st.nrows[j] = 0
                    st.values[j, :] = 0.0
                    st.support[j, 0] = 0
                    st.supp_w[j, 0] = 1.0
                    st.supp_len[j] = 1
                    st.mu[j] = mu_explore(c.log_term, K, 1)
            m = malg_active(st.ends, t, n)
            if op_due(st.nrows[m] + 1, c.every_round):
                st.ints[0], st.ints[1], st.ints[2], st.ints[3] = n, t_n, n_events, m
                st.floats[0], st.floats[1] = U, gap
                return t
        s = st.nrows[m] + 1  # the instance's s-th round
        # f~ (App. I.6): the best IW mean so far plus c2 A mu_{s-1} (uncapped, at max(1, s - 1))
        mean = st.values[m].max() / (s - 1) if s > 1 else 0.0
        f = mean + c.c_f * K * math.sqrt(c.log_term / (K * max(1, s - 1)))
        if c.clip:
            f = min(1.0, f)
        # Q^mu(. | x_t): the support's mass on each action, smoothed
        probs[:] = 0.0
        for i in range(st.supp_len[m]):
            probs[pred[t, st.support[m, i]]] += st.supp_w[m, i]
        mu = st.mu[m]
        for a in range(K):
            probs[a] = (1.0 - K * mu) * probs[a] + mu
        a = sample_categorical(probs, rng.random())
        st.actions[t] = a
        r = rewards[t, a]  # only the chosen action's reward; rewards lie in [0, 1]
        st.xs[t] = r
        w = r / probs[a]
        st.weights[t] = w
        st.rows[st.off[m] + st.nrows[m]] = t
        st.nrows[m] += 1
        if w != 0.0:
            for pi in range(N):
                if pred[t, pi] == a:
                    st.values[m, pi] += w
        U = min(U, f)
        gap += f - r
        cause = 0
        if master_test1(st.ends, n, t, st.xs, U, c.thr1):
            cause += 1
        if test2_fails(gap, float(tau + 1), c.c2 * (c.hat * c.rho_t[tau + 1])):
            cause += 2
        n, n_events, new = master_block_end(st.events, n_events, t, T, tau, n, cause, st.ends, c.n0)
        if new:
            t_n, U, gap = t + 1, math.inf, 0.0
    st.ints[0], st.ints[1], st.ints[2] = n, t_n, n_events
    st.floats[0], st.floats[1] = U, gap
    return T


class MasterILTCB:
    """MASTER (Wei & Luo 2021, Alg. 3 over Alg. 2) over ILTCB (App. I.6, Alg. 12) on a finite
    policy class; see the module doc for every step and constant."""

    problem_kinds = ("contextual",)

    def __init__(self, psi: float = 100.0, f_tilde_constant: float = 1.0, op_schedule: str = "doubling",
                 rho_constant: float = 1.0, rho_cap: bool = False, start_order: str = "zero",
                 rho_hat_constant: float = 6.0, test1_constant: float = 9.0, test2_constant: float = 3.0,
                 test_multiplier: float = 1.0, delta: float | None = None, f_tilde_clip: bool = False):
        self.psi = psi
        self.f_tilde_constant = f_tilde_constant
        self.op_schedule = op_schedule
        self.rho_constant = rho_constant
        self.rho_cap = rho_cap
        self.start_order = start_order
        self.rho_hat_constant = rho_hat_constant
        self.test1_constant = test1_constant
        self.test2_constant = test2_constant
        self.test_multiplier = test_multiplier
        self.delta = delta
        self.f_tilde_clip = f_tilde_clip

    def needs(self) -> tuple:
        return ("policy_actions", "reward_range")

    def check_params(self) -> None:
        require_float("algo.psi", self.psi, minimum=0.0, strict=True)
        require_float("algo.f_tilde_constant", self.f_tilde_constant, minimum=0.0)
        require_choice("algo.op_schedule", self.op_schedule, set(OP_SCHEDULES))
        if not isinstance(self.f_tilde_clip, bool):
            raise ConfigError(f"algo.f_tilde_clip must be true or false, got {self.f_tilde_clip!r}.")
        check_master_ctx_params(self)

    def rate(self, p: dict) -> Rate:
        """rho(t) = C sqrt(A log(|Pi| T / delta) / t) (App. I.6), capped with ``rho_cap``."""
        return master_rate(self, p["rho_constant"] * math.sqrt(p["log_scale"]), 0.5, 0.0)

    def resolve(self, T: int, info: dict, K: int | None = None) -> dict:
        """The constants of a horizon T (recorded with every result): A actions (``info["K"]``
        unless given), N policies (the columns of ``info["policy_actions"]``). Refuses a rate
        that breaks Assumption 1."""
        K = int(info["K"]) if K is None else int(K)
        N = int(np.shape(info["policy_actions"])[1])
        p = {**master_ctx_factors(self, T), "n_policies": N, "psi": float(self.psi),
             "f_tilde_constant": float(self.f_tilde_constant), "op_schedule": self.op_schedule,
             "f_tilde_clip": bool(self.f_tilde_clip)}
        p["log_term"] = math.log(N * T / p["delta"])  # log(|Pi| T / delta)
        p["log_scale"] = K * p["log_term"]            # A log(|Pi| T / delta)
        check_assumption1(self, self.rate(p), T)
        return p

    def play(self, rewards, info, rng, features=None):
        pclass = contextual_problem("master_iltcb", rewards, info)
        T, K = rewards.shape
        N = pclass.pred.shape[1]
        p = self.resolve(T, info, K)
        rate = self.rate(p)
        rho_pow = rate_table(rate, T)
        c = IltcbConstants(
            thr1=p["test1_multiple"] * (p["rho_hat_factor"] * rho_pow), rho_pow=rho_pow,
            rho_t=np.concatenate([[np.nan], rate_values(rate, range(1, T + 1))]),  # rho(t), t = 1..T
            hat=p["rho_hat_factor"], c2=p["test2_multiple"], n0=p["start_order"], log_term=p["log_term"],
            c_f=p["f_tilde_constant"], clip=bool(self.f_tilde_clip), every_round=self.op_schedule == "every_round")
        M = rho_pow.shape[0] - 1
        # an order-m instance lives at most 2^m rounds: its rounds are rows[off[m]:off[m] + nrows[m]]
        off = np.concatenate([[0], np.cumsum([min(1 << m, T) for m in range(M + 1)])]).astype(np.int64)
        st = IltcbState(
            ends=np.full(M + 1, -1, np.int64), started=np.zeros(M + 1, np.bool_), off=off,
            rows=np.zeros(off[-1], np.int64), nrows=np.zeros(M + 1, np.int64), values=np.zeros((M + 1, N)),
            support=np.zeros((M + 1, N + 1), np.int64), supp_w=np.zeros((M + 1, N + 1)),
            supp_len=np.zeros(M + 1, np.int64), mu=np.zeros(M + 1),
            actions=np.zeros(T, dtype=np.int64), weights=np.zeros(T), xs=np.zeros(T),
            events=np.empty((T, 2), dtype=np.int64), probs=np.empty(K),
            ints=np.array([c.n0, 0, 0, 0], np.int64), floats=np.array([math.inf, 0.0]))
        pred = pclass.pred
        rewards = np.ascontiguousarray(rewards, dtype=np.float64)
        t, resume, solves = 0, False, 0
        while True:
            t = iltcb_master_rounds(t, resume, rewards, pred, rng, c, st)
            if t >= T:
                break
            # before round t, the active instance m (its s-th round) re-solves its OP (Alg. 12)
            m = int(st.ints[3])
            mu = mu_explore(c.log_term, K, int(st.nrows[m]) + 1)
            rows = st.rows[st.off[m]:st.off[m] + st.nrows[m]]
            res = solve_op(pclass, rows, st.actions, st.weights, mu, p["psi"])
            k = len(res.support)
            st.support[m, :k] = res.support
            st.supp_w[m, :k] = res.weights
            st.supp_len[m] = k
            st.mu[m] = mu
            solves += 1
            resume = True
        record_master_ctx(self, p, st.events[:st.ints[2]], smallest_thresholds(p, rate, T), c.n0)
        self.derived_["op_solves"] = int(solves)
        self.derived_["oracle_calls"] = int(pclass.calls_)
        return st.actions
