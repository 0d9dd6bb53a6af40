"""GLR-klUCB: kl-UCB with the Bernoulli GLR change-point test on the pulled arm (Besson,
Kaufmann, Maillard & Seznec, "Efficient change-point detection for tackling
piecewise-stationary bandits", JMLR 23 (2022), arXiv 1902.01575).

Sources read. The journal text itself was not at hand. We read (i) the paper's earlier
version as it stands in Besson's thesis, chapter 6 (the LaTeX source of arXiv 1902.01575
v1/v2 by Besson & Kaufmann, cited below by its equation labels: Algorithm "GLR-klUCB",
Definition def:6:GLRDef of the B-GLRT, Lemma lem:6:FalseAlarm and its threshold def:6:beta,
the "practical considerations" paragraph, Corollaries cor:6:Global / cor:6:Local, the
experiments paragraph and the appendix "two numerical optimization tricks") and (ii) the
authors' own Julia code that reproduces the journal's experiments (E. Kaufmann,
``PiecewiseStationaryBandits``: ``Algos.jl``, ``main_NonStat.jl``; its README cites the
four-author paper). Where they differ we name the reading; SMPyBandits' ``GLR_UCB.py`` /
``CD_UCB.py`` is a third reading, compared in ``docs/baselines.md`` (its fidelity tables).

One round t = 1, 2, ... (1-based here; the kernel's row index is t - 1), Algorithm GLR-klUCB:

* Forced exploration (lines 3-4): if t mod floor(K / alpha) is in {1, ..., K}, play arm
  t mod floor(K / alpha) (deterministic, as in the paper: M-UCB's scheme generalised; t is
  the global round in the chapter's pseudo-code and in the authors' code). alpha = 0
  disables it; alpha is capped at 1 (a probability; floor(K / 1) = K).
* Otherwise (line 6) the kl-UCB index of each arm k on its samples since its last restart
  tau_k: UCB_k(t) = max{q : n_k kl(mu_k, q) <= f(t - tau_k)} (def:6:UCB), with
  f(u) = ln u + c ln ln u for u > 1 and f(u) = 0 otherwise. The analysis has c = 3;
  ``c = 0`` (default) is the exploration log(t - tau_k) of the authors' experiments and
  Garivier & Cappé's recommended practice. Ties: lowest index. An arm with no sample
  since its restart has an infinite index (the shared convention of
  :mod:`bandits.algorithms.indices`; the paper's max over [0, 1] gives 1 there).
* Observe Z = the reward mapped to [0, 1] by ``reward_scale`` and clipped to [0, 1]: the
  test is the Bernoulli GLR applied to bounded rewards, as the paper does (bounded rewards
  are sub-Bernoulli: Garivier & Cappé 2011, Lemma 1; def:6:subBernoulliDistributions).
* The B-GLRT on the pulled arm's n samples since its restart (line 9, def:6:GLRDef):
  detect iff sup_s [ s kl(mu_{1:s}, mu_{1:n}) + (n - s) kl(mu_{s+1:n}, mu_{1:n}) ]
  >= beta(n, delta), over the splits s in {1, ..., n-1}: the Definition writes s in
  [2, n-1], the proof of Lemma lem:6:FalseAlarm and both authors' codes use s >= 1.
* On a detection (lines 10-12): ``restart: global`` resets every arm (tau_a = t, n_a = 0),
  ``restart: local`` only the detecting arm. The sample that triggered the detection is
  discarded with the rest (Algorithm; authors' code; SMPyBandits keeps it).

Test subsampling (appendix "two numerical optimization tricks", def:6:GLRTricks): the test
runs only when n mod Delta_n = 0, counting the arm's samples since its restart ("instead
of sub-sampling for the time t, we propose to sub-sample for the number of samples of arm
i"; ``check_on: samples``, default), and the sup runs over the splits s with
s mod Delta_s = 0. ``check_on: rounds`` counts the rounds since the arm's last restart
instead (the authors' Julia code; it tests at residue 1, one round later than here).
Delta_n = Delta_s = 10 is the setting of the chapter's experiments ("two optimizations are
used, with Delta n = Delta s = 10"; the authors' code uses Delta_s = 5 for global
restarts). ``check_every = split_every = 1`` is the exact test of the Algorithm.

Threshold beta(n, delta) (``threshold``):

* ``practical`` (default): ln(3 n^{3/2} / delta), "in practice we recommend to keep only
  the leading term" (practical considerations; SMPyBandits' variant 0);
* ``experiments``: ln(n^{3/2} / delta), the one in the authors' Julia code;
* ``theory``: 2 T(ln(3 n sqrt(n) / delta) / 2) + 6 ln(1 + ln n), def:6:beta (Lemma
  lem:6:FalseAlarm: false alarm probability <= delta), with Kaufmann & Koolen's
  T(x) = 2 h~((h^{-1}(1 + x) + ln(2 zeta(2))) / 2), h(u) = u - ln u (u >= 1),
  h~(x) = e^{1/h^{-1}(x)} h^{-1}(x) if x >= h^{-1}(1 / ln(3/2)) else (3/2)(x - ln ln(3/2)).

Tuning (delta default 1/sqrt(T): the authors' code, and cor:6:Global / cor:6:Local item 1):

* ``tuning: agnostic`` (default; Upsilon_T unknown, the journal's parameter-free
  algorithm as run in the authors' code): the exploration probability of episode k
  (k - 1 detections so far, on any arm) is alpha_k = alpha_0 sqrt(k),
  alpha_0 = sqrt(K ln T / T).
* ``tuning: known``: a constant alpha = sqrt(K Upsilon_T ln T / T) (the authors' code,
  ``alpha_opt``). The chapter's Corollaries use sqrt(Upsilon_T ln T / T) with
  delta = 1/sqrt(Upsilon_T T) for global restarts and sqrt(K Upsilon_T ln T / T) with
  delta = 1/sqrt(K Upsilon_T T) for local ones: set ``alpha`` / ``delta`` for those.
  Upsilon_T = 0 (stationary) gives alpha = 0: no forced exploration, the limit of the
  formula.
* ``alpha``: a number in [0, 1] sets a constant alpha directly; ``alpha_scale`` (alpha_0 of
  the chapter's experiments, 0.05 there; 1 in the authors' code) multiplies a tuned alpha.

Implementation (exact: the same actions and restarts as the literal transcription
:class:`bandits.reference.ReferenceGLRklUCB`, which a test checks round by round):

* per arm, the prefix sums of its samples since its restart (an array that doubles when
  full), so a split costs O(1): s kl(mu_{1:s}, mu_{1:n}) + (n - s) kl(mu_{s+1:n}, mu_{1:n})
  = phi(s, S_s) + phi(n - s, S_n - S_s) - phi(n, S_n), phi(m, S) = S ln(S/m) +
  (m - S) ln(1 - S/m); while an arm's samples are 0/1, phi is read from a table of m ln m;
* the scan over the splits is pruned by a convexity bound over dyadic blocks of splits, each
  block keeping the spread of its points about its chord as samples arrive
  (:func:`glr_detects_tree`, :func:`chord_update`): O(log n) blocks per test under no change
  instead of n / Delta_s splits;
* the kl-UCB argmax solves Newton's method for one arm at most in most rounds: the last
  arm played is certified as the argmax by one kl evaluation, the others ruled out by
  closed-form bounds or one kl evaluation each (the shared
  :func:`bandits.algorithms.indices.klucb_argmax`, exact).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy.special import lambertw

from bandits.algorithms.common import (
    check_delta,
    check_known_overrides,
    check_reward_range,
    own_or_told,
    reward_scale,
)
from bandits.algorithms.indices import exploration_level, klucb_argmax
from bandits.errors import ConfigError, require_choice, require_float, require_int

# ----------------------------------------------------------------------------- constants

ZETA2 = math.pi ** 2 / 6


def h_inverse(y):
    """h^{-1}(y) for h(u) = u - ln u on u >= 1: -W_{-1}(-e^{-y}). The chapter writes
    -W(-e^{-x}) without naming the branch; the principal one gives the root u <= 1."""
    y = np.asarray(y, dtype=np.float64)
    return -np.real(lambertw(-np.exp(-y), k=-1))


def kk_T(x):
    """Kaufmann & Koolen's T(x) = 2 h~((h^{-1}(1 + x) + ln(2 zeta(2))) / 2) (def:6:function_T)."""
    z = (h_inverse(1.0 + np.asarray(x, dtype=np.float64)) + math.log(2 * ZETA2)) / 2
    cut = float(h_inverse(1.0 / math.log(1.5)))
    hz = h_inverse(np.maximum(z, 1.0 + 1e-12))
    tilde = np.where(z >= cut, np.exp(1.0 / hz) * hz, 1.5 * (z - math.log(math.log(1.5))))
    return 2 * tilde


