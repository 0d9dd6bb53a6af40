"""Discounted UCB (``d_ucb``; with kl-UCB: ``d_klucb``) and discounted Thompson sampling
(``discounted_ts``): the K-armed baselines that forget the past geometrically, by a
factor gamma per round.

One concept, one helper (:func:`discount_and_add`): every round each arm's two
statistics are multiplied by gamma and the pulled arm's gain its observation. D-UCB
keeps (N_i, X_i), the discounted count and reward sum; discounted TS keeps (S_i, F_i),
the discounted successes and failures.

**Which rounds a decision sees.** The statistics a decision uses are those of the rounds
already played. Writing them "at time t" for the t rounds played (s = 1..t), the
weights are gamma^(t - s): the latest observation counts 1, the one before gamma, ...
This is G&M's N_t(gamma, i) = sum_{s <= t} gamma^(t-s) 1{I_s = i} used to choose
I_{t+1} (restatements of G&M's display write "I_t = argmax X_bar_t(gamma, i) +
c_t(gamma, i)" with sums up to s = t, which would use round t to choose round t; we take
the causal reading, as Lattimore & Szepesvari's restatement does, §31.3 notes:
mu_hat^gamma_i(t - 1), T^gamma_i(t - 1)), and discounted TS's update S_i <- gamma S_i +
1{I_t = i} r_t after round t (SMPyBandits' ``DiscountedBeta``, Kaufmann's ``DTS``).

**Numerics.** The statistics are multiplied by gamma every round (O(K) per round, like
the index itself). A contraction: rounding errors do not accumulate (each round's
relative error stays ~1e-16), and nothing overflows. (Keeping sums scaled by gamma^-t
would overflow after ~700 / -log(gamma) rounds and need renormalisation.) The value
of an arm left unplayed for thousands of rounds tends to 0 and may reach the
subnormal range; D-UCB's padding grows as 1 / sqrt(N_i) so such an arm is played long
before, and a Beta(S + alpha0, F + beta0) draw no longer sees S, F once they fall
below 1e-16 alpha0. The literal transcriptions (:mod:`bandits.reference.d_ucb`,
:mod:`bandits.reference.discounted_ts`) recompute the sums from the whole history with
gamma^(t - s) each round and agree round by round (tests/test_passive_baselines.py).

D-UCB
-----
Garivier & Moulines, ALT 2011 (arXiv 0805.3415), Algorithm "Discounted UCB" (after
Kocsis & Szepesvari 2006). G&M's own text could not be read here (its abstract only); the
index below is G&M's as Qi, Wang & Zhu (2023, arXiv 2305.10718, Sec. 4) restate it
("DS-UCB uses a padding function c_t(gamma, i) = 2B sqrt(xi log n_t(gamma) / N_t(gamma, i))"),
the other sources in ``docs/baselines.md`` (fidelity tables). With rewards read as
x = (y - lo) * scale in [0, 1]
(:func:`bandits.algorithms.common.reward_scale`; not clipped, as for UCB1), each round

    X_bar_t(gamma, i) = (1 / N_t(gamma, i)) sum_{s <= t} gamma^(t-s) x_s 1{I_s = i},
    c_t(gamma, i)     = 2 B sqrt(xi log n_t(gamma) / N_t(gamma, i)),
    n_t(gamma)        = sum_i N_t(gamma, i),

and the next arm is argmax_i X_bar_t(gamma, i) + c_t(gamma, i) (ties: lowest index,
:func:`bandits.numerics.argmax_lowest`). G&M's first K rounds play arms 1..K; here an
arm with N = 0 has an infinite padding, so rounds 0..K-1 play arms 0..K-1 in order.

Constants (each a config key, ``bandits/conf/algo/d_ucb.yaml``):

* ``gamma``: null = the tuning gamma = 1 - (1/4) sqrt(Upsilon_T / T) (Besson's thesis:
  G&M's bound "with a tuning gamma = 1 - sqrt(Upsilon_T/T)/4"; Kaufmann's
  ``1- 0.25*sqrt(nbBreaks/T)``; needs Upsilon_T: told by the environment, or
  ``algo.Upsilon_T``); a number in (0, 1] overrides it. Upsilon_T = 0 gives gamma = 1: no
  discount, UCB with padding 2 B sqrt(xi log t / N_i) (the stationary limit).
* ``B`` = 1: the bound on the rewards, which are mapped to [0, 1].
* ``xi`` = 0.6: the value of the reimplementation ``david-lindner/single-peaked-bandits``
  (``solvers/discounted_ucb.py``: ``xi=0.6``, ``B = 1``; it pads with B sqrt(xi log n / N),
  without G&M's factor 2), not checked against G&M's text; that G&M's theorems need
  xi > 1/2 is an earlier note of this project that no text read here confirms.
  SMPyBandits' ``DiscountedUCB`` pads with sqrt(alpha log n / (2 N)), alpha = 1: that is
  this form with xi = alpha / 8 = 1/8 (set ``xi: 0.125`` to run that reading). Any
  xi > 0 is accepted.
* ``index`` (``ucb1``: the padding above, default | ``kl_ucb``: D-klUCB, ``d_klucb``) -- the
  kl-UCB index max{q : N_t(gamma, i) kl(X_bar_t(gamma, i), q) <= f(n_t(gamma))} on the same
  discounted counts and means, rewards clipped to [0, 1], B and xi unused; f of
  ``kl_exploration`` (``log``: ln u, default; ``log_loglog``: ln u + ``kl_c`` ln ln u;
  ``three_log``: 3 ln u; :mod:`bandits.algorithms.indices`). Besson's thesis runs
  "Discounted klUCB (D-klUCB) with discount factor gamma = 1 - sqrt(Upsilon_T/T)/4";
  u = n_t(gamma), the discounted total count, as Kaufmann's ``DklUCB``
  (``log(Time)``, Time = 1 + gamma Time) and SMPyBandits' ``DiscountedklUCB``
  (``log(n_t_gamma)``). With gamma = 1 it is kl-UCB with c = 0
  (tests/test_passive_baselines.py).

Discounted Thompson sampling
----------------------------
Raj & Kalyani 2017 (arXiv 1707.09727), Alg. 2 (dTS): S_i = F_i = 0; each round draw
theta_i ~ Beta(S_i + alpha0, F_i + beta0) for every arm, play argmax_i theta_i, observe
the reward r_t, then for every arm S_i <- gamma S_i + 1{I_t = i} r_t and
F_i <- gamma F_i + 1{I_t = i} (1 - r_t).

* Rewards: x = (y - lo) * scale clipped to [0, 1] (the Beta posterior is for [0, 1]
  rewards; no effect on Bernoulli rewards), then, with ``binarize: true`` (default),
  Agrawal & Goyal's Bernoulli trial r_t = 1{u < x} (one ``rng.random()`` only when
  0 < x < 1; :func:`bandits.numerics.bernoulli_trial`). ``binarize:
  false`` adds x and 1 - x instead (fractional successes; a documented variant).
* ``gamma`` = 0.75: Raj & Kalyani give no horizon-dependent tuning; 0.75 is the value
  Kaufmann's reference code attributes to them ("recommended tuning is gamma=0.75, which
  is not so robust") and Besson's thesis calls "suggested by the authors" (Raj &
  Kalyani's text could not be read here). The thesis' experiments ran gamma = 0.95
  instead, 0.75 "performing significantly worse on the problem instances we tried";
  ``ns_sensitivity`` runs 0.95 (``discounted_ts_g095``) and 0.99 next to the default.
  ``gamma: gm`` uses G&M's D-UCB discount 1 - (1/4) sqrt(Upsilon_T / T) instead (a named
  deviation, tuned with Upsilon_T; 1 when Upsilon_T = 0). SMPyBandits'
  ``DiscountedThompson`` defaults to gamma = 0.95.
* ``alpha0`` = ``beta0`` = 1: the uniform prior (SMPyBandits' and Besson et al.'s).
* The stream, each round: K draws ``rng.beta`` in arm order, then at most one
  ``rng.random()`` (the Bernoulli trial); all inside the compiled kernel from the
  policy's own Generator (numba reproduces numpy's numbers), and the literal
  transcription draws the same numbers in the same order.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.algorithms.common import reward_scale
from bandits.algorithms.forgetting import (
    check_common,
    check_gamma,
    check_prior,
    discount_gm,
    passive_needs,
    scale_record,
    told_upsilon,
)
from bandits.algorithms.indices import check_index_params, exploration_level, index_record, index_rule, klucb_argmax
from bandits.errors import ConfigError, require_float
from bandits.numerics import argmax_lowest, bernoulli_trial


@njit(cache=True)
def discount_and_add(a, b, gamma, arm, da, db):
    """One round of forgetting: every arm's statistics a_i, b_i are multiplied by gamma,
    then the pulled arm gains da, db (D-UCB: 1, x; discounted TS: r, 1 - r)."""
    for i in range(a.shape[0]):
        a[i] *= gamma
        b[i] *= gamma
    a[arm] += da
    b[arm] += db


@njit(cache=True)
def d_ucb_kernel(rewards, lo, scale, gamma, B, xi, actions):
    """G&M's D-UCB: argmax X_bar_t(gamma, i) + 2 B sqrt(xi log n_t(gamma) / N_t(gamma, i))."""
    T, K = rewards.shape
    N, X, index = np.zeros(K), np.zeros(K), np.empty(K)
    pad = 2.0 * B
    for t in range(T):
        n = 0.0
        for a in range(K):
            n += N[a]
        log_n = math.log(n) if n > 0.0 else 0.0
        for a in range(K):
            index[a] = X[a] / N[a] + pad * math.sqrt(xi * log_n / N[a]) if N[a] > 0.0 else math.inf
        arm = argmax_lowest(index)
        actions[t] = arm
        discount_and_add(N, X, gamma, arm, 1.0, (rewards[t, arm] - lo) * scale)


