"""The stationary index policies UCB1 and kl-UCB, and the oracle that restarts one of
them at the true change points: one compiled kernel, "an index policy restarted from
scratch at given rounds" (no restarts = the stationary algorithm).

**UCB1** (Auer, Cesa-Bianchi & Fischer 2002, Fig. 1). "Initialization: play each
machine once. Loop: play machine j that maximizes x_bar_j + sqrt(2 ln n / n_j), where
x_bar_j is the average reward obtained from machine j, n_j the number of times j has
been played so far, and n the overall number of plays done so far." Here:

* "play each machine once": an arm with n_j = 0 has an infinite index
  (:func:`bandits.algorithms.indices.ucb1_index`), so rounds 0..K-1 play arms 0..K-1
  in order (the tie rule takes the lowest infinite index);
* n = the number of plays done so far = the 0-based round index t (rounds since the
  last restart for the oracle), so round t uses ln t;
* the constant 2 is ``c`` (default 2, the paper's): index mean + sqrt(c ln n / n_j);
* the paper's rewards lie in [0, 1]: a reward y is read as x = (y - lo) * scale
  (:func:`bandits.algorithms.common.reward_scale`: ``algo.reward_range`` or the
  environment's). UCB1's index needs no clipping, so x is not clipped (an environment
  that breaks its declared range moves the means, and nothing else).

**kl-UCB** for Bernoulli rewards (Garivier & Cappé, COLT 2011, Alg. 1): pull each arm
once, then at round t (t = the number of rounds played so far, as in Alg. 1's
"for t = K to n - 1") pull argmax_a max{q in [0, 1] : N_a(t) kl(mu_hat_a(t), q) <=
log(t) + c log(log(t))}, with kl the Bernoulli divergence
(:func:`bandits.algorithms.indices.klucb_index`, Newton in -log(1 - q)). The paper's
theorem takes c = 3 and its experiments recommend c = 0; ``c`` defaults to 0 (the
paper's practical choice), c = 3 is the proved one. Where log t + c log log t <= 0
(only t = 2 with c > 0: log log 2 < 0), the set has no q above the mean and the index
is the mean (the level -> 0 limit). kl is defined for means in [0, 1], so x is
clipped to [0, 1] (a documented choice; no effect on Bernoulli rewards).

The argmax is the argmax_lowest of all K exact indices, computed with certified
pruning (the answer never differs; proofs in the docstrings, tests against the
unpruned computation). A Newton solve costs ~250 ns, one kl evaluation ~15 ns. After
a round where indices were solved, a threshold w is put midway between the winner's
index and the runner-up's, and each other arm a gets the level up to which its index
is certified below w's tie band (:func:`klucb_certify`: n_a kl(mean_a, w), computed
once). In the next rounds the winner is re-certified above w with one kl evaluation,
the others by comparing the level with their stored bounds
(:func:`klucb_leader_wins`); when a certificate fails, only the two largest indices
are solved (:func:`klucb_top_two`, the others ruled out by one kl evaluation each),
which gives the same winner and the same next threshold as all K solves. (Pinsker's
bound mean + sqrt(level / 2n) is no use here: an arm at its exploration boundary has
a Pinsker bound above the best mean.) At K = 5, T = 1e5: ~60 ns per round with well
separated means, 80-160 ns with near-ties, against ~1.1-1.3 us with every index solved.

**Oracle restart** (``oracle_restart_ucb``): UCB1 (``index: ucb1``, default) or kl-UCB
(``index: kl_ucb``) restarted from scratch -- counts, sums, and the time t of the index
-- at each true change point. It is a reference, not a learner: the one explicit
exception to bandit feedback, it declares ``oracle_knowledge = ("change_points",)`` and
the runner hands it ``info["oracle"]["change_points"]`` (0-based rounds where a new
piece starts; :func:`bandits.simulation.learner_info`). Default UCB1: the issue names
it "UCB restarted at the true change points", and UCB1 is the base policy of CUSUM-UCB
and M-UCB, whose detection delays this oracle isolates; kl-UCB is the natural oracle
for GLR-klUCB and is one option away.

Ties go to the lowest index within 1e-12 relative (:func:`bandits.numerics.argmax_lowest`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.algorithms.common import check_reward_range, reward_scale
from bandits.algorithms.indices import klucb_index, ucb1_index
from bandits.errors import ConfigError, require_choice, require_float
from bandits.numerics import KL_EPS, TIE_TOL, argmax_lowest, kl_bernoulli

UCB1_INDEX, KLUCB_INDEX = 0, 1
INDEX_KINDS = {"ucb1": UCB1_INDEX, "kl_ucb": KLUCB_INDEX}
PAPER_C = {"ucb1": 2.0, "kl_ucb": 0.0}

# The certificates of the kl-UCB argmax (klucb_certify, klucb_leader_wins) compare with
# slack: the computed kl-UCB index differs from the exact root by rounding and by the
# Newton stopping rule (well below 1e-12 once the root is CERT_GAP above the mean);
# CERT_SLACK dwarfs that, so a certificate never vouches for an arm whose computed index
# could reach the threshold. Where the threshold is within CERT_GAP of an arm's mean,
# kl is too flat to certify anything and no certificate is issued. (Larger values only
# certify less often; they never change an answer.)
CERT_SLACK = 1e-9
CERT_GAP = 1e-6


# ----------------------------------------------------------------------------- the argmax of each index

@njit(cache=True)
def ucb1_argmax(sums, counts, log_t, c, index):
    """argmax_lowest over arms of mean + sqrt(c log t / n) (Auer et al. 2002, Fig. 1)."""
    for a in range(sums.shape[0]):
        index[a] = ucb1_index(sums[a], counts[a], log_t, c)
    return argmax_lowest(index)


@njit(cache=True)
def klucb_argmax(sums, counts, level, index):
    """argmax_lowest over arms of the exact kl-UCB indices max{q : n kl(mean, q) <= level}
    (Garivier & Cappé 2011, Alg. 1), all K of them (Newton, ~250 ns each)."""
    for a in range(sums.shape[0]):
        index[a] = klucb_index(sums[a], counts[a], level)
    return argmax_lowest(index)


@njit(cache=True)
def clamped_mean(sums, counts, a):
    """Arm a's mean as the kl-UCB solve sees it: clamped to [KL_EPS, 1 - KL_EPS]."""
    return min(max(sums[a] / counts[a], KL_EPS), 1.0 - KL_EPS)


