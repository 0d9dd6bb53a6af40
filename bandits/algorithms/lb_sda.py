"""SW-LB-SDA, sliding-window last-block sub-sampling duelling (``sw_lb_sda``; Baudry, Russac &
Cappé, ICML 2021, "On Limited-Memory Subsampling Strategies for Bandits", arXiv 2106.10935),
**as the authors' code reads it**: the paper's text was not found (only its abstract), so every
SW-specific rule below is transcribed from ``YRussac/LB-SDA`` at commit 1bdbf3a
(``MAB.py``, ``GenericMAB.LB_SDA``; ``utils.py``, ``get_leader_ns``; ``tracker.py``,
``SWTracker.update``; read, not copied). The generic SDA mechanics (leader, duels, last-block
sub-sample) are those of the parent paper (Baudry, Kaufmann & Maillard, NeurIPS 2020, Sec. 2,
Algorithm 1), which was read.

The authors' code works in rounds r = 1, 2, ..., each of which pulls one or more arms (steps
t = 0..T-1). N_k, S_k are arm k's count and reward sum in the window, H_k its rewards in order:

    0  pull every arm once, in index order (steps 0..K-1); indic = 1, last_drawn = 1,
       change_leader = 0, previous leader -1 (Python reads index -1 as the last arm)
    1  window: the last tau steps (``SWTracker.update`` drops step t - tau after step t)
    2  leader (``get_leader_ns``): if N[l_prev] < min(r, tau) / (2K) every arm is a candidate,
       else the candidates are the arms flagged last round with N >= min(r, tau) / K, plus l_prev;
       the leader is the candidate with the largest N, ties to the largest S, then to l_prev if
       it is tied, else one of the tied at random; a new leader sets change_leader = r
    3  forced exploration: indic_k = 1{N_k < f(tau)}, every arm (the leader too)
    4  duels: every j != leader with indic_j = 0 is flagged when
       S_j / N_j >= mean of the leader's last min(N_j, N_leader) windowed rewards (ties to j)
    5  diversity: if r - change_leader >= D and r - last_drawn[leader] >= D, every j != leader
       with r - last_drawn[j] >= D and N_j <= (ln tau)^2 is flagged
    6  nothing flagged: pull the leader; else pull the flagged arms in a random order (each
       while t < T); last_drawn of each pulled arm = r; then r = r + 1

Every open choice is a config key with the authors' code's value as default:

* ``window`` (tau) null: the authors' notebooks' int(2 sqrt(T log T / Gamma_T)), Gamma_T their
  number of breakpoints = our Upsilon_T (``window_constant`` 2 = their 2 * reward_u_p with
  reward_u_p = 1), floored into [1, T] (T when Upsilon_T = 0) as every G&M window here.
* ``window_unit``: ``steps`` (the tracker's: the last tau observations) or ``rounds`` (the
  README figure's: the observations of rounds r - tau..r - 1; the initial pulls count as
  round 0, ours).
* ``explo``: f in step 3, evaluated at tau: ``authors`` = (ln tau)^0.333 (``default_exp``; the
  exponent is written 0.333), ``sqrt_log`` = sqrt(ln tau) (the alternative in its comment, and the
  parent paper's f_r = sqrt(log r) at r = tau), or a number (the threshold itself).
* ``diversity``: D in step 5: ``authors`` = int((K - 1) (ln tau)^2) (``default_diversity``),
  ``off`` (no diversity flag), or an integer >= 0. The eligibility N_j <= (ln tau)^2 is the code's.
* ``round_order``: the order of a round's pulls. ``shuffle`` (the code's ``np.random.shuffle``):
  Fisher-Yates on the flagged arms in ascending order, i = m-1 down to 1 swapping i with
  ``rng.integers(0, i + 1)``; ``index``: ascending, no draws (ours).

Our protocol plays one arm per step: a round's pulls are played one per step in that order,
which is what the code does; the round's decisions read the window at its start. Rewards are
used as they come: every rule compares counts, sums of equal counts or means, which a positive
affine map of the rewards leaves unchanged, so no reward range is needed.

Randomness (only the ``rng`` given to :meth:`SlidingWindowLBSDA.play`): the leader's random tie
(the code's ``np.random.choice`` inside a numba function, i.e. numba's own generator) is one
``rng.integers(0, m)`` over the m tied arms, drawn only when m >= 2; the shuffle draws as above.
The literal transcription :mod:`bandits.reference.lb_sda` draws the same numbers in the same
order (tests/test_lb_sda.py).

Cost: O(K) a round. The window's counts come from the actions (a drop pointer); each arm keeps the
prefix sums of its rewards in a ring of min(tau, T) + 1 slots, so a windowed sum and the leader's
last-block sum are each one difference (the code takes ``np.mean`` of the block, O(tau)).
A challenger with N_j = 0 (only if f <= 0) never wins: the code's 0 / 0 compares as false.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.algorithms.common import check_known_overrides, own_or_told
from bandits.algorithms.forgetting import check_window_int, told_upsilon, window_gm
from bandits.errors import ConfigError, require_choice, require_float, require_int

EXPLO_RULES = ("authors", "sqrt_log")
DIVERSITY_RULES = ("authors", "off")
NO_DIVERSITY = -1


def forced_level(explo, window: int) -> float:
    """f(tau) of step 3: (ln tau)^0.333 (the code), sqrt(ln tau), or the number given."""
    if explo == "authors":
        return math.log(window) ** 0.333
    if explo == "sqrt_log":
        return math.sqrt(math.log(window))
    return float(explo)


def diversity_period(diversity, window: int, K: int) -> int:
    """D of step 5: int((K - 1) (ln tau)^2) (the code), -1 for ``off``, or the integer given."""
    if diversity == "authors":
        return int((K - 1) * math.log(window) ** 2)
    if diversity == "off":
        return NO_DIVERSITY
    return int(diversity)


@njit(cache=True)
def _pull(rewards, t, arm, r, prefix, pulls, N, round_of, actions):
    """Play ``arm`` at step t: its reward enters its prefix ring and the window."""
    cap = prefix.shape[1]
    c = pulls[arm]
    prefix[arm, (c + 1) % cap] = prefix[arm, c % cap] + rewards[t, arm]
    pulls[arm] = c + 1
    N[arm] += 1
    actions[t] = arm
    round_of[t] = r


@njit(cache=True)
def _last_sum(prefix, pulls, arm, n):
    """Sum of the last n rewards of ``arm`` (n <= its windowed count)."""
    cap = prefix.shape[1]
    c = pulls[arm]
    return prefix[arm, c % cap] - prefix[arm, (c - n) % cap]


@njit(cache=True)
def sw_lb_sda_kernel(rewards, window, by_rounds, forced, diversity, eligible, shuffle, rng, actions):
    """SW-LB-SDA as ``LB_SDA`` of the authors' code runs it (module doc, steps 0-6)."""
    T, K = rewards.shape
    prefix = np.zeros((K, min(window, T) + 1))
    pulls = np.zeros(K, dtype=np.int64)            # all-time pulls (positions in the prefix rings)
    N = np.zeros(K, dtype=np.int64)                # windowed counts
    S = np.zeros(K)
    round_of = np.zeros(T, dtype=np.int64)
    indic = np.ones(K, dtype=np.int64)             # step 0
    last_drawn = np.ones(K, dtype=np.int64)
    cand = np.zeros(K, dtype=np.int64)
    tied = np.empty(K, dtype=np.int64)
    order = np.empty(K, dtype=np.int64)
    change_leader = 0
    leader = -1
    t = 0
    while t < min(K, T):                           # step 0: arms 0..K-1 in order (round 0)
        _pull(rewards, t, t, 0, prefix, pulls, N, round_of, actions)
        t += 1
    head = 0
    r = 1
    while t < T:
        # step 1: drop what left the window since the last round
        if by_rounds:
            while head < t and round_of[head] < r - window:
                N[actions[head]] -= 1
                head += 1
        else:
            while head < t - window:
                N[actions[head]] -= 1
                head += 1
        for k in range(K):
            S[k] = _last_sum(prefix, pulls, k, N[k])
        # step 2: the leader (get_leader_ns), winners = last round's flags
        prev = leader
        lp = prev if prev >= 0 else K - 1
        span = min(r, window)
        if N[lp] < span / (2.0 * K):
            for k in range(K):
                cand[k] = 1
        else:
            for k in range(K):
                cand[k] = 1 if indic[k] == 1 and N[k] >= span / K else 0
            cand[lp] = 1
        top = -1
        for k in range(K):
            top = max(top, N[k] * cand[k])
        m = 0
        for k in range(K):
            if N[k] * cand[k] == top:
                tied[m] = k
                m += 1
        if m == 1:
            leader = tied[0]
        else:
            s_top = -math.inf
            for i in range(m):
                s_top = max(s_top, S[tied[i]] * cand[tied[i]])
            n_best = 0
            keep = False
            for i in range(m):
                if S[tied[i]] * cand[tied[i]] == s_top:
                    tied[n_best] = tied[i]
                    n_best += 1
                    if tied[i] == prev:
                        keep = True
            if keep:
                leader = prev
            elif n_best == 1:
                leader = tied[0]
            else:
                leader = tied[rng.integers(0, n_best)]
        if leader != prev:
            change_leader = r
        # step 3: forced exploration
        for k in range(K):
            indic[k] = 1 if N[k] < forced else 0
        # step 4: duels against the leader's last block
        for j in range(K):
            if indic[j] == 0 and j != leader and N[j] > 0:
                n = N[j] if N[j] < N[leader] else N[leader]
                if n > 0 and S[j] / N[j] >= _last_sum(prefix, pulls, leader, n) / n:
                    indic[j] = 1
        # step 5: diversity
        if diversity >= 0 and r - change_leader >= diversity and r - last_drawn[leader] >= diversity:
            for j in range(K):
                if j != leader and r - last_drawn[j] >= diversity and N[j] <= eligible:
                    indic[j] = 1
        # step 6: the pulls
        m = 0
        for k in range(K):
            if indic[k] == 1:
                order[m] = k
                m += 1
        if m == 0:
            _pull(rewards, t, leader, r, prefix, pulls, N, round_of, actions)
            last_drawn[leader] = r
            t += 1
        else:
            if shuffle:
                for i in range(m - 1, 0, -1):
                    j = rng.integers(0, i + 1)
                    order[i], order[j] = order[j], order[i]
            for i in range(m):
                if t < T:
                    _pull(rewards, t, order[i], r, prefix, pulls, N, round_of, actions)
                    last_drawn[order[i]] = r
                    t += 1
        r += 1


