"""MASTER over UCB1 for K-armed bandits: Wei & Luo, "Non-stationary reinforcement
learning without prior knowledge: an optimal black-box approach", COLT 2021 (PMLR
v134, wei21b; arXiv 2102.05406). Parameter-free: it is told neither the number of
changes nor the variation budget, only the horizon T (for the logarithms) and the
range of the rewards.

Source. The paper's text, read in full (the PMLR version, stored among public code:
it opens with "Proceedings of Machine Learning Research vol 134"). Section and equation
numbers below are that version's.

Assumption 1 (§2.1). The base ALG outputs f~_t at the start of every round and, as long
as the world drifted by at most rho(t) over its first t rounds, with probability
1 - delta / T: f~_t >= min_{tau <= t} f*_tau - Delta and (1/t) sum_{tau <= t} (f~_tau - R_tau)
<= rho(t) + Delta (Eq. (1)), with rho non-increasing, **rho(t) >= 1 / sqrt(t), and
C(t) = t rho(t) non-decreasing**. :func:`check_assumption1` checks the last three for every
base's rate before any work (``tests/test_master_assumption.py`` for every config).

The base here is UCB1 as App. I.1 writes it (Alg. 7, Eq. (33)), one fresh instance per
scheduled interval: index r_hat_a + c sqrt(log(T / delta) / N+_a), N+_a = max(1, N_a),
r_hat_a = (sum of a's rewards) / N+_a, so an unpulled arm has the finite index
c sqrt(log(T / delta)); the arm of largest index (ties to the lowest index); f~_t = the
largest index (Eq. (34): f~_t = max_a r~_{t,a}). c is "some universal constant" (Alg. 7):
``ucb_c`` = 2, the value of Gerogiannis, Huang & Veeravalli's re-implementation
(repository Grimoid/Is-BB-NS-RL-Feasible, ``UCB.cpp``: the same index, unpulled arms at
c sqrt(log(T / delta)), f~ the max). Its rate is Eq. (34):
rho(t) = sqrt(A log(T / delta) / t) + A log(T / delta) / t (A = K arms), times
``rho_constant`` (default 1) and ``rho_linear`` (default 1) for the two terms.

MALG (Procedure 1, Alg. 2), a block of order n (length 2^n) from round t_n: at every
position tau = t - t_n, for m = n, n-1, ..., 0 with 2^m dividing tau, with probability
rho(2^n) / rho(2^m) a fresh instance of order m is scheduled on [t, t + 2^m - 1]. One
uniform per (position, order), orders n down to 0, from the trial's Generator at the
position's round (Procedure 1 draws them all up front: the same distribution; this
order fixes the stream, and the reference draws the same). The order-n instance has
probability 1. The active instance is the scheduled one covering t of the shortest
length; it alone acts and learns, the others are paused and resume where they stopped.
MALG's g~_t is the active instance's f~_t.

MASTER (Alg. 3). rho_hat(t) = 6 n_hat log(T / delta) rho(t), n_hat = log2 T + 1
(Lemma 3; 6 = ``rho_hat_constant``), delta = 1/T (§2: "a probability parameter delta of
order 1/poly(T)"; ``delta`` overrides). Blocks n = 0, 1, 2, ... each run a fresh MALG;
U_t = min_{t_n <= tau <= t} g~_tau, and after each round:

* Test 1: t = alg.e for some order-m alg and (1/2^m) sum_{tau = alg.s}^{alg.e} R_tau >=
  U_t + 9 rho_hat(2^m): fail;
* Test 2: (1/(t - t_n + 1)) sum_{tau = t_n}^{t} (g~_tau - R_tau) >= 3 rho_hat(t - t_n + 1): fail.

9 and 3 are ``test1_constant`` and ``test2_constant``; ``test_multiplier`` (default 1, the
paper) multiplies both thresholds, for experiments that make the tests fire. A failed test
restarts from Line 3 (a new epoch, a fresh MALG at the next round); otherwise the end of
block n starts block n + 1.

The two points the text leaves open, each a named option:

* ``rho_cap`` (default false): whether rho(t) is replaced by min(rho(t), 1). Procedure 1 and
  Alg. 3 take Assumption 1's rho, and App. I states each base's rho explicitly and uncapped
  (Eqs. (34), (36)); the re-implementation runs it uncapped (``MASTER.cpp``). The proof of
  Theorem 2 (App. F) instead says "Below we use C(t) = min{c1 t^p + c2, t} as the input to our
  algorithm", i.e. t rho(t) capped at t: ``rho_cap: true``. The cap matters: wherever the
  uncapped rho exceeds 1 it makes rho flat, and a flat rho schedules an instance at every
  aligned slot (probability rho(2^n) / rho(2^m) = 1), so fresh short instances act on many
  rounds. For OFUL at d = 5, T = 1e5, rho is flat over the whole horizon and a fresh order-0
  instance acts every round: MASTER never learns (docs/modern.md, the sensitivity runs).
* ``start_order`` (default ``zero``, Alg. 3's "for n = 0, 1, ..."): the order of the first
  block of every epoch. ``floor_log2_T`` is the re-implementation's ``n_init`` (its
  ``parallel_exps.cpp`` runs MASTER with n_init = floor(log2 T), and ``MASTER.cpp`` sets
  n = n_init again after a failed test).

The reading that ran before the text was read stays available (config ``master_ucb_nolog``):
``rho_rule: earlier`` (rho = C sqrt(K / t) + c_lin K / t, no log(T / delta)),
``base_index: auer`` (Auer et al. 2002's index mean + sqrt(c log s / N), s the instance's own
rounds, +inf for an unpulled arm), ``f_tilde_clip: true`` (f~ = min(1, max index); required
with ``auer``, whose infinite index would fail Test 2 at once).

With these constants no test can fire at practical horizons: every average the tests
compare lies in [-1, 1] up to f~'s bonus, while the smallest thresholds exceed 1 by far
(docs/baselines.md). ``derived_`` records the smallest thresholds of the trial.

Rewards are mapped to [0, 1] by (y - lo) * scale (``reward_range`` or the environment's);
they are not clipped (on Bernoulli problems they are 0/1 already).

Events (``events_``): ``restarts`` the rounds at which a test-triggered restart starts a
new epoch, ``test`` which test fired for each (1, 2, or 3 for both), ``blocks`` the first
round of every block. ``derived_`` counts ``test_restarts`` (and per test) and
``block_restarts`` (block ends without a test).

For another base (OFUL, contextual learners): the pieces :func:`malg_schedule`,
:func:`malg_active`, :func:`master_test1`, :func:`test2_fails` and :func:`master_block_end`
are base-agnostic, as are the rate (:class:`Rate`, :func:`rate_at`, :func:`master_rate`,
:func:`check_assumption1`), the parameter checks and the records (:func:`check_master_params`,
:func:`rho_hat_factor`, :func:`master_factors`, :func:`record_master`). A base provides, per
order m (one live instance per order at a time), reset(m), act(m) -> (action, f~) and
update(m, action, reward), and its rate rho; see :func:`master_ucb_kernel`, which composes
them for UCB1, and the same loop around OFUL (:mod:`bandits.algorithms.master_oful`),
ILTCB (:mod:`bandits.contextual.master_iltcb`) and epsilon-greedy
(:mod:`bandits.contextual.master_contextual`).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from bandits.algorithms.common import check_delta, check_reward_range, resolve_delta, reward_scale
from bandits.algorithms.indices import ucb1_index, ucb_alg7_index
from bandits.errors import ConfigError, require_choice, require_float
from bandits.numerics import argmax_lowest

# Assumption 1's rate of a base: rho(t) = min(cap, coef / t^power + lin / t) (cap = inf: none).
Rate = namedtuple("Rate", "coef power lin cap")

START_ORDERS = ("zero", "floor_log2_T")
RHO_RULES = ("paper", "earlier")
UCB_INDICES = ("alg7", "auer")
ALG7, AUER = 0, 1

# The constants of one trial for the UCB1 kernel. hat = c_hat (log2 T + 1) log(T / delta);
# c2 = test_multiplier * test2_constant; n0 the order of an epoch's first block; log_term =
# log(T / delta) of Alg. 7's bonus; rule ALG7 / AUER; clip 1 = f~ clipped at 1; lo, scale
# map rewards to [0, 1].
MasterConstants = namedtuple("MasterConstants", "rate hat c2 n0 ucb_c log_term rule clip lo scale")


@njit(cache=True)
def rate_at(t, r):
    """rho(t) = min(cap, coef / t^power + lin / t) of a base (its :class:`Rate`)."""
    return min(r.cap, r.coef / t ** r.power + r.lin / t)


# ----------------------------------------------------------------------------- MALG (Procedure 1, Alg. 2)

@njit(cache=True)
def malg_schedule(ends, t, tau, n, rho_pow, rng, started):
    """Procedure 1 at position ``tau`` of a block of order ``n`` (round ``t``): for m = n..0
    with 2^m | tau, one uniform; below rho(2^n) / rho(2^m) an instance of order m is
    scheduled on [t, t + 2^m - 1] (``ends[m]``). ``started[m]`` says which orders the base
    must reset. ``rho_pow[m]`` = rho(2^m)."""
    for m in range(n, -1, -1):
        started[m] = False
        if tau % (1 << m) == 0:
            if rng.random() < rho_pow[n] / rho_pow[m]:
                ends[m] = t + (1 << m) - 1
                started[m] = True


@njit(cache=True)
def malg_active(ends, t, n):
    """The active instance: the lowest order whose scheduled instance covers round t (the
    order-n instance always does)."""
    for m in range(n + 1):
        if ends[m] >= t:
            return m
    return n


# ----------------------------------------------------------------------------- MASTER's tests (Alg. 3)

@njit(cache=True)
def master_test1(ends, n, t, xs, U, thr1):
    """Test 1: an instance of order m ends at t and the mean reward over its rounds
    [t - 2^m + 1, t] is >= U_t + thr1[m] (thr1[m] = 9 rho_hat(2^m) by default)."""
    for m in range(n + 1):
        if ends[m] == t:
            s = 0.0
            for tau in range(t - (1 << m) + 1, t + 1):
                s += xs[tau]
            if s / (1 << m) >= U + thr1[m]:
                return True
    return False


@njit(cache=True)
def test2_fails(gap, length, threshold):
    """Test 2 for any base: the block's mean of g~ - R over its ``length`` rounds is >=
    ``threshold`` = test_multiplier * 3 rho_hat(length)."""
    return gap / length >= threshold


@njit(cache=True)
def master_block_end(events, n_events, t, T, tau, n, cause, ends, n0):
    """Alg. 3 after round t (position ``tau`` of block n): a failed test (``cause`` > 0:
    1 / 2 / 3 Test 1 / Test 2 / both) restarts at order ``n0`` (Line 3), the end of block n
    starts block n + 1; either starts a fresh MALG at t + 1, recorded in ``events`` (nothing
    after the last round). Returns (n, n_events, True when a new block starts at t + 1)."""
    if (cause > 0 or tau + 1 == (1 << n)) and t + 1 < T:
        events[n_events, 0] = t + 1
        events[n_events, 1] = cause
        ends[:] = -1
        return (n0 if cause > 0 else n + 1), n_events + 1, True
    return n, n_events, False


# ----------------------------------------------------------------------------- the UCB1 base (Alg. 7)

@njit(cache=True)
def ucb_reset(counts, sums, plays, m):
    """A fresh UCB1 instance of order m."""
    plays[m] = 0.0
    for a in range(counts.shape[1]):
        counts[m, a] = 0.0
        sums[m, a] = 0.0


@njit(cache=True)
def ucb_act(counts, sums, plays, m, c, index):
    """The instance's arm (ties to the lowest index) and its f~ = the largest index (clipped
    at 1 when ``c.clip``): Alg. 7's index, or Auer et al.'s with the instance's own clock."""
    if c.rule == ALG7:
        for a in range(counts.shape[1]):
            index[a] = ucb_alg7_index(sums[m, a], counts[m, a], c.log_term, c.ucb_c)
    else:
        log_s = math.log(plays[m]) if plays[m] > 0 else 0.0
        for a in range(counts.shape[1]):
            index[a] = ucb1_index(sums[m, a], counts[m, a], log_s, c.ucb_c)
    top = np.max(index)
    return argmax_lowest(index), (min(1.0, top) if c.clip else top)


