"""AdSwitch (Auer, Gajane & Ortner, COLT 2019, Algorithm 1, conditions (1)-(4), Remark 3)
transcribed literally, every statistic recomputed from the episode's history at every round:
the sampling obligations are the set of triples (eps, n, s) of lines 10-11 and 21, the good
and bad sets those of lines 6, 23 and 25, and each condition is evaluated for every arm of its
set at every round (lines 15-24), over the episode's samples of that arm:

* (3), ``literal``: every interval [s1, s2] against every suffix [s, t]; "some pair of
  intervals" is evaluated as max over [s1, s2] of (mu^ - width) against each suffix's
  mu^ + width, and min of (mu^ + width) against mu^ - width (the same statement: the pairs
  range independently). ``brute=True`` evaluates |mu^_[s1,s2] - mu^_[s,t]| > width + width over
  every triple as line 16 writes it (O(n^3) a round: for a few hundred rounds; the tests check
  the two agree). ``remark3``: every window of L_k consecutive samples so far against the last
  L_j samples, L_k = ceil(2^k log T), k >= 3;
* (4): every suffix (``literal``) or the last L_k samples (``remark3``);
* (1): every round s of the episode (``literal``) or s where [s, t] holds the arm's last L_k
  samples (``remark3``), the earliest s that holds giving (2).

Means are prefix-sum differences (P[n] - P[n - m]) / m with P the running sums of the arm's
samples in order, as the kernel forms them, so the two compare the same numbers. An
independent check of :class:`bandits.algorithms.adswitch.AdSwitch` (tests/test_adswitch.py).
"""

from __future__ import annotations

import math

import numpy as np

from bandits.algorithms.adswitch import remark3_lengths
from bandits.algorithms.common import reward_scale