def glr_threshold(n, delta: float, kind: str = "practical"):
    """beta(n, delta) of the B-GLRT for n samples (see the module doc for the three kinds)."""
    n = np.asarray(n, dtype=np.float64)
    if kind == "practical":
        return np.log(3.0 * n ** 1.5 / delta)
    if kind == "experiments":
        return np.log(n ** 1.5 / delta)
    if kind == "theory":
        return 2 * kk_T(np.log(3.0 * n * np.sqrt(n) / delta) / 2) + 6 * np.log(1.0 + np.log(n))
    raise ConfigError(f"algo.threshold must be one of ['experiments', 'practical', 'theory'], got {kind!r}.")


def explore_range(K, alpha0, grow, episode):
    """floor(K / alpha) of the forced exploration in episode ``episode`` (1-based), 0 if
    alpha = 0 (none): alpha = alpha_0 sqrt(episode) when ``grow`` (tuning agnostic), else
    alpha_0; capped at 1."""
    alpha = alpha0 * math.sqrt(episode) if grow else alpha0
    if alpha <= 0.0:
        return 0
    return int(math.floor(K / min(alpha, 1.0)))


explore_range_jit = njit(cache=True)(explore_range)


@njit(cache=True)
def klucb_level(u, c):
    """f(u) = ln u + c ln ln u for u > 1 and 0 otherwise (the exploration function of def:6:UCB;
    the shared :func:`bandits.algorithms.indices.exploration_level` with a = 1)."""
    return exploration_level(u, 1.0, c)


