"""MASTER over UCB1 for K-armed bandits: Wei & Luo, "Non-stationary reinforcement
learning without prior knowledge: an optimal black-box approach", COLT 2021
(arXiv 2102.05406). Parameter-free: it is told neither the number of changes nor the
variation budget, only the horizon T (for the logarithms of rho_hat) and the range
of the rewards.

Source note. The paper's text was not readable in this session (the search corpora
hold its abstract only). The steps and constants below are the algorithm boxes as we
recall them (Alg. 1 MALG, Alg. 2 MASTER with Tests 1 and 2, Assumption 1); each is a
config key with that value as its default, and every one is listed in
``docs/baselines.md`` (its fidelity tables) as "recalled, to verify against the paper's text". Public
code seen: Veness et al.'s MALG over UCB1 (Partition Tree Weighting repository,
``MalgUCB``: the same scheduling rule and rho(t) = sqrt(K/t) + K/t; its MASTER is
unimplemented). No code was copied.

The base algorithm (Assumption 1). At every round the base outputs an optimistic
estimate f~_t in [0, 1] of the optimal mean and, if the world is stationary enough
over its first t rounds, (i) f~_t >= min_{tau <= t} f*_tau - Delta and
(ii) (1/t) sum_{tau <= t} (f~_tau - R_tau) <= rho(t) + Delta, with rho non-increasing.
Here the base is UCB1 (Auer, Cesa-Bianchi & Fischer 2002, Fig. 1) restarted from
scratch per instance: index mean_a + sqrt(ucb_c log s / N_a) with s the rounds the
instance has played (``ucb_c`` = 2, their constant; an unpulled arm has index +inf),
the arm of largest index (ties: lowest index), and f~_t = min(1, max_a index_a), the
optimistic estimate of the best mean clipped to the reward range (an unpulled arm
makes it 1). For UCB, rho(t) = C sqrt(K / t) + c_lin K / t (the K/t term pays the
first pull of each arm), with C = ``rho_constant`` = 1 and c_lin = ``rho_linear`` = 1
(the paper's rate is stated up to constants and logarithms, O~(sqrt(K/t)); 1 is our
reading, the same as Veness et al.'s. A constant provable for this UCB1 on its good
event is larger: C = 4 sqrt(ucb_c log T) + sqrt(log(1/delta) / (2K)), about 20 at
T = 1e5, K = 5, which would only raise the thresholds; docs/baselines.md).

MALG (Alg. 1), a block of order n (length 2^n) starting at round t_n: at every
position tau = t - t_n of the block, for m = n, n-1, ..., 0 with 2^m dividing tau,
one uniform u is drawn from the trial's Generator and, if u < rho(2^n) / rho(2^m), a
fresh base instance of order m is scheduled on rounds [t, t + 2^m - 1]. (The order-n
instance has probability 1, so one always covers the block.) At each round the
active instance is the scheduled instance covering t of the lowest order; it alone
acts and learns, the others are paused and resume where they stopped. MALG's f~_t is
the active instance's.

MASTER (Alg. 2). rho_hat(t) = c_hat (log2 T + 1) log(T / delta) rho(t) with
c_hat = ``rho_hat_constant`` = 6 and delta = 1/T. Blocks n = 0, 1, 2, ... each run a
fresh MALG of length 2^n. Within block n, U_t = min_{t_n <= tau <= t} f~_tau, and after
each round:

* Test 1: if t = alg.e for some scheduled instance alg of order m and
  (1/2^m) sum_{tau = alg.s}^{alg.e} R_tau >= U_t + 9 rho_hat(2^m), fail;
* Test 2: if (1/(t - t_n + 1)) sum_{tau = t_n}^{t} (f~_tau - R_tau) >= 3 rho_hat(t - t_n + 1),
  fail.

9 and 3 are ``test1_constant`` and ``test2_constant``; ``test_multiplier`` (default 1,
the paper) multiplies both thresholds: a non-default value is only for experiments
that make the tests fire. If a test fails, MASTER restarts from n = 0 (a new epoch, a
new MALG) at the next round; otherwise at the end of block n the next block n + 1
starts with a fresh MALG. With the paper's constants every threshold exceeds 1 at all
practical horizons (at T = 1e5, K = 5: 9 rho_hat(2^16) = 193 and 3 rho_hat(T) = 52,
while averages of rewards and of f~ - R lie in [-1, 1]), so no test can fire and MASTER
is a randomly restarting UCB (Gerogiannis, Huang & Veeravalli, arXiv 2410.13772).
``derived_`` records the smallest thresholds of the trial to show it.

Rewards are mapped to [0, 1] by (y - lo) * scale (``reward_range`` or the
environment's); they are not clipped (on Bernoulli problems they are 0/1 already).

Randomness: only the scheduling draws above, from the Generator passed to the kernel,
in the order stated; the reference (:mod:`bandits.reference.master_ucb`) draws the same.

Events (``events_``): ``restarts`` the rounds at which a test-triggered restart
starts a new epoch, ``test`` which test fired for each (1, 2, or 3 for both),
``blocks`` the first round of every block. ``derived_`` counts ``test_restarts``
(and per test) and ``block_restarts`` (block ends without a test).

For another base (OFUL, contextual learners): the pieces :func:`malg_schedule`,
:func:`malg_active`, :func:`master_test1`, :func:`test2_fails` (Test 2 given its threshold;
:func:`master_test2` is it with UCB1's rate) and :func:`master_block_end` (what follows a
round: restart, next block or nothing) are base-agnostic, as are the parameter checks,
rho_hat's factor and the records (:func:`check_master_params`, :func:`rho_hat_factor`,
:func:`master_factors`, :func:`record_master`). A base provides, per order m (one live
instance per order at a time): reset(m), act(m) -> (action, f~ in [0, 1]) and
update(m, action, reward), and its rate rho; see :func:`master_ucb_kernel`, which
composes them for UCB1 (``ucb_reset``, ``ucb_act``, ``ucb_update``), and write the same
loop around the new base (:mod:`bandits.algorithms.master_oful` over OFUL,
:mod:`bandits.contextual.master_contextual` over epsilon-greedy with a t^(-1/3) rate).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from bandits.algorithms.common import check_delta, check_reward_range, resolve_delta, reward_scale
from bandits.algorithms.indices import ucb1_index
from bandits.errors import require_float
from bandits.numerics import argmax_lowest

# The constants of one trial for the kernel. hat = c_hat (log2 T + 1) log(T / delta);
# c2 = test_multiplier * test2_constant; lo, scale map rewards to [0, 1].
MasterConstants = namedtuple("MasterConstants", "rho_c rho_lin hat c2 ucb_c lo scale")


@njit(cache=True)
def rho_of(t, K, rho_c, rho_lin):
    """rho(t) = C sqrt(K / t) + c_lin K / t: Assumption 1's rate for UCB1 (module doc)."""
    return rho_c * math.sqrt(K / t) + rho_lin * K / t