@njit(cache=True)
def klucb_certify(sums, counts, leader, w, expiry):
    """Certificates that every arm but ``leader`` stays below the tie band of ``w``: for
    arm a with clamped mean pc and z = cut(w) - CERT_SLACK (cut(m) = m - TIE_TOL max(1, |m|),
    the tie rule's threshold), expiry[a] = n_a kl(pc, z). kl(pc, .) increases on [pc, 1],
    so while level < expiry[a] (and arm a is not pulled), its index root lies below z and
    its computed index below cut(w). (For z >= 1 - KL_EPS kl_bernoulli clamps z to
    1 - KL_EPS: then n_a kl(pc, 1 - KL_EPS) > level rules out the index 1.0 and puts the
    root below 1 - KL_EPS <= z, and the claim still holds.) No certificate (-inf) where
    z < pc + CERT_GAP."""
    z = w - TIE_TOL * max(1.0, abs(w)) - CERT_SLACK
    for a in range(sums.shape[0]):
        if a == leader:
            continue
        pc = clamped_mean(sums, counts, a)
        expiry[a] = counts[a] * kl_bernoulli(pc, z) if z >= pc + CERT_GAP else -math.inf


@njit(cache=True)
def klucb_leader_wins(sums, counts, level, leader, w, expiry):
    """True only if ``leader`` is argmax_lowest of all K exact kl-UCB indices at ``level``
    (the exactness of the pruned argmax).

    (i) With u = w + CERT_SLACK: if u <= pc_L, v_L >= w since an index is never below
    the (clamped) mean (the Newton iterates decrease to the root from above, and the
    root is >= pc_L; the mean itself is returned when level <= 0); else, with
    pc_L + CERT_GAP <= u < 1 - KL_EPS (where kl_bernoulli clamps nothing),
    n_L kl(pc_L, u) <= level puts the leader's root above u, so its computed index
    v_L >= w. (ii) level < expiry[a] for every other arm a puts its computed index v_a
    below cut(w) (:func:`klucb_certify`). Then the maximum M of the computed indices is
    >= v_L >= w, and since cut is non-decreasing, cut(M) >= cut(w) > v_a for every
    a != L: the leader is the only arm inside the tie band [cut(M), M], and
    argmax_lowest over all K indices returns it. When this returns False the caller
    solves the indices (:func:`klucb_top_two`, itself exact), so the answer is always
    the unpruned one (tests compare both on random states and trajectories)."""
    for a in range(sums.shape[0]):
        if a != leader and level >= expiry[a]:
            return False
    u = w + CERT_SLACK
    pc = clamped_mean(sums, counts, leader)
    return u <= pc or (pc + CERT_GAP <= u < 1.0 - KL_EPS and counts[leader] * kl_bernoulli(pc, u) <= level)