class SlidingWindowLBSDA:
    """SW-LB-SDA (Baudry, Russac & Cappé 2021) as the authors' code reads it, module doc:
    ``window`` null = the authors' notebooks' 2 sqrt(T log T / Upsilon_T)."""

    problem_kinds = ("karmed",)

    def __init__(self, window=None, window_constant: float = 2.0, window_unit: str = "steps", explo="authors",
                 diversity="authors", round_order: str = "shuffle", Upsilon_T=None):
        self.window = window
        self.window_constant = window_constant
        self.window_unit = window_unit
        self.explo = explo
        self.diversity = diversity
        self.round_order = round_order
        self.Upsilon_T = Upsilon_T

    def needs(self) -> tuple:
        """Upsilon_T for the tuned window (unless algo.window or algo.Upsilon_T is set)."""
        return own_or_told(self, ("Upsilon_T",)) if self.window is None else ()

    def check_params(self) -> None:
        check_window_int(self.window)
        require_float("algo.window_constant", self.window_constant, minimum=0.0, strict=True)
        require_choice("algo.window_unit", self.window_unit, {"steps", "rounds"})
        if isinstance(self.explo, str):
            if self.explo not in EXPLO_RULES:
                raise ConfigError(f"algo.explo must be authors ((ln tau)^0.333), sqrt_log or a number >= 0, "
                                  f"got {self.explo!r}.")
        else:
            require_float("algo.explo", self.explo, minimum=0.0)
        if isinstance(self.diversity, str):
            if self.diversity not in DIVERSITY_RULES:
                raise ConfigError(f"algo.diversity must be authors (int((K - 1) (ln tau)^2)), off or an integer "
                                  f">= 0, got {self.diversity!r}.")
        else:
            require_int("algo.diversity", self.diversity, minimum=0)
        require_choice("algo.round_order", self.round_order, {"shuffle", "index"})
        check_known_overrides(self)

    def resolve(self, T: int, info: dict) -> dict:
        """The window and the constants it sets (the diversity period also needs K: see play)."""
        if self.window is None:
            upsilon = told_upsilon(self, info)
            window = window_gm(T, upsilon, float(self.window_constant))
        else:
            upsilon, window = None, int(self.window)
        return {"window": window, "tuning": "2 sqrt(T log T / Upsilon_T)" if self.window is None else "given",
                "window_constant": float(self.window_constant), "Upsilon_T": upsilon,
                "window_unit": self.window_unit, "forced_exploration": forced_level(self.explo, window),
                "diversity_eligible": math.log(window) ** 2, "round_order": self.round_order}

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T, K = rewards.shape
        p = self.derived_ = self.resolve(T, info)
        p["diversity_period"] = diversity_period(self.diversity, p["window"], K)
        actions = np.empty(T, dtype=np.int64)
        sw_lb_sda_kernel(rewards, p["window"], self.window_unit == "rounds",
                         p["forced_exploration"], p["diversity_period"], p["diversity_eligible"],
                         self.round_order == "shuffle", rng, actions)
        return actions
