"""GLR-klUCB: kl-UCB with the Bernoulli GLR change-point test on the pulled arm (Besson,
Kaufmann, Maillard & Seznec, "Efficient change-point detection for tackling
piecewise-stationary bandits", JMLR 23 (2022), arXiv 1902.01575).

Sources read. The journal text itself was not at hand. We read (i) the paper's earlier
version as it stands in Besson's thesis, chapter 6 (the LaTeX source of arXiv 1902.01575
v1/v2 by Besson & Kaufmann, cited below by its equation labels: Algorithm "GLR-klUCB",
Definition def:6:GLRDef of the B-GLRT, Lemma lem:6:FalseAlarm and its threshold def:6:beta,
the "practical considerations" paragraph, Corollaries cor:6:Global / cor:6:Local, the
experiments paragraph and the appendix "two numerical optimization tricks") and (ii) the
authors' own Julia code that reproduces the journal's experiments (E. Kaufmann,
``PiecewiseStationaryBandits``: ``Algos.jl``, ``main_NonStat.jl``; its README cites the
four-author paper). Where they differ we name the reading; SMPyBandits' ``GLR_UCB.py`` /
``CD_UCB.py`` is a third reading, compared in ``docs/baselines.md`` (its fidelity tables).

One round t = 1, 2, ... (1-based here; the kernel's row index is t - 1), Algorithm GLR-klUCB:

* Forced exploration (lines 3-4): if t mod floor(K / alpha) is in {1, ..., K}, play arm
  t mod floor(K / alpha) (deterministic, as in the paper: M-UCB's scheme generalised; t is
  the global round in the chapter's pseudo-code and in the authors' code). alpha = 0
  disables it; alpha is capped at 1 (a probability; floor(K / 1) = K).
* Otherwise (line 6) the kl-UCB index of each arm k on its samples since its last restart
  tau_k: UCB_k(t) = max{q : n_k kl(mu_k, q) <= f(t - tau_k)} (def:6:UCB), with
  f(u) = ln u + c ln ln u for u > 1 and f(u) = 0 otherwise. The analysis has c = 3;
  ``c = 0`` (default) is the exploration log(t - tau_k) of the authors' experiments and
  Garivier & Cappé's recommended practice. Ties: lowest index. An arm with no sample
  since its restart has an infinite index (the shared convention of
  :mod:`bandits.algorithms.indices`; the paper's max over [0, 1] gives 1 there).
* Observe Z = the reward mapped to [0, 1] by ``reward_scale`` and clipped to [0, 1]: the
  test is the Bernoulli GLR applied to bounded rewards, as the paper does (bounded rewards
  are sub-Bernoulli: Garivier & Cappé 2011, Lemma 1; def:6:subBernoulliDistributions).
* The B-GLRT on the pulled arm's n samples since its restart (line 9, def:6:GLRDef;
  :mod:`bandits.algorithms.bernoulli_glrt`: the statistic, its threshold beta(n, delta) and
  the pruned scan over the splits).
* On a detection (lines 10-12): ``restart: global`` resets every arm (tau_a = t, n_a = 0),
  ``restart: local`` only the detecting arm. The sample that triggered the detection is
  discarded with the rest (Algorithm; authors' code; SMPyBandits keeps it).

Test subsampling (appendix "two numerical optimization tricks", def:6:GLRTricks): the test
runs only when n mod Delta_n = 0, counting the arm's samples since its restart ("instead
of sub-sampling for the time t, we propose to sub-sample for the number of samples of arm
i"; ``check_on: samples``, default), and the sup runs over the splits s with
s mod Delta_s = 0. ``check_on: rounds`` counts the rounds since the arm's last restart
instead (the authors' Julia code; it tests at residue 1, one round later than here).
Delta_n = Delta_s = 10 is the setting of the chapter's experiments ("two optimizations are
used, with Delta n = Delta s = 10"; the authors' code uses Delta_s = 5 for global
restarts). ``check_every = split_every = 1`` is the exact test of the Algorithm.

Threshold beta(n, delta) (``threshold``: ``practical``, default, ``experiments`` or
``theory``; :func:`bandits.algorithms.bernoulli_glrt.glr_threshold`, where each is
sourced).

Tuning (delta default 1/sqrt(T): the authors' code, and cor:6:Global / cor:6:Local item 1):

* ``tuning: agnostic`` (default; Upsilon_T unknown, the journal's parameter-free
  algorithm as run in the authors' code): the exploration probability of episode k
  (k - 1 detections so far, on any arm) is alpha_k = alpha_0 sqrt(k),
  alpha_0 = sqrt(K ln T / T).
* ``tuning: known``: a constant alpha = sqrt(K Upsilon_T ln T / T) (the authors' code,
  ``alpha_opt``). The chapter's Corollaries use sqrt(Upsilon_T ln T / T) with
  delta = 1/sqrt(Upsilon_T T) for global restarts and sqrt(K Upsilon_T ln T / T) with
  delta = 1/sqrt(K Upsilon_T T) for local ones: set ``alpha`` / ``delta`` for those.
  Upsilon_T = 0 (stationary) gives alpha = 0: no forced exploration, the limit of the
  formula.
* ``alpha``: a number in [0, 1] sets a constant alpha directly; ``alpha_scale`` (alpha_0 of
  the chapter's experiments, 0.05 there; 1 in the authors' code) multiplies a tuned alpha.

Implementation (exact: the same actions and restarts as the literal transcription
:class:`bandits.reference.ReferenceGLRklUCB`, which a test checks round by round):

* the B-GLRT from per-arm prefix sums, its scan over the splits pruned by chord bounds
  (:mod:`bandits.algorithms.bernoulli_glrt`);
* the kl-UCB argmax solves Newton's method for one arm at most in most rounds: the last
  arm played is certified as the argmax by one kl evaluation, the others ruled out by
  closed-form bounds or one kl evaluation each (the shared
  :func:`bandits.algorithms.indices.klucb_argmax`, exact).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.algorithms.bernoulli_glrt import chord_update, glr_detects_tree, glr_threshold
from bandits.algorithms.common import (
    check_delta,
    check_known_overrides,
    check_reward_range,
    own_or_told,
    reward_scale,
)
from bandits.algorithms.indices import exploration_level, klucb_argmax
from bandits.errors import ConfigError, require_choice, require_float, require_int

# ----------------------------------------------------------------------------- constants

def explore_range(K, alpha0, grow, episode):
    """floor(K / alpha) of the forced exploration in episode ``episode`` (1-based), 0 if
    alpha = 0 (none): alpha = alpha_0 sqrt(episode) when ``grow`` (tuning agnostic), else
    alpha_0; capped at 1."""
    alpha = alpha0 * math.sqrt(episode) if grow else alpha0
    if alpha <= 0.0:
        return 0
    return int(math.floor(K / min(alpha, 1.0)))


explore_range_jit = njit(cache=True)(explore_range)


@njit(cache=True)
def klucb_level(u, c):
    """f(u) = ln u + c ln ln u for u > 1 and 0 otherwise (the exploration function of def:6:UCB;
    the shared :func:`bandits.algorithms.indices.exploration_level` with a = 1)."""
    return exploration_level(u, 1.0, c)


# ----------------------------------------------------------------------------- the kernel

@njit(cache=True)
def glr_klucb_kernel(rewards, lo, scale, beta, alpha0, c, cfg, actions, restarts):
    """GLR-klUCB, Algorithm 1, on rounds 0..T-1 (round t is t + 1 in the paper). ``cfg`` =
    (global restart, Delta_n, Delta_s, count rounds instead of samples, alpha grows with
    the episode). ``beta[n]`` = beta(n, delta). Writes the arms to ``actions`` and each
    detection as t K + arm to ``restarts``; returns the number of detections."""
    T, K = rewards.shape
    restart_global, check_every, split_every, check_rounds, grow = cfg[0], cfg[1], cfg[2], cfg[3], cfg[4]
    xlogx = np.zeros(T + 1)
    for m in range(1, T + 1):
        xlogx[m] = m * math.log(m)
    level_of = np.empty(T + 1)     # f(u) for u = t - tau_k: one logarithm per round, not one per arm
    for u in range(T + 1):
        level_of[u] = klucb_level(u, c)
    cap = min(T, 1024)
    prefix = np.zeros((K, cap + 1))
    emin = np.zeros((K, 2 * (cap // split_every) + 2))
    emax = np.zeros((K, 2 * (cap // split_every) + 2))
    n = np.zeros(K, dtype=np.int64)
    tau = np.zeros(K, dtype=np.int64)
    binary = np.ones(K, dtype=np.bool_)
    sums, levels, index = np.zeros(K), np.empty(K), np.empty(K)
    stack = np.empty(256, dtype=np.int64)
    guess = np.full(K, np.nan)     # each arm's last kl-UCB index (a starting point only)
    episode = 1
    R = explore_range_jit(K, alpha0, grow == 1, episode)
    n_restarts = 0
    last = 0
    for t in range(T):
        t1 = t + 1
        arm = -1
        if R > 0:
            r = t1 % R
            if 1 <= r <= K:
                arm = r - 1          # forced exploration, lines 3-4
        if arm < 0:                  # kl-UCB, line 6
            for a in range(K):
                levels[a] = level_of[t1 - tau[a]]
            arm = klucb_argmax(sums, n, levels, last, guess, index)
        actions[t] = arm
        last = arm
        x = (rewards[t, arm] - lo) * scale
        x = min(1.0, max(0.0, x))
        m = n[arm] + 1
        if m > cap:
            cap = min(T, 2 * cap)
            grown = np.zeros((K, cap + 1))
            grown[:, :prefix.shape[1]] = prefix
            prefix = grown
            spread = np.zeros((K, 2 * (cap // split_every) + 2))
            spread[:, :emin.shape[1]] = emin
            emin = spread
            spread = np.zeros((K, 2 * (cap // split_every) + 2))
            spread[:, :emax.shape[1]] = emax
            emax = spread
        prefix[arm, m] = prefix[arm, m - 1] + x
        sums[arm] = prefix[arm, m]
        n[arm] = m
        if x != 0.0 and x != 1.0:
            binary[arm] = False
        count = t1 - tau[arm] if check_rounds == 1 else m
        if m % split_every == 0:
            chord_update(prefix[arm], m // split_every, split_every, emin[arm], emax[arm])
        if m >= 2 and count % check_every == 0 and glr_detects_tree(prefix[arm], m, split_every, beta[m], xlogx,
                                                                    binary[arm], stack, emin[arm], emax[arm]):
            restarts[n_restarts] = t * K + arm
            n_restarts += 1
            episode += 1
            R = explore_range_jit(K, alpha0, grow == 1, episode)
            for a in range(K):
                if restart_global == 1 or a == arm:
                    n[a] = 0
                    sums[a] = 0.0
                    tau[a] = t1
                    binary[a] = True
                    guess[a] = np.nan
    return n_restarts


# ----------------------------------------------------------------------------- the algorithm

RESTARTS = ("local", "global")
TUNINGS = ("agnostic", "known")
THRESHOLDS = ("practical", "experiments", "theory")
CHECK_ON = ("samples", "rounds")


def glr_tuning(T: int, K: int, tuning: str, upsilon, alpha, alpha_scale: float, delta) -> dict:
    """alpha_0 (and whether it grows with the episodes) and delta for horizon T (module doc)."""
    delta = 1.0 / math.sqrt(T) if delta is None else float(delta)
    if alpha is not None:
        return {"alpha0": float(alpha), "alpha_grows": False, "delta": delta}
    if tuning == "agnostic":
        base = math.sqrt(K * math.log(T) / T)
        return {"alpha0": float(alpha_scale) * base, "alpha_grows": True, "delta": delta}
    base = math.sqrt(K * float(upsilon) * math.log(T) / T)
    return {"alpha0": float(alpha_scale) * base, "alpha_grows": False, "delta": delta}


class GLRklUCB:
    """GLR-klUCB (Besson, Kaufmann, Maillard & Seznec, JMLR 2022); see the module doc for
    every step, constant and reading."""

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

    def uses_upsilon(self) -> bool:
        return self.tuning == "known" and self.alpha is None

    def needs(self) -> tuple:
        """The range of the rewards (unless set here) and, for ``tuning: known``, Upsilon_T."""
        keys = () if self.reward_range is not None else ("reward_range",)
        return keys + (own_or_told(self, ("Upsilon_T",)) if self.uses_upsilon() else ())

    def check_params(self) -> None:
        require_choice("algo.restart", self.restart, set(RESTARTS))
        require_choice("algo.tuning", self.tuning, set(TUNINGS))
        require_choice("algo.threshold", self.threshold, set(THRESHOLDS))
        require_choice("algo.check_on", self.check_on, set(CHECK_ON))
        a = require_float("algo.alpha", self.alpha, minimum=0.0, allow_none=True)
        if a is not None and a > 1.0:
            raise ConfigError(f"algo.alpha is a probability of forced exploration in [0, 1], got {a}.")
        require_float("algo.alpha_scale", self.alpha_scale, minimum=0.0)
        check_delta(self.delta)
        require_int("algo.check_every", self.check_every, minimum=1)
        require_int("algo.split_every", self.split_every, minimum=1)
        require_float("algo.c", self.c, minimum=0.0)
        check_known_overrides(self)
        check_reward_range(self.reward_range)

    def resolve(self, T: int, info: dict) -> dict:
        """The constants for horizon T and the K = d arms of ``info`` (recorded with every result)."""
        K = int(info["d"])
        upsilon = None
        if self.uses_upsilon():
            upsilon = self.Upsilon_T if self.Upsilon_T is not None else info.get("Upsilon_T")
            if upsilon is None:
                raise ConfigError("GLRklUCB with algo.tuning=known needs Upsilon_T: set algo.Upsilon_T or use an "
                                  "environment that reports it.")
        p = glr_tuning(T, K, self.tuning, upsilon, self.alpha, self.alpha_scale, self.delta)
        out = {"restart": self.restart, "tuning": self.tuning, "threshold": self.threshold,
               "check_every": int(self.check_every), "split_every": int(self.split_every),
               "check_on": self.check_on, "c": float(self.c), **p}
        if upsilon is not None:
            out["Upsilon_T"] = float(upsilon)
        return out

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        """Deterministic given the rewards: ``rng`` is not used (the paper's forced
        exploration is deterministic)."""
        T, K = rewards.shape
        lo, scale = reward_scale(self, info)
        p = self.resolve(T, {**info, "d": K})
        beta = np.full(T + 1, np.inf)
        beta[1:] = glr_threshold(np.arange(1, T + 1), p["delta"], self.threshold)
        cfg = np.array([self.restart == "global", int(self.check_every), int(self.split_every),
                        self.check_on == "rounds", p["alpha_grows"]], dtype=np.int64)
        actions = np.empty(T, dtype=np.int64)
        restarts = np.empty(T // 2 + 1, dtype=np.int64)
        count = glr_klucb_kernel(rewards, lo, scale, beta, p["alpha0"], float(self.c), cfg, actions, restarts)
        found = restarts[:count]
        self.events_ = {"restarts": [[int(r // K), int(r % K)] for r in found]}
        self.derived_ = {**p, "n_restarts": int(count)}
        return actions
