"""The OP of ada Figure 1, solved by the coordinate descent of Agarwal et al. (2014,
"Taming the monster", Algorithm 2), with their psi * mu played by C * nu.

Given logged rounds I (contexts, chosen actions a_t, importance weights
w_t = r_t / p_t(a_t)), find a distribution Q over the policies with

  (1)  sum_pi Q(pi) Reg_I(pi) <= 2 C K nu,
  (2)  for all pi:  V_I(Q, nu, pi) = mean_t 1 / Q^nu(pi(x_t) | x_t) <= 2K + Reg_I(pi) / (C nu),

where Reg_I(pi) = R_I(pi_hat) - R_I(pi) is the empirical regret, R_I(pi) = mean_t w_t 1{pi(x_t) = a_t},
and Q^nu(a | x) = nu + (1 - K nu) Q(a | x). Algorithm 2, with b_pi = Reg_I(pi) / (C nu):

  loop:
    if sum_pi Q(pi) (2K + b_pi) > 2K:  Q <- c Q,  c = 2K / sum_pi Q(pi) (2K + b_pi)
    find pi with D_pi(Q) = V_pi(Q) - (2K + b_pi) > 0      (one oracle call, below)
    if none: stop
    Q(pi) += alpha = (V_pi(Q) + D_pi(Q)) / (2 (1 - K nu) S_pi(Q)),  S_pi = mean_t 1 / Q^nu(pi(x_t)|x_t)^2

The maximiser of D_pi is an ERM call with reward vectors
1 / Q^nu(a | x_t) + w_t 1{a = a_t} / (C nu), since D_pi = mean_t of that at pi(x_t),
minus 2K + R_I(pi_hat) / (C nu). Q(. | x_t) is kept for every round and updated in
O(n) per step. The loop stops when max_pi D_pi <= ``tol`` (floating point). The
leftover mass 1 - sum Q goes to the empirically best policy pi_hat (Reg = 0), which
keeps both constraints. Agarwal et al. bound the number of iterations by
4 ln(1 / (K nu)) / nu; ``max_iter`` defaults to that bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from bandits.contextual.policy_class import first_argmax
from bandits.errors import ConfigError


@dataclass
class OPResult:
    support: list  # policies
    weights: list  # their probabilities (summing to 1, leftover included)
    best: int  # the empirically best policy pi_hat
    iterations: int
    oracle_calls: int
    converged: bool
    regret: dict = field(default_factory=dict)  # empirical regret of each support policy

    def distribution(self) -> dict:
        out: dict = {}
        for p, w in zip(self.support, self.weights, strict=True):
            out[p] = out.get(p, 0.0) + w
        return out


def iteration_bound(K: int, nu: float) -> int:
    return int(math.ceil(4 * math.log(1.0 / (K * nu)) / nu)) if K * nu < 1 else 1


def check_nu(nu: float, K: int) -> float:
    if not (isinstance(nu, (int, float)) and 0 < nu <= 1.0 / K):
        raise ConfigError(f"nu (minimum exploration probability) must lie in (0, 1/K] = (0, {1.0 / K:g}], got {nu!r}.")
    return float(nu)


def solve_op(pclass, rows: np.ndarray, actions: np.ndarray, weights: np.ndarray, nu: float, C: float,
             tol: float = 1e-9, max_iter: int | None = None) -> OPResult:
    """Solve the OP on the logged rounds ``rows`` (see module doc)."""
    K = pclass.K
    nu = check_nu(nu, K)
    rows = np.asarray(rows, dtype=np.int64)
    n = len(rows)
    a = np.asarray(actions[rows], dtype=np.int64)
    w = np.asarray(weights[rows], dtype=np.float64)
    calls0 = pclass.calls_
    idx = np.arange(n)
    iw = np.zeros((n, K))
    iw[idx, a] = w
    best = pclass.oracle(rows, iw)
    predicted: dict = {}  # each policy's actions on the rounds, and its empirical regret, once
    regrets: dict = {}

    def acts_of(p):
        if p not in predicted:
            predicted[p] = pclass.predict(p, rows)
        return predicted[p]

    r_best = float(iw[idx, acts_of(best)].mean())

    def reg(p):
        if p not in regrets:
            regrets[p] = r_best - float(iw[idx, acts_of(p)].mean())
        return regrets[p]

    Q: dict = {}
    b: dict = {}
    Qa = np.zeros((n, K))
    limit = iteration_bound(K, nu) if max_iter is None else int(max_iter)
    it = 0
    converged = False
    while it < limit:
        it += 1
        total = sum(q * (2 * K + b[p]) for p, q in Q.items())
        if total > 2 * K:
            c = 2 * K / total
            for p in Q:
                Q[p] *= c
            Qa *= c
        smooth = nu + (1.0 - K * nu) * Qa
        inv = 1.0 / smooth
        candidate = pclass.oracle(rows, inv + iw / (C * nu))
        acts = acts_of(candidate)
        if candidate not in b:
            b[candidate] = reg(candidate) / (C * nu)
        inv_acts = inv[idx, acts]
        V = float(inv_acts.mean())
        D = V - (2 * K + b[candidate])
        if D <= tol:
            converged = True
            break
        S = float((inv_acts ** 2).mean())
        alpha = (V + D) / (2 * (1.0 - K * nu) * S)
        Q[candidate] = Q.get(candidate, 0.0) + alpha
        Qa[idx, acts] += alpha
    mass = sum(Q.values())
    support = [p for p, q in Q.items() if q > 0]
    wts = [Q[p] for p in support]
    if mass < 1.0:
        support.append(best)
        wts.append(1.0 - mass)
    return OPResult(support=support, weights=wts, best=best, iterations=it, oracle_calls=pclass.calls_ - calls0,
                    converged=converged, regret={p: reg(p) for p in set(support)})


def action_distribution(pclass, result_support, result_weights, rows: np.ndarray) -> np.ndarray:
    """Q(a | x_t) for the given rounds, (n, K): the class's compiled pass where it has one (a
    finite class), else each support policy's actions in turn, the same sums in the same order."""
    if hasattr(pclass, "distribution"):
        return pclass.distribution(result_support, result_weights, rows)
    rows = np.asarray(rows, dtype=np.int64)
    out = np.zeros((len(rows), pclass.K))
    idx = np.arange(len(rows))
    for p, q in zip(result_support, result_weights, strict=True):
        out[idx, pclass.predict(p, rows)] += q
    return out


def check_constraints(pclass, result: OPResult, rows, actions, weights, nu: float, C: float, slack: float = 1e-7):
    """Brute force over a finite class: the largest violations of (1) and (2) (<= 0 means satisfied)."""
    rows = np.asarray(rows, dtype=np.int64)
    n, K = len(rows), pclass.K
    iw = np.zeros((n, K))
    iw[np.arange(n), np.asarray(actions[rows], dtype=np.int64)] = weights[rows]
    values = pclass.scores(rows, iw) / n
    regret = values.max() - values
    dist = result.distribution()
    c1 = sum(q * regret[p] for p, q in dist.items()) - 2 * C * K * nu
    smooth = nu + (1 - K * nu) * action_distribution(pclass, list(dist), list(dist.values()), rows)
    V = pclass.scores(rows, 1.0 / smooth) / n
    c2 = float((V - (2 * K + regret / (C * nu))).max())
    return float(c1), c2


__all__ = ["OPResult", "action_distribution", "check_constraints", "check_nu", "first_argmax", "iteration_bound",
           "solve_op"]
