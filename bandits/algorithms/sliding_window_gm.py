"""Sliding-window UCB in Garivier & Moulines' form (``sw_ucb_gm``; with kl-UCB:
``sw_klucb_gm``) and sliding-window Thompson sampling (``sw_ts``): the K-armed baselines
that forget everything older than the last tau rounds.

Both keep the window with the project's one ring buffer
(:mod:`bandits.algorithms.window`) through SW-UCB's arm bookkeeping
(:func:`bandits.algorithms.sliding_window_ucb.observe_arm`: the round that leaves is
subtracted and the new one added; :func:`~bandits.algorithms.sliding_window_ucb.refresh_arm_sums`
recomputes the sums exactly every time the buffer wraps). A decision uses the
observations of the last min(t, tau) rounds, t being the number of rounds played
(the window "at time t", used to choose the next arm; see
:mod:`bandits.algorithms.discounted` for this causal reading of G&M's display).

SW-UCB (Garivier & Moulines)
----------------------------
Garivier & Moulines, ALT 2011 (arXiv 0805.3415), Algorithm "Sliding-Window UCB". G&M's own
text could not be read here (its abstract only); the steps follow the restatements read
(``docs/baselines.md``, fidelity tables): Lattimore & Szepesvari's (Bandit Algorithms,
§31.3 notes), the reimplementation ``david-lindner/single-peaked-bandits``
(``solvers/sliding_window_ucb.py``), Besson's thesis (chapter 6) and Kaufmann's
``Algos.jl``. With rewards x = (y - lo) * scale in [0, 1]
(:func:`bandits.algorithms.common.reward_scale`; not clipped, as for UCB1), N_t(tau, i) the
number of plays of arm i and X_bar_t(tau, i) the mean of its rewards over the last
min(t, tau) rounds, the next arm is

    argmax_i X_bar_t(tau, i) + B sqrt(xi log(min(t, tau)) / N_t(tau, i))

(ties: lowest index). An arm unseen in the window (N_t(tau, i) = 0) has an infinite
padding, so it is played: the first K rounds play each arm once, and an arm that has
left the window is the limit N -> 0 of the padding. (Hedging's SW-UCB,
``sw_ucb``, is a different algorithm: a ridge estimate and a radius from eq. (3).)

* ``window``: null = the tuning tau = 2 B sqrt(T log T / Upsilon_T) rounded down, in
  [1, T] (:func:`bandits.algorithms.forgetting.window_gm`; Besson's thesis: G&M "prove
  that tuning its window-size to tau = 2 sqrt(T log(T)/Upsilon_T)" gives their bound;
  Kaufmann's ``floor(Int,2*sqrt(T*log(T)/nbreak))``; needs Upsilon_T, told or
  ``algo.Upsilon_T``); an integer overrides it. Upsilon_T = 0: tau = T, the whole
  history (UCB with padding B sqrt(xi log t / N_i), the stationary limit).
* ``B`` = 1 (rewards mapped to [0, 1]); ``xi`` = 0.6, as for D-UCB: the value of the
  single-peaked-bandits reimplementation (``xi=0.6``, ``B = 1``), not checked against
  G&M's text. SMPyBandits' ``SWUCB`` pads with sqrt(alpha log(min(t, tau)) / N),
  alpha = 1: this form with xi = 1 (B = 1); its ``SWUCBPlus`` window is 4 sqrt(T log T),
  the Upsilon_T-free window of G&M's simulations as Fiandri et al. (2024, Sec. VIII) and
  single-peaked-bandits use it.
* ``index`` (``ucb1``: the padding above, default | ``kl_ucb``: SW-klUCB, ``sw_klucb_gm``)
  -- the kl-UCB index max{q : N_t(tau, i) kl(X_bar_t(tau, i), q) <= f(min(t, tau))} on the
  same window counts and means, rewards clipped to [0, 1], B and xi unused; f of
  ``kl_exploration`` (``log``: ln u, default; ``log_loglog``: ln u + ``kl_c`` ln ln u;
  ``three_log``: 3 ln u; :mod:`bandits.algorithms.indices`). Besson's thesis runs
  "Sliding-Window klUCB (SW-klUCB) using window-size tau = 2 sqrt(T log(T)/Upsilon_T)";
  u = min(t, tau) with t the rounds played, as SMPyBandits' ``SWklUCB`` (level
  ``log(min(self.t, self.tau)) / N``; Kaufmann's ``SWklUCB`` uses the current round, one
  more). With tau = T it is kl-UCB with c = 0 (tests/test_passive_baselines.py).

Sliding-window Thompson sampling
--------------------------------
Trovo, Paladino, Restelli & Gatti, JAIR 2020, Alg. "SW-TS" (Beta-SWTS in Fiandri,
Metelli & Trovo 2024, arXiv 2409.05181, Alg. 1): each round draw
theta_i ~ Beta(alpha0 + S_t(tau, i), beta0 + N_t(tau, i) - S_t(tau, i)) for every arm,
with S the successes and N the plays of arm i in the last min(t, tau) rounds, and play
argmax_i theta_i. The prior is Beta(1, 1) (``alpha0`` = ``beta0`` = 1).

* Rewards: x clipped to [0, 1], then Agrawal & Goyal's Bernoulli trial (``binarize:
  true``, default; one ``rng.random()`` only when 0 < x < 1,
  :func:`bandits.numerics.bernoulli_trial`). The window stores the
  trial's outcome, so the same 0 / 1 leaves the window tau rounds later and the window
  sums stay exact integers. ``binarize: false`` stores x itself (fractional successes;
  a documented variant). Its window sums carry add / remove rounding (~1e-16, reset
  when the buffer wraps); where a true sum is exactly 0 with rounds in the window (all
  of them paid exactly 0), alpha0 + S may land just off alpha0 and numpy's Beta sampler
  may take another branch than the literal transcription's: both draws are exact
  Beta draws, but the two streams part. (An empty window sums to 0 exactly.)
* ``window``: null = tau = ``window_constant`` sqrt(T log T / Upsilon_T) rounded down, in
  [1, T]. Fiandri et al. (2024, Sec. VI, read in an annotated translation that quotes its
  sentences) give the order of SW-UCB's guarantees for this order of tau; the constant is
  not theirs: ``window_constant`` = 2 is G&M's 2 B with B = 1, so sw_ts and sw_ucb_gm run
  the same window (our reading). Fiandri et al.'s experiments (Sec. VIII) use
  tau = 4 sqrt(T ln T) whatever Upsilon_T ("as also prescribed by Garivier and
  Moulines"): ``window_constant: 4, Upsilon_T: 1``. An integer ``window`` overrides.
  Upsilon_T = 0: tau = T (Thompson sampling on the whole history).
* The stream, each round: K draws ``rng.beta`` in arm order, then at most one
  ``rng.random()``; the literal transcription (:mod:`bandits.reference.sw_ts`) draws the
  same numbers in the same order.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.algorithms.common import reward_scale
from bandits.algorithms.forgetting import (
    check_common,
    check_prior,
    check_window_int,
    passive_needs,
    scale_record,
    told_upsilon,
    window_gm,
)
from bandits.algorithms.indices import check_index_params, exploration_level, index_record, index_rule, klucb_argmax
from bandits.algorithms.sliding_window_ucb import observe_arm, refresh_arm_sums
from bandits.algorithms.window import new_window
from bandits.errors import require_float
from bandits.numerics import argmax_lowest, bernoulli_trial


@njit(cache=True)
def sw_ucb_gm_kernel(rewards, lo, scale, window, B, xi, actions):
    """G&M's SW-UCB: argmax X_bar_t(tau, i) + B sqrt(xi log(min(t, tau)) / N_t(tau, i))."""
    T, K = rewards.shape
    rows, state = new_window(min(window, T), 2)
    counts, sums, index = np.zeros(K), np.zeros(K), np.empty(K)
    for t in range(T):
        log_w = math.log(min(t, window)) if t > 0 else 0.0
        for a in range(K):
            n = counts[a]
            index[a] = sums[a] / n + B * math.sqrt(xi * log_w / n) if n > 0.0 else math.inf
        arm = argmax_lowest(index)
        actions[t] = arm
        if observe_arm(rows, state, counts, sums, arm, (rewards[t, arm] - lo) * scale):
            refresh_arm_sums(rows, sums)