@njit(cache=True)
def ucb_update(counts, sums, plays, m, arm, x):
    plays[m] += 1.0
    counts[m, arm] += 1.0
    sums[m, arm] += x


# ----------------------------------------------------------------------------- MASTER over UCB1

@njit(cache=True)
def master_ucb_kernel(rewards, c, rho_pow, thr1, rng, actions, xs, events):
    """Alg. 3 over Alg. 2 over UCB1. ``events[i]`` = (first round of a new block, cause):
    cause 0 the previous block ended, 1 / 2 / 3 Test 1 / Test 2 / both failed. Returns
    the number of events."""
    T, K = rewards.shape
    M = rho_pow.shape[0] - 1
    ends = np.full(M + 1, -1, np.int64)
    started = np.zeros(M + 1, np.bool_)
    counts, sums, plays = np.zeros((M + 1, K)), np.zeros((M + 1, K)), np.zeros(M + 1)
    index = np.empty(K)
    n, t_n, U, gap, n_events = c.n0, 0, np.inf, 0.0, 0
    for t in range(T):
        tau = t - t_n
        malg_schedule(ends, t, tau, n, rho_pow, rng, started)
        for m in range(n + 1):
            if started[m]:
                ucb_reset(counts, sums, plays, m)
        m = malg_active(ends, t, n)
        arm, f = ucb_act(counts, sums, plays, m, c, index)
        actions[t] = arm
        x = (rewards[t, arm] - c.lo) * c.scale  # only the chosen arm's reward
        xs[t] = x
        ucb_update(counts, sums, plays, m, arm, x)
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