# ----------------------------------------------------------------------------- the kernel

@njit(cache=True)
def phi(m, S):
    """m g(S/m) with g(x) = x ln x + (1 - x) ln(1 - x): S ln(S/m) + (m - S) ln((m - S)/m)."""
    out = 0.0
    if S > 0.0:
        out += S * math.log(S / m)
    r = m - S
    if r > 0.0:
        out += r * math.log(r / m)
    return out


@njit(cache=True)
def pair_value(s, S, n, Sn, xlogx, binary):
    """phi(s, S) + phi(n - s, Sn - S): the first two terms of the GLR statistic of a split at s
    with S_s = S. ``binary``: s, S, n, Sn are whole numbers, phi is read from xlogx[m] = m ln m."""
    if binary:
        i_s, i_S, i_n, i_Sn = int(s), int(S), int(n), int(Sn)
        d = i_Sn - i_S
        return (xlogx[i_S] + xlogx[i_s - i_S] - xlogx[i_s]
                + xlogx[d] + xlogx[i_n - i_s - d] - xlogx[i_n - i_s])
    return phi(s, S) + phi(n - s, Sn - S)


LEAF = 4    # blocks of at most this many splits are scanned, not bounded
STORED = 3  # blocks of 2**STORED splits and more keep their spread about their chord


@njit(cache=True)
def block_slot(level, j):
    """Where block j of 2**level splits (split indices j 2**level .. (j + 1) 2**level - 1)
    keeps its spread: the in-order position (2 j + 1) 2**level - 1 of a complete binary tree,
    which depends on neither the tree's size nor its depth, so arrays grow by appending."""
    return ((2 * j + 1) << level) - 1


