"""Drifting contextual bandit for Ada-ILTCB+ (ada paper; our design, spec §2).

Contexts x_t ~ N(0, I_d) (``context: gaussian``) or uniform on the unit sphere
(``sphere``). Action a pays r_t(a) ~ Bernoulli(sigmoid(theta_{t,a} . x_t)), so
rewards lie in [0, 1] as the paper requires. theta_t is a K x d matrix:

* ``mode: switching``: S pieces (``n_pieces``, or ceil(T^``pieces_exponent``) when
  that is set), change points evenly spaced (``change_points: even``) or drawn
  uniformly without replacement (``random``); theta is redrawn at each change,
  entries N(0, ``scale``^2 / d); with ``shift`` = s in (0, 1] the new theta is
  (1 - s) theta_old + s theta_fresh instead (the size of a change, for C3).
* ``mode: drifting``: theta rotates continuously, theta_t = cos(phi_t) U + sin(phi_t) V
  with phi_t = ``turns`` * 2 pi t / T (U, V drawn like theta).

Policy class (``policy_class: finite``): N = ``n_policies`` linear argmax policies
x -> argmax_a W_a . x. It contains the Bayes-optimal policy W = theta of every
stationary piece (switching) and of ``n_policies // 10`` evenly spaced times
(drifting: evenly spaced fractions of the rotation, 0 to 1, under ``draw_order: by_part``; the
nearest rounds under ``sequential``); the rest are random W. The order is shuffled. ``info`` reveals the
contexts and every policy's action at every round (``policy_actions``, T x N),
which is all an ERM oracle over this class needs.

Dynamic regret is against the best policy in Pi at each t, from expected
rewards: pi*_t = argmax_pi R_t(pi), R_t(pi) = E_x[sigmoid(theta_{t, pi(x)} . x)].
For switching instances pi*_t is the piece's Bayes-optimal policy, so its reward
is max_a mu_t(a | x_t). For drifting instances R_t is estimated on a fixed
Monte-Carlo sample of ``mc_contexts`` contexts at ``eval_points`` evenly spaced
times, and pi*_t is held between them (documented approximation).

Order of the draws (``draw_order``). ``by_part`` (the default) draws each part of the
instance from its own child stream of the instance's generator (``Generator.spawn``): the
thetas (U and V), the policy class (its order and its random W), the Monte-Carlo contexts, the
random change points, and last the T contexts. The parts that do not depend on T are then the
same at every T, and the contexts at T are the first T of those at a larger T, so instance i of
an experiment with ``instances`` (drawn from one key at every T) is the same problem at every
horizon, T the only thing that changes. ``sequential``, the earlier order (the T contexts
first, then everything else from the one stream), keeps the numbers of runs made before it;
there every part depends on T.

Non-stationarity is reported as the paper defines it (``S_switches``, ``Delta_TV``;
named so as not to clash with the hedging paper's S, a bound on ||theta||):
S = 1 + number of changes, and Delta = sum_t ||D_t - D_{t-1}||_TV with the paper's integral of |D_t - D_{t-1}|
over contexts and reward vectors. Given x, the K rewards are independent
Bernoullis, so the integral over {0,1}^K is computed exactly (``tv: exact``, at most
K = 12: 2^K reward vectors per context) or estimated by sampling (``tv: monte_carlo``,
``tv_samples`` reward vectors per context from the mixture of the two laws: unbiased,
bounded); the context integral is a Monte-Carlo average (drifting: at ``eval_points``
steps, scaled by the number of rounds between them).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.environments import change_points
from bandits.environments.base import Instance, bernoulli_noise
from bandits.errors import ConfigError, require_choice, require_float, require_int
from bandits.numerics import sigmoid

EXACT_TV_MAX_K = 12  # the exact TV enumerates 2^K reward vectors per context


def reward_tv_sampled(p: np.ndarray, q: np.ndarray, samples: int, rng: np.random.Generator) -> float:
    """Monte-Carlo estimate of :func:`reward_tv`: sum_r |P(r) - Q(r)| = E_{r ~ M}[|P(r) - Q(r)| / M(r)]
    with M = (P + Q) / 2, and |P - Q| / M = 2 |tanh((ln P(r) - ln Q(r)) / 2)| lies in [0, 2], so
    the estimate is unbiased with bounded variance; ``samples`` draws of r per context."""
    n, K = p.shape
    from_p = rng.random((samples, n)) < 0.5
    source = np.where(from_p[:, :, None], p[None], q[None])
    r = rng.random((samples, n, K)) < source
    with np.errstate(divide="ignore"):
        log_p = np.where(r, np.log(p[None]), np.log1p(-p[None])).sum(axis=2)
        log_q = np.where(r, np.log(q[None]), np.log1p(-q[None])).sum(axis=2)
    return float((2 * np.abs(np.tanh((log_p - log_q) / 2))).mean())


@njit(cache=True)
def reward_tv_by_context(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """sum_{r in {0,1}^K} |P(r) - Q(r)| for each context (row), the reward vectors r taken in
    itertools.product's order and each P(r) multiplied out action by action, as numpy's
    ``prod`` does (so the sums are numpy's to the bit; a loop over r with numpy took 15 times as long)."""
    n, K = p.shape
    total = np.zeros(n)
    for bits in range(2 ** K):
        for i in range(n):
            P, Q = 1.0, 1.0
            for k in range(K):
                if (bits >> (K - 1 - k)) & 1:
                    P, Q = P * p[i, k], Q * q[i, k]
                else:
                    P, Q = P * (1 - p[i, k]), Q * (1 - q[i, k])
            total[i] += abs(P - Q)
    return total


def reward_tv(p: np.ndarray, q: np.ndarray) -> float:
    """Mean over contexts of sum_{r in {0,1}^K} |P(r) - Q(r)| for independent Bernoulli
    rewards with means p, q (rows: contexts, columns: actions)."""
    return float(reward_tv_by_context(np.ascontiguousarray(p, dtype=np.float64),
                                      np.ascontiguousarray(q, dtype=np.float64)).mean())


@njit(cache=True)
def policy_values(mu: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """R(pi) = mean over contexts i of mu[i, pi(x_i)] for every policy (columns of ``pred``),
    summed context by context as numpy's ``mean(axis=0)`` does, to the bit, without its
    (contexts, N) gathered temporary."""
    n, N = pred.shape
    acc = np.zeros(N)
    for i in range(n):
        for j in range(N):
            acc[j] += mu[i, pred[i, j]]
    return acc / n


def action_dtype(K: int):
    """The narrowest integer type of the actions 0..K-1: the (T, N) table is one byte a cell up
    to K = 127 (477 MB at T = 1e6, N = 500, where int16 took 954 MB)."""
    return np.int8 if int(K) <= 127 else np.int16


@njit(cache=True)
def argmax_per_policy(scores: np.ndarray, K: int, out: np.ndarray) -> None:
    """out[t, n] = the first argmax over k of scores[t, n K + k] (numpy's argmax, ties to the
    lowest action), without the (rows, N, K) temporary that numpy's argmax over an axis walks."""
    for t in range(scores.shape[0]):
        for n in range(out.shape[1]):
            best, arg = scores[t, n * K], 0
            for k in range(1, K):
                if scores[t, n * K + k] > best:
                    best, arg = scores[t, n * K + k], k
            out[t, n] = arg


def policy_actions(W: np.ndarray, X: np.ndarray) -> np.ndarray:
    """(T, N) actions of N linear argmax policies W (N, K, d) on contexts X (T, d), computed
    8,192 contexts at a time: the scores of a block, one BLAS product (8192, d) x (d, N K), are
    the only temporary. (A block's einsum over (n, k, d) took 7 times as long; the two sums differ
    only in rounding, about 1e-14, far below the gap between two actions' scores.)"""
    T, (N, K, d) = X.shape[0], W.shape
    out = np.empty((T, N), dtype=action_dtype(K))
    flat = np.ascontiguousarray(W.reshape(N * K, d).T)
    for start in range(0, T, 8192):
        argmax_per_policy(np.ascontiguousarray(X[start:start + 8192]) @ flat, K, out[start:start + 8192])
    return out


class DriftingContextual:
    name = "drifting_contextual"
    problem_kinds = ("contextual",)

    def problem_kind(self) -> str:
        return "contextual"

    def __init__(self, K: int = 5, d: int = 10, mode: str = "switching", n_pieces: int = 5,
                 pieces_exponent: float | None = None, change_points: str = "even", turns: float = 1.0,
                 context: str = "gaussian", scale: float = 3.0, n_policies: int = 500,
                 policy_class: str = "finite", mc_contexts: int = 2000, eval_points: int = 200,
                 shift: float | None = None, tv: str = "exact", tv_samples: int = 200,
                 draw_order: str = "by_part"):
        self.K = K
        self.d = d
        self.mode = mode
        self.n_pieces = n_pieces
        self.pieces_exponent = pieces_exponent
        self.change_points = change_points
        self.turns = turns
        self.context = context
        self.scale = scale
        self.n_policies = n_policies
        self.policy_class = policy_class
        self.mc_contexts = mc_contexts
        self.eval_points = eval_points
        self.shift = shift
        self.tv = tv
        self.tv_samples = tv_samples
        self.draw_order = draw_order

    def pieces(self, T: int) -> int:
        if self.mode == "drifting":
            return 1
        if self.pieces_exponent is not None:
            return max(1, math.ceil(T ** float(self.pieces_exponent)))
        return int(self.n_pieces)

    def check_params(self, T: int) -> None:
        require_int("env.K", self.K, minimum=2)
        require_int("env.d", self.d, minimum=1)
        require_choice("env.mode", self.mode, {"switching", "drifting"})
        require_choice("env.change_points", self.change_points, {"even", "random"})
        require_choice("env.context", self.context, {"gaussian", "sphere"})
        require_choice("env.policy_class", self.policy_class, {"finite"})
        require_float("env.scale", self.scale, minimum=0.0, strict=True)
        require_float("env.turns", self.turns, minimum=0.0)
        require_int("env.n_pieces", self.n_pieces, minimum=1)
        require_float("env.pieces_exponent", self.pieces_exponent, minimum=0.0, allow_none=True)
        require_int("env.mc_contexts", self.mc_contexts, minimum=10)
        require_choice("env.tv", self.tv, {"exact", "monte_carlo"})
        require_int("env.tv_samples", self.tv_samples, minimum=1)
        require_choice("env.draw_order", self.draw_order, {"by_part", "sequential"})
        if self.tv == "exact" and int(self.K) > EXACT_TV_MAX_K:
            raise ConfigError(f"env.K={self.K}: the exact total variation Delta enumerates 2^K reward vectors per "
                              f"context (2^{self.K} = {2 ** int(self.K):,}); it is limited to K <= {EXACT_TV_MAX_K}. "
                              "Set env.tv=monte_carlo to estimate it by sampling (env.tv_samples draws per context).")
        require_int("env.eval_points", self.eval_points, minimum=2)
        sh = require_float("env.shift", self.shift, minimum=0.0, strict=True, allow_none=True)
        if sh is not None and sh > 1:
            raise ConfigError(f"env.shift must lie in (0, 1], got {sh}.")
        N = require_int("env.n_policies", self.n_policies, minimum=1)
        S = self.pieces(T)
        if S > T:
            raise ConfigError(f"env: {S} pieces do not fit in T={T} rounds.")
        needed = S if self.mode == "switching" else max(1, N // 10)
        if N < needed or N < 2:
            raise ConfigError(f"env.n_policies={N} is smaller than the {S} stationary pieces whose Bayes-optimal "
                              "policies the finite class must contain; raise n_policies.")

    def _contexts(self, rng, n):
        x = rng.standard_normal((n, int(self.d)))
        if self.context == "sphere":
            x /= np.linalg.norm(x, axis=1, keepdims=True)
        return x

    def _theta(self, rng):
        return rng.standard_normal((int(self.K), int(self.d))) * float(self.scale) / math.sqrt(int(self.d))

    def _tv(self, p, q, rng):
        return reward_tv(p, q) if self.tv == "exact" else reward_tv_sampled(p, q, int(self.tv_samples), rng)

    def footprint(self, T: int) -> int:
        """Bytes of the instance: contexts, every policy's actions, means (and their Monte-Carlo twins)."""
        N, K, d, mc = int(self.n_policies), int(self.K), int(self.d), int(self.mc_contexts)
        cell = np.dtype(action_dtype(K)).itemsize
        return 8 * T * (d + 2 * K) + cell * T * N + mc * (8 * d + cell * N) + 8 * N * K * d

    def _streams(self, rng: np.random.Generator) -> dict[str, np.random.Generator]:
        """The generator of each part of the instance (see ``draw_order`` in the module's text):
        one child stream per part (``by_part``), or ``rng`` itself for all (``sequential``)."""
        parts = ("theta", "policies", "mc", "change_points", "contexts")
        if self.draw_order == "sequential":
            return dict.fromkeys(parts, rng)
        return dict(zip(parts, rng.spawn(len(parts)), strict=True))

    def instance(self, T: int, rng: np.random.Generator) -> Instance:
        K, N = int(self.K), int(self.n_policies)
        draw = self._streams(rng)
        if self.draw_order == "sequential":  # the earlier order: contexts first
            X = self._contexts(draw["contexts"], T)
        mc = self._contexts(draw["mc"], int(self.mc_contexts))
        rng = draw["theta"]  # the thetas and, when sampled, the TV's reward vectors
        if self.mode == "switching":
            S = self.pieces(T)
            if self.change_points == "even":
                starts = np.unique(np.floor(np.arange(S) * T / S).astype(np.int64))
            else:
                starts = np.r_[0, np.sort(draw["change_points"].choice(np.arange(1, T), size=S - 1, replace=False))]
            thetas = [self._theta(rng)]
            for _ in range(1, len(starts)):
                fresh = self._theta(rng)
                # shift s: the new piece moves a fraction s of the way to a fresh draw (size of the change)
                thetas.append(fresh if self.shift is None else (1 - float(self.shift)) * thetas[-1]
                              + float(self.shift) * fresh)
            thetas = np.stack(thetas)
            piece = np.searchsorted(starts, np.arange(T), side="right") - 1
            if self.draw_order == "by_part":
                X = self._contexts(draw["contexts"], T)
            logits = np.einsum("td,tkd->tk", X, thetas[piece])
            bayes = thetas
            delta = sum(self._tv(sigmoid(mc @ thetas[s - 1].T), sigmoid(mc @ thetas[s].T), rng)
                        for s in range(1, len(starts)))
        else:
            U, V = self._theta(rng), self._theta(rng)
            phi = float(self.turns) * 2 * np.pi * np.arange(1, T + 1) / T
            if self.draw_order == "by_part":
                X = self._contexts(draw["contexts"], T)
            logits = np.cos(phi)[:, None] * (X @ U.T) + np.sin(phi)[:, None] * (X @ V.T)
            starts = np.array([0])
            n_bayes = max(1, N // 10)
            if self.draw_order == "sequential":
                phases = phi[np.linspace(0, T - 1, n_bayes).round().astype(int)]
            else:  # evenly spaced fractions of the rotation, the same at every T
                phases = float(self.turns) * 2 * np.pi * np.linspace(0, 1, n_bayes)
            bayes = np.stack([np.cos(ph) * U + np.sin(ph) * V for ph in phases])
            grid = np.linspace(0, T - 1, int(self.eval_points)).round().astype(int)
            theta_at = lambda t: np.cos(phi[t]) * U + np.sin(phi[t]) * V  # noqa: E731
            # per-round TV at each grid point times the rounds it stands for
            delta = 0.0
            for a, b in zip(grid[:-1], grid[1:], strict=True):
                step = self._tv(sigmoid(mc @ theta_at(a).T), sigmoid(mc @ theta_at(min(a + 1, T - 1)).T), rng)
                delta += step * (b - a)
        means = sigmoid(logits)
        policies = draw["policies"]
        if self.draw_order == "sequential":
            W = np.concatenate([bayes, policies.standard_normal((N - len(bayes), K, int(self.d)))])
            order = policies.permutation(N)
        else:  # the order first: with S = T^c the number of random W (N - S) changes with T
            order = policies.permutation(N)
            W = np.concatenate([bayes, policies.standard_normal((N - len(bayes), K, int(self.d)))])
        W = W[order]
        bayes_index = np.argsort(order)[: len(bayes)]  # where each Bayes policy went
        pred = policy_actions(W, X)
        if self.mode == "switching":
            optimal_policy = bayes_index[piece]
            optimal = means.max(axis=1)
        else:
            grid = np.linspace(0, T - 1, int(self.eval_points)).round().astype(int)
            mc_pred = policy_actions(W, mc)
            best = []
            for t in grid:
                mu = sigmoid(mc @ (np.cos(phi[t]) * U + np.sin(phi[t]) * V).T)
                values = policy_values(mu, mc_pred)
                best.append(int(np.argmax(values)))
            which = np.clip(np.searchsorted(grid, np.arange(T), side="right") - 1, 0, len(grid) - 1)
            optimal_policy = np.asarray(best)[which]
            optimal = means[np.arange(T), pred[np.arange(T), optimal_policy]]
        info = {"d": int(self.d), "K": K, "contextual": True, "S_switches": int(len(starts)),
                "Delta_TV": float(delta), "n_policies": N, "reward_bound": 1.0, "reward_range": (0.0, 1.0),
                "contexts": X, "policy_actions": pred}
        switching = self.mode == "switching"
        evaluation = {"synthetic": True, **change_points.record(starts[1:], "generator" if switching else "none"),
                      "policy_weights": W, "optimal_policy": optimal_policy.astype(np.int64),
                      "comparator": change_points.policy_comparator(starts[1:]) if switching else
                      "best policy per round", "trial_noise": bernoulli_noise(means)}
        return Instance(means=means, info=info, evaluation=evaluation, optimal=optimal)

    def rewards(self, instance: Instance, rng: np.random.Generator) -> np.ndarray:
        return (rng.random(instance.means.shape) < instance.means).astype(np.float64)
