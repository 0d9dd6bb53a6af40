"""EndofReplayTest (ada eqs. (3)-(5)) and EndofBlockTest (eqs. (6)-(8)), computed with
ERM oracle calls as the paper's "Oracle-efficiency" paragraph describes, and by
brute-force enumeration (finite classes only, for the tests of this package).

For an interval I, R_I(pi) = mean_{t in I} rhat_t(pi(x_t)) with rhat_t(a) =
w_t 1{a = a_t}, Reg_I(pi) = max_pi' R_I(pi') - R_I(pi), and
V_I(Q, nu, pi) = mean_{t in I} 1 / Q^nu(pi(x_t) | x_t).

Oracle path, e.g. for (3): max_pi [Reg_A(pi) - 4 Reg_B(pi)] =
max R_A - 4 max R_B + max_pi sum_t c_t(pi(x_t)) with c_t = -rhat_t / |A| on A and
+4 rhat_t / |B| on B (rows in both intervals get the sum): two oracle calls for the
maxima (cached per interval) and one for the combination. (5) and (8) are one call
each with c_t = 1 / Q^nu(. | x_t) / |A| on A and -41 / Q^nu(. | x_t) / |B| on B.
The value of the returned policy is then computed exactly and compared with the
threshold.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bandits.contextual.op_solver import action_distribution


@dataclass
class Logged:
    """What the tests read: the class, chosen actions, importance weights, and the
    distributions Q_(i,k) with their nu_k."""
    pclass: object
    actions: np.ndarray
    weights: np.ndarray

    def iw(self, rows: np.ndarray) -> np.ndarray:
        out = np.zeros((len(rows), self.pclass.K))
        out[np.arange(len(rows)), self.actions[rows]] = self.weights[rows]
        return out

    def inv(self, rows: np.ndarray, Q, nu: float) -> np.ndarray:
        support, wts = Q
        K = self.pclass.K
        return 1.0 / (nu + (1.0 - K * nu) * action_distribution(self.pclass, support, wts, rows))


def _combine(parts):
    """Union of (rows, matrix) parts, summing the matrices of rows that appear twice (each
    row's sum taken in the order of the parts, 0 + first + second)."""
    if all(len(r) and r[-1] - r[0] + 1 == len(r) for r, _ in parts):
        return _combine_ranges(parts)
    rows = np.concatenate([r for r, _ in parts])
    mats = np.concatenate([m for _, m in parts])
    uniq, where = np.unique(rows, return_inverse=True)
    out = np.zeros((len(uniq), mats.shape[1]))
    np.add.at(out, where, mats)
    return uniq, out


def _combine_ranges(parts):
    """:func:`_combine` of parts whose rows are ranges of consecutive rounds (the intervals of
    both tests always are): slices of one dense matrix instead of ``np.unique`` and
    ``np.add.at``, which took about a fifth of an Ada-ILTCB+ trial at T = 3e5. The same sums
    in the same order, so the same numbers (tests/test_contextual.py)."""
    lo = min(int(r[0]) for r, _ in parts)
    hi = max(int(r[-1]) for r, _ in parts) + 1
    out = np.zeros((hi - lo, parts[0][1].shape[1]))
    covered = np.zeros(hi - lo, dtype=bool)
    for r, mat in parts:
        out[r[0] - lo:r[-1] + 1 - lo] += mat
        covered[r[0] - lo:r[-1] + 1 - lo] = True
    if covered.all():
        return np.arange(lo, hi), out
    return np.arange(lo, hi)[covered], out[covered]


def _value(pclass, rows, mat, policy) -> float:
    return float(mat[np.arange(len(rows)), pclass.predict(policy, rows)].sum())


class OracleTests:
    """Both tests through oracle calls; ``calls`` counts them via the class's counter."""

    def __init__(self, logged: Logged):
        self.d = logged
        self._max_cache: dict = {}

    def max_reward(self, rows: np.ndarray) -> float:
        key = (int(rows[0]), int(rows[-1]) + 1, len(rows))  # contiguous, already-logged rounds
        if key not in self._max_cache:
            mat = self.d.iw(rows) / len(rows)
            self._max_cache[key] = _value(self.d.pclass, rows, mat, self.d.pclass.oracle(rows, mat))
        return self._max_cache[key]

    def regret_gap(self, A, B, factor=4.0):
        """max_pi [Reg_A(pi) - factor Reg_B(pi)] and its maximiser."""
        rows, mat = _combine([(A, -self.d.iw(A) / len(A)), (B, factor * self.d.iw(B) / len(B))])
        pi = self.d.pclass.oracle(rows, mat)
        return self.max_reward(A) - factor * self.max_reward(B) + _value(self.d.pclass, rows, mat, pi), pi

    def variance_gap(self, A, B, Q, nu, factor=41.0):
        """max_pi [V_A(Q, nu, pi) - factor V_B(Q, nu, pi)] and its maximiser."""
        rows, mat = _combine([(A, self.d.inv(A, Q, nu) / len(A)), (B, -factor * self.d.inv(B, Q, nu) / len(B))])
        pi = self.d.pclass.oracle(rows, mat)
        return _value(self.d.pclass, rows, mat, pi), pi


class BruteForceTests:
    """The same quantities by enumerating a finite class (every policy's value)."""

    def __init__(self, logged: Logged):
        self.d = logged

    def _R(self, rows):
        return self.d.pclass.scores(rows, self.d.iw(rows)) / len(rows)

    def regret_gap(self, A, B, factor=4.0):
        RA, RB = self._R(A), self._R(B)
        gap = (RA.max() - RA) - factor * (RB.max() - RB)
        return float(gap.max()), int(np.argmax(gap))

    def variance_gap(self, A, B, Q, nu, factor=41.0):
        VA = self.d.pclass.scores(A, self.d.inv(A, Q, nu)) / len(A)
        VB = self.d.pclass.scores(B, self.d.inv(B, Q, nu)) / len(B)
        gap = VA - factor * VB
        return float(gap.max()), int(np.argmax(gap))


def end_of_replay_test(engine, A, B, Q_m, nu_m, K, Kbar, D1, D2):
    """EndofReplayTest(i, j, m, A) with B = B_(i,j-1): the first failing inequality
    (3), (4) or (5) as (number, policy, value, threshold), or None (Pass)."""
    threshold = D1 * Kbar * nu_m
    value, pi = engine.regret_gap(A, B)
    if value >= threshold:
        return 3, pi, value, threshold
    value, pi = engine.regret_gap(B, A)
    if value >= threshold:
        return 4, pi, value, threshold
    value, pi = engine.variance_gap(A, B, Q_m, nu_m)
    if value >= D2 * K:
        return 5, pi, value, D2 * K
    return None


def end_of_block_test(engine, Bj, Bks, Qs_next, nus, K, Kbar, D4, D5):
    """EndofBlockTest(i, j): for k = 0..j-1 (``Bks[k]`` = B_(i,k), ``Qs_next[k]`` = Q_(i,k+1)
    with ``nus[k+1]``), the first failing inequality (6)-(8) as (number, k, policy,
    value, threshold), or None."""
    for k, Bk in enumerate(Bks):
        threshold = D4 * Kbar * nus[k]
        value, pi = engine.regret_gap(Bj, Bk)
        if value >= threshold:
            return 6, k, pi, value, threshold
        value, pi = engine.regret_gap(Bk, Bj)
        if value >= threshold:
            return 7, k, pi, value, threshold
        value, pi = engine.variance_gap(Bj, Bk, Qs_next[k], nus[k + 1])
        if value >= D5 * K:
            return 8, k, pi, value, D5 * K
    return None
