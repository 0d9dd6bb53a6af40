"""A plan's pending cells as batches, and the shards their rows are written to.

:class:`Batches` cuts the cells to run into batches of one horizon, whole trials where it can
(a trial's algorithms share one reward draw), sized while they run so that a batch is about
``parallel.batch_s`` seconds of work: what an interrupt or kill -9 can lose per worker.
:class:`Writer` gathers the rows of finished batches into shards (:mod:`bandits.experiments.store.shards`)
in the main process."""

from __future__ import annotations

import time
from collections import deque
from pathlib import Path

from bandits.experiments.run.planning import Plan
from bandits.experiments.run.worker import Batch, CellSpec, Done
from bandits.experiments.store import table_store as store


class Batches:
    """The pending cells as batches of one horizon and instance, sized while they run. A horizon's first
    batch is one trial; each next one is twice the last, up to what its measured time per cell
    (or one measured at another horizon, scaled by T) fits into ``batch_s`` seconds, and at
    most ``batch_cells`` cells. Near the end a batch is cut so that every worker gets one. The
    longest horizons go first, so that no long batch is left for the end. Whole trials stay
    in one batch (they share one reward draw) unless a trial alone is larger than the batch.

    A batched policy's cells (``batched = True``: many trials in one call) are batches of their
    own, of ``batched_trials`` trials (None: all of the horizon's and instance's), at most
    ``batch_cells`` cells: their speed comes from the size of the batch, which the doubling and
    ``batch_s`` would keep small. The trade: an interrupt can lose one such batch per worker, not
    ``batch_s`` seconds. They go first at their horizon, so the other workers run the compiled
    cells beside them."""

    def __init__(self, plan: Plan, batch_cells: int, batch_s: float, workers: int,
                 batched_trials: int | None = None):
        self.pending: dict = {}
        params: dict = {}  # one configured-values dict per algorithm, shared by its cells
        for cell in plan.todo:
            if cell.algo_name not in params:
                params[cell.algo_name] = {k: v for k, v in cell.algo_cfg.items() if k != "name"}
            spec = CellSpec(cell.algo_name, cell.algo, params[cell.algo_name], cell.key, cell.config_hash)
            together = bool(getattr(cell.algo, "batched", False))
            trials = self.pending.setdefault((cell.T, cell.instance, together), {})  # a batch faces one instance
            trials.setdefault(cell.trial, []).append(spec)
        self.pending = {key: deque(sorted(trials.items())) for key, trials in self.pending.items()}
        self.remaining = len(plan.todo)
        self.batch_cells, self.batch_s, self.workers = batch_cells, batch_s, max(1, workers)
        self.batched_trials = batched_trials
        self.last: dict = {}  # T -> cells of its last batch
        self.rate: dict = {}  # T -> measured seconds per cell

    def observe(self, done: Done) -> None:
        if done.cells and not done.together:  # a batched policy's time per cell says nothing of the others'
            self.rate[done.T] = done.seconds / done.cells

    def size(self, T: int, trial_cells: int) -> int:
        n = 2 * self.last[T] if T in self.last else trial_cells
        rate = self.rate.get(T)
        if rate is None and self.rate:  # measured at another horizon: time grows about as T
            other = min(self.rate, key=lambda t: abs(t - T))
            rate = self.rate[other] * T / other
        if rate is not None:
            n = min(n, int(self.batch_s / rate) if rate > 0 else n)
        n = min(n, max(trial_cells, -(-self.remaining // self.workers)), self.batch_cells)  # near the end
        return max(1, n)

    def together_size(self, trial_cells: int) -> int:
        """Cells of a batched policy's batch: ``batched_trials`` trials (all when None), at most
        ``batch_cells``."""
        trials = self.batched_trials or self.remaining
        return max(1, min(trials * trial_cells, self.batch_cells))

    def __iter__(self):
        for T, instance, together in sorted(self.pending, key=lambda key: (-key[0], key[1] or 0, not key[2])):
            queue = self.pending[(T, instance, together)]
            while queue:
                n = self.together_size(len(queue[0][1])) if together else self.size(T, len(queue[0][1]))
                trials, filled = [], 0
                while queue and filled < n:
                    trial, cells = queue[0]
                    if len(cells) > n - filled:
                        if trials:
                            break
                        queue[0] = (trial, cells[n:])  # a trial larger than the batch is split
                        cells = cells[:n]
                    else:
                        queue.popleft()
                    trials.append((trial, cells))
                    filled += len(cells)
                if not together:
                    self.last[T] = filled
                self.remaining -= filled
                yield Batch(T, trials, instance)


class Writer:
    """The main process's writer: the rows of finished batches, gathered into one shard of at
    most ``batch_cells`` rows, written when it is full, when ``batch_s`` seconds have passed
    since the last one, and at the end (also of an interrupted run). Without a results folder
    the rows are kept as tables."""

    def __init__(self, folder: Path | None, batch_cells: int, batch_s: float, timing: dict,
                 stored: store.Stored | None = None):
        self.folder, self.batch_cells, self.batch_s, self.timing = folder, batch_cells, batch_s, timing
        self.stored = stored  # where each cell is: each shard written is added to it
        self.pending: list = []
        self.rows = 0
        self.last = time.monotonic()
        self.tables: list = []

    def add(self, cols: dict) -> None:
        started = time.perf_counter()
        table = store.columns_table(cols)
        if self.folder is None:
            self.tables.append(table)
        else:
            self.pending.append(table)
            self.rows += table.num_rows
            if self.rows >= self.batch_cells or time.monotonic() - self.last >= self.batch_s:
                self.flush()
        self.timing["write_s"] += time.perf_counter() - started

    def flush(self) -> None:
        if self.pending:
            import pyarrow as pa

            started = time.perf_counter()
            table = pa.concat_tables(self.pending)
            path = store.write_shard(self.folder, table)
            if self.stored is not None:
                for row, key in enumerate(table.column("cell_key").to_pylist()):
                    self.stored.where[key] = (path, row)
            self.pending, self.rows = [], 0
            self.timing["write_s"] += time.perf_counter() - started
        self.last = time.monotonic()