@njit(cache=True)
def klucb_threshold(index, leader):
    """The certificates' threshold after an exact round, and the runner-up: w is midway
    between the winner's index and the best other index (as far from both as possible,
    so the certificates last the most rounds)."""
    second, runner = -math.inf, leader
    for a in range(index.shape[0]):
        if a != leader and index[a] > second:
            second, runner = index[a], a
    return 0.5 * (index[leader] + second), runner


@njit(cache=True)
def klucb_top_two(sums, counts, level, first, second, index):
    """:func:`klucb_argmax` solving only the indices that can be among the two largest:
    arms ``first`` and ``second`` (the caller's guesses: the last winner and runner-up)
    exactly, then each other arm a exactly unless, with m2 the second-largest index
    solved so far and z = cut(m2) - CERT_SLACK >= pc_a + CERT_GAP,
    n_a kl(pc_a, z) > level shows its computed index below cut(m2) (as in
    :func:`klucb_certify`); ``index`` holds -inf for a skipped arm.

    Both results equal those of all K indices solved: (1) the argmax, since a skipped
    arm's index is below cut(m2) <= cut(M) (m2 <= M, the final maximum, and cut is
    non-decreasing), outside the tie band, as in :func:`klucb_leader_wins`; (2) the
    threshold of :func:`klucb_threshold`, since the best solved index other than the
    winner is >= the final second-largest solved index >= every m2 used to skip, above
    every skipped arm's index."""
    K = sums.shape[0]
    for a in range(K):
        index[a] = -math.inf
    if second == first:
        second = (first + 1) % K
    m1 = index[first] = klucb_index(sums[first], counts[first], level)
    m2 = index[second] = klucb_index(sums[second], counts[second], level)
    if m2 > m1:
        m1, m2 = m2, m1
    for a in range(K):
        if a == first or a == second:
            continue
        z = m2 - TIE_TOL * max(1.0, abs(m2)) - CERT_SLACK
        pc = clamped_mean(sums, counts, a)
        if z >= pc + CERT_GAP and counts[a] * kl_bernoulli(pc, z) > level:
            continue
        v = index[a] = klucb_index(sums[a], counts[a], level)
        if v > m1:
            m1, m2 = v, m1
        elif v > m2:
            m2 = v
    return argmax_lowest(index)


# ----------------------------------------------------------------------------- the kernel

@njit(cache=True)
def restarted_index_policy(rewards, kind, c, lo, scale, restarts, actions):
    """UCB1 (``kind`` = UCB1_INDEX) or kl-UCB (KLUCB_INDEX) restarted from scratch at the
    sorted 0-based rounds ``restarts`` (empty: the stationary algorithm). s = rounds
    since the last (re)start is the "n" of UCB1's Fig. 1 and the "t" of kl-UCB's Alg. 1."""
    T, K = rewards.shape
    counts, sums, index, expiry = np.zeros(K), np.zeros(K), np.empty(K), np.empty(K)
    start, nxt, arm = 0, 0, 0
    certified, leader, runner, w = False, 0, 1 % K, 0.0    # kl-UCB: the pruning certificates (klucb_leader_wins)
    for t in range(T):
        if nxt < restarts.shape[0] and t == restarts[nxt]:
            for a in range(K):
                counts[a] = 0.0
                sums[a] = 0.0
            start = t
            nxt += 1
        s = t - start
        if s < K:
            arm = s                       # "play each arm once", in order (infinite indices, lowest first)
            certified = False
        elif kind == UCB1_INDEX:
            arm = ucb1_argmax(sums, counts, math.log(s), c, index)
        else:
            log_s = math.log(s)
            level = log_s + c * math.log(log_s) if c != 0.0 else log_s
            if certified and klucb_leader_wins(sums, counts, level, leader, w, expiry):
                arm = leader
            else:                         # the two largest indices exactly, then new certificates
                arm = klucb_top_two(sums, counts, level, leader, runner, index)
                w, runner = klucb_threshold(index, arm)
                leader = arm
                klucb_certify(sums, counts, leader, w, expiry)
                certified = True
        actions[t] = arm
        x = (rewards[t, arm] - lo) * scale
        if kind == KLUCB_INDEX:
            x = min(1.0, max(0.0, x))
        counts[arm] += 1.0
        sums[arm] += x


