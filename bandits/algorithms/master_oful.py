"""MASTER over OFUL for linear bandits: Wei & Luo, "Non-stationary reinforcement learning
without prior knowledge: an optimal black-box approach", COLT 2021 (arXiv 2102.05406),
with OFUL (Abbasi-Yadkori, Pal & Szepesvari 2011) as the base algorithm ALG. Parameter-free:
it does not know B_T (nor the number of changes); it is told R, L, S for OFUL's radius and the
reward bound for the map to [0, 1].

MALG (Alg. 1), MASTER (Alg. 2) and both tests are :mod:`bandits.algorithms.master`'s
base-agnostic pieces (:func:`malg_schedule`, :func:`malg_active`, :func:`master_test1`,
:func:`test2_fails`), with the same constants and the same source status: the paper's text
was not readable here, the algorithm boxes are as recalled (see that module's doc):
rho_hat(t) = c_hat (log2 T + 1) log(T / delta) rho(t), c_hat = ``rho_hat_constant`` = 6,
Test 1 with ``test1_constant`` = 9, Test 2 with ``test2_constant`` = 3, ``test_multiplier`` = 1,
delta = 1/T. This module supplies the base:

* ALG = OFUL, one live instance per order m (a scheduled instance replaces the previous one
  of its order; a paused one resumes with its own state): V_m = lambda I + sum x x^T and b_m =
  sum x y over the instance's own rounds, V_m^{-1} by Sherman-Morrison with the direct inverse
  of the exact V_m every ``INVERT_EVERY`` plays
  (:func:`bandits.algorithms.sliding_window_least_squares.ridge_push`). The action is argmax
  x^T theta_hat + beta_n ||x||_{V^{-1}} (:func:`linear_ucb_indices`, ties to the lowest index),
  beta_n = OFUL's radius with n = the instance's own number of plays
  (:func:`bandits.algorithms.tuning.oful_radii`, delta = 1/T). OFUL learns from the raw rewards
  y (the linear model is in y).
* Rewards to [0, 1] for MASTER: x = (y - lo) / (hi - lo) with [lo, hi] = [-b, b], b =
  ``reward_bound`` (|mean reward| <= b; our reading, the noisy rewards are not clipped, so x
  may leave [0, 1] by the noise), or ``reward_range`` if set (as ``master_ucb``).
* f~_t = min(1, (max_a index_a - lo) / (hi - lo)): the optimistic estimate of the best mean,
  mapped like the rewards (Assumption 1: f~_t >= min f* - Delta; recalled).
* rho(t) = C d / sqrt(t) + c_lin d / t (Assumption 1's rate for OFUL, whose regret is
  O(d sqrt(t) log t); the paper's linear-bandit example states it up to constants and
  logarithms). C = ``rho_constant`` = 1 and c_lin = ``rho_linear`` = 1 are our reading, the
  d / t term paying the first rounds of a fresh instance as K / t does for UCB1.

With these constants no test can fire at practical horizons (the thresholds exceed 1 while the
averages they bound lie within [-1, 1] up to noise), as for ``master_ucb``; ``derived_``
records the smallest thresholds of the trial. ``events_`` / ``derived_`` as ``master_ucb``
(:func:`bandits.algorithms.master.record_master`).

Randomness: MALG's scheduling draws only, from the Generator passed to the kernel, in
:func:`malg_schedule`'s order; :mod:`bandits.reference.master_oful` draws the same.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from bandits.algorithms.common import check_known_overrides, known_constants, own_or_told
from bandits.algorithms.master import (
    check_master_params,
    malg_active,
    malg_schedule,
    master_block_end,
    master_factors,
    master_test1,
    max_order,
    record_master,
    test2_fails,
)
from bandits.algorithms.sliding_window_least_squares import ridge_push
from bandits.algorithms.sliding_window_ucb import index_scratch, linear_ucb_indices
from bandits.algorithms.tuning import OFULConstants, oful_radii
from bandits.errors import require_float
from bandits.numerics import argmax_lowest

# The constants of one trial for the kernel: rho's, hat = c_hat (log2 T + 1) log(T / delta),
# c2 = test_multiplier * test2_constant, OFUL's lambda, and lo, scale mapping rewards to [0, 1].
MasterOFULConstants = namedtuple("MasterOFULConstants", "rho_c rho_lin hat c2 d lam lo scale")


@njit(cache=True)
def oful_rho(t, d, rho_c, rho_lin):
    """rho(t) = C d / sqrt(t) + c_lin d / t: Assumption 1's rate for OFUL (module doc)."""
    return rho_c * d / math.sqrt(t) + rho_lin * d / t


@njit(cache=True)
def oful_reset(V, Vinv, bvec, plays, m, lam):
    """A fresh OFUL instance of order m: V = lambda I, b = 0, no plays."""
    d = bvec.shape[1]
    plays[m] = 0
    for i in range(d):
        bvec[m, i] = 0.0
        for j in range(d):
            V[m, i, j] = lam if i == j else 0.0
            Vinv[m, i, j] = 1.0 / lam if i == j else 0.0


