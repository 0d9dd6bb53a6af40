"""CD-UCB with local restarts for piecewise-stationary K-armed bandits: CUSUM-UCB and
PHT-UCB, each with UCB1 (the paper's) or kl-UCB (the GLR-klUCB experiments' variant
CUSUM-klUCB) as its index. M-UCB, whose restarts are global, is
:mod:`bandits.algorithms.m_ucb`.

Sources read (``docs/baselines.md``, fidelity tables, gives the level of every row). The
paper's own text could not be read here: the search corpora hold only the first page of
arXiv 1711.03539 (Liu, Lee & Shroff), abstract and introduction. What was read instead:

* [S] SMPyBandits (``SMPyBandits/SMPyBandits``, newest snapshot, commit 012fc13, and the
  history of its files): ``Policies/CUSUM_UCB.py``, ``Policies/CD_UCB.py``,
  ``Policies/UCB.py``, ``Policies/klUCB.py``, ``configuration_nonstationary.py``.
  Besson's docstrings quote the paper's formulas with their theorem numbers;
* [J] Kaufmann's Julia code for Besson, Kaufmann, Maillard & Seznec's benchmark
  (``EmilieKaufmann/PiecewiseStationaryBandits``, ``Algos.jl``: ``CUSUMklUCB``);
* [B] Besson's thesis, chapter 6 (``Naereen/phd-thesis``,
  ``2-Chapters/6-Chapter/nonstatbandits/NonStatB.tex``): the related-work paragraph on
  CUSUM-UCB, the definition of the kl-UCB index (def:6:UCB) and the "Algorithms
  and parameters tuning" paragraph of the experiments, which runs CUSUM-klUCB
  ("all algorithms that use UCB as a sub-routine were adapted to use klUCB instead").

Rewards are read as x = (y - lo) * scale in [0, 1] (:func:`bandits.algorithms.common.reward_scale`),
not clipped with ``index: ucb1`` (the detectors and the UCB1 index are linear in x, only
their thresholds assume rewards in [0, 1]) and clipped to [0, 1] with ``index: kl_ucb``
(kl is defined on [0, 1]; as kl-UCB and GLR-klUCB; the detector then sees the clipped x).

The index (``index``; :class:`bandits.algorithms.indices.IndexRule`):

* ``ucb1`` (default, the paper's): mean + sqrt(``xi`` f / n) with f = ln u;
* ``kl_ucb``: max{q in [0, 1] : n kl(mean, q) <= f(u)} on the same samples, f set by
  ``kl_exploration`` (``log``: ln u, default, what [J] and [S] run in
  CUSUM-klUCB; ``log_loglog``: ln u + ``kl_c`` ln ln u, ``kl_c`` = 3 as [B] def:6:UCB;
  ``three_log``: 3 ln u, SMPyBandits' ``klUCB_forGLR``; see
  :mod:`bandits.algorithms.indices`); ``xi`` is then unused.

u is the same for both indices: the samples in play n_t (below).

CUSUM-UCB (``cusum_ucb``, ``cusum_klucb``; Liu, Lee & Shroff, AAAI 2018, arXiv 1711.03539)
------------------------------------------------------------------------------------------
Alg. 1 (CD-UCB) with Alg. 2 (two-sided CUSUM) as the change detector, one per arm ([S]'s
docstrings).

* Round t (Alg. 1): with probability alpha an arm uniformly at random, else the argmax of
  the index with u = n_t = sum_i N_i, where N_i and the mean of arm i count its samples
  since its own last reset tau_i ([S] ``CUSUM_IndexPolicy.getReward`` forces the UCB's t to
  sum of the pulls since the restarts; [J] ``log(nvalid)``; [B] "f(t - tau_k(t)) is replaced
  by f(n_t) with n_t = sum_k n_k(t)" for CUSUM-UCB). An arm with N_i = 0 has an infinite
  index (played first, lowest index first). Randomness: one ``rng.random()`` every round;
  when it is below alpha, ``rng.integers(0, K)`` picks the arm (the reference draws the
  same numbers in the same order).
* Alg. 2 on arm i's samples y_1, y_2, ... since its reset: u0 = mean of y_1..y_M;
  s_k^+ = (y_k - u0 - eps) 1(k > M), s_k^- = (u0 - y_k - eps) 1(k > M),
  g^+ = max(0, g^+ + s^+), g^- = max(0, g^- + s^-); alarm when g^+ > h or g^- > h
  ([S]'s docstring and [J]; [S]'s code tests >= h: the two differ only on exact equality).
* An alarm on the arm just played at round t resets that arm only (tau_i = t + 1: its
  count, mean, u0, g+ and g- start afresh; the alarming sample is not kept, as [J]): a
  LOCAL restart, recorded in ``events_`` as ``{"restarts": [rounds], "arms": [arms]}``.

Constants (each a config key; null = the tuning the sources quote):

* ``h`` = log(T / Upsilon_T) and ``alpha`` = sqrt(Upsilon_T / T * log(T / Upsilon_T))
  ([S] ``compute_h_alpha_from_input_parameters__CUSUM``; [J]'s comment "recommended tuning
  h = log(T/nbreaks) and alpha=sqrt(nbreaks*log(T/nbreaks)/T)"; [B]'s experiments "as
  suggested in the paper"). alpha is capped at 1 (it never exceeds 0.61 anyway). [S] also
  has Thm. 2's unsimplified h = log(T / Upsilon_T) / C1, alpha = K sqrt(C2 Upsilon_T /
  (C1 T) log(T / Upsilon_T)) with C1, C2 functions of eps and M: not offered here.
* ``epsilon`` = min_change / 2 (ours: the paper asks eps below the smallest change of a
  mean, as [B] restates it; half of it gives the CUSUM a drift of at least
  min_change / 2 - |u0 - mu| downwards before the change and upwards after it, the two
  margins equal). [B]'s experiments: 0.1 on easy problems, 0.001 on hard ones.
* ``M`` = 100 samples for u0 ([S] ``CUSUM_UCB.py`` default; [B]'s experiments and [J]: 150).
* ``xi`` = 2 in the UCB1 bonus (UCB1's constant, [S] ``UCB.py``: sqrt(2 log t / N), the
  index [S]'s CUSUM-UCB wraps).

Stationary limit (Upsilon_T = 0, or min_change = 0 so no change can be sized): no
detection (h = infinity) and alpha = 0: the index alone.

PHT-UCB (``pht_ucb``; the same paper, SMPyBandits' reading)
-----------------------------------------------------------
The paper's text beyond its abstract ("CUSUM-UCB and PHT-UCB, that belong to the CD-UCB
class and use cumulative sum (CUSUM) and Page-Hinkley Test (PHT) to detect changes") could
not be read, nor any code of its authors: PHT-UCB ships as SMPyBandits' reading
(``Policies/CUSUM_UCB.py``, class ``PHT_IndexPolicy``, its docstring and ``detect_change``),
named as such. Everything of CUSUM-UCB above holds (Alg. 1, the index at u = n_t, the local
restart that drops the alarming sample, h, alpha, eps = min_change / 2, the draws), except
the detector:

* on arm i's samples y_1, y_2, ... since its reset, y-hat_k = the mean of y_1..y_k (y_k
  included, no warm-up: there is no M); g^+ = max(0, g^+ + y_k - y-hat_k - eps),
  g^- = max(0, g^- + y-hat_k - y_k - eps) ([S]'s s_k^- and s_k^+, the names swapped);
  alarm when g^+ > h or g^- > h ([S]'s docstring; its code tests >=).

Not taken from [S]: its test every 10th sample only (``LAZY_DETECT_CHANGE_ONLY_X_STEPS``, a
speed-up it names as such), its localisation (the new history keeps the samples after the
alarm's position, and the latest sample twice), its uniform exploration's
``randint(0, K - 1)`` (never the last arm) and its eps = 0.05 (``CD_UCB.py``; set
``epsilon``), each as for CUSUM-UCB.
"""