@njit(cache=True)
def chord_update(prefix, i, split_every, emin, emax):
    """After the sample that completes split index i (n = i Delta_s samples): for each block of
    2**l splits (l >= STORED) whose last split is i, store the least and largest distance of its
    points (s, S_s) from the chord through its two ends, widened by a rounding margin.
    Amortised O(log n / Delta_s) per sample: each split lies in one block per level."""
    level = STORED
    while ((i + 1) & ((1 << level) - 1)) == 0:
        first = i + 1 - (1 << level)
        a, b = first * split_every, i * split_every
        Sa = prefix[a]
        slope = (prefix[b] - Sa) / (b - a)
        lo, hi = 0.0, 0.0
        for k in range(first + 1, i):
            s = k * split_every
            e = prefix[s] - Sa - (s - a) * slope
            lo = min(lo, e)
            hi = max(hi, e)
        pad = 1e-9 * max(1.0, abs(prefix[b]))
        slot = block_slot(level, first >> level)
        emin[slot] = lo - pad
        emax[slot] = hi + pad
        level += 1


@njit(cache=True)
def in_domain(s, S, n, Sn):
    """(s, S) is a split the statistic is defined at: 0 <= S <= s and 0 <= Sn - S <= n - s."""
    return 0.0 <= S <= s and 0.0 <= Sn - S <= n - s


@njit(cache=True)
def chord_bound(a, b, Sa, Sb, lo, hi, fn, Sn):
    """The largest pair value over the parallelogram with sides parallel to the chord
    (a, Sa)-(b, Sb), offsets [lo, hi] from it, or +inf if a corner leaves the domain."""
    fa, fb = float(a), float(b)
    if not (in_domain(fa, Sa + lo, fn, Sn) and in_domain(fa, Sa + hi, fn, Sn)
            and in_domain(fb, Sb + lo, fn, Sn) and in_domain(fb, Sb + hi, fn, Sn)):
        return math.inf
    return max(max(phi(fa, Sa + lo) + phi(fn - fa, Sn - Sa - lo), phi(fa, Sa + hi) + phi(fn - fa, Sn - Sa - hi)),
               max(phi(fb, Sb + lo) + phi(fn - fb, Sn - Sb - lo), phi(fb, Sb + hi) + phi(fn - fb, Sn - Sb - hi)))


@njit(cache=True)
def chi2_bound(s, S, n, mean, scale):
    """An upper bound on the GLR statistic of a split at s with S_s = S that needs no logarithm:
    kl(p, q) <= (p - q)^2 / (q (1 - q)) (the chi-square bound), which sums over the two sides
    to (S - s mean)^2 n / (s (n - s) mean (1 - mean)); ``scale`` = n / (mean (1 - mean)). It is
    jointly convex in (s, S) (a square over a positive linear form, twice), so over a
    parallelogram it too is largest at a corner; it is defined outside the domain as well."""
    if scale == math.inf:
        return math.inf
    d = S - s * mean
    return d * d * scale / (s * (n - s))