def max_order(T: int) -> int:
    """Block orders stay at or below T.bit_length(): from n = 0, blocks 0..n span 2^(n+1) - 1
    rounds; from n0 = floor(log2 T) = T.bit_length() - 1, block n0 + 1 is the last."""
    return int(T).bit_length()


# ----------------------------------------------------------------------------- shared by every base

def check_master_params(algo) -> None:
    """MASTER's own keys (rho's constants and rule, the cap, the starting order, rho_hat's
    constant, the tests', delta, reward_range)."""
    require_float("algo.rho_constant", algo.rho_constant, minimum=0.0, strict=True)
    require_float("algo.rho_linear", algo.rho_linear, minimum=0.0)
    for name in ("rho_hat_constant", "test1_constant", "test2_constant", "test_multiplier"):
        require_float(f"algo.{name}", getattr(algo, name), minimum=0.0)
    if not isinstance(algo.rho_cap, bool):
        raise ConfigError(f"algo.rho_cap must be true or false, got {algo.rho_cap!r}.")
    require_choice("algo.start_order", algo.start_order, set(START_ORDERS))
    check_delta(algo.delta)
    check_reward_range(algo.reward_range)


def rho_hat_factor(c_hat: float, T: int, delta: float) -> float:
    """c_hat (log2 T + 1) log(T / delta): rho_hat(t) is this factor times rho(t) (Lemma 3)."""
    return float(c_hat) * (math.log2(T) + 1.0) * math.log(T / delta)