@njit(cache=True)
def d_klucb_kernel(rewards, lo, scale, gamma, a, c, actions):
    """D-klUCB: argmax_i max{q : N_t(gamma, i) kl(X_bar_t(gamma, i), q) <= f(n_t(gamma))}, f(u) =
    a ln u + c ln ln u, on the rewards clipped to [0, 1]."""
    T, K = rewards.shape
    N, X, index, levels = np.zeros(K), np.zeros(K), np.empty(K), np.empty(K)
    guess = np.full(K, np.nan)                 # each arm's last index: a Newton start only
    arm = 0
    for t in range(T):
        n = 0.0
        for i in range(K):
            n += N[i]
        level = exploration_level(n, a, c)
        for i in range(K):
            levels[i] = level
        arm = klucb_argmax(X, N, levels, arm, guess, index)
        actions[t] = arm
        discount_and_add(N, X, gamma, arm, 1.0, min(1.0, max(0.0, (rewards[t, arm] - lo) * scale)))


@njit(cache=True)
def discounted_ts_kernel(rewards, lo, scale, gamma, alpha0, beta0, binarize, rng, actions):
    """Raj & Kalyani's dTS (Alg. 2): theta_i ~ Beta(S_i + alpha0, F_i + beta0), argmax, then
    S, F discounted by gamma and the pulled arm's (binarised) reward added."""
    T, K = rewards.shape
    S, F, theta = np.zeros(K), np.zeros(K), np.empty(K)
    for t in range(T):
        for a in range(K):
            theta[a] = rng.beta(S[a] + alpha0, F[a] + beta0)
        arm = argmax_lowest(theta)
        actions[t] = arm
        x = min(1.0, max(0.0, (rewards[t, arm] - lo) * scale))
        r = bernoulli_trial(x, rng) if binarize else x
        discount_and_add(S, F, gamma, arm, r, 1.0 - r)


