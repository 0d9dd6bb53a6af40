"""The sliding-window regularised least squares of hedging eq. (2), kept
incrementally in O(d^2) per round.

State: the window's chosen action vectors and rewards (a ring buffer), V =
lambda I + sum X_s X_s^T, its inverse, and b = sum X_s Y_s. Each round adds the
new observation and, once the window is full, removes the one that left it: two
Sherman-Morrison rank-one updates of V^{-1} (the removal is well posed because
V - x x^T >= lambda I stays positive definite). No re-solve over the window.

Stability: rank-one downdates accumulate rounding error, so every time the ring
buffer wraps (every w rounds) V and b are rebuilt exactly from the buffer and
V^{-1} is recomputed by a direct inverse: O(w d^2 + d^3) every w rounds, O(d^2)
amortised. Without removals (UCB / OFUL, unbounded window) V^{-1} is re-inverted
from the running V every ``INVERT_EVERY`` rounds. Tested against a direct solve
over the window after 1e5 rounds (relative error <= 1e-8).
"""

from __future__ import annotations

import numpy as np
from numba import njit

INVERT_EVERY = 1000


@njit(cache=True)
def sherman_morrison(Vinv, x, sign, u):
    """Vinv <- (V + sign x x^T)^{-1}, sign = +1 (add) or -1 (remove); u is scratch."""
    d = x.shape[0]
    q = 0.0
    for i in range(d):
        s = 0.0
        for j in range(d):
            s += Vinv[i, j] * x[j]
        u[i] = s
        q += x[i] * s
    c = sign / (1.0 + sign * q)
    for i in range(d):
        for j in range(d):
            Vinv[i, j] -= c * u[i] * u[j]


@njit(cache=True)
def rebuild(buf_x, buf_y, filled, lam, V, Vinv, bvec):
    """Exact V, b from the buffer and V^{-1} by a direct inverse."""
    d = V.shape[0]
    for i in range(d):
        bvec[i] = 0.0
        for j in range(d):
            V[i, j] = lam if i == j else 0.0
    for s in range(filled):
        for i in range(d):
            bvec[i] += buf_x[s, i] * buf_y[s]
            for j in range(d):
                V[i, j] += buf_x[s, i] * buf_x[s, j]
    Vinv[:, :] = np.linalg.inv(V)


@njit(cache=True)
def window_push(x, y, buf_x, buf_y, pos, filled, since, lam, V, Vinv, bvec, u):
    """Add (x, y) to the window (dropping the oldest once full); returns (pos, filled, since)."""
    cap = buf_y.shape[0]
    d = x.shape[0]
    if filled == cap:
        xo = buf_x[pos]
        yo = buf_y[pos]
        sherman_morrison(Vinv, xo, -1.0, u)
        for i in range(d):
            bvec[i] -= xo[i] * yo
            for j in range(d):
                V[i, j] -= xo[i] * xo[j]
    else:
        filled += 1
    sherman_morrison(Vinv, x, 1.0, u)
    for i in range(d):
        buf_x[pos, i] = x[i]
        bvec[i] += x[i] * y
        for j in range(d):
            V[i, j] += x[i] * x[j]
    buf_y[pos] = y
    pos += 1
    since += 1
    if pos == cap:
        pos = 0
        if filled == cap:  # window full and wrapped: rebuild exactly from the buffer
            rebuild(buf_x, buf_y, filled, lam, V, Vinv, bvec)
            since = 0
    if since >= INVERT_EVERY and filled < cap:  # no removals yet: V is exact, refresh its inverse
        Vinv[:, :] = np.linalg.inv(V)
        since = 0
    return pos, filled, since


@njit(cache=True)
def window_state(cap, d, lam):
    """Empty window: buffers (cap x d, cap), V = lambda I, V^{-1}, b = 0, scratch u."""
    return np.zeros((cap, d)), np.zeros(cap), lam * np.eye(d), np.eye(d) / lam, np.zeros(d), np.zeros(d)


@njit(cache=True)
def window_least_squares(X, Y, window, lam):
    """Run the incremental estimator over all rows of (X, Y); return theta_hat and V^{-1}
    for the last ``window`` rows (used by the tests against a direct solve)."""
    n, d = X.shape
    cap = max(1, min(window, n))
    buf_x, buf_y, V, Vinv, bvec, u = window_state(cap, d, lam)
    pos, filled, since = 0, 0, 0
    for t in range(n):
        pos, filled, since = window_push(X[t], Y[t], buf_x, buf_y, pos, filled, since, lam, V, Vinv, bvec, u)
    return Vinv @ bvec, Vinv
