"""What a worker runs: a batch of cells of one horizon, whole trials where it can. Each
trial's rewards are drawn once and every pending algorithm of the trial runs on them
(:func:`bandits.simulation.run_cell`); the batch's rows come back as columns of numpy arrays
and lists, which the main process writes as one shard (:mod:`bandits.experiments.store.shards`).
Run in the main process (``n_jobs=1``), a batch hands its finished rows to the writer every
``batch_s`` seconds and, on any failure (bad input found mid-run, your own policy raising,
Ctrl-C), before the failure propagates.

A worker imports this module, numpy, and the modules of the algorithms and the environment
it is handed: no pandas, pyarrow, Hydra, OmegaConf, tqdm or the runner.
"""

from __future__ import annotations

import json
import time
import traceback
from functools import cache
from typing import NamedTuple

import numpy as np

from bandits.simulation import run_cell, trial_rewards, warm_up_all, warm_up_regret

LIST_COLUMNS = ("checkpoints", "regret_curve", "reward_curve", "actions")


class CellSpec(NamedTuple):
    """One cell of a batch: the algorithm (by name, object and configured values), its key
    in the store, and the hash of its configuration."""
    algo_name: str
    algo: object
    params: dict  # the algorithm's config without its name; "derived" is added after the run
    key: str
    config_hash: str


class Batch(NamedTuple):
    """Cells of one horizon and instance, by trial."""
    T: int
    trials: list  # [(trial, [CellSpec, ...]), ...]
    instance: int | None = None  # None: the horizon's one instance

    @property
    def cells(self) -> int:
        return sum(len(cells) for _, cells in self.trials)


class Done(NamedTuple):
    """What a batch returns: its horizon, how many cells, its wall time in the worker (without
    the time a writer took), the sum of its kernels' times, its rows (None when they were
    handed to a writer already), and the part of its wall time spent compiling or loading
    kernels (numba's cache: seconds on a cold cache, milliseconds on a warm one)."""
    T: int
    cells: int
    seconds: float
    kernel_s: float
    rows: dict | None
    warm_s: float = 0.0
    together: bool = False  # only a batched policy's cells (its time per cell depends on the batch's size)


def to_json(obj) -> str:
    """JSON of a row's mapping columns: sorted keys, numpy scalars and arrays as numbers."""
    def default(o):
        if isinstance(o, np.generic):
            return o.item()
        if isinstance(o, np.ndarray):
            return o.tolist()
        return str(o)
    return json.dumps(obj, sort_keys=True, default=default)


def make_row(meta: dict, cell: CellSpec, T: int, trial: int, numbers: dict, instance: int | None = None) -> dict:
    """The stored row of one finished cell (:data:`bandits.experiments.store.shards.SCHEMA`)."""
    params = dict(cell.params)
    params["derived"] = numbers["derived"]
    return {
        "experiment": meta["experiment"], "env": meta["env_name"], "algo": cell.algo_name, "label": None,
        "T": T, "trial": trial, "instance": instance, "seed": meta["seed"],
        "final_regret": numbers["final_regret"], "final_reward": numbers["final_reward"],
        "wall_time_s": numbers["wall_time_s"], "config_hash": cell.config_hash,
        "code_fingerprint": meta["code"], "package_version": meta["version"], "cell_key": cell.key,
        "algo_params": to_json(params), "env_params": meta["env_params"], "env_info": meta["env_info"][(T, instance)],
        "checkpoints": numbers["checkpoints"], "regret_curve": numbers["regret_curve"],
        "reward_curve": numbers["reward_curve"], "actions": numbers["actions"],
        "events": None if numbers["events"] is None else to_json(numbers["events"]),
        **meta["provenance"],
    }


def columns(rows: list[dict]) -> dict:
    """Rows as columns: a list per column, and each list column as (lengths, one concatenated
    array), or None where every row has none (``actions`` without ``save_actions``)."""
    if not rows:
        return {}
    out: dict = {}
    for name in rows[0]:
        values = [r[name] for r in rows]
        if name in LIST_COLUMNS:
            if all(v is None for v in values):
                out[name] = None
            else:
                parts = [np.asarray(v) for v in values]
                out[name] = (np.array([len(p) for p in parts], dtype=np.int64), np.concatenate(parts))
        else:
            out[name] = values
    return out


