"""RestartUCB: OFUL restarted from scratch every H rounds (Zhao, Zhang, Jiang & Zhou,
"A simple approach for non-stationary linear bandits", AISTATS 2020, PMLR 108:746-755;
revised as arXiv 2103.05324), with H tuned from the variation budget, and its
Bandit-over-Bandit variant that tunes H without it.

Source note. The paper's text was not readable here: the search corpora hold the
abstracts of the AISTATS version (dynamic regret O~(d^{2/3} (1 + P_T)^{1/3} T^{2/3})) and of
the revised arXiv version (a technical flaw shared with the sliding-window and
weighted analyses is fixed; RestartUCB then has O~(T^{3/4} P_T^{1/4}), "without modifying
the algorithm"; the tracking-error flaw that Faury, Russac, Abeille & Calauzenes, ALT 2021,
and Touati & Vincent also point out). P_T, the path length sum_t ||theta_t - theta_{t+1}||_2,
is the hedging paper's B_T. The epoch lengths below are our readings of those rates, each a config value:

* Epoch base learner: OFUL (Abbasi-Yadkori et al. 2011) as our ``UCB``: ridge estimate
  theta_hat = V^{-1} b with V = lambda I + sum x x^T over the epoch's own rounds, action
  argmax x^T theta_hat + beta_n ||x||_{V^{-1}}, beta_n = R sqrt(d ln((1 + n L^2 / lambda) / delta))
  + sqrt(lambda) S with n the epoch's observations so far
  (:func:`bandits.algorithms.tuning.oful_radii`, restarted with the epoch), delta = 1/T.
  Everything is forgotten at rounds H, 2H, 3H, ... (0-based).
* ``period: opt`` (knows B_T) with ``period_rule: aistats`` (default, the cited paper):
  H = ceil((d T / (1 + B_T))^{2/3}), capped at T: the OFUL regret d sqrt(H) per epoch
  (constants and logarithms dropped) balanced against the (flawed) drift cost H P_T per epoch,
  the choice that gives the abstract's d^{2/3} (1 + P_T)^{1/3} T^{2/3}.
  ``period_rule: corrected`` (the revised analysis): H = ceil(d^{1/4} (T / (1 + B_T))^{1/2}),
  capped at T: the drift cost becomes sqrt(d) H^{3/2} P_T per epoch, and the balance gives
  d^{7/8} (1 + P_T)^{1/4} T^{3/4}, the revised abstract's T^{3/4} P_T^{1/4}.
* ``period: <int>``: a fixed H.
* ``period: bob`` (does not know B_T): BOB (the paper's parameter-free variant) with
  RestartUCB as the base: :func:`bandits.algorithms.bandit_over_bandit.bob_blocks` over blocks
  of length H_BOB; in each block RestartUCB runs from scratch with restart period J[j] chosen
  by EXP3. The paper's block length and candidate set were not readable here; we take the
  hedging paper's (eq. (11) for linear action sets, eq. (23) for K arms, ``setting``):
  H_BOB = floor(d sqrt(T)) (linear) or floor(sqrt(d T)), J = {floor(H_BOB^(j/Delta))},
  Delta = ceil(ln H_BOB), Q = 2 H_BOB nu + 4 R sqrt(H_BOB ln(T / sqrt(H_BOB))) with nu =
  ``reward_bound``, gamma of eq. (12) (:func:`bandits.algorithms.tuning.bob_parameters`).
  ``clip_block_reward`` as in ``bob``.

Groups: ``restart_linucb`` (``period: opt``) knows B_T; ``restart_linucb_bob`` does not.

The kernels are the existing ones, run once per epoch: :func:`linear_ucb_segment` on action
vectors, :func:`sw_ucb_segment` on basis vectors (K arms), each with a window as long as the
epoch (so nothing leaves it) and OFUL's radii from 0 observations; the epochs are looped in
compiled code (:func:`restart_linear`, :func:`restart_karmed`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.algorithms.bandit_over_bandit import bob_blocks
from bandits.algorithms.common import known_constants, own_or_told, resolve_delta
from bandits.algorithms.sliding_window_ucb import check_ridge, linear_ucb_segment, sw_ucb_segment
from bandits.algorithms.tuning import OFULConstants, bob_parameters, oful_radii
from bandits.errors import ConfigError, require_choice, require_float, require_int

RULES = ("aistats", "corrected")


@njit(cache=True)
def restart_linear(feats, rewards, start, stop, period, lam, radii, actions):
    """OFUL on action vectors over [start, stop), restarted from scratch at start + k period.
    ``radii[n]`` is OFUL's radius after n observations of an epoch. Returns the realised reward."""
    total = 0.0
    s = start
    while s < stop:
        e = min(s + period, stop)
        total += linear_ucb_segment(feats, rewards, s, e, e - s, lam, radii, actions)
        s = e
    return total


