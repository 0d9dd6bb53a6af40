"""The sliding window of every windowed algorithm, defined once.

A window is a ring buffer of the last ``cap`` observations, one row each (an arm and
its reward, an action vector and its reward, a subset of items and their rewards, a
price and its acceptance), plus ``state``: the write position, how many rows are
filled, and the rounds since the last exact refresh. Each algorithm keeps statistics
of its window (counts and sums per arm, V and b, ...) and updates them incrementally:
it subtracts the row that leaves and adds the new one. Adding and subtracting
floating-point numbers accumulates rounding error, so every time the buffer wraps
around while full (every ``cap`` rounds) the algorithm recomputes its statistics
exactly from the rows: amortised O(1) per round, and no drift. One round::

    slot = state[POS]
    if is_full(rows, state):
        <remove rows[slot] from the statistics>
    rows[slot] = <the new row>; <add it>
    if advance(rows, state):
        <recompute the statistics from rows>
"""

from __future__ import annotations

import numpy as np
from numba import njit

POS, FILLED, SINCE = 0, 1, 2


@njit(cache=True)
def new_window(cap, width):
    """An empty window of ``cap`` rows (at least 1) of ``width`` numbers, and its state."""
    return np.zeros((max(1, cap), width)), np.zeros(3, dtype=np.int64)


@njit(cache=True)
def is_full(rows, state):
    """Will the next row overwrite the oldest one?"""
    return state[FILLED] == rows.shape[0]


@njit(cache=True)
def advance(rows, state):
    """Count the row just written at ``state[POS]`` and move on. True when the buffer has
    just wrapped around while full: the moment for the exact refresh (SINCE restarts)."""
    cap = rows.shape[0]
    if state[FILLED] < cap:
        state[FILLED] += 1
    state[POS] += 1
    state[SINCE] += 1
    if state[POS] == cap:
        state[POS] = 0
        if state[FILLED] == cap:
            state[SINCE] = 0
            return True
    return False