@njit(cache=True)
def sw_klucb_gm_kernel(rewards, lo, scale, window, a, c, actions):
    """SW-klUCB: argmax_i max{q : N_t(tau, i) kl(X_bar_t(tau, i), q) <= f(min(t, tau))}, f(u) =
    a ln u + c ln ln u, on the rewards clipped to [0, 1]."""
    T, K = rewards.shape
    rows, state = new_window(min(window, T), 2)
    counts, sums, index, levels = np.zeros(K), np.zeros(K), np.empty(K), np.empty(K)
    guess = np.full(K, np.nan)                 # each arm's last index: a Newton start only
    arm = 0
    for t in range(T):
        level = exploration_level(min(t, window), a, c)
        for i in range(K):
            levels[i] = level
        arm = klucb_argmax(sums, counts, levels, arm, guess, index)
        actions[t] = arm
        x = min(1.0, max(0.0, (rewards[t, arm] - lo) * scale))
        if observe_arm(rows, state, counts, sums, arm, x):
            refresh_arm_sums(rows, sums)


@njit(cache=True)
def sw_ts_kernel(rewards, lo, scale, window, alpha0, beta0, binarize, rng, actions):
    """Trovo et al.'s SW-TS: theta_i ~ Beta(alpha0 + S_t(tau, i), beta0 + N_t(tau, i) - S_t(tau, i))."""
    T, K = rewards.shape
    rows, state = new_window(min(window, T), 2)
    counts, successes, theta = np.zeros(K), np.zeros(K), np.empty(K)
    for t in range(T):
        for a in range(K):
            s = successes[a] if counts[a] > 0.0 else 0.0  # an empty window sums to 0 exactly
            theta[a] = rng.beta(alpha0 + s, beta0 + counts[a] - s)
        arm = argmax_lowest(theta)
        actions[t] = arm
        x = min(1.0, max(0.0, (rewards[t, arm] - lo) * scale))
        r = bernoulli_trial(x, rng) if binarize else x
        if observe_arm(rows, state, counts, successes, arm, r):
            refresh_arm_sums(rows, successes)


