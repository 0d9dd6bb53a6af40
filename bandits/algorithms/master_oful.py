"""MASTER over OFUL for linear bandits: Wei & Luo, "Non-stationary reinforcement learning
without prior knowledge: an optimal black-box approach", COLT 2021 (PMLR v134), with OFUL as
App. I.2 writes it (Alg. 8, Eqs. (35)-(36)) as the base ALG. Parameter-free: it does not know
B_T (nor the number of changes); it is told the reward bound for the map to [0, 1].

Procedure 1, MALG (Alg. 2), MASTER (Alg. 3), both tests, rho_hat (Lemma 3), delta = 1/T, the
cap ``rho_cap`` (App. F) and ``start_order`` are :mod:`bandits.algorithms.master`'s
base-agnostic pieces (read from the paper's text; see that module's doc). This module supplies
the base, read from App. I.2:

* ALG = OFUL with a fixed action set, one live instance per order m (a scheduled instance
  replaces the previous one of its order; a paused one resumes with its own state):
  Lambda_m = lam I + sum a a^T (lam = ``lam`` = 1: Eq. (35)'s Lambda_t = I + sum a a^T) and
  b_m = sum y a over the instance's own rounds, Lambda_m^{-1} by Sherman-Morrison with the
  direct inverse of the exact Lambda_m every ``INVERT_EVERY`` plays
  (:func:`bandits.algorithms.sliding_window_least_squares.ridge_push`). The action is
  argmax_a a^T theta_hat + 2 beta ||a||_{Lambda^{-1}} (Alg. 8: the radius doubled), ties to the
  lowest index, with beta = 4 sqrt(d log(T / delta)) (Eq. (35); ``radius: paper``). OFUL learns
  from the raw rewards y (the linear model is in y).
* f~_t = max_a (a^T theta_hat + 2 beta ||a||_{Lambda^{-1}}) (Eq. (36)), mapped to [0, 1] like the
  rewards; ``f_tilde_clip: true`` clips it at 1.
* rho(t) = beta sqrt(d log(T / delta) / t) = 4 d log(T / delta) / sqrt(t) (Eq. (36)), times
  ``rho_constant`` (1); ``rho_linear`` (0) adds rho_linear d log(T / delta) / t.
* Rewards to [0, 1] for MASTER's tests: x = (y - lo) / (hi - lo) with [lo, hi] = [-b, b], b =
  ``reward_bound`` (|mean reward| <= b; the paper assumes R in [0, 1], ||a|| <= 1, ||theta|| <= 1;
  our reading: the tests read rewards and f~ on that scale while OFUL's linear model stays in y;
  noisy rewards are not clipped, so x may leave [0, 1] by the noise), or ``reward_range`` if set.

The reading that ran before the paper's text was read stays available (config
``master_oful_nolog``): ``radius: oful`` (OFUL's usual radius beta_n = R sqrt(d log((1 + n L^2 /
lam) / delta)) + sqrt(lam) S, :func:`bandits.algorithms.tuning.oful_radii`, not doubled),
``rho_rule: earlier`` (rho = C d / sqrt(t) + c_lin d / t with C = c_lin = 1), ``f_tilde_clip:
true``, ``rho_cap: false``.

With these constants no test can fire at practical horizons (the thresholds exceed 1 by far
while the averages they bound lie within [-1, 1] up to f~'s bonus and the noise), as for
``master_ucb``; ``derived_`` records the smallest thresholds of the trial. ``events_`` /
``derived_`` as ``master_ucb`` (:func:`bandits.algorithms.master.record_master`).

Randomness: MALG's scheduling draws only, from the Generator passed to the kernel, in
:func:`malg_schedule`'s order; :mod:`bandits.reference.master_oful` draws the same.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from bandits.algorithms.common import check_known_overrides, known_constants, own_or_told, resolve_delta
from bandits.algorithms.master import (
    RHO_RULES,
    Rate,
    check_assumption1,
    check_master_params,
    malg_active,
    malg_schedule,
    master_block_end,
    master_factors,
    master_rate,
    master_test1,
    rate_at,
    rate_table,
    record_master,
    smallest_thresholds,
    test2_fails,
)
from bandits.algorithms.sliding_window_least_squares import ridge_push
from bandits.algorithms.sliding_window_ucb import index_scratch, linear_ucb_indices
from bandits.algorithms.tuning import OFULConstants, oful_radii
from bandits.errors import ConfigError, require_choice, require_float
from bandits.numerics import argmax_lowest

RADII = ("paper", "oful")

# The constants of one trial for the kernel: the rate, hat = c_hat (log2 T + 1) log(T / delta),
# c2 = test_multiplier * test2_constant, n0 the order of an epoch's first block, OFUL's lambda,
# clip 1 = f~ clipped at 1, and lo, scale mapping rewards to [0, 1].
MasterOFULConstants = namedtuple("MasterOFULConstants", "rate hat c2 n0 lam clip lo scale")


def paper_beta(d: int, T: int, delta: float) -> float:
    """beta = 4 sqrt(d log(T / delta)) (Alg. 8, Eq. (35))."""
    return 4.0 * math.sqrt(d * math.log(T / delta))


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
    """Alg. 3 over Alg. 2 over OFUL. ``feats`` (T, K, d) or (1, K, d); ``radii[n]`` the width
    multiplying ||a||_{V^-1} after n plays (2 beta for Alg. 8). ``events[i]`` = (first round of a
    new block, cause): 0 the previous block ended, 1 / 2 / 3 Test 1 / Test 2 / both failed.
    Returns the number of events."""
    T, K = rewards.shape
    d = feats.shape[2]
    M = rho_pow.shape[0] - 1
    ends = np.full(M + 1, -1, np.int64)
    started = np.zeros(M + 1, np.bool_)
    V, Vinv = np.zeros((M + 1, d, d)), np.zeros((M + 1, d, d))
    bvec, plays = np.zeros((M + 1, d)), np.zeros(M + 1, np.int64)
    scratch, index, u = index_scratch(K, d), np.empty(K), np.empty(d)
    n, t_n, U, gap, n_events = c.n0, 0, np.inf, 0.0, 0
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
        f = (np.max(index) - c.lo) * c.scale
        if c.clip:
            f = min(1.0, f)
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
        if test2_fails(gap, tau + 1, c.c2 * (c.hat * rate_at(float(tau + 1), c.rate))):
            cause += 2
        n, n_events, new = master_block_end(events, n_events, t, T, tau, n, cause, ends, c.n0)
        if new:
            t_n, U, gap = t + 1, np.inf, 0.0
    return n_events


class MasterOFUL:
    """MASTER (Wei & Luo 2021, Alg. 3 over Alg. 2) over OFUL (App. I.2, Alg. 8) on linear action
    sets (or basis vectors); parameter-free (does not know B_T). See the module doc for every
    step and constant."""

    problem_kinds = ("karmed", "linear")

    def __init__(self, rho_constant: float = 1.0, rho_linear: float = 0.0, rho_rule: str = "paper",
                 rho_cap: bool = False, start_order: str = "zero", radius: str = "paper",
                 rho_hat_constant: float = 6.0, test1_constant: float = 9.0, test2_constant: float = 3.0,
                 test_multiplier: float = 1.0, delta: float | None = None, lam: float = 1.0,
                 f_tilde_clip: bool = False, reward_range=None, R: float | None = None, L: float | None = None,
                 S: float | None = None):
        self.rho_constant = rho_constant
        self.rho_linear = rho_linear
        self.rho_rule = rho_rule
        self.rho_cap = rho_cap
        self.start_order = start_order
        self.radius = radius
        self.rho_hat_constant = rho_hat_constant
        self.test1_constant = test1_constant
        self.test2_constant = test2_constant
        self.test_multiplier = test_multiplier
        self.delta = delta
        self.lam = lam
        self.f_tilde_clip = f_tilde_clip
        self.reward_range = reward_range
        self.R = R
        self.L = L
        self.S = S

    def needs(self) -> tuple:
        """d; R, L, S for OFUL's usual radius (``radius: oful``, unless set here); the reward
        bound (unless ``reward_range`` is set)."""
        told = own_or_told(self, ("d", "R", "L", "S")) if self.radius == "oful" else ("d",)
        return told + (("reward_bound",) if self.reward_range is None else ())

    def check_params(self) -> None:
        check_master_params(self)
        require_choice("algo.rho_rule", self.rho_rule, set(RHO_RULES))
        require_choice("algo.radius", self.radius, set(RADII))
        require_float("algo.lam", self.lam, minimum=0.0, strict=True)
        if not isinstance(self.f_tilde_clip, bool):
            raise ConfigError(f"algo.f_tilde_clip must be true or false, got {self.f_tilde_clip!r}.")
        check_known_overrides(self)

    def rate(self, p: dict) -> Rate:
        """Eq. (36): 4 d log(T/delta) / sqrt(t) (``rho_rule: paper``; + rho_linear d log(T/delta) / t),
        or the earlier reading C d / sqrt(t) + c_lin d / t (``earlier``)."""
        d = float(p["d"])
        if self.rho_rule == "paper":
            L = math.log(p["T"] / p["delta"])
            return master_rate(self, p["rho_constant"] * 4.0 * d * L, 0.5, p["rho_linear"] * d * L)
        return master_rate(self, p["rho_constant"] * d, 0.5, p["rho_linear"] * d)

    def resolve(self, T: int, info: dict) -> dict:
        """The constants of a horizon T (recorded with every result). Refuses a rate that breaks
        Assumption 1."""
        c = known_constants(self, info) if self.radius == "oful" else {"d": int(info["d"])}
        if self.reward_range is not None:
            lo, hi = (float(v) for v in self.reward_range)
        else:
            lo, hi = -float(info["reward_bound"]), float(info["reward_bound"])
        p = {**master_factors(self, T), "T": int(T), "rho_rule": self.rho_rule, "radius": self.radius,
             "lam": float(self.lam), "f_tilde_clip": bool(self.f_tilde_clip), "lo": lo, "scale": 1.0 / (hi - lo),
             **c}
        if self.radius == "paper":
            p["beta"] = paper_beta(int(p["d"]), T, resolve_delta(self.delta, T))
        rate = self.rate(p)
        check_assumption1(self, rate, T)
        p["rho_coef"], p["rho_lin"] = rate.coef, rate.lin
        return p

    def radii(self, p: dict, T: int) -> np.ndarray:
        """The width multiplying ||a||_{V^-1} after n = 0..T plays: 2 beta (Alg. 8), or OFUL's beta_n."""
        if self.radius == "paper":
            return np.full(T + 1, 2.0 * p["beta"])
        return oful_radii(OFULConstants(p["R"], p["d"], p["L"], p["S"], p["delta"], p["lam"]), T + 1)

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T, K = rewards.shape
        p = self.resolve(T, info)
        if features is None:  # K arms: the basis vectors
            features = np.eye(K)[None]
        rate = self.rate(p)
        rho_pow = rate_table(rate, T)
        thr1 = p["test1_multiple"] * (p["rho_hat_factor"] * rho_pow)
        c = MasterOFULConstants(rate, p["rho_hat_factor"], p["test2_multiple"], p["start_order"], p["lam"],
                                1 if self.f_tilde_clip else 0, p["lo"], p["scale"])
        actions = np.empty(T, dtype=np.int64)
        events = np.empty((T, 2), dtype=np.int64)
        count = master_oful_kernel(np.ascontiguousarray(features, dtype=np.float64),
                                   np.ascontiguousarray(rewards, dtype=np.float64), c, self.radii(p, T), rho_pow,
                                   thr1, rng, actions, np.empty(T), events)
        record_master(self, p, events[:count], *smallest_thresholds(p, rate, T))
        return actions
