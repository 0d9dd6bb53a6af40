"""The arm indices of the K-armed UCB family, each defined once and shared by the
compiled kernels and the literal transcriptions (``bandits/reference``).

Rewards here are already mapped to [0, 1] (:func:`bandits.algorithms.common.reward_scale`).
An arm with no observation has an infinite index, so every arm is tried once first
(Auer et al. 2002, Fig. 1, "play each machine once"; Garivier & Cappé 2011, Alg. 1).

Also here: THE argmax of the kl-UCB indices (:func:`klucb_argmax`), exact but without
solving most indices, shared by every kl-UCB kernel (kl-UCB, the oracle restart with
``index: kl_ucb``, GLR-klUCB, and the kl-UCB variants of M-UCB, CUSUM-UCB, SW-UCB and
D-UCB), and its helpers; the exploration function f(u) of those variants
(:func:`exploration_level`, with the three forms of :data:`KL_EXPLORATIONS`), and the
argmax over one exploration level for either index (:func:`index_argmax`).

The kl-UCB exploration functions (``kl_exploration``), u being the "time" each mechanism
feeds its index (rounds since a restart, the samples in play, the window, the discounted
count: see each algorithm's module doc):

* ``log``: f(u) = ln u. Garivier & Cappé's practical choice as Besson's thesis quotes it
  (``2-Chapters/2-Chapter/chapter2.tex``: "f(t) = log(t) + c log(log(t)) for the theoretical
  analyses (with c >= 3), and f(t) = log(t) in practice"); the one Kaufmann's
  ``PiecewiseStationaryBandits/Algos.jl`` uses in MklUCB, CUSUMklUCB, DklUCB, SWklUCB
  (``klUp(mean, log(.)/N)``), and SMPyBandits' ``klUCB`` with its default c = 1
  (``c * log(t) / N``), which its ``configuration_nonstationary.py`` wraps in M-klUCB,
  CUSUM-klUCB, SW-klUCB and D-klUCB.
* ``log_loglog``: f(u) = ln u + c ln ln u, c = ``kl_c`` (default 3): the form of the
  theory (Besson's thesis, ``NonStatB.tex`` def:6:UCB: "f(t) = ln(t) + 3 ln(ln(t)) if t > 1
  and f(t) = 0 otherwise").
* ``three_log``: f(u) = 3 ln u: what SMPyBandits' ``Policies/klUCB_forGLR.py`` computes
  (``self.c * log(self.t_for_each_arm[arm])`` with c = 3 inherited from ``klUCBloglog``,
  although its docstring writes ln u + c ln ln u); its ``configuration_nonstationary.py``
  runs GLR-klUCB on it.

f(u) = 0 for u <= 1 (def:6:UCB); where f(u) <= 0 the kl-UCB index is the mean (the
level -> 0 limit, as :func:`bandits.numerics.klucb_bernoulli` returns).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from numba import njit

from bandits.errors import require_choice, require_float
from bandits.numerics import KL_EPS, TIE_TOL, argmax_lowest, kl_bernoulli, klucb_bernoulli

UCB1_INDEX, KLUCB_INDEX = 0, 1
INDEX_KINDS = {"ucb1": UCB1_INDEX, "kl_ucb": KLUCB_INDEX}
# f(u) = a ln u + c ln ln u: (a, c) of each named kl-UCB exploration function (module doc)
KL_EXPLORATIONS = ("log", "log_loglog", "three_log")


class IndexRule(NamedTuple):
    """Which index a kernel computes and its exploration level f(u) = a ln u + c ln ln u:
    UCB1 (kind UCB1_INDEX) pads with sqrt(f(u) / n), a = its constant, c = 0; kl-UCB
    (KLUCB_INDEX) solves n kl(mean, q) <= f(u)."""
    kind: int
    a: float
    c: float


def check_index_params(algo) -> None:
    """``index``, ``kl_exploration`` and ``kl_c`` of an algorithm with a choice of index."""
    require_choice("algo.index", algo.index, set(INDEX_KINDS))
    require_choice("algo.kl_exploration", algo.kl_exploration, set(KL_EXPLORATIONS))
    require_float("algo.kl_c", algo.kl_c, minimum=0.0)


def index_rule(algo, ucb1_constant: float) -> IndexRule:
    """The resolved :class:`IndexRule` of an algorithm: UCB1 with its bonus constant
    (sqrt(constant ln u / n)), or kl-UCB with the (a, c) of its ``kl_exploration``."""
    if algo.index == "ucb1":
        return IndexRule(UCB1_INDEX, float(ucb1_constant), 0.0)
    a, c = {"log": (1.0, 0.0), "log_loglog": (1.0, float(algo.kl_c)), "three_log": (3.0, 0.0)}[algo.kl_exploration]
    return IndexRule(KLUCB_INDEX, a, c)


def index_record(algo) -> dict:
    """What ``derived_`` records of the index choice (f's constants only for kl-UCB)."""
    if algo.index == "ucb1":
        return {"index": "ucb1"}
    rule = index_rule(algo, 0.0)
    return {"index": "kl_ucb", "kl_exploration": algo.kl_exploration, "kl_f": [rule.a, rule.c]}


@njit(cache=True)
def ucb1_index(total, n, log_t, c):
    """UCB1 (Auer, Cesa-Bianchi & Fischer 2002, Fig. 1): mean + sqrt(c log t / n), with
    c = 2 in the paper (``log_t`` is log t, or the log of the rounds since a restart)."""
    if n <= 0:
        return math.inf
    return total / n + math.sqrt(c * log_t / n)


@njit(cache=True)
def exploration_level(u, a, c):
    """f(u) = a ln u + c ln ln u for u > 1 and 0 otherwise (def:6:UCB's form; module doc)."""
    if u <= 1:
        return 0.0
    lu = math.log(u)
    return a * lu + c * math.log(lu) if c != 0.0 else a * lu


@njit(cache=True)
def klucb_index(total, n, level):
    """kl-UCB (Garivier & Cappé 2011, Alg. 1): max{q : n kl(mean, q) <= level}, with
    level = log t + c log log t in the paper (c = 0 is their recommended practice)."""
    if n <= 0:
        return math.inf
    return klucb_bernoulli(total / n, level / n)


# ----------------------------------------------------------------------------- the kl-UCB argmax

@njit(cache=True)
def klucb_upper_bound(mean, lv):
    """A closed-form upper bound on the kl-UCB index klucb_bernoulli(mean, lv) (a bracket for
    pruning and a Newton start, not a solver: the one solver is
    :func:`bandits.numerics.klucb_bernoulli`), by three lower bounds on
    kl(p, q) for q > p: 2 (q - p)^2 (Pinsker), (q - p)^2 / (2 q) and (q - p)^2 / (2 (1 - p)). At
    the clipped mean, plus 1e-9 (above Newton's stopping error and the 1.0 returned at the top)."""
    p = min(max(mean, KL_EPS), 1.0 - KL_EPS)
    lv = max(lv, 0.0)
    gap = min(math.sqrt(0.5 * lv), lv + math.sqrt(2.0 * p * lv + lv * lv), math.sqrt(2.0 * (1.0 - p) * lv))
    return p + gap + 1e-9


@njit(cache=True)
def surely_below(mean, lv, x):
    """True when the kl-UCB index klucb_bernoulli(mean, lv) is surely below x - 1e-12: its
    upper bound is below x, or kl(mean, x) > lv (kl(mean, .) increases above the mean, so the
    root is below x). Callers pass x with a 1e-9 margin over Newton's stopping error."""
    if klucb_upper_bound(mean, lv) < x:
        return True
    return x > mean and kl_bernoulli(mean, x) > lv


@njit(cache=True)
def newton_guess(mean, lv, q):
    """Two Newton steps on kl(mean, q) = lv from q (kept in (mean, 1)): a close guess of the
    kl-UCB index when q is the arm's index of a recent round (only a guess: it is verified)."""
    top = 1.0 - KL_EPS
    pc = min(max(mean, KL_EPS), top)
    q = min(max(q, pc + 1e-12), top)
    for _ in range(2):
        if q <= pc:
            break
        q -= (kl_bernoulli(mean, q) - lv) * q * (1.0 - q) / (q - pc)
        q = min(max(q, pc + 1e-12), top)
    return q


@njit(cache=True)
def klucb_argmax(totals, counts, levels, first, guess, index):
    """argmax_lowest over arms k of the kl-UCB indices klucb_index(totals[k], counts[k],
    levels[k]) (Garivier & Cappé 2011, Alg. 1; a level per arm, for kernels that restart arms
    separately), solving Newton's method (~250 ns; one kl evaluation ~15 ns) for at most one
    arm in most rounds. THE kl-UCB argmax of every kl-UCB kernel (kl-UCB, the oracle restart,
    GLR-klUCB). ``first``: the arm tried first (the last one played, usually the leader);
    ``guess``: each arm's last index (nan: none), a Newton starting point only, updated here;
    ``index``: scratch space.

    Exact: the same arm as argmax_lowest of all K indices (tests: random states with ties
    and unseen arms, whole trajectories, the literal transcriptions). Write v_k for the
    computed index, M = max_k v_k and cut(m) = m - TIE_TOL max(1, |m|), so argmax_lowest
    returns the lowest k with v_k >= cut(M); cut is non-decreasing.

    (0) An unseen arm has index +inf: the lowest one is returned, as argmax_lowest does.
    (1) Certificate of a candidate c, first ``first``. y = q - 1e-7, q a Newton guess of the
    index of c (:func:`newton_guess`). If y > mean and kl(mean, y) <= level / n, the root is
    >= y (kl(mean, .) increases above the mean), so v_c >= y up to rounding (Newton's iterates
    decrease to the root from above; the top returns 1.0). Every other arm a with
    :func:`surely_below` at y - 1e-9 has v_a < y - 1e-9 (the 1e-9 dwarfs Newton's stopping
    error). Then M = v_c and cut(M) >= y - 1e-12 - rounding > v_a: c is the only arm in the
    tie band, and is returned. When an arm is not surely below, it becomes the candidate once
    (the leader often changes to it: one Newton guess instead of solving every close arm).
    (2) Otherwise ``first`` is solved, then each other
    arm in turn is solved unless surely below cut(b) - 1e-9, b the largest index solved so
    far; a skipped arm is below cut(b) <= cut(M) (b <= M), outside the final tie band, so
    argmax_lowest over the solved indices (-inf for the skipped) returns the same arm."""
    K = counts.shape[0]
    for a in range(K):
        if counts[a] == 0:
            return a
    c = first
    for _ in range(2):  # the candidate: first, then the first arm not surely below it
        mean = totals[c] / counts[c]
        lv = levels[c] / counts[c]
        g = guess[c]
        if not g > mean:
            g = klucb_upper_bound(mean, lv)
        q = newton_guess(mean, lv, g)
        guess[c] = q
        y = q - 1e-7
        if not (y > mean and kl_bernoulli(mean, y) <= lv):
            break
        rival = -1
        for a in range(K):
            if a != c and not surely_below(totals[a] / counts[a], levels[a] / counts[a], y - 1e-9):
                rival = a
                break
        if rival < 0:
            return c
        c = rival
    for a in range(K):
        index[a] = -math.inf
    best = klucb_index(totals[first], counts[first], levels[first])
    index[first] = best
    guess[first] = best
    for a in range(K):
        if a == first:
            continue
        if surely_below(totals[a] / counts[a], levels[a] / counts[a], best - TIE_TOL * max(1.0, abs(best)) - 1e-9):
            continue
        index[a] = klucb_index(totals[a], counts[a], levels[a])
        guess[a] = index[a]
        best = max(best, index[a])
    return argmax_lowest(index)


@njit(cache=True)
def index_argmax(rule, totals, counts, u, first, guess, index, levels):
    """argmax_lowest over the arms of one index at one exploration level f(u) for all arms
    (:class:`IndexRule`): UCB1's mean + sqrt(f(u) / n) or kl-UCB's max{q : n kl(mean, q) <=
    f(u)} (by :func:`klucb_argmax`: ``first``, ``guess`` as there). An arm with n = 0 first."""
    level = exploration_level(u, rule.a, rule.c)
    if rule.kind == UCB1_INDEX:
        for a in range(counts.shape[0]):
            index[a] = ucb1_index(totals[a], counts[a], level, 1.0)
        return argmax_lowest(index)
    for a in range(counts.shape[0]):
        levels[a] = level
    return klucb_argmax(totals, counts, levels, first, guess, index)


@njit(cache=True)
def ucb_alg7_index(total, n, log_term, c):
    """UCB1 as Wei & Luo (COLT 2021) write it for MASTER (App. I.1, Alg. 7, eq. (33)):
    r_hat + c sqrt(log(T / delta) / N+) with N+ = max(1, N) and r_hat = total / N+, so an
    arm never pulled has the finite index c sqrt(log(T / delta)) (``log_term`` = log(T / delta))."""
    n_plus = max(1.0, n)
    return total / n_plus + c * math.sqrt(log_term / n_plus)
