"""SW-UCB and UCB for drifting generalized linear bandits (hedging §8.3, eqs. (24)-(26)).

Model: a fixed action set D (rows of ``features[0]``; its first d rows are the basis
vectors a_1..a_d used for forced exploration, lambda_0 = 1), reward Y_t in [0, Y_max]
with mean mu(<X_t, theta_t>), mu the logistic link.

Per round of a window w (restarted from scratch on each segment, as BOB needs):

* forced exploration (§8.3, "select the actions a_1, ..., a_d every w rounds"):
  rounds r = 0..d-1 of every w-round cycle of the segment play a_(r+1);
* otherwise eq. (25): argmax_x <x, theta_hat> + beta ||x||_{V^{-1}}, V = lambda I +
  sum over the window of X_s X_s^T (kept in O(d^2) per round, as for linear
  SW-UCB; lambda = 1, a documented regulariser: the forced exploration already
  makes the window's Gram matrix invertible), ties to the lowest index;
* theta_hat solves the quasi-likelihood equation (24), sum_s (Y_s - mu(<X_s, theta>)) X_s = 0,
  over the window, with a ridge term lambda theta for stability (documented), by
  ``newton_steps`` (default 1) Newton steps warm-started from the previous
  estimate, redone every ``refit_every`` rounds (default max(1, ceil(w / 20)):
  about 20 refits per window, so a round costs O(d^2) amortised whatever w;
  documented deviation from solving (24) exactly every round. Newton converges
  quadratically from a warm start; tests check the solver against BFGS);
* beta = 2 k_mu Y_max sqrt(2 d ln(w) ln(2 d T^2) (3 + 2 ln(1 + 2 L^2 / lambda_0))) / c_mu
  (§8.3) with k_mu = 1/4 and c_mu = mu'(S L) for the logistic link;
* the paper assumes ||theta_hat|| <= S (Faury et al.); otherwise a projection is
  needed. We rescale theta_hat onto the ball of radius S (a documented
  simplification of the GLM projection of Filippi et al.).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from bandits.algorithms.common import check_window, pick_window
from bandits.algorithms.sliding_window_least_squares import window_push, window_state
from bandits.algorithms.window import FILLED
from bandits.errors import ConfigError, require_float, require_int
from bandits.numerics import argmax_lowest, sigmoid_jit

# SW-UCB-GLB's constants, one record for the compiled kernel.
GLBConstants = namedtuple("GLBConstants", "lam beta S refit_every steps")


@njit(cache=True)
def _newton(rows, filled, theta, lam, steps):
    """``steps`` Newton steps on eq. (24) with a ridge term, over the window's first
    ``filled`` rows (x, y), warm-started at ``theta``."""
    d = theta.shape[0]
    for _ in range(steps):
        g = lam * theta.copy()
        H = lam * np.eye(d)
        for s in range(filled):
            z = 0.0
            for i in range(d):
                z += rows[s, i] * theta[i]
            mu = sigmoid_jit(z)
            w = mu * (1.0 - mu)
            for i in range(d):
                g[i] += (mu - rows[s, d]) * rows[s, i]
                for j in range(d):
                    H[i, j] += w * rows[s, i] * rows[s, j]
        theta -= np.linalg.solve(H, g)


@njit(cache=True)
def glb_segment(feats, rewards, start, stop, window, consts, actions):
    """SW-UCB-GLB on rounds [start, stop) from scratch (GLM-UCB when the window covers the
    whole segment); returns the realised reward."""
    K = rewards.shape[1]
    d = feats.shape[2]
    rows, state, V, Vinv, bvec, u = window_state(min(window, stop - start), d, consts.lam)
    theta = np.zeros(d)
    index = np.empty(K)
    total = 0.0
    for t in range(start, stop):
        r = t - start
        cycle = r % window
        if cycle < d and cycle < K:  # forced exploration: a_1..a_d at the start of every w-round cycle
            arm = cycle
        else:
            if r % consts.refit_every == 0 and state[FILLED] > 0:
                _newton(rows, state[FILLED], theta, consts.lam, consts.steps)
                norm = math.sqrt((theta * theta).sum())
                if norm > consts.S:
                    theta *= consts.S / norm
            for k in range(K):
                m = 0.0
                q = 0.0
                for i in range(d):
                    xi = feats[0, k, i]
                    m += xi * theta[i]
                    s = 0.0
                    for j in range(d):
                        s += Vinv[i, j] * feats[0, k, j]
                    q += xi * s
                index[k] = m + consts.beta * math.sqrt(max(q, 0.0))
            arm = argmax_lowest(index)
        y = rewards[t, arm]
        actions[t] = arm
        total += y
        window_push(feats[0, arm], y, rows, state, consts.lam, V, Vinv, bvec, u)
    return total


def glb_beta(d: int, w: int, T: int, L: float, lambda0: float, Y_max: float, k_mu: float, c_mu: float) -> float:
    """beta of §8.3."""
    return 2 * k_mu * Y_max * math.sqrt(2 * d * math.log(max(w, 2)) * math.log(2 * d * T * T)
                                        * (3 + 2 * math.log(1 + 2 * L * L / lambda0))) / c_mu


def glb_windows(T: int, d: int, B_T: float) -> dict:
    """Theorem 8.7's orders with constant 1 (the paper gives no eq. (101) for GLB):
    w_opt = ceil((dT)^(2/3) B_T^(-2/3)), w_obl = ceil((dT)^(2/3)), both capped at T."""
    obl = math.ceil((d * T) ** (2 / 3))
    opt = obl if B_T <= 0 else math.ceil((d * T) ** (2 / 3) / B_T ** (2 / 3))
    return {"opt": int(min(T, opt)), "obl": int(min(T, obl))}


class SlidingWindowGLB:
    """SW-UCB for GLB (§8.3); ``window``: int, opt or obl; ``stationary: true`` is the
    GLM-UCB counterpart (unbounded window)."""

    problem_kinds = ("glb",)

    def __init__(self, window="obl", lam: float = 1.0, newton_steps: int = 1, refit_every=None,
                 stationary: bool = False):
        self.window = window
        self.lam = lam
        self.newton_steps = newton_steps
        self.refit_every = refit_every
        self.stationary = stationary

    def needs(self) -> tuple:
        """d, S, L for beta of §8.3, the reward range [0, Y_max], and B_T for w_opt."""
        return ("d", "S", "L", "reward_bound", "reward_range") + (("B_T",) if self.window == "opt" else ())

    def check_params(self) -> None:
        check_window(self.window)
        require_float("algo.lam", self.lam, minimum=0.0, strict=True)
        require_int("algo.newton_steps", self.newton_steps, minimum=1)
        if self.refit_every is not None:
            require_int("algo.refit_every", self.refit_every, minimum=1)

    def resolve(self, T: int, info: dict) -> dict:
        if info.get("link") != "logistic":
            raise ConfigError("SW-UCB-GLB needs a generalized linear environment (env=drifting_logistic).")
        d = int(info["d"])
        B_T = float(info["B_T"]) if self.window == "opt" else 0.0
        w = pick_window(self.window, bool(self.stationary), T, glb_windows(T, d, B_T))
        S = float(info["S"])
        c_mu = sigmoid_jit(S * info["L"]) * (1 - sigmoid_jit(S * info["L"]))
        beta = glb_beta(d, w, T, float(info["L"]), 1.0, float(info["reward_bound"]), 0.25, c_mu)
        refit = int(self.refit_every) if self.refit_every is not None else max(1, math.ceil(w / 20))
        return {"window": w, "beta": beta, "c_mu": c_mu, "refit_every": refit, "S": S, "d": d}

    def play(self, rewards, info, rng, features=None):
        T = rewards.shape[0]
        p = self.resolve(T, info)
        lo, hi = info.get("reward_range", (-np.inf, np.inf))
        if lo < 0 or hi > info["reward_bound"]:
            raise ConfigError(f"SW-UCB-GLB needs rewards in [0, Y_max = {info['reward_bound']}]; this "
                              f"environment guarantees only [{lo:g}, {hi:g}].")
        actions = np.empty(T, dtype=np.int64)
        consts = GLBConstants(float(self.lam), p["beta"], p["S"], p["refit_every"], int(self.newton_steps))
        glb_segment(features, rewards, 0, T, p["window"], consts, actions)
        self.derived_ = p
        return actions
