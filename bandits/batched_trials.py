"""The cells of a batched policy (:mod:`bandits.algorithms.batched`): many trials of one
algorithm at one horizon, run at once, each giving exactly the numbers
:func:`bandits.simulation.run_cell` gives for it alone.

Each trial keeps its own streams (:mod:`bandits.simulation`): its rewards from (1, T, trial),
drawn in blocks of rounds (:func:`bandits.environments.base.reward_blocks`: the same numbers as
the whole table), and the policy's random numbers from (2, T, trial, algorithm), through a
:class:`bandits.algorithms.batched.BatchedGenerator`. Memory is bounded: a batch holds a block
of each trial's rewards and actions (:data:`BLOCK_BYTES` in all), and its regret and reward are
summed block by block (:func:`_curves_block`: the same additions, in the same order, as
:func:`bandits.simulation.evaluate`), keeping only the checkpoints; a trial's actions are kept
whole only with ``save_actions``.
"""

from __future__ import annotations

import copy
import time

import numpy as np
from numba import njit

from bandits.algorithms.batched import BatchedGenerator, play_trials
from bandits.environments.base import Instance, reward_blocks
from bandits.errors import ConfigError, ReportedError
from bandits.simulation import algo_stream_id, checkpoints, learner_info, stream

BLOCK_BYTES = 64 * 2 ** 20  # a batch's rewards of one block of rounds, all trials together
MAX_BLOCK = 4096  # rounds per block at most


def block_rounds(n_trials: int, K: int) -> int:
    """Rounds per block: a block of every trial's rewards within :data:`BLOCK_BYTES`."""
    return int(max(1, min(MAX_BLOCK, BLOCK_BYTES // (8 * max(1, n_trials * K)))))


@njit(cache=True)
def _curves_block(means, best, rewards, actions, sums, ticks, tick, t0, at):
    """:func:`bandits.simulation._curves` on one block of rounds of every trial (``rewards``
    ``(B, n, K)``, ``actions`` ``(B, n)``: round, trial, arm), continuing each trial's sums
    (``sums[i] = regret, reward``) and recording them in ``at[i, k]`` at the checkpoints
    ``ticks`` (rounds, 1-based) from position ``tick`` on; returns the next checkpoint's
    position. ``best`` is each round's optimum (numpy's max, NaN included)."""
    B, n = actions.shape
    next_tick = tick
    for i in range(n):
        r, w = sums[i, 0], sums[i, 1]
        k = tick
        for j in range(B):
            a = actions[j, i]
            r += best[j] - means[j, a]
            w += rewards[j, i, a]
            if k < ticks.shape[0] and ticks[k] == t0 + j + 1:
                at[i, k, 0] = r
                at[i, k, 1] = w
                k += 1
        sums[i, 0], sums[i, 1] = r, w
        next_tick = k
    return next_tick


def run_batched_cells(algo, name: str, env, instance: Instance, seed: int, T: int, trials: list,
                      save_actions: bool = False) -> list[dict]:
    """Run the batched ``algo`` on ``trials`` (trial numbers) of ``instance`` and return each
    trial's numbers, as :func:`bandits.simulation.run_cell` returns them; ``wall_time_s`` is the
    batch's time in the policy's own methods, shared equally by its trials."""
    policy = copy.deepcopy(algo)
    n, K = len(trials), instance.means.shape[1]
    if instance.means.dtype != np.float64:
        raise ConfigError(f"a batched policy needs float64 expected rewards; env {type(env).__name__} gives "
                          f"{instance.means.dtype}.")
    rounds = block_rounds(n, K)
    streams = [reward_blocks(env, instance, stream(seed, 1, T, trial), rounds) for trial in trials]
    rng = BatchedGenerator([stream(seed, 2, T, trial, algo_stream_id(name)) for trial in trials])
    ticks = checkpoints(T)
    sums = np.zeros((n, 2))  # each trial's regret and reward so far
    at = np.zeros((n, len(ticks), 2))  # the same at the checkpoints
    kept = np.empty((n, T), dtype=np.int32) if save_actions else None
    state = {"tick": 0, "outside": 0.0}  # the next checkpoint; seconds spent outside the policy
    optimal = instance.optimal

    def blocks():
        each_trials = zip(*streams, strict=True)
        while True:
            began = time.perf_counter()  # drawing the rewards is the environment's time, not the policy's
            parts = next(each_trials, None)
            if parts is None:
                return
            block = np.stack([np.asarray(p, dtype=np.float64) for p in parts], axis=1)  # round, trial, arm
            state["outside"] += time.perf_counter() - began
            yield block

    def evaluate(t0, actions, block):
        began = time.perf_counter()
        B = actions.shape[0]
        means = instance.means[t0:t0 + B]
        with np.errstate(all="ignore"):
            best = optimal[t0:t0 + B] if optimal is not None else means.max(axis=1)
            state["tick"] = _curves_block(means, np.ascontiguousarray(best, dtype=np.float64), block, actions,
                                          sums, ticks, state["tick"], t0, at)
        if kept is not None:
            kept[:, t0:t0 + B] = actions.T
        state["outside"] += time.perf_counter() - began

    started = time.perf_counter()
    where = f"cells algo={name}, T={T}, trials {trials[0]}..{trials[-1]} (a batch)"
    try:
        play_trials(policy, blocks(), n, T, K, learner_info(policy, instance), rng, instance.features, evaluate)
    except ReportedError as exc:
        raise type(exc)(f"{exc} in {where}", exc.detail) from None
    except ConfigError as exc:
        raise ConfigError(f"{str(exc).rstrip('.')} in {where}.") from None
    wall = (time.perf_counter() - started - state["outside"]) / n
    out = []
    regret, reward = sums[:, 0], sums[:, 1]
    for i, trial in enumerate(trials):
        if not (np.isfinite(regret[i]) and np.isfinite(reward[i])):
            raise ConfigError(f"the dynamic regret or the reward of cell algo={name}, T={T}, trial {trial} is not a "
                              f"finite number ({regret[i]}, {reward[i]}): the environment's values are too large or "
                              "not numbers; nothing of this cell was stored.")
        out.append({"final_regret": float(regret[i]), "final_reward": float(reward[i]), "wall_time_s": wall,
                    "checkpoints": ticks, "regret_curve": at[i, :, 0].copy(), "reward_curve": at[i, :, 1].copy(),
                    "actions": None if kept is None else kept[i].copy(),
                    "derived": getattr(policy, "derived_", {}), "events": getattr(policy, "events_", None)})
    return out