@njit(cache=True)
def glr_detects_tree(prefix, n, split_every, beta_n, xlogx, binary, stack, emin, emax):
    """The B-GLRT on samples Z_1..Z_n given their prefix sums (prefix[j] = Z_1 + ... + Z_j):
    True iff some split s in {split_every, 2 split_every, ...} below n has
    phi(s, S_s) + phi(n - s, S_n - S_s) - phi(n, S_n) >= beta_n.

    Exact, with pruning: (s, S) -> phi(s, S) + phi(n - s, S_n - S) is jointly convex (phi is
    the perspective of the convex x ln x + (1 - x) ln(1 - x)), so over any parallelogram that
    holds a block's points (s, S_s) its maximum is at a corner. The blocks are the dyadic
    ones of the split indices (2**l splits, descending from the whole range); a block of at
    least 2**STORED splits uses the tight parallelogram along its chord (``emin``, ``emax``
    from :func:`chord_update`), bounded first by :func:`chi2_bound` at its corners (no
    logarithm), then by the statistic itself; else, or if a corner leaves the domain, the
    parallelogram every block has:
    corners (a, S_a), (b, S_b), (a + d, S_b), (b - d, S_a), d = S_b - S_a (each sample is in
    [0, 1]). A block whose bound is below the threshold (by 1e-6, far above rounding) holds no
    detection; others are halved, and blocks of at most LEAF splits scanned (a split whose
    :func:`chi2_bound` is below the threshold by 1e-6 is passed over). The same answer
    as scanning every split; under no change a block's chord spread grows like the square
    root of its length, so O(log n) blocks are visited instead of n / Delta_s splits.
    ``stack``: scratch space for the blocks."""
    fn = float(n)
    Sn = prefix[n]
    if binary:
        i_N = int(Sn)
        cut = beta_n + xlogx[i_N] + xlogx[n - i_N] - xlogx[n]
    else:
        cut = beta_n + phi(fn, Sn)
    mean = Sn / fn
    scale = fn / (mean * (1.0 - mean)) if 0.0 < mean < 1.0 else math.inf
    last = (n - 1) // split_every
    if last < 1:
        return False
    top_level = 0
    while (1 << top_level) <= last:
        top_level += 1
    stack[0], stack[1] = top_level, 0
    top = 2
    while top > 0:
        top -= 2
        level, j = stack[top], stack[top + 1]
        first = j << level
        if first > last:
            continue
        lo, hi = max(first, 1), min(first + (1 << level) - 1, last)
        if hi - lo < LEAF:
            for i in range(lo, hi + 1):
                s = i * split_every
                if chi2_bound(float(s), prefix[s], fn, mean, scale) < beta_n - 1e-6:
                    continue
                if pair_value(float(s), prefix[s], fn, Sn, xlogx, binary) >= cut:
                    return True
            continue
        if lo == first and hi == first + (1 << level) - 1:     # a whole block: bound it
            a, b = lo * split_every, hi * split_every
            Sa, Sb = prefix[a], prefix[b]
            bound = math.inf
            if level >= STORED:
                slot = block_slot(level, j)
                e0, e1 = emin[slot], emax[slot]
                fa, fb = float(a), float(b)
                chi = max(max(chi2_bound(fa, Sa + e0, fn, mean, scale), chi2_bound(fa, Sa + e1, fn, mean, scale)),
                          max(chi2_bound(fb, Sb + e0, fn, mean, scale), chi2_bound(fb, Sb + e1, fn, mean, scale)))
                if chi < beta_n - 1e-6:
                    continue
                bound = chord_bound(a, b, Sa, Sb, e0, e1, fn, Sn)
            if bound == math.inf:
                d = Sb - Sa
                bound = max(max(pair_value(float(a), Sa, fn, Sn, xlogx, binary),
                                pair_value(float(b), Sb, fn, Sn, xlogx, binary)),
                            max(pair_value(a + d, Sb, fn, Sn, xlogx, binary),
                                pair_value(b - d, Sa, fn, Sn, xlogx, binary)))
            if bound < cut - 1e-6:
                continue
        stack[top], stack[top + 1] = level - 1, 2 * j + 1
        stack[top + 2], stack[top + 3] = level - 1, 2 * j
        top += 4
    return False