from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.algorithms.common import check_known_overrides, check_reward_range, own_or_told, reward_scale
from bandits.algorithms.indices import (
    KLUCB_INDEX,
    check_index_params,
    index_argmax,
    index_record,
    index_rule,
)
from bandits.errors import ConfigError, require_float, require_int

# ----------------------------------------------------------------------------- CUSUM-UCB

@njit(cache=True)
def cusum_ucb_kernel(rewards, lo, scale, alpha, M, eps, h, rule, rng, pht=False):
    """CD-UCB (Alg. 1) with one two-sided change detector per arm, local restarts: CUSUM
    (Alg. 2) or, with ``pht``, the Page-Hinkley test (SMPyBandits' reading; ``M`` unused).
    ``rule``: the index and its exploration f(n_t)
    (:class:`bandits.algorithms.indices.IndexRule`). h = inf: no detection. Returns the
    actions, and the rounds and arms of the detections (first ``n`` rows)."""
    T, K = rewards.shape
    actions = np.empty(T, dtype=np.int64)
    det_round, det_arm = np.empty(T, dtype=np.int64), np.empty(T, dtype=np.int64)
    n_det = 0
    counts, sums = np.zeros(K), np.zeros(K)          # N_i and the sum of x since tau_i
    u0, gplus, gminus = np.zeros(K), np.zeros(K), np.zeros(K)
    ybar = np.zeros(K)                                # PHT: the running mean of the samples since tau_i
    index, levels, guess = np.empty(K), np.empty(K), np.full(K, np.nan)
    n_total = 0.0                                     # n_t = sum_i N_i
    arm = 0
    for t in range(T):
        # Alg. 1: uniform exploration with probability alpha, else the index at u = n_t
        if rng.random() < alpha:
            arm = rng.integers(0, K)
        else:
            arm = index_argmax(rule, sums, counts, n_total, arm, guess, index, levels)
        actions[t] = arm
        x = (rewards[t, arm] - lo) * scale
        if rule.kind == KLUCB_INDEX:
            x = min(1.0, max(0.0, x))
        counts[arm] += 1.0
        sums[arm] += x
        n_total += 1.0
        k = counts[arm]
        if pht:
            # Page-Hinkley on the samples of this arm since its reset: y-hat_k is the mean of
            # y_1..y_k, y_k included, updated as SMPyBandits does: (k' y-hat + y) / (k' + 1), k' = k - 1
            ybar[arm] = ((k - 1.0) * ybar[arm] + x) / k
            s_plus = x - ybar[arm] - eps
            s_minus = ybar[arm] - x - eps
        elif k > M:
            # Alg. 2, eqs. (4)-(5): s_k^+ and s_k^- against u0, the mean of the first M samples
            s_plus = x - u0[arm] - eps
            s_minus = u0[arm] - x - eps
        else:
            if k == M:
                u0[arm] = sums[arm] / M
            continue
        gplus[arm] = max(0.0, gplus[arm] + s_plus)
        gminus[arm] = max(0.0, gminus[arm] + s_minus)
        if gplus[arm] > h or gminus[arm] > h:
            # a detection: tau_arm = t + 1, this arm's statistics restart (local)
            det_round[n_det] = t
            det_arm[n_det] = arm
            n_det += 1
            n_total -= counts[arm]
            counts[arm] = 0.0
            sums[arm] = 0.0
            u0[arm] = 0.0
            ybar[arm] = 0.0
            gplus[arm] = 0.0
            gminus[arm] = 0.0
            guess[arm] = np.nan
    return actions, det_round, det_arm, n_det


