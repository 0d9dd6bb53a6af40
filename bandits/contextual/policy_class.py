"""Policy classes behind one small interface, the ERM oracle of ada Definition 1.

``oracle(rows, reward)`` returns a policy in argmax_pi sum_t reward[t, pi(x_t)] over
the given rounds (``reward`` is (n, K), one reward vector per round) and counts the
call in ``calls_``; ``predict(policy, rows)`` gives the policy's actions there.

* :class:`FinitePolicyClass`: N explicit policies, given as their actions at every
  round (``policy_actions``, T x N). The oracle is exact: enumeration, O(n N), ties
  to the lowest index. Importance-weighted rewards never change once observed, so
  :class:`PrefixValues` keeps per-policy prefix sums of them: the value of every
  policy on any interval [s, e) is read in O(N) from two stored prefixes (one
  stored every ``stride`` rounds, plus at most ``stride`` rows on each side).
* :class:`LinearPolicyClass`: policies x -> argmax_a W_a . x. The "oracle" fits one
  ridge regression per action of the reward vectors on the contexts and returns
  its argmax policy: the cost-sensitive regression used in practice (and by VW).
  It is an approximate ERM (it minimises squared error, not the argmax objective).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bandits.numerics import argmax_lowest


@njit(cache=True)
def _finite_scores(pred, rows, reward):
    """acc[n] = sum_i reward[i, pred[rows[i], n]], summed over i in order."""
    N = pred.shape[1]
    K = reward.shape[1]
    acc = np.zeros(N)
    if K <= 5:
        # Up to 5 actions the gather is a chain of selects, which the compiler vectorises over
        # the policies (about 2x faster than the indexed load); the same value is added in the
        # same order, so the sums are bit-identical (tests/test_contextual.py).
        r = np.zeros(5)
        for i in range(rows.shape[0]):
            prow = pred[rows[i]]
            for k in range(K):
                r[k] = reward[i, k]
            r0, r1, r2, r3, r4 = r[0], r[1], r[2], r[3], r[4]
            for n in range(N):
                p = prow[n]
                acc[n] += r0 if p == 0 else (r1 if p == 1 else (r2 if p == 2 else (r3 if p == 3 else r4)))
        return acc
    for i in range(rows.shape[0]):
        t = rows[i]
        for n in range(N):
            acc[n] += reward[i, pred[t, n]]
    return acc


@njit(cache=True)
def _iw_scores(pred, start, stop, actions, weights, out):
    """out[n] += sum_{t in [start, stop)} weights[t] * 1{pred[t, n] == actions[t]}."""
    N = pred.shape[1]
    for t in range(start, stop):
        a = actions[t]
        w = weights[t]
        if w == 0.0:
            continue
        for n in range(N):
            if pred[t, n] == a:
                out[n] += w


def first_argmax(values: np.ndarray) -> int:
    """Lowest index among the maxima: the tie rule of every kernel (spec §1)."""
    return int(argmax_lowest(np.asarray(values, dtype=np.float64)))


class FinitePolicyClass:
    def __init__(self, policy_actions: np.ndarray, K: int):
        self.pred = np.ascontiguousarray(policy_actions)
        self.K = int(K)
        self.calls_ = 0

    @property
    def size(self) -> int:
        return int(self.pred.shape[1])

    def scores(self, rows: np.ndarray, reward: np.ndarray) -> np.ndarray:
        """sum_t reward[t, pi(x_t)] for every policy pi (no oracle call counted)."""
        return _finite_scores(self.pred, np.asarray(rows, dtype=np.int64), np.asarray(reward, dtype=np.float64))

    def oracle(self, rows: np.ndarray, reward: np.ndarray) -> int:
        self.calls_ += 1
        return first_argmax(self.scores(rows, reward))

    def predict(self, policy: int, rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows)
        if len(rows) and rows[-1] - rows[0] + 1 == len(rows):  # a range of rounds (the tests' and OP's): a slice
            return self.pred[rows[0]:rows[-1] + 1, policy].astype(np.int64)
        return self.pred[rows, policy].astype(np.int64)

    def distribution(self, support, weights, rows: np.ndarray) -> np.ndarray:
        """Q(a | x_t) = sum of the weights of the support policies choosing a at x_t, (n, K), in
        one pass over the rows (each row's policies read together), adding in support order."""
        rows = np.asarray(rows, dtype=np.int64)
        out = np.zeros((len(rows), self.K))
        _distribution(self.pred, rows, np.asarray(support, dtype=np.int64), np.asarray(weights, dtype=np.float64),
                      out)
        return out


@njit(cache=True)
def _distribution(pred, rows, support, weights, out):
    """out[i, pred[rows[i], support[s]]] += weights[s], for s in order."""
    for i in range(rows.shape[0]):
        prow = pred[rows[i]]
        for s in range(support.shape[0]):
            out[i, prow[support[s]]] += weights[s]


class PrefixValues:
    """Per-policy prefix sums of importance-weighted rewards w_t 1{pi(x_t) = a_t}, grown
    as rounds are logged; interval values in O(N + stride * N)."""

    def __init__(self, pclass: FinitePolicyClass, actions: np.ndarray, weights: np.ndarray, stride: int = 256):
        self.pclass = pclass
        self.actions = actions
        self.weights = weights
        self.stride = int(stride)
        self.snapshots = [np.zeros(pclass.size)]  # prefix at rounds 0, stride, 2 stride, ...
        self.logged = 0

    def extend(self, stop: int) -> None:
        """Account for rounds [logged, stop) (their actions and weights must be final)."""
        while self.logged < stop:
            nxt = min(stop, (len(self.snapshots)) * self.stride)
            if nxt <= self.logged:
                break
            if nxt == len(self.snapshots) * self.stride:
                snap = self.snapshots[-1].copy()
                _iw_scores(self.pclass.pred, (len(self.snapshots) - 1) * self.stride, nxt, self.actions,
                           self.weights, snap)
                self.snapshots.append(snap)
            self.logged = nxt

    def prefix(self, t: int) -> np.ndarray:
        """sum over rounds [0, t) for every policy."""
        k = min(t // self.stride, len(self.snapshots) - 1)
        out = self.snapshots[k].copy()
        _iw_scores(self.pclass.pred, k * self.stride, t, self.actions, self.weights, out)
        return out

    def interval(self, start: int, stop: int) -> np.ndarray:
        return self.prefix(stop) - self.prefix(start)


class LinearPolicyClass:
    def __init__(self, contexts: np.ndarray, K: int, ridge: float = 1.0):
        self.X = np.asarray(contexts, dtype=np.float64)
        self.K = int(K)
        self.ridge = float(ridge)
        self.weights_: list = []
        self.calls_ = 0

    def oracle(self, rows: np.ndarray, reward: np.ndarray) -> int:
        self.calls_ += 1
        X = self.X[rows]
        A = X.T @ X + self.ridge * np.eye(X.shape[1])
        W = np.linalg.solve(A, X.T @ np.asarray(reward, dtype=np.float64)).T  # (K, d)
        self.weights_.append(W)
        return len(self.weights_) - 1

    def predict(self, policy: int, rows: np.ndarray) -> np.ndarray:
        return (self.X[rows] @ self.weights_[policy].T).argmax(axis=1).astype(np.int64)