@cache
def warm_up_batched() -> None:
    """Load (or compile) the batched route's kernels once per process, on a round of two
    trials: its block sums (:func:`bandits.batched_trials._curves_block`) and the tie rule that
    batched policies call (:func:`bandits.numerics.argmax_lowest_columns`), so that the first
    batch's cells carry their own time, not numba's (about a second on a cold cache, where a
    batch of 100 trials at T = 5,000 takes 0.2 s). The policy itself is not run: it is your code."""
    from bandits.batched_trials import _curves_block
    from bandits.numerics import argmax_lowest_columns
    from bandits.simulation import checkpoints

    argmax_lowest_columns(np.zeros((2, 2)))
    _curves_block(np.zeros((1, 2)), np.zeros(1), np.zeros((1, 2, 2)), np.zeros((1, 2), dtype=np.int64),
                  np.zeros((2, 2)), checkpoints(1), 0, 0, np.zeros((2, 1, 2)))


def run_batch(meta: dict, env, instance, batch: Batch, batch_s: float, sink=None) -> Done:
    """Run one batch and return its rows as :func:`columns`; with a ``sink`` (the writer, when
    the batch runs in the main process) hand them to it instead, every ``batch_s`` seconds and
    before any failure propagates, so that an interrupt keeps every finished cell."""
    rows: list = []
    kernel = handed = warm = 0.0
    start = last = time.monotonic()

    def hand():  # the writer's time is its own, not the batch's
        nonlocal rows, last, handed
        began = time.monotonic()
        if rows:
            sink(columns(rows))
            rows = []
        last = time.monotonic()
        handed += last - began

    together: dict = {}  # a batched policy's cells, run at once after the others: name -> [(trial, cell)]
    only_batched = all(getattr(c.algo, "batched", False) for _, cells in batch.trials for c in cells)
    try:
        warmed = False
        for trial, cells in batch.trials:
            one_by_one = [c for c in cells if not getattr(c.algo, "batched", False)]
            for c in cells:
                if getattr(c.algo, "batched", False):
                    together.setdefault(c.algo_name, []).append((trial, c))
            if not one_by_one:
                continue
            rewards = trial_rewards(env, instance, meta["seed"], batch.T, trial)
            if not warmed:  # every kernel of the batch, in turns with the other workers (cold numba cache)
                warmed, began = True, time.monotonic()
                warm_up_all([c.algo for _, batch_cells in batch.trials for c in batch_cells], instance, rewards)
                warm_up_regret(instance, rewards)
                warm = time.monotonic() - began
            for cell in one_by_one:
                numbers = run_cell(cell.algo, cell.algo_name, instance, rewards, meta["seed"], batch.T, trial,
                                   meta["save_actions"])
                rows.append(make_row(meta, cell, batch.T, trial, numbers, batch.instance))
                kernel += numbers["wall_time_s"]
                if sink is not None and time.monotonic() - last >= batch_s:
                    hand()
        if together:
            from bandits.batched_trials import run_batched_cells  # only where a batched policy runs

            began = time.monotonic()
            warm_up_batched()
            warm += time.monotonic() - began
        for name, items in together.items():
            trials = [trial for trial, _ in items]
            every = run_batched_cells(items[0][1].algo, name, env, instance, meta["seed"], batch.T, trials,
                                      meta["save_actions"])
            for (trial, cell), numbers in zip(items, every, strict=True):
                rows.append(make_row(meta, cell, batch.T, trial, numbers, batch.instance))
                kernel += numbers["wall_time_s"]
            if sink is not None:
                hand()
    except BaseException:
        if sink is not None:
            hand()  # the cells finished before the failure are kept
        raise
    if sink is not None:
        hand()
        return Done(batch.T, batch.cells, time.monotonic() - start - handed, kernel, None, warm, only_batched)
    return Done(batch.T, batch.cells, time.monotonic() - start, kernel, columns(rows), warm, only_batched)


class WorkerTraceback(Exception):
    """The traceback of an exception raised in a worker (the cause of the one re-raised)."""


class Failed(NamedTuple):
    """What a batch returns instead of its Done when it raised: the exception and its
    traceback in the worker."""
    error: Exception
    trace: str


def run_tagged(tag: int, *args) -> tuple:
    """(tag, :func:`run_batch` (*args)): the main process runs the batches of several plans
    (of consecutive jobs of a sweep too) as one stream and routes each Done back to its plan
    by the tag; a batch that raised comes back as :class:`Failed`, so that the failure is the
    plan's own, reported in its own turn, while the other plans' batches go on."""
    try:
        return tag, run_batch(*args)
    except Exception as exc:  # noqa: BLE001 -- handed to the plan's owner, which raises it
        return tag, Failed(exc, traceback.format_exc())
