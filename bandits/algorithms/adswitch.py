"""AdSwitch (``adswitch``, ``adswitch_literal``; Auer, Gajane & Ortner, COLT 2019, PMLR 99,
"Adaptively Tracking the Best Bandit Arm with an Unknown Number of Distribution Changes"),
Algorithm 1 ("ADSWITCH", p. 5) with conditions (1)-(4) and Remark 3 (pp. 6-7).

Read from the paper's text: the PMLR camera-ready PDF stored in
``happyc0der/multi_armed_bandit_algorithms`` (``auer19a.pdf``, blob 9cd3cba); the authors
published no code. Notation: n_[s,t](a) pulls of a in rounds s..t, mu^_[s,t](a) their mean,
log the natural logarithm (the proof of Lemma 5 uses Hoeffding's 2 exp(-2 gamma^2 n)).

    ℓ <- 0, t <- 0
    3   new episode: ℓ <- ℓ + 1, t_ℓ <- t + 1, GOOD = {1..K}, BAD = {}
    8   next step: t <- t + 1
    10  for a in BAD and i >= 1 with 2^-i >= Delta~(a) / 16:
    11      with probability 2^-i sqrt(ℓ / (K T log T)) add the obligation (2^-i, ceil(2^(2i+1) log T), t) to S(a)
    13  play the least recently played arm among GOOD and the bad arms with S(a) non-empty
    15  (3) a in GOOD, t_ℓ <= s1 <= s2 <= t, t_ℓ <= s <= t:
            |mu^_[s1,s2](a) - mu^_[s,t](a)| > sqrt(2 log T / n_[s1,s2](a)) + sqrt(2 log T / n_[s,t](a))
            -> new episode
    18  (4) a in BAD, t_ℓ <= s <= t:  |mu^_[s,t](a) - mu~(a)| > Delta~(a) / 4 + sqrt(2 log T / n_[s,t](a))
            -> new episode
    21  drop from S(a) the obligations (eps, n, s) with n_[s,t](a) >= n
    23  (1) evict a in GOOD if for some s >= t_ℓ with n_[s,t](a) >= 2:
            max_{a' in GOOD} mu^_[s,t](a') - mu^_[s,t](a) > sqrt(C1 log T / (n_[s,t](a) - 1))
    24      (2) record mu~(a) = mu^_[s,t](a), Delta~(a) = that gap; S(a) <- {}

Two readings (``tests``):

* ``literal``: every s, s1, s2 of the episode, as Algorithm 1. Rounds holding the same samples
  of an arm give the same statistics, so (3) and (4) run over the arm's sample intervals; and
  "some [s1,s2] and some s" splits exactly into max over [s1,s2] of mu^ - width against every
  suffix's mu^ + width (and min of mu^ + width against mu^ - width), kept as running extremes
  over the episode: O(n) per pull for (3) and (4) and O(K^2 t) per round for (1) (every s, every
  good arm, the max over the good arms). The paper's own figure for (3) as written is
  O(K t^3) per step (Remark 3). For small T.
* ``remark3`` (default): Remark 3's "only intervals of certain lengths, say 2^k log T for
  k = 3, 4, ..., storing for these lengths the maximal and minimal values of mu^_[s1,s2](a) so
  far ... The checks of conditions (1) and (4) can be treated similarly." A length counts the
  arm's own samples, L_k = ceil(2^k log T) (the obligations' lengths ceil(2^(2i+1) log T) are
  among them); (3) compares the extremes over every window of L_k consecutive samples so far
  with the mean of the last L_j samples; (4) and (1) take s where [s, t] holds the last L_k
  samples of the arm tested. O(K^2 log T) per round.

What the text leaves open (each our choice, ``docs/baselines.md``):

* ``C1``: "a suitable constant", "sufficiently large" (footnote 3). Default 32: eq. (5) needs
  sqrt(C1 log T / (n - 1)) > 4 sqrt(2 log T / n) for every n >= 2, i.e. C1 >= 32. SMPyBandits'
  AdSwitchNew uses 16.1 and Kaufmann's Algos.jl 1 (``ns_sensitivity`` runs all three).
* (2)'s s when (1) holds for several: the earliest (the longest window), as both public
  implementations. All arms meeting (1) against GOOD_t leave together (line 23 is a set).
* (1)'s maximum runs over the good arms with a sample in [s, t] (mu^ is undefined without).
* Ties in line 13 (arms never played): the lowest index. Line 13's "least recently" reads
  the whole history, not the episode's.
* A detection at line 17 or 20 starts the new episode at once (lines 18-25 are skipped); the
  sample of round t belongs to the old episode (t_ℓ = t + 1).
* Only whether S(a) is empty matters, and an obligation leaves once the arm's pulls since its
  start reach n: S(a) is kept as the pull count at which its last obligation ends.
* Randomness: at each round, one ``rng.random()`` per (bad arm, i), arms in index order and i
  increasing, in the policy's Generator; :mod:`bandits.reference.adswitch` draws the same.
* Rewards: x = (y - lo) * scale, the paper's [0, 1] (not clipped).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.algorithms.common import check_reward_range, reward_scale
from bandits.algorithms.forgetting import scale_record
from bandits.errors import require_choice, require_float

TESTS = ("remark3", "literal")
FIRST_K = 3  # Remark 3: "lengths ... 2^k log T for k = 3, 4, ..."


def remark3_lengths(T: int) -> np.ndarray:
    """Remark 3's lengths ceil(2^k log T), k = 3, 4, ..., up to T samples."""
    out, k = [], FIRST_K
    while math.ceil(2.0 ** k * math.log(T)) <= T:
        out.append(math.ceil(2.0 ** k * math.log(T)))
        k += 1
    return np.array(out, dtype=np.int64)