def start_order(algo, T: int) -> int:
    """The order of an epoch's first block: 0 (Alg. 3) or floor(log2 T) (the re-implementation)."""
    return 0 if algo.start_order == "zero" else int(T).bit_length() - 1


def master_factors(algo, T: int) -> dict:
    """delta, rho_hat's factor (:func:`rho_hat_factor`), the tests' multiples of rho_hat, the
    cap and the starting order."""
    delta = resolve_delta(algo.delta, T)
    hat = rho_hat_factor(algo.rho_hat_constant, T, delta)
    c1 = float(algo.test_multiplier) * float(algo.test1_constant)
    c2 = float(algo.test_multiplier) * float(algo.test2_constant)
    return {"delta": delta, "rho_constant": float(algo.rho_constant), "rho_linear": float(algo.rho_linear),
            "rho_hat_factor": hat, "test1_multiple": c1, "test2_multiple": c2, "rho_cap": bool(algo.rho_cap),
            "start_order": start_order(algo, T)}


def master_rate(algo, coef: float, power: float, lin: float) -> Rate:
    """The base's rate with MASTER's cap (``rho_cap``: min(rho, 1), App. F)."""
    return Rate(float(coef), float(power), float(lin), 1.0 if algo.rho_cap else math.inf)


def rate_values(rate: Rate, t) -> np.ndarray:
    """rho at the rounds t, with the scalar operations of :func:`rate_at` (libm's pow, as
    the compiled kernels and the references use), so thresholds agree to the last bit."""
    return np.array([min(rate.cap, rate.coef / float(v) ** rate.power + rate.lin / float(v)) for v in t])


