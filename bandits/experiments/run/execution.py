"""Running plans: their batches as one stream on one set of workers, in the main process
(``n_jobs=1``), on a pool of loky workers, or on a Dask cluster.

:func:`execute` takes the plans as an iterable that may plan each one only when the stream
reaches it (a sweep's jobs: their instances are drawn while the workers run the batches before
them, so that no worker waits for a job's planning or for its first batch). Every batch comes
back tagged with its plan; a plan is *finished* when its batches are all handed out and all
back, and its rows written; ``finished(running)`` is then called in the main thread, while the
workers go on with the next plans' batches. A batch that raised comes back to its own plan,
and the stream stops at the first plan that failed, after reporting the plans that finished.

An interrupt or a kill loses at most the batches in flight and the rows not yet written (each
about ``parallel.batch_s`` seconds of work); Ctrl-C in the main process (``n_jobs=1``) loses
nothing finished.
"""

from __future__ import annotations

import sys
import threading
import time

from bandits.errors import ConfigError, install_hint
from bandits.experiments.run.batching import Batches, Writer
from bandits.experiments.run.planning import Plan, stored_info
from bandits.experiments.run.worker import Failed, WorkerTraceback, run_tagged, to_json
from bandits.experiments.store.fingerprint import code_fingerprint, package_version, provenance


class Running:
    """One plan while its batches run: its batches (:class:`Batches`), writer, rows in
    memory or Done records, how many batches were handed out and came back, and the first
    failure of one of them (a :class:`Failed`: the rest of the plan is not handed out)."""

    def __init__(self, plan: Plan, workers: int, sink_in_process: bool):
        s = plan.setup
        self.plan = plan
        self.meta = {"seed": s.seed, "experiment": s.experiment, "env_name": s.env_name,
                     "env_params": to_json({k: v for k, v in s.env_cfg.items() if k != "name"}),
                     "code": code_fingerprint(), "version": package_version(), "save_actions": s.save_actions,
                     "provenance": provenance(),
                     "env_info": {key: to_json(stored_info(inst)) for key, inst in plan.instances.items()}}
        plan.timing.update(write_s=0.0, worker_s=0.0, kernel_s=0.0, warm_s=0.0)
        self.writer = Writer(plan.folder, s.batch_cells, s.batch_s, plan.timing, plan.stored)
        self.batches = Batches(plan, s.batch_cells, s.batch_s, workers, s.batched_trials)
        self.sink = self.writer.add if sink_in_process else None
        self.out: list = []
        self.sent = self.back = 0
        self.all_sent = False
        self.failed: Failed | None = None

    def jobs(self, tag: int, stop: threading.Event):
        from joblib import delayed

        s = self.plan.setup
        for b in self.batches:
            if self.failed is not None or stop.is_set():
                break
            self.sent += 1
            self.plan.timing.setdefault("first_batch", time.time())  # its batches' span starts here
            instance = self.plan.instances[(b.T, b.instance)]
            yield delayed(run_tagged)(tag, self.meta, s.env, instance, b, s.batch_s, self.sink)
        self.all_sent = True

    def take(self, done) -> None:
        self.back += 1
        if isinstance(done, Failed):
            self.failed = self.failed or done
            return
        self.batches.observe(done)
        if done.rows:
            self.writer.add(done.rows)
        self.out.append(done._replace(rows=None))
        self.plan.timing["worker_s"] += done.seconds
        self.plan.timing["kernel_s"] += done.kernel_s
        self.plan.timing["warm_s"] += done.warm_s
        self.plan.timing["last_batch"] = time.time()

    @property
    def finished(self) -> bool:
        return self.all_sent and self.back == self.sent

    def raise_failure(self) -> None:
        if self.failed is None:
            return
        exc = self.failed.error
        if exc.__traceback__ is None:  # raised in a worker: its traceback there is the cause
            raise exc from WorkerTraceback(self.failed.trace)
        raise exc

    def result(self) -> list:
        """The rows as tables (a plan without a results folder) or the batches' Done records."""
        return self.writer.tables if self.plan.folder is None else self.out