@njit(cache=True)
def suffix_mean(P, n, m):
    """Mean of an arm's last m samples of its n (P: prefix sums of the episode's samples)."""
    return (P[n] - P[n - m]) / m


@njit(cache=True)
def good_arm_changed(P, n, hi, lo, logT, literal, lengths, a):
    """Condition (3) for arm a after its n-th sample of the episode; hi[a] / lo[a] keep the
    running max of mu^ - width and min of mu^ + width over the episode's intervals (all of
    them, or Remark 3's windows, one extreme per length)."""
    found = False
    if literal:
        for m in range(1, n + 1):                     # the new intervals: the suffixes [s, t]
            y = suffix_mean(P, n, m)
            w = math.sqrt(2.0 * logT / m)
            hi[a, 0] = max(hi[a, 0], y - w)
            lo[a, 0] = min(lo[a, 0], y + w)
        for m in range(1, n + 1):                     # some [s1, s2] against some [s, t]
            y = suffix_mean(P, n, m)
            w = math.sqrt(2.0 * logT / m)
            if hi[a, 0] > y + w or y - w > lo[a, 0]:
                found = True
        return found
    for k in range(lengths.shape[0]):                 # the window of L_k samples ending now
        if lengths[k] > n:
            break
        y = suffix_mean(P, n, lengths[k])
        w = math.sqrt(2.0 * logT / lengths[k])
        hi[a, k] = max(hi[a, k], y - w)
        lo[a, k] = min(lo[a, k], y + w)
    for j in range(lengths.shape[0]):                 # [s, t]: the last L_j samples
        if lengths[j] > n:
            break
        y = suffix_mean(P, n, lengths[j])
        w = math.sqrt(2.0 * logT / lengths[j])
        for k in range(lengths.shape[0]):             # [s1, s2]: every window of L_k samples so far
            if lengths[k] > n:
                break
            if hi[a, k] > y + w or y - w > lo[a, k]:
                found = True
    return found


@njit(cache=True)
def bad_arm_changed(P, n, mu_tilde, gap_tilde, logT, literal, lengths):
    """Condition (4) for a bad arm with n samples in the episode: some suffix's mean is far
    from the mean recorded at its eviction."""
    if literal:
        for m in range(1, n + 1):
            if abs(suffix_mean(P, n, m) - mu_tilde) > gap_tilde / 4.0 + math.sqrt(2.0 * logT / m):
                return True
        return False
    for k in range(lengths.shape[0]):
        m = lengths[k]
        if m > n:
            break
        if abs(suffix_mean(P, n, m) - mu_tilde) > gap_tilde / 4.0 + math.sqrt(2.0 * logT / m):
            return True
    return False