@njit(cache=True)
def master_oful_kernel(feats, rewards, c, radii, rho_pow, thr1, rng, actions, xs, events):
    """Alg. 2 over Alg. 1 over OFUL. ``feats`` (T, K, d) or (1, K, d); ``radii[n]`` OFUL's radius
    after n plays. ``events[i]`` = (first round of a new block, cause): 0 the previous block
    ended, 1 / 2 / 3 Test 1 / Test 2 / both failed. Returns the number of events."""
    T, K = rewards.shape
    d = feats.shape[2]
    M = rho_pow.shape[0] - 1
    ends = np.full(M + 1, -1, np.int64)
    started = np.zeros(M + 1, np.bool_)
    V, Vinv = np.zeros((M + 1, d, d)), np.zeros((M + 1, d, d))
    bvec, plays = np.zeros((M + 1, d)), np.zeros(M + 1, np.int64)
    scratch, index, u = index_scratch(K, d), np.empty(K), np.empty(d)
    n, t_n, U, gap, n_events = 0, 0, np.inf, 0.0, 0
    for t in range(T):
        tau = t - t_n
        malg_schedule(ends, t, tau, n, rho_pow, rng, started)
        for m in range(n + 1):
            if started[m]:
                oful_reset(V, Vinv, bvec, plays, m, c.lam)
        m = malg_active(ends, t, n)
        row = t if feats.shape[0] > 1 else 0
        linear_ucb_indices(feats[row], Vinv[m], bvec[m], radii[plays[m]], scratch, index)
        arm = argmax_lowest(index)
        f = min(1.0, (np.max(index) - c.lo) * c.scale)
        actions[t] = arm
        y = rewards[t, arm]  # only the chosen arm's reward
        x = (y - c.lo) * c.scale
        xs[t] = x
        ridge_push(feats[row, arm], y, plays[m], V[m], Vinv[m], bvec[m], u)
        plays[m] += 1
        U = min(U, f)
        gap += f - x
        cause = 0
        if master_test1(ends, n, t, xs, U, thr1):
            cause += 1
        if test2_fails(gap, tau + 1, c.c2 * (c.hat * oful_rho(tau + 1, c.d, c.rho_c, c.rho_lin))):
            cause += 2
        n, n_events, new = master_block_end(events, n_events, t, T, tau, n, cause, ends)
        if new:
            t_n, U, gap = t + 1, np.inf, 0.0
    return n_events


class MasterOFUL:
    """MASTER (Wei & Luo 2021, Algs. 1-2) over OFUL on linear action sets (or basis vectors);
    parameter-free (does not know B_T). See the module doc for every step and constant."""

    problem_kinds = ("karmed", "linear")

    def __init__(self, rho_constant: float = 1.0, rho_linear: float = 1.0, rho_hat_constant: float = 6.0,
                 test1_constant: float = 9.0, test2_constant: float = 3.0, test_multiplier: float = 1.0,
                 delta: float | None = None, lam: float = 1.0, reward_range=None, R: float | None = None,
                 L: float | None = None, S: float | None = None):
        self.rho_constant = rho_constant
        self.rho_linear = rho_linear
        self.rho_hat_constant = rho_hat_constant
        self.test1_constant = test1_constant
        self.test2_constant = test2_constant
        self.test_multiplier = test_multiplier
        self.delta = delta
        self.lam = lam
        self.reward_range = reward_range
        self.R = R
        self.L = L
        self.S = S

    def needs(self) -> tuple:
        """R, L, S for OFUL's radius (unless set here) and the reward bound (unless
        ``reward_range`` is set)."""
        return own_or_told(self, ("d", "R", "L", "S")) + (("reward_bound",) if self.reward_range is None else ())

    def check_params(self) -> None:
        check_master_params(self)
        require_float("algo.lam", self.lam, minimum=0.0, strict=True)
        check_known_overrides(self)

    def resolve(self, T: int, info: dict) -> dict:
        """The constants of a horizon T (recorded with every result)."""
        c = known_constants(self, info)
        if self.reward_range is not None:
            lo, hi = (float(v) for v in self.reward_range)
        else:
            lo, hi = -float(info["reward_bound"]), float(info["reward_bound"])
        return {**master_factors(self, T), "lam": float(self.lam), "lo": lo, "scale": 1.0 / (hi - lo), **c}

    def thresholds(self, p: dict, T: int) -> tuple:
        """rho(2^m) for m = 0..max_order(T), and Test 1's thresholds c1 rho_hat(2^m)."""
        rho_pow = np.array([oful_rho(float(2 ** m), float(p["d"]), p["rho_constant"], p["rho_linear"])
                            for m in range(max_order(T) + 1)])
        return rho_pow, p["test1_multiple"] * (p["rho_hat_factor"] * rho_pow)

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T, K = rewards.shape
        p = self.resolve(T, info)
        if features is None:  # K arms: the basis vectors
            features = np.eye(K)[None]
        rho_pow, thr1 = self.thresholds(p, T)
        c = MasterOFULConstants(p["rho_constant"], p["rho_linear"], p["rho_hat_factor"], p["test2_multiple"],
                                float(p["d"]), p["lam"], p["lo"], p["scale"])
        radii = oful_radii(OFULConstants(p["R"], p["d"], p["L"], p["S"], p["delta"], p["lam"]), T + 1)
        actions = np.empty(T, dtype=np.int64)
        events = np.empty((T, 2), dtype=np.int64)
        count = master_oful_kernel(np.ascontiguousarray(features, dtype=np.float64),
                                   np.ascontiguousarray(rewards, dtype=np.float64), c, radii, rho_pow, thr1, rng,
                                   actions, np.empty(T), events)
        thr2_T = p["test2_multiple"] * (p["rho_hat_factor"] * oful_rho(float(T), float(p["d"]), p["rho_constant"],
                                                                       p["rho_linear"]))
        record_master(self, p, events[:count], thr1[max_order(T) - 1], thr2_T)
        return actions
