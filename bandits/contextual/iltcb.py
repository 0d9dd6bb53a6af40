"""ILTCB (ILOVETOCONBANDITS, Agarwal et al. 2014) on the block schedule of ada
Algorithm 1, without tests or replays.

Constants (ada Algorithm 1): C0 = ln(8 T^3 |Pi|^2 / delta), block base length
L = ceil(4 K C0), nu_j = sqrt(C0 / (K 2^j L)). Block 0 is rounds [tau, tau + L - 1]
and block j >= 1 is [tau + 2^(j-1) L, tau + 2^j L - 1]. Block 0 plays Q_0, "an
arbitrary sparse distribution": all mass on policy 0. At the start of block j >= 1
the OP (Figure 1, :mod:`bandits.contextual.op_solver`) is solved on all data of the
epoch so far, B_(j-1) = [tau, tau + 2^(j-1) L - 1], with nu = nu_j, and the block
plays a_t ~ Q_j^{nu_j}(. | x_t). Rewards are importance weighted with the
probability actually used, w_t = r_t / p_t(a_t).

Presets (``preset``):

* ``theory``: the paper's constants, C = 1.2e7 and delta = 0.05 in C0.
* ``practical``: C = 1.2e7 * ``C_scale`` with C_scale = 1e-10 (C = 0.0012), C0 as
  in theory. With C = 1.2e7 constraint (2) is V <= 2K for every policy whatever
  its regret, which keeps exploring bad policies; C_scale was chosen by
  ``scripts/tune_iltcb.py`` on a tuning instance (root seed 99, never used for
  evaluation) from {1e-10, ..., 1e-3, 1}: mean regrets 22,619 (1e-10), 22,626
  (1e-9), 22,642 (1e-8), 24,911 (1e-7), ..., 32,982 (1). ``C_scale`` and
  ``C0_scale`` (multiplies C0, hence L and nu_j) are the two knobs.

``restart_at_changes: true`` (``oracle_restart``) starts a new epoch at every true
change point: an oracle reference, told the change points through the one explicit
channel for evaluation data (``oracle_knowledge``, see
:func:`bandits.simulation.learner_info`); ILTCB itself never restarts.
"""

from __future__ import annotations

import math

import numpy as np

from bandits.contextual.common import contextual_problem, mixture, play_mixture
from bandits.contextual.op_solver import solve_op
from bandits.errors import ConfigError, require_choice, require_float

PRESETS = {"theory": {"C_scale": 1.0, "C0_scale": 1.0}, "practical": {"C_scale": 1e-10, "C0_scale": 1.0}}
C_PAPER = 1.2e7


def constants(T: int, K: int, N: int, delta: float, C0_scale: float = 1.0) -> dict:
    C0 = C0_scale * math.log(8 * float(T) ** 3 * float(N) ** 2 / delta)
    L = int(math.ceil(4 * K * C0))
    return {"C0": C0, "L": L}


def nu_j(j: int, K: int, C0: float, L: int) -> float:
    return math.sqrt(C0 / (K * 2 ** j * L))


class ILTCB:
    problem_kinds = ("contextual",)

    def needs(self) -> tuple:
        return ("policy_actions", "reward_range")

    def __init__(self, preset: str = "practical", delta: float = 0.05, C_scale: float | None = None,
                 C0_scale: float | None = None, restart_at_changes: bool = False):
        self.preset = preset
        self.delta = delta
        self.C_scale = C_scale
        self.C0_scale = C0_scale
        self.restart_at_changes = restart_at_changes

    @property
    def oracle_knowledge(self) -> tuple:
        """Evaluation data this algorithm is told by design: the change points, for the oracle reference."""
        return ("change_points",) if self.restart_at_changes else ()

    def check_params(self) -> None:
        require_choice("algo.preset", self.preset, set(PRESETS))
        d = require_float("algo.delta", self.delta, minimum=0.0, strict=True)
        if d >= 1:
            raise ConfigError(f"algo.delta must lie in (0, 1), got {d}.")
        require_float("algo.C_scale", self.C_scale, minimum=0.0, strict=True, allow_none=True)
        require_float("algo.C0_scale", self.C0_scale, minimum=0.0, strict=True, allow_none=True)

    def _knobs(self):
        p = PRESETS[self.preset]
        return (p["C_scale"] if self.C_scale is None else float(self.C_scale),
                p["C0_scale"] if self.C0_scale is None else float(self.C0_scale))

    def play(self, rewards, info, rng, features=None):
        pclass = contextual_problem(type(self).__name__, rewards, info)
        T, K = rewards.shape
        C_scale, C0_scale = self._knobs()
        const = constants(T, K, pclass.size, float(self.delta), C0_scale)
        C0, L, C = const["C0"], const["L"], C_PAPER * C_scale
        restarts = sorted(int(c) for c in info["oracle"]["change_points"]) if self.restart_at_changes else []
        u = rng.random(T)
        actions = np.zeros(T, dtype=np.int64)
        probs = np.ones(T)
        weights = np.zeros(T)
        log = {"blocks": [], "op_iterations": [], "support": [], "epochs": [0]}
        tau = 0
        pending = [r for r in restarts if 0 < r < T]  # a change point at or beyond T starts no epoch here
        while tau < T:
            end_epoch = pending.pop(0) if pending else T
            j = 0
            support, wts = np.array([0]), np.array([1.0])
            while True:
                start = tau if j == 0 else tau + 2 ** (j - 1) * L
                stop = min(tau + 2 ** j * L, end_epoch)
                if start >= stop:
                    break
                nu = min(nu_j(j, K, C0, L), 1.0 / K)
                if j > 0:  # the OP on the epoch's data so far, B_(j-1) = [tau, start)
                    res = solve_op(pclass, np.arange(tau, start), actions, weights, nu, C)
                    support, wts = np.asarray(res.support, dtype=np.int64), np.asarray(res.weights)
                    log["op_iterations"].append(res.iterations)
                    log["support"].append(len(res.support))
                play_mixture(pclass.pred, mixture([((support, wts), nu)]), K, u, start, stop, actions, probs)
                picked = rewards[np.arange(start, stop), actions[start:stop]]
                weights[start:stop] = picked / probs[start:stop]
                log["blocks"].append(int(start))
                j += 1
            tau = end_epoch
            if tau < T:
                log["epochs"].append(int(tau))
        self.derived_ = {"preset": self.preset, "C": C, "C0": C0, "L": L, "oracle_calls": pclass.calls_,
                         "n_blocks": len(log["blocks"]), "op_iterations": log["op_iterations"],
                         "support_sizes": log["support"], "epochs": log["epochs"]}
        return actions