@njit(cache=True)
def eviction_test(P, n, since, good, a, width):
    """Condition (1) for good arm a at an s where each arm b has since[b] samples in [s, t], with
    ``width`` = sqrt(C1 log T / (since[a] - 1)): (holds, mu^_[s,t](a), the gap to the best good arm)."""
    mean_a = suffix_mean(P[a], n[a], since[a])
    best = -math.inf
    for b in range(good.shape[0]):
        if good[b] and since[b] >= 1:
            best = max(best, suffix_mean(P[b], n[b], since[b]))
    gap = best - mean_a
    return gap > width, mean_a, gap


@njit(cache=True)
def adswitch_kernel(rewards, lo_r, scale, C1, literal, lengths, rng, actions, restarts, evictions):
    """Algorithm 1 of Auer, Gajane & Ortner (module doc), one round after another; returns the
    number of episodes started after the first (their first rounds in ``restarts``) and of
    evictions (rows (round, arm) of ``evictions``)."""
    T, K = rewards.shape
    logT = math.log(T)
    n_len = max(1, lengths.shape[0])
    P = np.zeros((K, T + 1))                          # the episode's samples of each arm: prefix sums
    rounds = np.zeros((K, T), dtype=np.int64)         # and the round of each
    before = np.zeros((T + 1, K), dtype=np.int64)     # before[u, b]: b's samples in the episode's first u rounds
    since = np.empty(K, dtype=np.int64)
    n = np.zeros(K, dtype=np.int64)                   # samples in the episode
    hi, lo = np.empty((K, n_len)), np.empty((K, n_len))
    good = np.ones(K, dtype=np.bool_)
    mu_tilde, gap_tilde = np.zeros(K), np.zeros(K)
    pulls = np.zeros(K, dtype=np.int64)               # every pull so far (obligations count them)
    owed_until = np.zeros(K, dtype=np.int64)          # S(a) non-empty while pulls[a] < owed_until[a]
    last = np.full(K, -1, dtype=np.int64)             # the round each arm was last played
    evicted = np.zeros(K, dtype=np.bool_)             # evicted last round: (4) not yet checked
    new_bad = np.zeros(K, dtype=np.bool_)
    evict_width = np.empty(n_len)                     # (1)'s sqrt(C1 log T / (n - 1)) at n = L_k
    for k in range(lengths.shape[0]):
        evict_width[k] = math.sqrt(C1 * logT / (lengths[k] - 1))
    owed = np.zeros(64, dtype=np.int64)               # an obligation's samples, ceil(2^(2i+1) log T)
    for i in range(1, 64):                            # beyond int64 (i > 29 or so): never met within T
        owed[i] = math.ceil(2.0 ** (2 * i + 1) * logT) if 2.0 ** (2 * i + 1) * logT < 2.0 ** 62 else 1 << 62
    ell, n_restarts, n_evictions, t_ell = 0, 0, 0, 0
    start_episode = True
    for t in range(T):
        if start_episode:                             # line 3
            ell += 1
            t_ell = t
            n[:] = 0
            good[:] = True
            owed_until[:] = 0
            evicted[:] = False
            hi[:, :] = -math.inf
            lo[:, :] = math.inf
            start_episode = False
        p_base = math.sqrt(ell / (K * T * logT))
        for a in range(K):                            # lines 10-11
            if not good[a]:
                i, eps = 1, 0.5                       # eps = 2^-i (halving is exact)
                while eps >= gap_tilde[a] / 16.0 and i < 64:   # i < 64: Delta~ > 0 always ends it sooner
                    if rng.random() < eps * p_base:
                        owed_until[a] = max(owed_until[a], pulls[a] + owed[i])
                    i, eps = i + 1, eps * 0.5
        arm = -1                                      # line 13: least recently played eligible arm
        for a in range(K):
            if (good[a] or owed_until[a] > pulls[a]) and (arm < 0 or last[a] < last[arm]):
                arm = a
        actions[t] = arm
        x = (rewards[t, arm] - lo_r) * scale          # line 14
        last[arm] = t
        pulls[arm] += 1
        rounds[arm, n[arm]] = t
        P[arm, n[arm] + 1] = P[arm, n[arm]] + x
        n[arm] += 1
        u = t - t_ell                                 # the episode's round count
        for b in range(K):
            before[u + 1, b] = n[b]
        if good[arm] and good_arm_changed(P[arm], n[arm], hi, lo, logT, literal, lengths, arm):   # lines 15-17
            start_episode = True
        for a in range(K):                            # lines 18-20: (4) changes only with a's samples
            if not start_episode and not good[a] and (a == arm or evicted[a]):
                if bad_arm_changed(P[a], n[a], mu_tilde[a], gap_tilde[a], logT, literal, lengths):
                    start_episode = True
            evicted[a] = False
        if start_episode:
            restarts[n_restarts] = t + 1
            n_restarts += 1
            continue
        # line 21 is owed_until; lines 22-25: (1) against GOOD_t, every arm meeting it leaves
        new_bad[:] = False
        for a in range(K):
            if not good[a]:
                continue
            if literal:                               # every s of the episode, latest first: the earliest wins
                for s_ in range(t, t_ell - 1, -1):
                    for b in range(K):
                        since[b] = n[b] - before[s_ - t_ell, b]
                    if since[a] >= 2:
                        holds, mean_a, gap = eviction_test(P, n, since, good, a,
                                                           math.sqrt(C1 * logT / (since[a] - 1)))
                        if holds:
                            new_bad[a], mu_tilde[a], gap_tilde[a] = True, mean_a, gap
            else:                                     # s where [s, t] holds a's last L_k samples, longest first
                for k in range(lengths.shape[0] - 1, -1, -1):
                    if lengths[k] <= n[a]:
                        s_ = rounds[a, n[a] - lengths[k]]
                        for b in range(K):
                            since[b] = n[b] - before[s_ - t_ell, b]
                        holds, mean_a, gap = eviction_test(P, n, since, good, a, evict_width[k])
                        if holds:
                            new_bad[a], mu_tilde[a], gap_tilde[a] = True, mean_a, gap
                            break
        for a in range(K):
            if new_bad[a]:
                good[a] = False
                owed_until[a] = 0                     # line 24: S(a) <- {}
                evicted[a] = True
                evictions[n_evictions, 0], evictions[n_evictions, 1] = t, a
                n_evictions += 1
    return n_restarts, n_evictions


