"""SW-LB-SDA (Baudry, Russac & Cappé, ICML 2021) transcribed literally from the authors' code
(``YRussac/LB-SDA`` at 1bdbf3a: ``MAB.py`` ``LB_SDA``, ``utils.py`` ``get_leader_ns``,
``tracker.py`` ``SWTracker``; the paper's text was not found). One arm a step, from the whole
stored history:

* steps 0..K-1 pull arms 0..K-1 (round 0);
* when the queue of the current round is empty, a new round r starts: the window is the last
  tau steps (``window_unit: steps``) or the steps of rounds r - tau..r - 1 (``rounds``); N_k, S_k
  and H_k (arm k's windowed rewards in order) are recomputed from the history; the leader follows
  ``get_leader_ns`` (the previous leader -1 indexes the last arm, as Python does); forced
  exploration flags N_k < f; every other unflagged j duels the leader's last min(N_j, N_l) rewards
  of H_l (``np.mean``), winning ties; the diversity rule flags the stale arms; the flagged arms in
  ascending order are shuffled by Fisher-Yates (i = m-1..1 swaps with ``rng.integers(0, i + 1)``)
  into the queue, or the queue holds the leader alone;
* each step pops the queue's head and sets its last_drawn to r.

The leader's random tie is ``rng.integers(0, m)`` over the m tied arms, only when m >= 2. An
independent check of :class:`bandits.algorithms.lb_sda.SlidingWindowLBSDA`.
"""

from __future__ import annotations

import math

import numpy as np

from bandits.algorithms.forgetting import window_gm


class ReferenceSWLBSDA:
    problem_kinds = ("karmed",)

    def __init__(self, window=None, window_constant=2.0, window_unit="steps", explo="authors",
                 diversity="authors", round_order="shuffle", Upsilon_T=None):
        self.window = window
        self.window_constant = window_constant
        self.window_unit = window_unit
        self.explo = explo
        self.diversity = diversity
        self.round_order = round_order
        self.Upsilon_T = Upsilon_T

    def needs(self):
        return ("Upsilon_T",) if self.window is None and self.Upsilon_T is None else ()

    def reset(self, n_arms, horizon, rng, info):
        self.K_, self.rng_ = n_arms, rng
        if self.window is None:
            upsilon = self.Upsilon_T if self.Upsilon_T is not None else info.get("Upsilon_T")
            self.tau_ = window_gm(horizon, upsilon, float(self.window_constant))
        else:
            self.tau_ = int(self.window)
        tau, K = self.tau_, n_arms
        if self.explo == "authors":                         # default_exp(tau)
            self.f_ = np.log(tau) ** 0.333
        elif self.explo == "sqrt_log":
            self.f_ = math.sqrt(math.log(tau))
        else:
            self.f_ = float(self.explo)
        if self.diversity == "authors":                     # default_diversity(tau, K)
            self.D_ = int((K - 1) * np.log(tau) ** 2)
        else:
            self.D_ = None if self.diversity == "off" else int(self.diversity)
        self.arms_, self.x_, self.rounds_ = [], [], []
        self.indic_ = np.ones(K)
        self.last_drawn_ = np.ones(K)
        self.change_leader_ = 0
        self.l_ = -1
        self.r_ = 0
        self.queue_ = []

    def _window(self, t):
        """Arm, reward pairs of the window, oldest first."""
        if self.window_unit == "steps":
            steps = range(max(0, t - self.tau_), t)
        else:
            steps = [s for s in range(t) if self.rounds_[s] >= self.r_ - self.tau_]
        return [(self.arms_[s], self.x_[s]) for s in steps]

    def _leader(self, Na, Sa, l_prev, r, tau, K, winners):
        if Na[l_prev] < min(r, tau) / (2 * K):
            b = np.ones(K)
        else:
            b = winners * (Na >= min(r, tau) / K)
            b[l_prev] = 1
        m = np.amax(b * Na)
        n_argmax = np.nonzero(Na * b == m)[0]
        if n_argmax.shape[0] == 1:
            return int(n_argmax[0])
        s = (Sa * b)[n_argmax]
        s_argmax = np.nonzero(s == s.max())[0]
        if l_prev in n_argmax[s_argmax]:
            return l_prev
        if len(s_argmax) == 1:
            return int(n_argmax[s_argmax[0]])
        return int(n_argmax[s_argmax[self.rng_.integers(0, len(s_argmax))]])

    def _new_round(self, t):
        K, tau = self.K_, self.tau_
        self.r_ += 1
        r = self.r_
        win = self._window(t)
        H = [[x for a, x in win if a == k] for k in range(K)]
        Na = np.array([len(h) for h in H], dtype=float)
        Sa = np.array([sum(h) for h in H], dtype=float)
        l_prev = self.l_
        lead = self.l_ = self._leader(Na, Sa, l_prev, r, tau, K, self.indic_)
        if l_prev != lead:
            self.change_leader_ = r
        indic = (Na < self.f_) * 1.0                        # forced exploration
        for j in range(K):                                  # duels
            if indic[j] == 0 and j != lead and Na[j] > 0:
                n = int(Na[j]) if Na[j] < Na[lead] else int(Na[lead])
                if Sa[j] / Na[j] >= np.mean(H[lead][-n:]):
                    indic[j] = 1
        D = self.D_
        if D is not None and r - self.change_leader_ >= D and r - self.last_drawn_[lead] >= D:
            for j in range(K):                              # diversity
                if j != lead and r - self.last_drawn_[j] >= D and Na[j] <= np.log(tau) ** 2:
                    indic[j] = 1
        self.indic_ = indic
        if indic.sum() == 0:
            self.queue_ = [lead]
            return
        to_draw = [int(k) for k in np.where(indic == 1)[0]]
        if self.round_order == "shuffle":
            for i in range(len(to_draw) - 1, 0, -1):
                j = self.rng_.integers(0, i + 1)
                to_draw[i], to_draw[j] = to_draw[j], to_draw[i]
        self.queue_ = to_draw

    def select(self, t):
        if t < self.K_:
            return t
        if not self.queue_:
            self._new_round(t)
        arm = self.queue_.pop(0)
        self.last_drawn_[arm] = self.r_
        return arm

    def update(self, t, arm, reward):
        self.arms_.append(arm)
        self.x_.append(float(reward))
        self.rounds_.append(self.r_)