# ----------------------------------------------------------------------------- the algorithms

class _RestartedIndexPolicy:
    """What UCB1, kl-UCB and the oracle share: the reward range, c, and the kernel call."""

    problem_kinds = ("karmed",)

    def needs(self) -> tuple:
        """The reward range, to map rewards to [0, 1], unless set here (algo.reward_range)."""
        return () if self.reward_range is not None else ("reward_range",)

    c_may_be_null = False    # the oracle's c: null = its index's paper value

    def check_params(self) -> None:
        require_float("algo.c", self.c, minimum=0.0, allow_none=self.c_may_be_null)
        check_reward_range(self.reward_range)

    def _run(self, rewards, info, index: str, c: float, restarts) -> np.ndarray:
        T = rewards.shape[0]
        lo, scale = reward_scale(self, info)
        restarts = np.asarray(sorted({int(r) for r in restarts if 0 < int(r) < T}), dtype=np.int64)
        self.derived_ = {"index": index, "c": float(c), "reward_range": [lo, lo + 1.0 / scale],
                         "restarts": int(restarts.shape[0])}
        actions = np.empty(T, dtype=np.int64)
        restarted_index_policy(rewards, INDEX_KINDS[index], float(c), lo, scale, restarts, actions)
        return actions


class UCB1(_RestartedIndexPolicy):
    """UCB1 (Auer, Cesa-Bianchi & Fischer 2002, Fig. 1); see the module doc.
    ``c``: the constant of sqrt(c ln n / n_j), 2 in the paper."""

    def __init__(self, c: float = 2.0, reward_range=None):
        self.c = c
        self.reward_range = reward_range

    def play(self, rewards, info, rng, features=None) -> np.ndarray:
        return self._run(rewards, info, "ucb1", float(self.c), ())


class KLUCB(_RestartedIndexPolicy):
    """kl-UCB for Bernoulli rewards (Garivier & Cappé 2011, Alg. 1); see the module doc.
    ``c``: exploration log t + c log log t; 0 (the paper's practical choice, default) or
    3 (its theorem)."""

    def __init__(self, c: float = 0.0, reward_range=None):
        self.c = c
        self.reward_range = reward_range

    def play(self, rewards, info, rng, features=None) -> np.ndarray:
        return self._run(rewards, info, "kl_ucb", float(self.c), ())


class OracleRestartUCB(_RestartedIndexPolicy):
    """UCB1 or kl-UCB restarted at the true change points: an oracle reference, told the
    change points through the one declared channel (module doc). ``index``: ucb1
    (default) | kl_ucb; ``c``: null = the index's paper value (2 for UCB1, 0 for kl-UCB)."""

    oracle_knowledge = ("change_points",)

    def __init__(self, index: str = "ucb1", c: float | None = None, reward_range=None):
        self.index = index
        self.c = c
        self.reward_range = reward_range

    c_may_be_null = True

    def check_params(self) -> None:
        require_choice("algo.index", self.index, set(INDEX_KINDS))
        super().check_params()

    def play(self, rewards, info, rng, features=None) -> np.ndarray:
        oracle = info.get("oracle") or {}
        if "change_points" not in oracle:
            raise ConfigError("OracleRestartUCB is an oracle reference: it must be told the change points "
                              "(info['oracle']['change_points']), which this environment does not report.")
        c = PAPER_C[self.index] if self.c is None else float(self.c)
        changes = [int(r) for r in oracle["change_points"]]
        actions = self._run(rewards, info, self.index, c, changes)
        self.events_ = {"restarts": sorted({r for r in changes if 0 < r < rewards.shape[0]})}
        return actions