class DiscountedUCB:
    """D-UCB (Garivier & Moulines 2011), module doc: ``gamma`` null = tuned with Upsilon_T."""

    problem_kinds = ("karmed",)

    def __init__(self, gamma=None, xi: float = 0.6, B: float = 1.0, index: str = "ucb1", kl_exploration: str = "log",
                 kl_c: float = 3.0, Upsilon_T=None, reward_range=None):
        self.gamma = gamma
        self.xi = xi
        self.B = B
        self.index = index
        self.kl_exploration = kl_exploration
        self.kl_c = kl_c
        self.Upsilon_T = Upsilon_T
        self.reward_range = reward_range

    def needs(self) -> tuple:
        """Upsilon_T for the tuned gamma (unless algo.gamma or algo.Upsilon_T is set) and the
        reward range (unless algo.reward_range is set)."""
        return passive_needs(self, self.gamma is None)

    def check_params(self) -> None:
        check_gamma(self.gamma)
        require_float("algo.xi", self.xi, minimum=0.0, strict=True)
        require_float("algo.B", self.B, minimum=0.0, strict=True)
        check_index_params(self)
        check_common(self)

    def resolve(self, T: int, info: dict) -> dict:
        """The constants for a horizon T (recorded with every result)."""
        lo, scale = reward_scale(self, info)
        if self.gamma is None:
            upsilon = told_upsilon(self, info)
            gamma = discount_gm(T, upsilon)
        else:
            upsilon, gamma = None, float(self.gamma)
        return {"gamma": gamma, "tuning": "gm" if self.gamma is None else "given", "Upsilon_T": upsilon,
                "xi": float(self.xi), "B": float(self.B), **index_record(self), "reward_range": scale_record(lo, scale)}

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T = rewards.shape[0]
        p = self.derived_ = self.resolve(T, info)
        lo, scale = reward_scale(self, info)
        actions = np.empty(T, dtype=np.int64)
        if self.index == "ucb1":
            d_ucb_kernel(rewards, lo, scale, p["gamma"], p["B"], p["xi"], actions)
        else:
            rule = index_rule(self, p["xi"])
            d_klucb_kernel(rewards, lo, scale, p["gamma"], rule.a, rule.c, actions)
        return actions