class ReferenceAdSwitch:
    problem_kinds = ("karmed",)

    def __init__(self, C1=32.0, tests="remark3", reward_range=None, brute=False):
        self.C1 = C1
        self.tests = tests
        self.reward_range = reward_range
        self.brute = brute

    def needs(self):
        return () if self.reward_range is not None else ("reward_range",)

    def reset(self, n_arms, horizon, rng, info):
        self.K_, self.T_, self.rng_ = n_arms, horizon, rng
        self.logT_ = math.log(horizon)
        self.lo_, self.scale_ = reward_scale(self, info)
        self.lengths_ = [int(v) for v in remark3_lengths(horizon)]
        self.history_ = []                          # (round, arm, x) of every round
        self.ell_ = 0
        self.restarts_, self.evictions_ = [], []
        self.new_episode(0)                         # lines 2-6

    def new_episode(self, t):
        self.ell_ += 1
        self.t_ell_ = t
        self.good_ = set(range(self.K_))
        self.bad_ = set()
        self.S_ = {a: [] for a in range(self.K_)}   # sampling obligations (eps, n, s)
        self.mu_tilde_, self.gap_tilde_ = {}, {}

    def samples(self, a, since=None):
        """Arm a's rewards in the episode (from round ``since`` on), in order."""
        since = self.t_ell_ if since is None else since
        return [x for (r, arm, x) in self.history_ if arm == a and r >= since]

    def pulls_since(self, a, s):
        return sum(1 for (r, arm, _) in self.history_ if arm == a and r >= s)

    def select(self, t):
        base = math.sqrt(self.ell_ / (self.K_ * self.T_ * self.logT_))
        for a in sorted(self.bad_):                 # lines 10-11
            i = 1
            while 2.0 ** -i >= self.gap_tilde_[a] / 16.0:
                if self.rng_.random() < 2.0 ** -i * base:
                    self.S_[a].append((2.0 ** -i, math.ceil(2.0 ** (2 * i + 1) * self.logT_), t))
                i += 1
        eligible = [a for a in range(self.K_) if a in self.good_ or self.S_[a]]
        last = {a: max([r for (r, arm, _) in self.history_ if arm == a], default=-1) for a in eligible}
        return min(eligible, key=lambda a: (last[a], a))   # line 13: least recently played, lowest index

    def update(self, t, arm, reward):
        self.history_.append((t, arm, (reward - self.lo_) * self.scale_))
        if any(self.good_arm_changed(a) for a in sorted(self.good_)) or \
                any(self.bad_arm_changed(a) for a in sorted(self.bad_)):     # lines 15-20
            self.restarts_.append(t + 1)
            self.new_episode(t + 1)
            return
        for a in self.bad_:                         # line 21
            self.S_[a] = [(eps, n, s) for (eps, n, s) in self.S_[a] if self.pulls_since(a, s) < n]
        evicted = {}
        for a in sorted(self.good_):                # line 23: against GOOD_t
            found = self.eviction(a, t)
            if found is not None:
                evicted[a] = found
        for a, (mean, gap) in evicted.items():      # line 24, (2)
            self.bad_.add(a)
            self.mu_tilde_[a], self.gap_tilde_[a] = mean, gap
            self.S_[a] = []
            self.evictions_.append([t, a])
        self.good_ -= set(evicted)                  # line 25

    @staticmethod
    def prefix(values):
        return np.concatenate([[0.0], np.cumsum(values)])

    def width(self, m):
        return math.sqrt(2.0 * self.logT_ / m)

    def good_arm_changed(self, a):
        """Condition (3) for arm a."""
        P = self.prefix(self.samples(a))
        n = len(P) - 1
        if self.tests == "literal":
            intervals = [(i, j) for i in range(n) for j in range(i + 1, n + 1)]       # samples i..j-1
            suffixes = range(1, n + 1)
        else:
            intervals = [(i, i + L) for L in self.lengths_ if L <= n for i in range(n - L + 1)]
            suffixes = [L for L in self.lengths_ if L <= n]
        means = {(i, j): (P[j] - P[i]) / (j - i) for (i, j) in intervals}
        if self.brute:                              # every pair of an interval and a suffix, as line 16
            x = np.array([means[iv] for iv in intervals])[:, None]
            wx = np.array([self.width(iv[1] - iv[0]) for iv in intervals])[:, None]
            y = np.array([(P[n] - P[n - m]) / m for m in suffixes])[None, :]
            wy = np.array([self.width(m) for m in suffixes])[None, :]
            return bool((abs(x - y) > wx + wy).any())
        if self.tests == "literal":
            hi = max((means[iv] - self.width(iv[1] - iv[0]) for iv in intervals), default=-math.inf)
            lo = min((means[iv] + self.width(iv[1] - iv[0]) for iv in intervals), default=math.inf)
            return any(hi > (P[n] - P[n - m]) / m + self.width(m) or (P[n] - P[n - m]) / m - self.width(m) > lo
                       for m in suffixes)
        for m in suffixes:
            y, w = (P[n] - P[n - m]) / m, self.width(m)
            for L in suffixes:                      # the windows of each length so far
                hi = max(means[(i, i + L)] - self.width(L) for i in range(n - L + 1))
                lo = min(means[(i, i + L)] + self.width(L) for i in range(n - L + 1))
                if hi > y + w or y - w > lo:
                    return True
        return False

    def bad_arm_changed(self, a):
        """Condition (4) for arm a."""
        P = self.prefix(self.samples(a))
        n = len(P) - 1
        suffixes = range(1, n + 1) if self.tests == "literal" else [L for L in self.lengths_ if L <= n]
        return any(abs((P[n] - P[n - m]) / m - self.mu_tilde_[a]) > self.gap_tilde_[a] / 4.0 + self.width(m)
                   for m in suffixes)

    def eviction(self, a, t):
        """Condition (1) for good arm a: (mu^, gap) at the earliest s that holds, else None."""
        if self.tests == "literal":
            starts = range(self.t_ell_, t + 1)
        else:
            rounds = [r for (r, arm, _) in self.history_ if arm == a and r >= self.t_ell_]
            starts = [rounds[len(rounds) - L] for L in reversed(self.lengths_) if L <= len(rounds)]
        arms = np.array([arm for (r, arm, _) in self.history_ if r >= self.t_ell_], dtype=np.int64)
        onehot = arms[None, :] == np.arange(self.K_)[:, None]
        # pulls[b, s - t_ell]: b's pulls in rounds s..t, counted from the episode's arms
        pulls = np.concatenate([np.cumsum(onehot[:, ::-1], axis=1)[:, ::-1], np.zeros((self.K_, 1), int)], axis=1)
        P = {b: self.prefix(self.samples(b)) for b in range(self.K_)}
        for s in starts:
            m = int(pulls[a, s - self.t_ell_])
            if m < 2:
                continue
            n = len(P[a]) - 1
            mean = (P[a][n] - P[a][n - m]) / m
            best = -math.inf
            for b in self.good_:                    # the good arms with a sample in [s, t]; theirs are their last ones
                kb, nb = int(pulls[b, s - self.t_ell_]), len(P[b]) - 1
                if kb >= 1:
                    best = max(best, (P[b][nb] - P[b][nb - kb]) / kb)
            if best - mean > math.sqrt(self.C1 * self.logT_ / (m - 1)):
                return mean, best - mean
        return None