class AdSwitch:
    """AdSwitch (Auer, Gajane & Ortner 2019, Algorithm 1; module doc): ``tests`` = remark3
    (Remark 3's lengths, default) or literal (every s, for small T)."""

    problem_kinds = ("karmed",)

    def __init__(self, C1: float = 32.0, tests: str = "remark3", reward_range=None):
        self.C1 = C1
        self.tests = tests
        self.reward_range = reward_range

    def needs(self) -> tuple:
        """Only the reward range (unless algo.reward_range is set): AdSwitch knows T, not the changes."""
        return () if self.reward_range is not None else ("reward_range",)

    def check_params(self) -> None:
        require_float("algo.C1", self.C1, minimum=0.0, strict=True)
        require_choice("algo.tests", self.tests, set(TESTS))
        check_reward_range(self.reward_range)

    def resolve(self, T: int, info: dict) -> dict:
        lo, scale = reward_scale(self, info)
        lengths = remark3_lengths(T) if self.tests == "remark3" else np.zeros(0, dtype=np.int64)
        return {"C1": float(self.C1), "tests": self.tests, "lengths": lengths.tolist(),
                "reward_range": scale_record(lo, scale)}

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T = rewards.shape[0]
        p = self.derived_ = self.resolve(T, info)
        lo, scale = reward_scale(self, info)
        actions = np.empty(T, dtype=np.int64)
        restarts, evictions = np.empty(T, dtype=np.int64), np.empty((T, 2), dtype=np.int64)
        n, m = adswitch_kernel(rewards, lo, scale, p["C1"], self.tests == "literal",
                               np.array(p["lengths"], dtype=np.int64), rng, actions, restarts, evictions)
        self.derived_["restarts"] = int(n)
        # restarts: each new episode's first round; evictions: the round and arm of each (line 23)
        self.events_ = {"restarts": restarts[:n].tolist(), "evictions": evictions[:m].tolist()}
        return actions