# ----------------------------------------------------------------------------- MALG (Alg. 1)

@njit(cache=True)
def malg_schedule(ends, t, tau, n, rho_pow, rng, started):
    """Alg. 1 at position ``tau`` of a block of order ``n`` (round ``t``): for m = n..0 with
    2^m | tau, one uniform; below rho(2^n) / rho(2^m) an instance of order m is scheduled
    on [t, t + 2^m - 1] (``ends[m]``). ``started[m]`` says which orders the base must
    reset. ``rho_pow[m]`` = rho(2^m)."""
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


# ----------------------------------------------------------------------------- MASTER's tests (Alg. 2)

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
    """Test 2 for any base: the block's mean of f~ - R over its ``length`` rounds is >=
    ``threshold`` = test_multiplier * 3 rho_hat(length)."""
    return gap / length >= threshold


@njit(cache=True)
def master_test2(gap, length, K, c):
    """Test 2 with UCB1's rate: threshold 3 rho_hat(length) (``c.c2`` = test_multiplier * 3)."""
    return test2_fails(gap, length, c.c2 * (c.hat * rho_of(length, K, c.rho_c, c.rho_lin)))


@njit(cache=True)
def master_block_end(events, n_events, t, T, tau, n, cause, ends):
    """Alg. 2 after round t (position ``tau`` of block n): a failed test (``cause`` > 0:
    1 / 2 / 3 Test 1 / Test 2 / both) restarts from n = 0, the end of block n starts block
    n + 1; either starts a fresh MALG at t + 1, recorded in ``events`` (nothing after the
    last round). Returns (n, n_events, True when a new block starts at t + 1)."""
    if (cause > 0 or tau + 1 == (1 << n)) and t + 1 < T:
        events[n_events, 0] = t + 1
        events[n_events, 1] = cause
        ends[:] = -1
        return (0 if cause > 0 else n + 1), n_events + 1, True
    return n, n_events, False


