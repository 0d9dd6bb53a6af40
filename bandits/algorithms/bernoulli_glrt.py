"""The Bernoulli GLR change-point test (B-GLRT) of GLR-klUCB (Besson, Kaufmann, Maillard &
Seznec, JMLR 23 (2022), arXiv 1902.01575): the statistic, its threshold and an exact scan over
the splits that prunes whole blocks of them. The algorithm that runs it on the pulled arm is
:mod:`bandits.algorithms.glr`, whose module doc names the sources read (Besson's thesis,
chapter 6, cited by its equation labels, and the authors' Julia code).

The test, on the pulled arm's n samples since its restart (line 9, def:6:GLRDef):
detect iff sup_s [ s kl(mu_{1:s}, mu_{1:n}) + (n - s) kl(mu_{s+1:n}, mu_{1:n}) ]
>= beta(n, delta), over the splits s in {1, ..., n-1}: the Definition writes s in
[2, n-1], the proof of Lemma lem:6:FalseAlarm and both authors' codes use s >= 1.

Threshold beta(n, delta) (``threshold``):

* ``practical`` (default): ln(3 n^{3/2} / delta), "in practice we recommend to keep only
  the leading term" (practical considerations; SMPyBandits' variant 0);
* ``experiments``: ln(n^{3/2} / delta), the one in the authors' Julia code;
* ``theory``: 2 T(ln(3 n sqrt(n) / delta) / 2) + 6 ln(1 + ln n), def:6:beta (Lemma
  lem:6:FalseAlarm: false alarm probability <= delta), with Kaufmann & Koolen's
  T(x) = 2 h~((h^{-1}(1 + x) + ln(2 zeta(2))) / 2), h(u) = u - ln u (u >= 1),
  h~(x) = e^{1/h^{-1}(x)} h^{-1}(x) if x >= h^{-1}(1 / ln(3/2)) else (3/2)(x - ln ln(3/2)).

Implementation (exact: the same detections as the literal transcription in
:class:`bandits.reference.ReferenceGLRklUCB`, which a test checks round by round):

* per arm, the prefix sums of its samples since its restart (an array that doubles when
  full), so a split costs O(1): s kl(mu_{1:s}, mu_{1:n}) + (n - s) kl(mu_{s+1:n}, mu_{1:n})
  = phi(s, S_s) + phi(n - s, S_n - S_s) - phi(n, S_n), phi(m, S) = S ln(S/m) +
  (m - S) ln(1 - S/m); while an arm's samples are 0/1, phi is read from a table of m ln m;
* the scan over the splits is pruned by a convexity bound over dyadic blocks of splits, each
  block keeping the spread of its points about its chord as samples arrive
  (:func:`glr_detects_tree`, :func:`chord_update`): O(log n) blocks per test under no change
  instead of n / Delta_s splits (Delta_s, the split subsampling, is GLR-klUCB's
  ``split_every``; the test runs on every split when it is 1).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy.special import lambertw

from bandits.errors import ConfigError

# ----------------------------------------------------------------------------- the threshold

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


# ----------------------------------------------------------------------------- the statistic and its scan

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