def assumption1_violation(rate: Rate, T: int) -> str | None:
    """Which of Assumption 1's stated conditions on rho fails over t = 1..T, or None:
    rho non-increasing, rho(t) >= 1 / sqrt(t), C(t) = t rho(t) non-decreasing. Checked
    exactly on t = 1..min(T, 4096) and on a geometric grid up to T (every condition is a
    smooth function's sign: a grid misses no violation wider than its spacing)."""
    t = np.unique(np.concatenate([np.arange(1, min(T, 4096) + 1), np.geomspace(1, max(T, 1), 512).round(),
                                  [float(T)]]))
    rho = np.minimum(rate.cap, rate.coef / t ** rate.power + rate.lin / t)
    if not np.all(np.isfinite(rho)):
        return "rho is not finite"
    if np.any(np.diff(rho) > 1e-12 * rho[:-1]):
        return "rho increases"
    low = rho < (1.0 - 1e-12) / np.sqrt(t)
    if np.any(low):
        return f"rho({int(t[low][0])}) = {rho[low][0]:.4g} is below 1/sqrt(t)"
    C = t * rho
    if np.any(np.diff(C) < -1e-12 * C[1:]):
        return "t rho(t) decreases"
    return None


def check_assumption1(algo, rate: Rate, T: int) -> None:
    """Refuse a rate that breaks Assumption 1's conditions (a ConfigError naming it)."""
    why = assumption1_violation(rate, T)
    if why:
        raise ConfigError(f"{type(algo).__name__}: its rate rho breaks Assumption 1 of Wei & Luo (rho "
                          f"non-increasing, rho(t) >= 1/sqrt(t), t rho(t) non-decreasing) at T = {T}: {why}; "
                          "raise algo.rho_constant.")


def rate_table(rate: Rate, T: int) -> np.ndarray:
    """rho(2^m) for m = 0..max_order(T)."""
    return rate_values(rate, [2.0 ** m for m in range(max_order(T) + 1)])


def record_master(algo, p: dict, events: np.ndarray, min_thr1: float, min_thr2: float) -> None:
    """``events_`` and ``derived_`` from the kernel's events (first round of a block, cause)."""
    tests = events[events[:, 1] > 0]
    algo.events_ = {"restarts": [int(r) for r in tests[:, 0]], "test": [int(v) for v in tests[:, 1]],
                    "blocks": [0] + [int(r) for r in events[:, 0]]}
    algo.derived_ = {**p, "min_test1_threshold": float(min_thr1), "min_test2_threshold": float(min_thr2),
                     "test_restarts": int(len(tests)),
                     "test1_restarts": int(np.sum(tests[:, 1] == 1)),
                     "test2_restarts": int(np.sum(tests[:, 1] == 2)),
                     "both_tests_restarts": int(np.sum(tests[:, 1] == 3)),
                     "block_restarts": int(np.sum(events[:, 1] == 0))}


def smallest_thresholds(p: dict, rate: Rate, T: int) -> tuple:
    """The smallest Test 1 threshold a trial can meet (the longest instance that fits,
    2^(max_order(T) - 1)) and Test 2's over the whole horizon."""
    hat = p["rho_hat_factor"]
    thr1 = p["test1_multiple"] * hat * float(rate_values(rate, [2.0 ** (max_order(T) - 1)])[0])
    thr2 = p["test2_multiple"] * hat * float(rate_values(rate, [float(T)])[0])
    return thr1, thr2