# ----------------------------------------------------------------------------- the UCB1 base

@njit(cache=True)
def ucb_reset(counts, sums, plays, m):
    """A fresh UCB1 instance of order m."""
    plays[m] = 0.0
    for a in range(counts.shape[1]):
        counts[m, a] = 0.0
        sums[m, a] = 0.0


@njit(cache=True)
def ucb_act(counts, sums, plays, m, c, index):
    """UCB1's arm (ties to the lowest index) and its f~ = min(1, max index)."""
    log_s = math.log(plays[m]) if plays[m] > 0 else 0.0
    top = -np.inf
    for a in range(counts.shape[1]):
        index[a] = ucb1_index(sums[m, a], counts[m, a], log_s, c)
        if index[a] > top:
            top = index[a]
    return argmax_lowest(index), min(1.0, top)


@njit(cache=True)
def ucb_update(counts, sums, plays, m, arm, x):
    plays[m] += 1.0
    counts[m, arm] += 1.0
    sums[m, arm] += x


# ----------------------------------------------------------------------------- MASTER over UCB1

@njit(cache=True)
def master_ucb_kernel(rewards, c, rho_pow, thr1, rng, actions, xs, events):
    """Alg. 2 over Alg. 1 over UCB1. ``events[i]`` = (first round of a new block, cause):
    cause 0 the previous block ended, 1 / 2 / 3 Test 1 / Test 2 / both failed. Returns
    the number of events."""
    T, K = rewards.shape
    M = rho_pow.shape[0] - 1
    ends = np.full(M + 1, -1, np.int64)
    started = np.zeros(M + 1, np.bool_)
    counts, sums, plays = np.zeros((M + 1, K)), np.zeros((M + 1, K)), np.zeros(M + 1)
    index = np.empty(K)
    n, t_n, U, gap, n_events = 0, 0, np.inf, 0.0, 0
    for t in range(T):
        tau = t - t_n
        malg_schedule(ends, t, tau, n, rho_pow, rng, started)
        for m in range(n + 1):
            if started[m]:
                ucb_reset(counts, sums, plays, m)
        m = malg_active(ends, t, n)
        arm, f = ucb_act(counts, sums, plays, m, c.ucb_c, index)
        actions[t] = arm
        x = (rewards[t, arm] - c.lo) * c.scale  # only the chosen arm's reward
        xs[t] = x
        ucb_update(counts, sums, plays, m, arm, x)
        U = min(U, f)
        gap += f - x
        cause = 0
        if master_test1(ends, n, t, xs, U, thr1):
            cause += 1
        if master_test2(gap, tau + 1, K, c):
            cause += 2
        n, n_events, new = master_block_end(events, n_events, t, T, tau, n, cause, ends)
        if new:
            t_n, U, gap = t + 1, np.inf, 0.0
    return n_events


def max_order(T: int) -> int:
    """Blocks 0..n span 2^(n+1) - 1 rounds, so block orders stay below T.bit_length()."""
    return int(T).bit_length()


# ----------------------------------------------------------------------------- shared by every base

