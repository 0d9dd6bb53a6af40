"""GLR-klUCB (Besson, Kaufmann, Maillard & Seznec, JMLR 2022; Algorithm 1 of the chapter
read in :mod:`bandits.algorithms.glr`) transcribed literally, as a protocol policy.

Each arm keeps the list of its samples since its last restart. Each round: the forced
exploration of lines 3-4 (t mod floor(K / alpha) in {1..K}, t 1-based), else the argmax of
the kl-UCB indices max{q : n kl(mean, q) <= f(t - tau_k)} (lowest index on ties). After the
reward, the B-GLRT of Definition 2 on the pulled arm's list, from the stored samples: for
every allowed split s, s kl(mean(Z[:s]), mean(Z)) + (n - s) kl(mean(Z[s:]), mean(Z)) against
beta(n, delta) written out from its formula. No prefix sums, no table: an independent check of
:class:`bandits.algorithms.GLRklUCB` (O(n) per test).

Use it as ``python run.py algo=custom algo._target_=bandits.reference.ReferenceGLRklUCB``.
"""

from __future__ import annotations

import math

from bandits.algorithms.bernoulli_glrt import glr_threshold
from bandits.algorithms.common import reward_scale
from bandits.algorithms.indices import klucb_index
from bandits.numerics import kl_bernoulli
from bandits.reference.common import lowest_argmax


class ReferenceGLRklUCB:
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

    def needs(self) -> tuple:
        keys = () if self.reward_range is not None else ("reward_range",)
        if self.tuning == "known" and self.alpha is None and self.Upsilon_T is None:
            keys += ("Upsilon_T",)
        return keys

    def reset(self, n_arms, horizon, rng, info):
        K, T = n_arms, horizon
        self.K_ = K
        self.lo_, self.scale_ = reward_scale(self, info)
        self.delta_ = 1 / math.sqrt(T) if self.delta is None else self.delta
        if self.alpha is not None:
            self.alpha0_, self.grows_ = self.alpha, False
        elif self.tuning == "agnostic":
            self.alpha0_, self.grows_ = self.alpha_scale * math.sqrt(K * math.log(T) / T), True
        else:
            ups = self.Upsilon_T if self.Upsilon_T is not None else info["Upsilon_T"]
            self.alpha0_, self.grows_ = self.alpha_scale * math.sqrt(K * ups * math.log(T) / T), False
        self.Z_ = [[] for _ in range(K)]   # samples of each arm since its last restart
        self.tau_ = [0] * K                  # last restart round of each arm (1-based, 0 = none)
        self.episode_ = 1
        self.restarts_ = []

    def alpha_now(self):
        a = self.alpha0_ * math.sqrt(self.episode_) if self.grows_ else self.alpha0_
        return min(a, 1.0)

    def beta(self, n):
        if self.threshold == "practical":
            return math.log(3 * n ** 1.5 / self.delta_)
        if self.threshold == "experiments":
            return math.log(n ** 1.5 / self.delta_)
        return float(glr_threshold(n, self.delta_, "theory"))

    def f(self, u):
        if u <= 1:
            return 0.0
        return math.log(u) + self.c * math.log(math.log(u)) if self.c else math.log(u)

    def select(self, t):
        t1 = t + 1
        alpha = self.alpha_now()
        if alpha > 0:
            R = math.floor(self.K_ / alpha)
            if 1 <= t1 % R <= self.K_:
                return t1 % R - 1
        ucb = [klucb_index(sum(Z), len(Z), self.f(t1 - self.tau_[a])) for a, Z in enumerate(self.Z_)]
        return lowest_argmax(ucb)

    def glr(self, Z):
        """Definition 2 on the splits s = split_every, 2 split_every, ... < n."""
        n = len(Z)
        mu = sum(Z) / n
        for s in range(1, n):
            if s % self.split_every:
                continue
            mu1 = sum(Z[:s]) / s
            mu2 = sum(Z[s:]) / (n - s)
            if s * kl_bernoulli(mu1, mu) + (n - s) * kl_bernoulli(mu2, mu) >= self.beta(n):
                return True
        return False

    def update(self, t, arm, reward):
        t1 = t + 1
        x = min(1.0, max(0.0, (reward - self.lo_) * self.scale_))
        Z = self.Z_[arm]
        Z.append(x)
        count = len(Z) if self.check_on == "samples" else t1 - self.tau_[arm]
        if len(Z) >= 2 and count % self.check_every == 0 and self.glr(Z):
            self.restarts_.append([t, arm])
            self.episode_ += 1
            for a in range(self.K_):
                if self.restart == "global" or a == arm:
                    self.Z_[a] = []
                    self.tau_[a] = t1