@njit(cache=True)
def restart_karmed(rewards, start, stop, period, lam, radii, actions):
    """The same on basis vectors (K arms)."""
    total = 0.0
    s = start
    while s < stop:
        e = min(s + period, stop)
        total += sw_ucb_segment(rewards, s, e, e - s, lam, radii, np.inf, actions)
        s = e
    return total


def restart_period(T: int, d: int, B_T: float, rule: str = "aistats") -> int:
    """H from the variation budget (module doc): ``aistats`` ceil((d T / (1 + B_T))^(2/3)),
    ``corrected`` ceil(d^(1/4) (T / (1 + B_T))^(1/2)); both capped at T."""
    if rule == "aistats":
        H = math.ceil((d * T / (1.0 + B_T)) ** (2.0 / 3.0))
    elif rule == "corrected":
        H = math.ceil(d ** 0.25 * math.sqrt(T / (1.0 + B_T)))
    else:
        raise ConfigError(f"algo.period_rule must be one of {', '.join(RULES)}, got {rule!r}.")
    return int(min(T, max(1, H)))


class RestartLinUCB:
    """RestartUCB (Zhao et al., AISTATS 2020): OFUL restarted every H rounds; ``period``:
    ``opt`` (H from B_T, knows B_T), ``bob`` (BOB over the restart period, does not know B_T)
    or an integer. See the module doc."""

    problem_kinds = ("karmed", "linear")

    def __init__(self, period="opt", period_rule: str = "aistats", setting: str = "auto", lam: float = 1.0,
                 delta: float | None = None, clip_block_reward: bool = False, R: float | None = None,
                 L: float | None = None, S: float | None = None, B_T: float | None = None):
        self.period = period
        self.period_rule = period_rule
        self.setting = setting
        self.lam = lam
        self.delta = delta
        self.clip_block_reward = clip_block_reward
        self.R = R
        self.L = L
        self.S = S
        self.B_T = B_T

    def needs(self) -> tuple:
        """R, L, S for OFUL's radius (unless set here); B_T for ``period: opt``; the reward bound
        nu of BOB's Q for ``period: bob``."""
        extra = {"opt": ("B_T",), "bob": ("reward_bound",)}.get(self.period, ()) if isinstance(self.period, str) \
            else ()
        return own_or_told(self, ("d", "R", "L", "S") + extra)

    def check_params(self) -> None:
        if isinstance(self.period, str):
            require_choice("algo.period", self.period, {"opt", "bob"})
        else:
            require_int("algo.period", self.period, minimum=1)
        require_choice("algo.period_rule", self.period_rule, set(RULES))
        require_choice("algo.setting", self.setting, {"auto", "karmed", "linear"})
        require_float("algo.lam", self.lam, minimum=0.0, strict=True)  # OFUL's ridge divides by it
        check_ridge(self)

    def resolve(self, T: int, info: dict) -> dict:
        """Derived constants for a horizon T (recorded with every result)."""
        c = known_constants(self, info, ("R", "L", "S") + (("B_T",) if self.period == "opt" else ()))
        p = {"delta": resolve_delta(self.delta, T), "lam": float(self.lam), **c}
        if self.period == "bob":
            setting = self.setting if self.setting != "auto" else ("linear" if info.get("linear") else "karmed")
            p.update(bob_parameters(T, c["d"], c["R"], setting, float(info["reward_bound"])))
            p["J"] = [int(j) for j in p["J"]]
        elif self.period == "opt":
            p.update(period=restart_period(T, c["d"], c["B_T"], self.period_rule), period_rule=self.period_rule)
        else:
            p["period"] = int(min(T, int(self.period)))
        return p

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T = rewards.shape[0]
        p = self.derived_ = self.resolve(T, info)
        lam = p["lam"]
        oful = OFULConstants(p["R"], p["d"], p["L"], p["S"], p["delta"], lam)
        actions = np.empty(T, dtype=np.int64)

        def run(start, stop, period, radii):  # RestartUCB on [start, stop) with restart period ``period``
            if features is not None:
                return restart_linear(features, rewards, start, stop, period, lam, radii, actions)
            return restart_karmed(rewards, start, stop, period, lam, radii, actions)

        if self.period != "bob":
            H = p["period"]
            run(0, T, H, oful_radii(oful, H))
            p["n_restarts"] = (T - 1) // H
            self.events_ = {"restarts": list(range(H, T, H))}
            return actions
        J = p["J"]
        radii = oful_radii(oful, max(J))
        chosen = bob_blocks(T, p, rng.random(p["n_blocks"]), lambda start, stop, j: run(start, stop, J[j], radii),
                            bool(self.clip_block_reward))
        self.events_ = {"blocks": list(range(0, T, p["H"])), "periods": [J[j] for j in chosen]}
        return actions
