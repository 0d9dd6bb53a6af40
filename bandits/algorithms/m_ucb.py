"""M-UCB (Monitored UCB, global restarts) for piecewise-stationary K-armed bandits, with
UCB1 (the paper's) or kl-UCB (the GLR-klUCB experiments' variant M-klUCB) as its index.
CUSUM-UCB and PHT-UCB, whose restarts are local, are :mod:`bandits.algorithms.change_detection`.

Sources read (``docs/baselines.md``, fidelity tables, gives the level of every row). The
paper's own text could not be read here: the search corpora hold only the first page of
arXiv 1802.03692 (Cao, Wen, Kveton & Xie), abstract and introduction. What was read instead:

* [S] SMPyBandits (``SMPyBandits/SMPyBandits``, newest snapshot, commit 012fc13, and the
  history of its files): ``Policies/Monitored_UCB.py``, ``Policies/UCB.py``,
  ``Policies/klUCB.py``, ``configuration_nonstationary.py``. Besson's docstrings quote the
  paper's formulas with their theorem numbers;
* [J] Kaufmann's Julia code for Besson, Kaufmann, Maillard & Seznec's benchmark
  (``EmilieKaufmann/PiecewiseStationaryBandits``, ``Algos.jl``: ``MklUCB``);
* [B] Besson's thesis, chapter 6 (``Naereen/phd-thesis``,
  ``2-Chapters/6-Chapter/nonstatbandits/NonStatB.tex``): the related-work paragraph on
  M-UCB, the definition of the kl-UCB index (def:6:UCB) and the "Algorithms and parameters
  tuning" paragraph of the experiments, which runs M-klUCB ("all algorithms that use UCB as
  a sub-routine were adapted to use klUCB instead").

Rewards are read as x = (y - lo) * scale in [0, 1] (:func:`bandits.algorithms.common.reward_scale`),
not clipped with ``index: ucb1`` (the detector and the UCB1 index are linear in x, only
their thresholds assume rewards in [0, 1]) and clipped to [0, 1] with ``index: kl_ucb``
(kl is defined on [0, 1]; as kl-UCB and GLR-klUCB; the detector then sees the clipped x).

The index (``index``; :class:`bandits.algorithms.indices.IndexRule`), with u the rounds
since the last restart (below):

* ``ucb1`` (default, the paper's): mean + sqrt(2 f / n) with f = ln u;
* ``kl_ucb``: max{q in [0, 1] : n kl(mean, q) <= f(u)} on the same samples, f set by
  ``kl_exploration`` (``log``: ln u, default, what [J] and [S] run in M-klUCB;
  ``log_loglog``: ln u + ``kl_c`` ln ln u, ``kl_c`` = 3 as [B] def:6:UCB; ``three_log``:
  3 ln u, SMPyBandits' ``klUCB_forGLR``; see :mod:`bandits.algorithms.indices`).

M-UCB (``m_ucb``, ``m_klucb``; Cao, Wen, Kveton & Xie, AISTATS 2019, arXiv 1802.03692)
--------------------------------------------------------------------------------------
Alg. 2 (M-UCB) with Alg. 1 (the change detector CD(w, b)), the numbering of a review of the
paper (nubint.ai; the brief numbers them the other way round).

* Round t (1-based, tau = the round of the last detection, 0 at first):
  A = (t - tau) mod floor(K / gamma); if A is in 1..K play arm A (0-based A - 1: a
  round-robin over the arms at the start of every floor(K / gamma) rounds), else the argmax
  of the index with u = t - tau on the samples since tau. [B]: M-UCB explores "when the
  time since the last restart, t - tau, is found to be in [K]"; the modulus floor(K / gamma)
  is [J]'s ``ExploRange`` (with [J]'s global t) and [B]'s GLR-klUCB Algorithm ("generalizes
  the deterministic exploration proposed for M-UCB"); [S] uses (t - tau) mod ceil(K / gamma)
  < K. u = t - tau is the paper's UCB1 as [S] runs it (a full restart starts a new UCB) and
  [B] def:6:UCB's f(t - tau_k(t)) with tau_k = tau; [J] uses log of the rounds since the
  restart, one less. gamma = 0 means no forced round.
* Alg. 1 on the arm just played, once it has w samples since tau: its last w samples
  Y_1..Y_w (oldest first) signal a change when |sum Y_{w/2+1..w} - sum Y_{1..w/2}| > b
  ([S] ``detect_change``; [J] the same).
* A detection at round t restarts ALL arms (tau = t; every n_k = 0; the detecting sample
  dropped, as [J]), recorded in ``events_`` (``restarts``; ``arms``: the arm whose window
  fired).
* The last w samples of each arm are a ring of :mod:`bandits.algorithms.window` (one ring
  per arm, in one (K, w, 1) array), with running sums of its two halves; the ring keeps
  the samples from before a restart, but the test waits for w samples since tau, by
  which time all of them are new.

Constants (config keys; null = the tuning below), delta = min_change:

* ``window`` w = (4 / delta^2) (sqrt(log(2 K T^2)) + sqrt(log(2 T)))^2 rounded up to an
  even integer: [S] ``Monitored_UCB.py`` ("Estimate w from Remark 1") since its commit
  0bd09d2 (2018-12-20) and in the newest snapshot; its versions up to commit c1da39e
  (2018-12-13) wrote sqrt(2T) for the second term, which makes w larger than T for every
  delta <= 1. [J] comments "w of order log(2KT^2)/(size of the smallest change)^2"; [B]'s
  experiments fix w = 150 ("the formula using delta_min ... is too large for small
  horizons"). [S] replaces a w >= T / (1 + Upsilon_T) by 50 K Upsilon_T: not done here
  (``gamma_without_detector`` below; set ``window`` to an integer).
* ``b`` = sqrt(w / 2 * log(2 K T^2)): [S] ("from the formula from Theorem 6.1"), [J]'s comment
  ``b = sqrt(w*log(2*K*T^2)/2)``. [B]'s experiments write b = sqrt(w log(2 K T)): set ``b``.
* ``gamma`` (forced exploration), by ``gamma_rule``, with the b in force (tuned or set):

  - ``experiments`` (default): sqrt(Upsilon_T K (2 b + 3 sqrt(w)) / (2 T)), the authors'
    tuning of their experiments as three sources quote it: [B] ("as suggested by Remark 4
    in the paper"), [S] newest ``Monitored_UCB.py`` ("the tuning used for their experiment
    (§6.1)", since its commit 14a6081, 2019-01-24, with M = Upsilon_T) and [J]'s comment
    ``alpha = sqrt((nbreaks*K*(2*b+3*\\sqrt(w)))/(2*T))``;
  - ``theorem``: sqrt(Upsilon_T K min(w/2, ceil(b / delta) + 3 sqrt(w)) / (2 T)), the
    theorem's (Thm. 6.1 of the arXiv version as [S] cites it, with M - 1 = Upsilon_T change
    points; [S]'s ``Monitored_UCB.py`` from 2018-10-24 to 2019-01-18, commented out since).

  Both capped at 1 (a fraction of the rounds; [S] replaces a gamma > 1 by 0.01 K instead).
  An explicit ``gamma`` overrides either rule.

Stationary limit: Upsilon_T = 0 gives gamma = 0 (no forced exploration) while the detector
still runs at b; min_change = 0 with no ``window`` (no change to size w by) switches the
detector off and gamma to 0: the index alone. With a ``window`` set, ``experiments`` needs
no delta; ``theorem`` gives gamma = 0 when delta = 0.

``gamma_without_detector`` (a documented fallback, both rules): when the tuned w exceeds T
no window can ever fill, so the detector never fires, and the tuned gamma (which then grows
with w, up to 1 for small delta) only buys exploration nobody uses. ``zero`` (default) sets
gamma = 0 then (the index alone); ``paper`` keeps the rule's formula as written.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.algorithms.change_detection import restart_events
from bandits.algorithms.common import check_known_overrides, check_reward_range, own_or_told, reward_scale
from bandits.algorithms.indices import KLUCB_INDEX, check_index_params, index_argmax, index_record, index_rule
from bandits.algorithms.window import POS, advance, is_full, new_window
from bandits.errors import ConfigError, require_choice, require_float, require_int


@njit(cache=True)
def new_arm_windows(K, w):
    """One window (:mod:`bandits.algorithms.window`) of the last ``w`` samples per arm."""
    rows = np.empty((K, max(1, w), 1))
    states = np.empty((K, 3), dtype=np.int64)
    for k in range(K):
        r, s = new_window(w, 1)
        rows[k] = r
        states[k] = s
    return rows, states


@njit(cache=True, inline="always")  # inlined: a call taking views of the (K, w, 1) array costs ~50 ns
def observe_half_sums(rows, state, x):
    """Push x into one arm's window of w (even) samples. Returns how the sums of its older
    and newer halves change (Alg. 1 compares them) and whether the window just wrapped,
    when the caller recomputes both sums exactly (:func:`half_sums`: no drift). When full,
    the sample w/2 back moves from the newer half to the older one and the oldest leaves;
    while filling, the changes are 0 and the sums wait for the refresh at the first wrap
    (the test needs a full window)."""
    w = rows.shape[0]
    slot = state[POS]
    d_old = d_new = 0.0
    if is_full(rows, state):
        mid = slot + w // 2
        if mid >= w:
            mid -= w
        moved = rows[mid, 0]
        d_old = moved - rows[slot, 0]
        d_new = x - moved
    rows[slot, 0] = x
    return d_old, d_new, advance(rows, state)


@njit(cache=True, inline="always")
def half_sums(rows):
    """The sums of the older and newer halves of a window that has just wrapped (slot 0 is
    its oldest sample)."""
    w = rows.shape[0]
    a = 0.0
    for i in range(w // 2):
        a += rows[i, 0]
    b = 0.0
    for i in range(w // 2, w):
        b += rows[i, 0]
    return a, b


@njit(cache=True)
def m_ucb_kernel(rewards, lo, scale, period, w, b, rule):
    """M-UCB (Alg. 2) with the detector CD(w, b) of Alg. 1; global restarts. ``period`` =
    floor(K / gamma) (0: no forced exploration); ``w`` = 0: no detector; ``rule``: the index
    and its exploration f(t - tau) (:class:`bandits.algorithms.indices.IndexRule`). Returns
    the actions, and the rounds and arms of the detections (first ``n`` rows)."""
    T, K = rewards.shape
    actions = np.empty(T, dtype=np.int64)
    det_round, det_arm = np.empty(T, dtype=np.int64), np.empty(T, dtype=np.int64)
    n_det = 0
    counts, sums, index = np.zeros(K), np.zeros(K), np.empty(K)   # n_k and sums since tau
    levels, guess = np.empty(K), np.full(K, np.nan)
    rows, states = new_arm_windows(K, w)
    older, newer = np.zeros(K), np.zeros(K)                         # the two half sums per arm
    tau = 0                                                        # paper's tau (1-based rounds)
    arm = 0
    for t in range(T):
        since = t + 1 - tau                                        # t - tau with the paper's 1-based t
        A = since % period if period > 0 else 0
        if 1 <= A <= K:
            arm = A - 1                                            # forced exploration
        else:
            arm = index_argmax(rule, sums, counts, since, arm, guess, index, levels)
        actions[t] = arm
        x = (rewards[t, arm] - lo) * scale
        if rule.kind == KLUCB_INDEX:
            x = min(1.0, max(0.0, x))
        counts[arm] += 1.0
        sums[arm] += x
        if w > 0:
            d_old, d_new, wrapped = observe_half_sums(rows[arm], states[arm], x)
            if wrapped:
                older[arm], newer[arm] = half_sums(rows[arm])
            else:
                older[arm] += d_old
                newer[arm] += d_new
            if counts[arm] >= w and abs(newer[arm] - older[arm]) > b:
                det_round[n_det] = t
                det_arm[n_det] = arm
                n_det += 1
                tau = t + 1                                        # tau <- t (1-based): restart all arms
                for k in range(K):
                    counts[k] = 0.0
                    sums[k] = 0.0
                    guess[k] = np.nan
    return actions, det_round, det_arm, n_det


GAMMA_RULES = ("experiments", "theorem")


def m_ucb_gamma(T: int, K: int, upsilon: float, delta: float, w: int, b: float, rule: str) -> float:
    """gamma of ``gamma_rule`` (module doc), capped at 1: ``experiments`` sqrt(Upsilon_T K
    (2 b + 3 sqrt(w)) / (2 T)); ``theorem`` sqrt(Upsilon_T K min(w/2, ceil(b / delta) +
    3 sqrt(w)) / (2 T)), 0 when delta = 0."""
    if rule == "experiments":
        return min(1.0, math.sqrt(upsilon * K * (2 * b + 3 * math.sqrt(w)) / (2 * T)))
    if delta <= 0:
        return 0.0
    return min(1.0, math.sqrt(upsilon * K * min(w / 2, math.ceil(b / delta) + 3 * math.sqrt(w)) / (2 * T)))


def m_ucb_constants(T: int, K: int, upsilon: float, delta: float, window=None, b=None,
                    gamma_rule: str = "experiments") -> dict:
    """w, b and gamma (module doc); ``window`` / ``b`` given: used as they are (gamma is
    computed with them). No window and delta = 0: no detector, gamma = 0."""
    log_kt = math.log(2 * K * T ** 2)
    if window is None:
        if delta <= 0:
            return {"window": None, "b": None, "gamma": 0.0}
        raw = 4.0 / delta ** 2 * (math.sqrt(log_kt) + math.sqrt(math.log(2 * T))) ** 2
        w = 2 * math.ceil(raw / 2)
    else:
        w = int(window)
    b = math.sqrt(w / 2 * log_kt) if b is None else float(b)
    return {"window": int(w), "b": b, "gamma": m_ucb_gamma(T, K, upsilon, delta, w, b, gamma_rule)}


class MonitoredUCB:
    """M-UCB (Cao, Wen, Kveton & Xie 2019), with UCB1 or kl-UCB (``index``): see the module
    doc for every step and constant."""

    problem_kinds = ("karmed",)

    def __init__(self, window: int | None = None, b: float | None = None, gamma: float | None = None,
                 gamma_rule: str = "experiments", gamma_without_detector: str = "zero", index: str = "ucb1",
                 kl_exploration: str = "log", kl_c: float = 3.0, Upsilon_T: float | None = None,
                 min_change: float | None = None, reward_range=None):
        self.window = window
        self.b = b
        self.gamma = gamma
        self.gamma_rule = gamma_rule
        self.gamma_without_detector = gamma_without_detector
        self.index = index
        self.kl_exploration = kl_exploration
        self.kl_c = kl_c
        self.Upsilon_T = Upsilon_T
        self.min_change = min_change
        self.reward_range = reward_range

    def needs(self) -> tuple:
        """Upsilon_T (for gamma, unless set), min_change (delta: for w unless set, and for the
        theorem's gamma unless set) and the reward range (unless set here)."""
        keys = ()
        if self.gamma is None:
            keys += ("Upsilon_T",)
        if self.window is None or (self.gamma is None and self.gamma_rule == "theorem"):
            keys += ("min_change",)
        keys = own_or_told(self, keys)
        return keys + (() if self.reward_range is not None else ("reward_range",))

    def check_params(self) -> None:
        if self.window is not None and require_int("algo.window", self.window, minimum=2) % 2:
            raise ConfigError(f"algo.window must be even (Alg. 1 compares its two halves), got {self.window}.")
        require_float("algo.b", self.b, minimum=0.0, strict=True, allow_none=True)
        require_choice("algo.gamma_rule", self.gamma_rule, set(GAMMA_RULES))
        require_choice("algo.gamma_without_detector", self.gamma_without_detector, {"zero", "paper"})
        if require_float("algo.gamma", self.gamma, minimum=0.0, allow_none=True) is not None and self.gamma > 1:
            raise ConfigError(f"algo.gamma is a fraction of the rounds and must lie in [0, 1], got {self.gamma}.")
        check_index_params(self)
        check_known_overrides(self)
        check_reward_range(self.reward_range)

    def _told(self, info: dict, name: str):
        value = getattr(self, name)
        value = info.get(name) if value is None else value
        return None if value is None else float(value)

    def resolve(self, T: int, info: dict) -> dict:
        """The constants for horizon T (recorded with every result row)."""
        lo, scale = reward_scale(self, info)
        K = int(info["d"])
        upsilon, delta = self._told(info, "Upsilon_T"), self._told(info, "min_change")
        tuned = m_ucb_constants(T, K, upsilon or 0.0, 1.0 if delta is None else delta, self.window, self.b,
                                self.gamma_rule)
        w = tuned["window"]
        b = float(self.b) if self.b is not None else tuned["b"]
        detector = w is not None and w <= T
        gamma = float(self.gamma) if self.gamma is not None else tuned["gamma"]
        if self.gamma is None and not detector and self.gamma_without_detector == "zero":
            gamma = 0.0
        period = int(math.floor(K / gamma)) if gamma > 0 else 0
        rule = "given" if self.gamma is not None else self.gamma_rule
        return {"window": w, "b": b, "gamma": gamma, "gamma_rule": rule, "period": period,
                "detection": bool(detector), **index_record(self), "Upsilon_T": upsilon, "min_change": delta,
                "reward_lo": lo, "reward_scale": scale}

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        p = self.resolve(rewards.shape[0], info)
        w = p["window"] if p["detection"] else 0
        actions, rounds, arms, n = m_ucb_kernel(rewards, p["reward_lo"], p["reward_scale"], p["period"], w,
                                                p["b"] if p["b"] is not None else math.inf, index_rule(self, 2.0))
        self.derived_ = {**p, "n_restarts": int(n)}
        self.events_ = restart_events(rounds, arms, n)
        return actions