class MasterUCB:
    """MASTER (Wei & Luo 2021, Alg. 3 over Alg. 2) over UCB1 (App. I.1, Alg. 7); see the
    module doc for every step and constant."""

    problem_kinds = ("karmed",)

    def __init__(self, rho_constant: float = 1.0, rho_linear: float = 1.0, rho_rule: str = "paper",
                 rho_cap: bool = False, start_order: str = "zero", rho_hat_constant: float = 6.0,
                 test1_constant: float = 9.0, test2_constant: float = 3.0, test_multiplier: float = 1.0,
                 delta: float | None = None, ucb_c: float = 2.0, base_index: str = "alg7",
                 f_tilde_clip: bool = False, reward_range=None):
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

    def needs(self) -> tuple:
        """The range of the rewards, unless set here (algo.reward_range)."""
        return () if self.reward_range is not None else ("reward_range",)

    def check_params(self) -> None:
        check_master_params(self)
        require_choice("algo.rho_rule", self.rho_rule, set(RHO_RULES))
        require_choice("algo.base_index", self.base_index, set(UCB_INDICES))
        require_float("algo.ucb_c", self.ucb_c, minimum=0.0)
        if not isinstance(self.f_tilde_clip, bool):
            raise ConfigError(f"algo.f_tilde_clip must be true or false, got {self.f_tilde_clip!r}.")
        if self.base_index == "auer" and not self.f_tilde_clip:
            raise ConfigError("algo.base_index=auer gives an unpulled arm an infinite index, so f~ would be "
                              "infinite and Test 2 would fail at once: set algo.f_tilde_clip=true.")

    def rate(self, p: dict, K: int) -> Rate:
        """Eq. (34): sqrt(A log(T/delta) / t) + A log(T/delta) / t (``rho_rule: paper``), or
        the earlier reading without log(T/delta) (``earlier``), with the two multipliers."""
        a = float(K) * (p["log_T_over_delta"] if self.rho_rule == "paper" else 1.0)
        return master_rate(self, p["rho_constant"] * math.sqrt(a), 0.5, p["rho_linear"] * a)

    def resolve(self, T: int, info: dict, K: int | None = None) -> dict:
        """The constants of a horizon T (recorded with every result); K from ``info["d"]``
        unless given. Refuses a rate that breaks Assumption 1."""
        lo, scale = reward_scale(self, info)
        K = int(info["d"]) if K is None else int(K)
        p = {**master_factors(self, T), "T": int(T), "rho_rule": self.rho_rule, "ucb_c": float(self.ucb_c),
             "base_index": self.base_index, "f_tilde_clip": bool(self.f_tilde_clip),
             "log_T_over_delta": math.log(T / resolve_delta(self.delta, T)), "lo": lo, "scale": scale}
        rate = self.rate(p, K)
        check_assumption1(self, rate, T)
        p["rho_coef"], p["rho_lin"] = rate.coef, rate.lin
        return p

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T, K = rewards.shape
        p = self.resolve(T, info, K)
        rate = self.rate(p, K)
        rho_pow = rate_table(rate, T)
        thr1 = p["test1_multiple"] * (p["rho_hat_factor"] * rho_pow)
        c = MasterConstants(rate, p["rho_hat_factor"], p["test2_multiple"], p["start_order"], p["ucb_c"],
                            p["log_T_over_delta"], ALG7 if self.base_index == "alg7" else AUER,
                            1 if self.f_tilde_clip else 0, p["lo"], p["scale"])
        actions = np.empty(T, dtype=np.int64)
        events = np.empty((T, 2), dtype=np.int64)
        count = master_ucb_kernel(np.ascontiguousarray(rewards, dtype=np.float64), c, rho_pow, thr1, rng, actions,
                                  np.empty(T), events)
        record_master(self, p, events[:count], *smallest_thresholds(p, rate, T))
        return actions
