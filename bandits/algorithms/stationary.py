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

The argmax is the argmax_lowest of all K exact indices, computed by the shared
:func:`bandits.algorithms.indices.klucb_argmax` (the one kl-UCB argmax, also GLR-klUCB's):
the last arm played is certified as the argmax with one kl evaluation and the other arms
ruled out by a closed-form bound or one kl evaluation each, so most rounds solve no more
than one index; the answer never differs from solving all K (proof in its docstring; tests
against the unpruned computation). At K = 5, T = 1e5: 65-125 ns per round, against
~1.1-1.3 us with every index solved.

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
from bandits.algorithms.indices import INDEX_KINDS, KLUCB_INDEX, UCB1_INDEX, klucb_argmax, ucb1_index
from bandits.errors import ConfigError, require_choice, require_float
from bandits.numerics import argmax_lowest

PAPER_C = {"ucb1": 2.0, "kl_ucb": 0.0}

# ----------------------------------------------------------------------------- the argmax of each index

@njit(cache=True)
def ucb1_argmax(sums, counts, log_t, c, index):
    """argmax_lowest over arms of mean + sqrt(c log t / n) (Auer et al. 2002, Fig. 1)."""
    for a in range(sums.shape[0]):
        index[a] = ucb1_index(sums[a], counts[a], log_t, c)
    return argmax_lowest(index)


# ----------------------------------------------------------------------------- the kernel

@njit(cache=True)
def restarted_index_policy(rewards, kind, c, lo, scale, restarts, actions):
    """UCB1 (``kind`` = UCB1_INDEX) or kl-UCB (KLUCB_INDEX) restarted from scratch at the
    sorted 0-based rounds ``restarts`` (empty: the stationary algorithm). s = rounds
    since the last (re)start is the "n" of UCB1's Fig. 1 and the "t" of kl-UCB's Alg. 1."""
    T, K = rewards.shape
    counts, sums, index, levels = np.zeros(K), np.zeros(K), np.empty(K), np.empty(K)
    guess = np.full(K, np.nan)            # kl-UCB: each arm's last index, a starting point (klucb_argmax)
    start, nxt, arm = 0, 0, 0
    for t in range(T):
        if nxt < restarts.shape[0] and t == restarts[nxt]:
            for a in range(K):
                counts[a] = 0.0
                sums[a] = 0.0
                guess[a] = np.nan
            start = t
            nxt += 1
        s = t - start
        if s < K:
            arm = s                       # "play each arm once", in order (infinite indices, lowest first)
        elif kind == UCB1_INDEX:
            arm = ucb1_argmax(sums, counts, math.log(s), c, index)
        else:
            log_s = math.log(s)
            level = log_s + c * math.log(log_s) if c != 0.0 else log_s
            for a in range(K):
                levels[a] = level
            arm = klucb_argmax(sums, counts, levels, arm, guess, index)   # the last arm played first
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
