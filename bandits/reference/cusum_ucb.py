"""CUSUM-UCB (Liu, Lee & Shroff, AAAI 2018, Alg. 1 with Alg. 2) transcribed literally:
each arm keeps the list of its samples since its last reset tau_i, and every round the
UCB indices and the two-sided CUSUM are recomputed from those lists (no running sums).

Round t: one uniform u; if u < alpha the arm is ``rng.integers(0, K)`` (uniform
exploration), else argmax_i mean_i + sqrt(xi log n_t / N_i) (``index="ucb1"``) or
argmax_i max{q : N_i kl(mean_i, q) <= f(n_t)} (``index="kl_ucb"``, f of
``kl_exploration``, rewards clipped to [0, 1]), n_t = sum_i N_i, an arm without samples
first, lowest index on ties. After the reward: Alg. 2 runs over the
chosen arm's list y_1..y_k, u0 = mean(y_1..y_M), s_k^+ = y_k - u0 - eps and
s_k^- = u0 - y_k - eps for k > M (0 before), g = max(0, g + s); an alarm (g+ > h or
g- > h) empties that arm's list (tau_i = t + 1).

The constants are given, or tuned here from what the environment tells, written out
again from the paper: h = log(T / Upsilon_T), alpha = sqrt(Upsilon_T / T log(T / Upsilon_T)),
eps = min_change / 2; Upsilon_T = 0 or min_change = 0: no alarm and alpha = 0. An
independent check of :class:`bandits.algorithms.change_detection.CUSUMUCB`.

:class:`ReferencePHTUCB`: PHT-UCB as SMPyBandits reads it, the same with a Page-Hinkley test
over the whole list in place of Alg. 2; an independent check of
:class:`bandits.algorithms.change_detection.PHTUCB`.
"""

from __future__ import annotations

import math

from bandits.reference.common import kl_exploration, kl_ucb_bound, lowest_argmax


class ReferenceCUSUMUCB:
    problem_kinds = ("karmed",)

    def __init__(self, M: int = 100, epsilon: float | None = None, h: float | None = None,
                 alpha: float | None = None, xi: float = 2.0, index: str = "ucb1", kl_exploration: str = "log",
                 kl_c: float = 3.0):
        self.M = M
        self.epsilon = epsilon
        self.h = h
        self.alpha = alpha
        self.xi = xi
        self.index = index
        self.kl_exploration = kl_exploration
        self.kl_c = kl_c

    def needs(self) -> tuple:
        return ("Upsilon_T", "min_change", "reward_range")

    def reset(self, n_arms, horizon, rng, info):
        self.K_, self.rng_ = n_arms, rng
        ups, delta = info["Upsilon_T"], info["min_change"]
        if ups > 0 and delta > 0:
            h, alpha = math.log(horizon / ups), math.sqrt(ups / horizon * math.log(horizon / ups))
        else:
            h, alpha = math.inf, 0.0
        self.h_ = h if self.h is None else self.h
        self.alpha_ = alpha if self.alpha is None else self.alpha
        self.eps_ = delta / 2 if self.epsilon is None else self.epsilon
        self.lo_, hi = info["reward_range"]
        self.span_ = hi - self.lo_
        self.samples_ = [[] for _ in range(n_arms)]   # arm i's samples since tau_i
        self.alarms_ = []                             # (round, arm) of every detection

    def select(self, t):
        if self.rng_.random() < self.alpha_:
            return int(self.rng_.integers(0, self.K_))
        n_t = sum(len(s) for s in self.samples_)
        scores = []
        for s in self.samples_:
            if not s:
                scores.append(math.inf)
            elif self.index == "kl_ucb":
                scores.append(kl_ucb_bound(sum(s), len(s), kl_exploration(n_t, self.kl_exploration, self.kl_c)))
            else:
                scores.append(sum(s) / len(s) + math.sqrt(self.xi * (math.log(n_t) if n_t > 0 else 0.0) / len(s)))
        return lowest_argmax(scores)

    def alarm(self, ys):
        """Alg. 2 over ys = y_1, y_2, ...: 1 as soon as g+ or g- exceeds h."""
        M = self.M
        if len(ys) < M:
            return False
        u0 = sum(ys[:M]) / M
        gp = gm = 0.0
        for k, y in enumerate(ys, start=1):
            sp = y - u0 - self.eps_ if k > M else 0.0
            sm = u0 - y - self.eps_ if k > M else 0.0
            gp, gm = max(0.0, gp + sp), max(0.0, gm + sm)
            if k > M and (gp > self.h_ or gm > self.h_):
                return True
        return False

    def update(self, t, arm, reward):
        x = (reward - self.lo_) * (1.0 / self.span_)
        if self.index == "kl_ucb":
            x = min(1.0, max(0.0, x))
        self.samples_[arm].append(x)
        if self.alarm(self.samples_[arm]):
            self.samples_[arm] = []
            self.alarms_.append((t, arm))


class ReferencePHTUCB(ReferenceCUSUMUCB):
    """PHT-UCB as SMPyBandits reads it (``PHT_IndexPolicy.detect_change``): the CUSUM of
    :class:`ReferenceCUSUMUCB` replaced by a two-sided Page-Hinkley test over the arm's whole
    list, y-hat_k the mean of y_1..y_k, y_k included (no M); an alarm as soon as g+ or g- > h."""

    def __init__(self, epsilon: float | None = None, h: float | None = None, alpha: float | None = None,
                 xi: float = 2.0, index: str = "ucb1", kl_exploration: str = "log", kl_c: float = 3.0):
        super().__init__(M=1, epsilon=epsilon, h=h, alpha=alpha, xi=xi, index=index, kl_exploration=kl_exploration,
                         kl_c=kl_c)

    def alarm(self, ys):
        gp = gm = y_hat = 0.0
        for k, y in enumerate(ys):                    # k = 0, 1, ...: y-hat over y_0..y_k, as SMPyBandits
            y_hat = (k * y_hat + y) / (k + 1)
            gp, gm = max(0.0, gp + (y - y_hat - self.eps_)), max(0.0, gm + (y_hat - y - self.eps_))
            if gp > self.h_ or gm > self.h_:
                return True
        return False