def chord_spreads(prefix, n, split_every):
    """The spread arrays :func:`chord_update` fills as samples 1..n arrive, built at once."""
    size = 2 * (n // split_every) + 2
    emin, emax = np.zeros(size), np.zeros(size)
    for i in range(1, n // split_every + 1):
        chord_update(prefix, i, split_every, emin, emax)
    return emin, emax


def glr_detects(prefix, n, split_every, beta_n, xlogx, binary, stack):
    """:func:`glr_detects_tree` on prefix sums given at once (tests, the reference checks)."""
    emin, emax = chord_spreads(prefix, n, split_every)
    return glr_detects_tree(prefix, n, split_every, beta_n, xlogx, binary, stack, emin, emax)


@njit(cache=True)
def glr_klucb_kernel(rewards, lo, scale, beta, alpha0, c, cfg, actions, restarts):
    """GLR-klUCB, Algorithm 1, on rounds 0..T-1 (round t is t + 1 in the paper). ``cfg`` =
    (global restart, Delta_n, Delta_s, count rounds instead of samples, alpha grows with
    the episode). ``beta[n]`` = beta(n, delta). Writes the arms to ``actions`` and each
    detection as t K + arm to ``restarts``; returns the number of detections."""
    T, K = rewards.shape
    restart_global, check_every, split_every, check_rounds, grow = cfg[0], cfg[1], cfg[2], cfg[3], cfg[4]
    xlogx = np.zeros(T + 1)
    for m in range(1, T + 1):
        xlogx[m] = m * math.log(m)
    level_of = np.empty(T + 1)     # f(u) for u = t - tau_k: one logarithm per round, not one per arm
    for u in range(T + 1):
        level_of[u] = klucb_level(u, c)
    cap = min(T, 1024)
    prefix = np.zeros((K, cap + 1))
    emin = np.zeros((K, 2 * (cap // split_every) + 2))
    emax = np.zeros((K, 2 * (cap // split_every) + 2))
    n = np.zeros(K, dtype=np.int64)
    tau = np.zeros(K, dtype=np.int64)
    binary = np.ones(K, dtype=np.bool_)
    sums, levels, index = np.zeros(K), np.empty(K), np.empty(K)
    stack = np.empty(256, dtype=np.int64)
    guess = np.full(K, np.nan)     # each arm's last kl-UCB index (a starting point only)
    episode = 1
    R = explore_range_jit(K, alpha0, grow == 1, episode)
    n_restarts = 0
    last = 0
    for t in range(T):
        t1 = t + 1
        arm = -1
        if R > 0:
            r = t1 % R
            if 1 <= r <= K:
                arm = r - 1          # forced exploration, lines 3-4
        if arm < 0:                  # kl-UCB, line 6
            for a in range(K):
                levels[a] = level_of[t1 - tau[a]]
            arm = klucb_argmax(sums, n, levels, last, guess, index)
        actions[t] = arm
        last = arm
        x = (rewards[t, arm] - lo) * scale
        x = min(1.0, max(0.0, x))
        m = n[arm] + 1
        if m > cap:
            cap = min(T, 2 * cap)
            grown = np.zeros((K, cap + 1))
            grown[:, :prefix.shape[1]] = prefix
            prefix = grown
            spread = np.zeros((K, 2 * (cap // split_every) + 2))
            spread[:, :emin.shape[1]] = emin
            emin = spread
            spread = np.zeros((K, 2 * (cap // split_every) + 2))
            spread[:, :emax.shape[1]] = emax
            emax = spread
        prefix[arm, m] = prefix[arm, m - 1] + x
        sums[arm] = prefix[arm, m]
        n[arm] = m
        if x != 0.0 and x != 1.0:
            binary[arm] = False
        count = t1 - tau[arm] if check_rounds == 1 else m
        if m % split_every == 0:
            chord_update(prefix[arm], m // split_every, split_every, emin[arm], emax[arm])
        if m >= 2 and count % check_every == 0 and glr_detects_tree(prefix[arm], m, split_every, beta[m], xlogx,
                                                                    binary[arm], stack, emin[arm], emax[arm]):
            restarts[n_restarts] = t * K + arm
            n_restarts += 1
            episode += 1
            R = explore_range_jit(K, alpha0, grow == 1, episode)
            for a in range(K):
                if restart_global == 1 or a == arm:
                    n[a] = 0
                    sums[a] = 0.0
                    tau[a] = t1
                    binary[a] = True
                    guess[a] = np.nan
    return n_restarts


# ----------------------------------------------------------------------------- the algorithm

RESTARTS = ("local", "global")
TUNINGS = ("agnostic", "known")
THRESHOLDS = ("practical", "experiments", "theory")
CHECK_ON = ("samples", "rounds")


def glr_tuning(T: int, K: int, tuning: str, upsilon, alpha, alpha_scale: float, delta) -> dict:
    """alpha_0 (and whether it grows with the episodes) and delta for horizon T (module doc)."""
    delta = 1.0 / math.sqrt(T) if delta is None else float(delta)
    if alpha is not None:
        return {"alpha0": float(alpha), "alpha_grows": False, "delta": delta}
    if tuning == "agnostic":
        base = math.sqrt(K * math.log(T) / T)
        return {"alpha0": float(alpha_scale) * base, "alpha_grows": True, "delta": delta}
    base = math.sqrt(K * float(upsilon) * math.log(T) / T)
    return {"alpha0": float(alpha_scale) * base, "alpha_grows": False, "delta": delta}


class GLRklUCB:
    """GLR-klUCB (Besson, Kaufmann, Maillard & Seznec, JMLR 2022); see the module doc for
    every step, constant and reading."""

    problem_kinds = ("karmed",)

    def __init__(self, restart: str = "local", tuning: str = "agnostic", alpha: float | None = None,
                 alpha_scale: float = 1.0, delta: float | None = None, threshold: str = "practical",
                 check_every: int = 10, split_every: int = 10, check_on: str = "samples", c: float = 0.0,
                 Upsilon_T: float | None = None, reward_range=None):
        self.restart = restart
        self.tuning = tuning
        self.alpha = alpha
        self.alpha_scale = alpha_scale
        self.delta = delta
        self.threshold = threshold
        self.check_every = check_every
        self.split_every = split_every
        self.check_on = check_on
        self.c = c
        self.Upsilon_T = Upsilon_T
        self.reward_range = reward_range

    def uses_upsilon(self) -> bool:
        return self.tuning == "known" and self.alpha is None

    def needs(self) -> tuple:
        """The range of the rewards (unless set here) and, for ``tuning: known``, Upsilon_T."""
        keys = () if self.reward_range is not None else ("reward_range",)
        return keys + (own_or_told(self, ("Upsilon_T",)) if self.uses_upsilon() else ())

    def check_params(self) -> None:
        require_choice("algo.restart", self.restart, set(RESTARTS))
        require_choice("algo.tuning", self.tuning, set(TUNINGS))
        require_choice("algo.threshold", self.threshold, set(THRESHOLDS))
        require_choice("algo.check_on", self.check_on, set(CHECK_ON))
        a = require_float("algo.alpha", self.alpha, minimum=0.0, allow_none=True)
        if a is not None and a > 1.0:
            raise ConfigError(f"algo.alpha is a probability of forced exploration in [0, 1], got {a}.")
        require_float("algo.alpha_scale", self.alpha_scale, minimum=0.0)
        check_delta(self.delta)
        require_int("algo.check_every", self.check_every, minimum=1)
        require_int("algo.split_every", self.split_every, minimum=1)
        require_float("algo.c", self.c, minimum=0.0)
        check_known_overrides(self)
        check_reward_range(self.reward_range)

    def resolve(self, T: int, info: dict) -> dict:
        """The constants for horizon T and the K = d arms of ``info`` (recorded with every result)."""
        K = int(info["d"])
        upsilon = None
        if self.uses_upsilon():
            upsilon = self.Upsilon_T if self.Upsilon_T is not None else info.get("Upsilon_T")
            if upsilon is None:
                raise ConfigError("GLRklUCB with algo.tuning=known needs Upsilon_T: set algo.Upsilon_T or use an "
                                  "environment that reports it.")
        p = glr_tuning(T, K, self.tuning, upsilon, self.alpha, self.alpha_scale, self.delta)
        out = {"restart": self.restart, "tuning": self.tuning, "threshold": self.threshold,
               "check_every": int(self.check_every), "split_every": int(self.split_every),
               "check_on": self.check_on, "c": float(self.c), **p}
        if upsilon is not None:
            out["Upsilon_T"] = float(upsilon)
        return out

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        """Deterministic given the rewards: ``rng`` is not used (the paper's forced
        exploration is deterministic)."""
        T, K = rewards.shape
        lo, scale = reward_scale(self, info)
        p = self.resolve(T, {**info, "d": K})
        beta = np.full(T + 1, np.inf)
        beta[1:] = glr_threshold(np.arange(1, T + 1), p["delta"], self.threshold)
        cfg = np.array([self.restart == "global", int(self.check_every), int(self.split_every),
                        self.check_on == "rounds", p["alpha_grows"]], dtype=np.int64)
        actions = np.empty(T, dtype=np.int64)
        restarts = np.empty(T // 2 + 1, dtype=np.int64)
        count = glr_klucb_kernel(rewards, lo, scale, beta, p["alpha0"], float(self.c), cfg, actions, restarts)
        found = restarts[:count]
        self.events_ = {"restarts": [[int(r // K), int(r % K)] for r in found]}
        self.derived_ = {**p, "n_restarts": int(count)}
        return actions