def check_master_params(algo) -> None:
    """MASTER's own keys (rho's constants, rho_hat's, the tests', delta, reward_range)."""
    require_float("algo.rho_constant", algo.rho_constant, minimum=0.0, strict=True)
    require_float("algo.rho_linear", algo.rho_linear, minimum=0.0)
    for name in ("rho_hat_constant", "test1_constant", "test2_constant", "test_multiplier"):
        require_float(f"algo.{name}", getattr(algo, name), minimum=0.0)
    check_delta(algo.delta)
    check_reward_range(algo.reward_range)


def rho_hat_factor(c_hat: float, T: int, delta: float) -> float:
    """c_hat (log2 T + 1) log(T / delta): rho_hat(t) is this factor times rho(t) (Alg. 2)."""
    return float(c_hat) * (math.log2(T) + 1.0) * math.log(T / delta)


def master_factors(algo, T: int) -> dict:
    """delta, rho_hat's factor (:func:`rho_hat_factor`) and the tests' multiples of rho_hat."""
    delta = resolve_delta(algo.delta, T)
    hat = rho_hat_factor(algo.rho_hat_constant, T, delta)
    c1 = float(algo.test_multiplier) * float(algo.test1_constant)
    c2 = float(algo.test_multiplier) * float(algo.test2_constant)
    return {"delta": delta, "rho_constant": float(algo.rho_constant), "rho_linear": float(algo.rho_linear),
            "rho_hat_factor": hat, "test1_multiple": c1, "test2_multiple": c2}


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


class MasterUCB:
    """MASTER (Wei & Luo 2021, Algs. 1-2) over UCB1; see the module doc for every step
    and constant."""

    problem_kinds = ("karmed",)

    def __init__(self, rho_constant: float = 1.0, rho_linear: float = 1.0, rho_hat_constant: float = 6.0,
                 test1_constant: float = 9.0, test2_constant: float = 3.0, test_multiplier: float = 1.0,
                 delta: float | None = None, ucb_c: float = 2.0, reward_range=None):
        self.rho_constant = rho_constant
        self.rho_linear = rho_linear
        self.rho_hat_constant = rho_hat_constant
        self.test1_constant = test1_constant
        self.test2_constant = test2_constant
        self.test_multiplier = test_multiplier
        self.delta = delta
        self.ucb_c = ucb_c
        self.reward_range = reward_range

    def needs(self) -> tuple:
        """The range of the rewards, unless set here (algo.reward_range)."""
        return () if self.reward_range is not None else ("reward_range",)

    def check_params(self) -> None:
        check_master_params(self)
        require_float("algo.ucb_c", self.ucb_c, minimum=0.0)

    def resolve(self, T: int, info: dict) -> dict:
        """The constants of a horizon T (recorded with every result)."""
        lo, scale = reward_scale(self, info)
        return {**master_factors(self, T), "ucb_c": float(self.ucb_c), "lo": lo, "scale": scale}

    def thresholds(self, p: dict, T: int, K: int) -> tuple:
        """rho(2^m) for m = 0..max_order(T), and Test 1's thresholds c1 rho_hat(2^m)."""
        M = max_order(T)
        rho_pow = np.array([rho_of(float(2 ** m), float(K), p["rho_constant"], p["rho_linear"])
                            for m in range(M + 1)])
        thr1 = p["test1_multiple"] * (p["rho_hat_factor"] * rho_pow)
        return rho_pow, thr1

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T, K = rewards.shape
        p = self.resolve(T, info)
        rho_pow, thr1 = self.thresholds(p, T, K)
        c = MasterConstants(p["rho_constant"], p["rho_linear"], p["rho_hat_factor"], p["test2_multiple"],
                            p["ucb_c"], p["lo"], p["scale"])
        actions = np.empty(T, dtype=np.int64)
        events = np.empty((T, 2), dtype=np.int64)
        count = master_ucb_kernel(np.ascontiguousarray(rewards, dtype=np.float64), c, rho_pow, thr1, rng, actions,
                                  np.empty(T), events)
        thr2_T = p["test2_multiple"] * (p["rho_hat_factor"] * rho_of(float(T), float(K), p["rho_constant"],
                                                                     p["rho_linear"]))
        record_master(self, p, events[:count], thr1[max_order(T) - 1], thr2_T)
        return actions