class DiscountedThompson:
    """Discounted Thompson sampling (Raj & Kalyani 2017, Alg. 2), module doc."""

    problem_kinds = ("karmed",)

    def __init__(self, gamma=0.75, alpha0: float = 1.0, beta0: float = 1.0, binarize: bool = True,
                 Upsilon_T=None, reward_range=None):
        self.gamma = gamma
        self.alpha0 = alpha0
        self.beta0 = beta0
        self.binarize = binarize
        self.Upsilon_T = Upsilon_T
        self.reward_range = reward_range

    def needs(self) -> tuple:
        """Upsilon_T only for ``gamma: gm``, and the reward range unless algo.reward_range is set."""
        return passive_needs(self, self.gamma == "gm")

    def check_params(self) -> None:
        if self.gamma is None:
            raise ConfigError("algo.gamma must be a number in (0, 1] or gm, got None.")
        check_gamma(self.gamma, allow_gm=True)
        check_prior(self)
        check_common(self)

    def resolve(self, T: int, info: dict) -> dict:
        lo, scale = reward_scale(self, info)
        if self.gamma == "gm":
            upsilon = told_upsilon(self, info)
            gamma = discount_gm(T, upsilon)
        else:
            upsilon, gamma = None, float(self.gamma)
        return {"gamma": gamma, "tuning": "gm" if self.gamma == "gm" else "given", "Upsilon_T": upsilon,
                "prior": [float(self.alpha0), float(self.beta0)], "binarize": bool(self.binarize),
                "reward_range": scale_record(lo, scale)}

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T = rewards.shape[0]
        p = self.derived_ = self.resolve(T, info)
        lo, scale = reward_scale(self, info)
        actions = np.empty(T, dtype=np.int64)
        discounted_ts_kernel(rewards, lo, scale, p["gamma"], float(self.alpha0), float(self.beta0),
                             bool(self.binarize), rng, actions)
        return actions