def execute(plans, backend: str = "loky", n_jobs: int = 1, address: str | None = None, progress: bool = True,
            finished=None, description: str = "") -> list[Running]:
    """Run the batches of ``plans`` (an iterable of plans; it may plan each when the stream
    reaches it) as one stream on one set of workers: ``backend`` loky (``n_jobs=1``: the main
    process) or dask (``address``: a scheduler, else a local cluster). ``finished(running)`` is
    called in this thread as soon as a plan is finished. Returns every plan's :class:`Running`,
    in order; raises the first failure of a batch, once the plans before it are reported."""
    from joblib import effective_n_jobs
    from tqdm.auto import tqdm

    in_process = backend == "loky" and n_jobs == 1
    workers = 1 if in_process else effective_n_jobs(n_jobs)
    running: list = []  # in the order their batches are handed out (appended by the thread that draws them)
    stop = threading.Event()  # set on a failure or an interrupt: no further batch is handed out
    called: set = set()

    def batches():
        for plan in plans:
            if stop.is_set():
                return
            r = Running(plan, workers, in_process)
            running.append(r)
            yield from r.jobs(len(running) - 1, stop)

    # The bar redraws its line with carriage returns: in a file (stderr not a terminal) it would
    # share lines with the summaries, so it is drawn on a terminal only.
    on_terminal = bool(getattr(sys.stderr, "isatty", lambda: False)())
    bar = tqdm(total=0, desc=description, unit="cell", delay=2.0, disable=not (progress and on_terminal))

    def finish_ready():
        """Report each plan whose batches are all back, in order of need; a plan that failed is
        raised once every plan before it is reported (the failure is its own, in its turn)."""
        known = list(running)
        total = sum(len(r.plan.todo) for r in known)
        bar.total = total  # (shown from the next update on, after the bar's delay)
        for i, r in enumerate(known):
            if i in called:
                continue
            if r.failed is not None and all(j in called for j in range(i)) and r.finished:
                r.raise_failure()
            if r.finished and r.failed is None:
                called.add(i)
                r.writer.flush()
                if finished is not None:
                    with tqdm.external_write_mode():  # the bar is cleared while a summary prints, then redrawn
                        finished(r)

    def take(tag, done):
        running[tag].take(done)
        if isinstance(done, Failed):
            stop.set()  # no batch of this plan or a later one is handed out any more
        else:
            bar.update(done.cells)
        finish_ready()

    try:
        if in_process:
            for job in batches():
                take(*job[0](*job[1], **job[2]))
        elif backend == "dask":
            for tag, done in _dask(batches(), address):
                take(tag, done)
        else:
            _loky(batches(), workers, take, stop)
        finish_ready()  # the plans with nothing to run, and the last ones
        for r in running:
            r.raise_failure()  # (none is left unless a plan before it never finished)
    except BaseException:
        stop.set()
        raise
    finally:
        for r in running:
            r.writer.flush()  # whatever finished, also when interrupted
        bar.close()
    return running


def _loky(jobs, workers: int, take, stop: threading.Event) -> None:
    """The batches on a pool of loky workers, taken back as each one ends; the pool is released
    at the end (its workers stay, with their loaded kernels, for the next stream)."""
    from joblib import Parallel

    with Parallel(n_jobs=workers, return_as="generator_unordered") as pool:
        results = pool(jobs)
        try:
            for tag, done in results:
                take(tag, done)
        except BaseException:
            stop.set()
            results.close()  # stop the running batches
            raise


def _dask(jobs, address: str | None) -> list:
    """joblib's Dask backend: the batches fan out over a Dask cluster (``parallel.address``,
    e.g. tcp://scheduler:8786), or over a local one when no address is given."""
    try:
        from dask.distributed import Client
    except ImportError as exc:
        raise ConfigError(f"parallel.backend=dask needs dask.distributed ({install_hint('cluster')}).") from exc
    from joblib import Parallel, parallel_config

    client = Client(address) if address else Client(processes=False)
    try:
        with parallel_config(backend="dask"):
            return Parallel(n_jobs=-1)(jobs)
    finally:
        client.close()