def cusum_ucb_constants(T: int, upsilon: float, min_change: float) -> dict:
    """h, alpha and eps of the paper's tuning for a horizon T (see the module doc): the
    corollary's h = log(T / Upsilon_T), alpha = sqrt(Upsilon_T / T log(T / Upsilon_T)),
    and eps = min_change / 2. Upsilon_T = 0 or min_change = 0: no detection, alpha = 0."""
    if upsilon <= 0 or min_change <= 0:
        return {"h": math.inf, "alpha": 0.0, "epsilon": min_change / 2}
    ratio = T / upsilon
    return {"h": math.log(ratio), "alpha": min(1.0, math.sqrt(math.log(ratio) / ratio)), "epsilon": min_change / 2}


def _json_number(v: float):
    """Infinite constants (a detector switched off) are recorded as null."""
    return None if not math.isfinite(v) else float(v)


def restart_events(rounds, arms, n) -> dict:
    """The ``events_`` record of a run: the rounds of its restarts and the arms that fired."""
    return {"restarts": rounds[:n].tolist(), "arms": arms[:n].tolist()}


class CUSUMUCB:
    """CUSUM-UCB (Liu, Lee & Shroff 2018), with UCB1 or kl-UCB (``index``): see the module
    doc for every step and constant."""

    problem_kinds = ("karmed",)
    pht = False  # the change detector: CUSUM (Alg. 2); PHTUCB below sets the Page-Hinkley test
    name = "CUSUM-UCB"

    def __init__(self, M: int = 100, epsilon: float | None = None, h: float | None = None,
                 alpha: float | None = None, xi: float = 2.0, index: str = "ucb1", kl_exploration: str = "log",
                 kl_c: float = 3.0, Upsilon_T: float | None = None, min_change: float | None = None,
                 reward_range=None):
        self.M = M
        self.epsilon = epsilon
        self.h = h
        self.alpha = alpha
        self.xi = xi
        self.index = index
        self.kl_exploration = kl_exploration
        self.kl_c = kl_c
        self.Upsilon_T = Upsilon_T
        self.min_change = min_change
        self.reward_range = reward_range

    def needs(self) -> tuple:
        """Upsilon_T (for h and alpha, unless both are set), min_change (for eps, unless
        set) and the reward range (unless set here), each overridable by algo.<key>."""
        keys = ()
        if self.h is None or self.alpha is None:
            keys += ("Upsilon_T",)
        if self.epsilon is None:
            keys += ("min_change",)
        keys = own_or_told(self, keys)
        return keys + (() if self.reward_range is not None else ("reward_range",))

    def check_params(self) -> None:
        if not self.pht:
            require_int("algo.M", self.M, minimum=1)
        require_float("algo.epsilon", self.epsilon, minimum=0.0, allow_none=True)
        require_float("algo.h", self.h, minimum=0.0, strict=True, allow_none=True)
        if require_float("algo.alpha", self.alpha, minimum=0.0, allow_none=True) is not None and self.alpha > 1:
            raise ConfigError(f"algo.alpha is a probability and must lie in [0, 1], got {self.alpha}.")
        require_float("algo.xi", self.xi, minimum=0.0, strict=True)
        check_index_params(self)
        check_known_overrides(self)
        check_reward_range(self.reward_range)

    def _told(self, info: dict, name: str) -> float:
        value = getattr(self, name)
        return float(info[name] if value is None else value)

    def resolve(self, T: int, info: dict) -> dict:
        """The constants for horizon T (recorded with every result row)."""
        lo, scale = reward_scale(self, info)
        tuned = {"h": math.inf, "alpha": 0.0, "epsilon": 0.0}
        upsilon = min_change = None
        if self.h is None or self.alpha is None:
            upsilon = self._told(info, "Upsilon_T")
            if upsilon >= T:
                raise ConfigError(f"{self.name}'s h = log(T / Upsilon_T) needs Upsilon_T < T; got Upsilon_T={upsilon} "
                                  f"at T={T}.")
        if self.epsilon is None:
            min_change = self._told(info, "min_change")
        if upsilon is not None or min_change is not None:
            tuned = cusum_ucb_constants(T, 1.0 if upsilon is None else upsilon,
                                        1.0 if min_change is None else min_change)
        eps = float(self.epsilon) if self.epsilon is not None else tuned["epsilon"]
        h = float(self.h) if self.h is not None else tuned["h"]
        alpha = float(self.alpha) if self.alpha is not None else tuned["alpha"]
        detector = {"detector": "pht"} if self.pht else {"M": int(self.M)}
        return {**detector, "epsilon": eps, "h": h, "alpha": alpha, "xi": float(self.xi), **index_record(self),
                "Upsilon_T": upsilon, "min_change": min_change, "reward_lo": lo, "reward_scale": scale}

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        p = self.resolve(rewards.shape[0], info)
        actions, rounds, arms, n = cusum_ucb_kernel(rewards, p["reward_lo"], p["reward_scale"], p["alpha"],
                                                    p.get("M", 0), p["epsilon"], p["h"], index_rule(self, self.xi),
                                                    rng, self.pht)
        self.derived_ = {**p, "h": _json_number(p["h"]), "detection": bool(math.isfinite(p["h"])),
                         "n_restarts": int(n)}
        self.events_ = restart_events(rounds, arms, n)
        return actions


class PHTUCB(CUSUMUCB):
    """PHT-UCB (Liu, Lee & Shroff 2018) as SMPyBandits reads it: CUSUM-UCB with a two-sided
    Page-Hinkley test per arm in place of CUSUM (no M; see the module doc)."""

    pht = True
    name = "PHT-UCB"

    def __init__(self, epsilon: float | None = None, h: float | None = None, alpha: float | None = None,
                 xi: float = 2.0, index: str = "ucb1", kl_exploration: str = "log", kl_c: float = 3.0,
                 Upsilon_T: float | None = None, min_change: float | None = None, reward_range=None):
        self.epsilon = epsilon
        self.h = h
        self.alpha = alpha
        self.xi = xi
        self.index = index
        self.kl_exploration = kl_exploration
        self.kl_c = kl_c
        self.Upsilon_T = Upsilon_T
        self.min_change = min_change
        self.reward_range = reward_range