class SlidingWindowUCBGM:
    """SW-UCB in Garivier & Moulines' form, module doc: ``window`` null = tuned with Upsilon_T."""

    problem_kinds = ("karmed",)

    def __init__(self, window=None, xi: float = 0.6, B: float = 1.0, index: str = "ucb1", kl_exploration: str = "log",
                 kl_c: float = 3.0, Upsilon_T=None, reward_range=None):
        self.window = window
        self.xi = xi
        self.B = B
        self.index = index
        self.kl_exploration = kl_exploration
        self.kl_c = kl_c
        self.Upsilon_T = Upsilon_T
        self.reward_range = reward_range

    def needs(self) -> tuple:
        """Upsilon_T for the tuned window (unless algo.window or algo.Upsilon_T is set) and
        the reward range (unless algo.reward_range is set)."""
        return passive_needs(self, self.window is None)

    def check_params(self) -> None:
        check_window_int(self.window)
        require_float("algo.xi", self.xi, minimum=0.0, strict=True)
        require_float("algo.B", self.B, minimum=0.0, strict=True)
        check_index_params(self)
        check_common(self)

    def resolve(self, T: int, info: dict) -> dict:
        lo, scale = reward_scale(self, info)
        if self.window is None:
            upsilon = told_upsilon(self, info)
            window = window_gm(T, upsilon, 2.0 * float(self.B))
        else:
            upsilon, window = None, int(self.window)
        return {"window": window, "tuning": "gm" if self.window is None else "given", "Upsilon_T": upsilon,
                "xi": float(self.xi), "B": float(self.B), **index_record(self), "reward_range": scale_record(lo, scale)}

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T = rewards.shape[0]
        p = self.derived_ = self.resolve(T, info)
        lo, scale = reward_scale(self, info)
        actions = np.empty(T, dtype=np.int64)
        if self.index == "ucb1":
            sw_ucb_gm_kernel(rewards, lo, scale, p["window"], p["B"], p["xi"], actions)
        else:
            rule = index_rule(self, p["xi"])
            sw_klucb_gm_kernel(rewards, lo, scale, p["window"], rule.a, rule.c, actions)
        return actions


class SlidingWindowThompson:
    """Sliding-window Thompson sampling (Trovo et al. 2020), module doc."""

    problem_kinds = ("karmed",)

    def __init__(self, window=None, window_constant: float = 2.0, alpha0: float = 1.0, beta0: float = 1.0,
                 binarize: bool = True, Upsilon_T=None, reward_range=None):
        self.window = window
        self.window_constant = window_constant
        self.alpha0 = alpha0
        self.beta0 = beta0
        self.binarize = binarize
        self.Upsilon_T = Upsilon_T
        self.reward_range = reward_range

    def needs(self) -> tuple:
        return passive_needs(self, self.window is None)

    def check_params(self) -> None:
        check_window_int(self.window)
        require_float("algo.window_constant", self.window_constant, minimum=0.0, strict=True)
        check_prior(self)
        check_common(self)

    def resolve(self, T: int, info: dict) -> dict:
        lo, scale = reward_scale(self, info)
        if self.window is None:
            upsilon = told_upsilon(self, info)
            window = window_gm(T, upsilon, float(self.window_constant))
        else:
            upsilon, window = None, int(self.window)
        return {"window": window, "tuning": "sqrt(T log T / Upsilon_T)" if self.window is None else "given",
                "window_constant": float(self.window_constant), "Upsilon_T": upsilon,
                "prior": [float(self.alpha0), float(self.beta0)], "binarize": bool(self.binarize),
                "reward_range": scale_record(lo, scale)}

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T = rewards.shape[0]
        p = self.derived_ = self.resolve(T, info)
        lo, scale = reward_scale(self, info)
        actions = np.empty(T, dtype=np.int64)
        sw_ts_kernel(rewards, lo, scale, p["window"], float(self.alpha0), float(self.beta0), bool(self.binarize),
                     rng, actions)
        return actions
