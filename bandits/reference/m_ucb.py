"""M-UCB (Cao, Wen, Kveton & Xie, AISTATS 2019, Alg. 2 with the detector of Alg. 1)
transcribed literally: every arm keeps the list of its samples since the last restart
tau, and every round the indices and the detector are recomputed from those lists.

Round t (1-based): A = (t - tau) mod floor(K / gamma); A in {1..K}: play arm A (0-based
A - 1); else the argmax of the index on the samples since tau, lowest index on ties:
UCB1's mean_k + sqrt(2 log(t - tau) / n_k) (``index="ucb1"``), or kl-UCB's
max{q : n_k kl(mean_k, q) <= f(t - tau)} (``index="kl_ucb"``, f of ``kl_exploration``,
rewards clipped to [0, 1]). After the reward, if the chosen arm has n >= w samples since
tau, its last w samples Y_1..Y_w give a change when |sum(Y_{w/2+1..w}) - sum(Y_{1..w/2})| > b;
then tau = t and every list is emptied (a global restart).

The constants are given, or tuned here from what the environment tells, written out
again from their formulas: w = (4 / delta^2)(sqrt(log(2KT^2)) + sqrt(log(2T)))^2 rounded up
to an even integer, b = sqrt(w / 2 log(2KT^2)), gamma = sqrt(Upsilon_T K (2b + 3 sqrt(w)) /
(2T)) (``gamma_rule="experiments"``) or sqrt(Upsilon_T K min(w/2, ceil(b / delta) +
3 sqrt(w)) / (2T)) (``"theorem"``), capped at 1, with the b in force, delta = min_change;
no window and delta = 0: no detector and gamma = 0; w > T: gamma = 0 unless
``gamma_without_detector="paper"``. An independent check of
:class:`bandits.algorithms.m_ucb.MonitoredUCB`.
"""

from __future__ import annotations

import math

from bandits.reference.common import kl_exploration, kl_ucb_bound, lowest_argmax


class ReferenceMUCB:
    problem_kinds = ("karmed",)

    def __init__(self, window: int | None = None, b: float | None = None, gamma: float | None = None,
                 gamma_rule: str = "experiments", gamma_without_detector: str = "zero", index: str = "ucb1",
                 kl_exploration: str = "log", kl_c: float = 3.0):
        self.window = window
        self.b = b
        self.gamma = gamma
        self.gamma_rule = gamma_rule
        self.gamma_without_detector = gamma_without_detector
        self.index = index
        self.kl_exploration = kl_exploration
        self.kl_c = kl_c

    def needs(self) -> tuple:
        return ("Upsilon_T", "min_change", "reward_range")

    def reset(self, n_arms, horizon, rng, info):
        K, T = n_arms, horizon
        self.K_ = K
        ups, delta = info["Upsilon_T"], info["min_change"]
        w = self.window
        if w is None and delta > 0:
            raw = (4 / delta ** 2) * (math.sqrt(math.log(2 * K * T ** 2)) + math.sqrt(math.log(2 * T))) ** 2
            w = math.ceil(raw)
            if w % 2:
                w += 1
        self.w_ = w
        self.b_ = self.b if self.b is not None else (
            math.sqrt(w / 2 * math.log(2 * K * T ** 2)) if w is not None else math.inf)
        if self.gamma is not None:
            gamma = self.gamma
        elif w is None:
            gamma = 0.0
        elif self.gamma_rule == "experiments":
            gamma = min(1.0, math.sqrt(ups * K * (2 * self.b_ + 3 * math.sqrt(w)) / (2 * T)))
        elif delta > 0:
            gamma = min(1.0, math.sqrt(ups * K * min(w / 2, math.ceil(self.b_ / delta) + 3 * math.sqrt(w)) / (2 * T)))
        else:
            gamma = 0.0
        if self.gamma is None and (w is None or w > T) and self.gamma_without_detector == "zero":
            gamma = 0.0                                # no window can fill: no exploration for it
        self.period_ = math.floor(K / gamma) if gamma > 0 else None
        self.lo_, hi = info["reward_range"]
        self.span_ = hi - self.lo_
        self.tau_ = 0                                  # the paper's tau, 1-based rounds
        self.samples_ = [[] for _ in range(K)]        # Z_{k,1..n_k}: arm k's samples since tau
        self.alarms_ = []                              # (round, arm) of every detection

    def select(self, t):
        t1 = t + 1                                     # the paper's round index
        if self.period_ is not None:
            A = (t1 - self.tau_) % self.period_
            if 1 <= A <= self.K_:
                return A - 1
        u = t1 - self.tau_
        scores = []
        for z in self.samples_:
            if not z:
                scores.append(math.inf)
            elif self.index == "kl_ucb":
                scores.append(kl_ucb_bound(sum(z), len(z), kl_exploration(u, self.kl_exploration, self.kl_c)))
            else:
                scores.append(sum(z) / len(z) + math.sqrt(2 * math.log(u) / len(z)))
        return lowest_argmax(scores)

    def change_detected(self, ys):
        """Alg. 1, CD(w, b) on the last w samples ys (oldest first)."""
        w = self.w_
        return abs(sum(ys[w // 2:]) - sum(ys[:w // 2])) > self.b_

    def update(self, t, arm, reward):
        x = (reward - self.lo_) * (1.0 / self.span_)
        if self.index == "kl_ucb":
            x = min(1.0, max(0.0, x))
        z = self.samples_[arm]
        z.append(x)
        if self.w_ is not None and self.w_ <= len(z) and self.change_detected(z[-self.w_:]):
            self.tau_ = t + 1
            self.samples_ = [[] for _ in range(self.K_)]
            self.alarms_.append((t, arm))
