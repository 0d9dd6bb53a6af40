"""A sweep: every job of a command (one, or each point of a ``-m`` sweep), run as one plan.

The command line composes and checks every job before any runs (:mod:`composition`), and hands
them here as :class:`Job` objects, each with its checked setups (one per scenario). The sweep
then runs as one stream of batches (:func:`bandits.experiments.run.execution.execute`): each job's
plans are drawn when the stream reaches them, so that the workers never wait at a job's end;
each plan is gathered into its table as soon as its cells are done (a table several plans add
to is written once, by the last: :class:`bandits.experiments.run.gathering.Tables`), and its summary
is printed then. Jobs that run on other workers (another ``n_jobs`` or backend), or whose
instances are too large to draw while the jobs before still hold theirs, start a stream of
their own; a ``trials=auto`` job runs its looks alone (:mod:`adaptive_trials`).

Everything a sweep keeps (the algorithms it built, the shards it read, the tables it holds
back) belongs to the sweep: two sweeps in one process share nothing.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections import Counter
from dataclasses import dataclass

import pandas as pd
from omegaconf import DictConfig

from bandits.errors import ConfigError, ReportedError
from bandits.experiments.compose.building import BuildCache
from bandits.experiments.run import timings
from bandits.experiments.run.adaptive_trials import run_auto
from bandits.experiments.run.execution import execute
from bandits.experiments.run.gathering import Tables, problems_note
from bandits.experiments.run.planning import compared, timed_plan
from bandits.experiments.setup.checks import check_setup, memory_limit
from bandits.experiments.setup.setups import Setup, check_seed, scenario_configs, setup_from_config, setup_key
from bandits.experiments.store import table_store as store
from bandits.experiments.store.fingerprint import code_fingerprint

log = logging.getLogger("drift_bandits")

LARGE = 0.05  # an instance larger than 5% of memory_limit() (env.footprint) is drawn in a stream of its own


@dataclass
class Job:
    """One job of a command: its number in the sweep, its checked setups (one per scenario,
    in order), its overrides, and where its lines are logged (its run log, on the command line)."""
    num: int
    setups: list
    overrides: tuple = ()
    log: logging.Logger | logging.LoggerAdapter = log
    title: str = ""  # printed before its first plan (a -m sweep's "#3 : seed=3")

    @property
    def dry(self) -> bool:
        return self.setups[0].dry_run


def job_setups(cfg: DictConfig, cache: BuildCache | None = None) -> list[Setup]:
    """The checked setups of one composed config: one per scenario, all checked before any runs."""
    return [check_setup(setup_from_config(one, cache)) for one in scenario_configs(cfg)]


def command_jobs(composed: list) -> list[Job]:
    """The jobs of a command, each one's setups built and checked before any runs (``composed``:
    (overrides, config) of each). Jobs that differ in their root seed alone (a sweep over seeds)
    are built and checked once: the others are copies with their own seed."""
    cache = BuildCache()
    by_key: dict = {}
    out = []
    for num, (overrides, cfg) in enumerate(composed):
        key = setup_key(cfg)
        if key is not None and key in by_key:
            seed = check_seed(cfg)
            setups = [dataclasses.replace(s, seed=seed) for s in by_key[key]]
        else:
            setups = job_setups(cfg, cache)
            if key is not None:
                by_key[key] = setups
        out.append(Job(num, setups, tuple(overrides)))
    return out


def run_config(cfg: DictConfig, progress: bool = True, full: bool = False) -> pd.DataFrame:
    """Run one composed config as a sweep of one job; its rows (light columns and labels;
    ``full``: every column, curves included)."""
    return run_sweep([Job(0, job_setups(cfg, BuildCache()))], progress, full)[0]


def run_sweep(jobs: list[Job], progress: bool = True, full: bool = False) -> list[pd.DataFrame]:
    """Run every job (see the module); returns each job's rows, with the comparators of its
    regret in ``attrs["comparators"]``. Raises the first failure, after reporting the plans
    that finished before it; a failed or interrupted sweep writes the tables it held back."""
    run = SweepRun(jobs, progress, full)
    try:
        if any(job.dry for job in jobs):
            return [run.dry(job) for job in jobs]
        for segment in segments(jobs):
            if segment[0].setups[0].auto is not None:
                run.auto(segment[0])
            else:
                run.stream(segment)
    except KeyboardInterrupt:
        run.interrupted()
        raise
    finally:
        run.tables.flush()
    return [run.rows(job) for job in jobs]


class Segment(list):
    """Consecutive jobs that run as one stream (``alone``: one job that runs by itself)."""

    def __init__(self, jobs: list, alone: bool):
        super().__init__(jobs)
        self.alone = alone


def segments(jobs: list[Job]) -> list[Segment]:
    """The jobs as streams: consecutive jobs on the same workers run as one; a trials=auto job,
    or one whose instances are too large to draw while the jobs before hold theirs, runs alone."""
    out: list = []
    for job in jobs:
        footprint = sum(guarded_footprint(s, T) for s in job.setups for T in s.Ts)
        alone = job.setups[0].auto is not None or footprint > LARGE * memory_limit()
        if out and not alone and not out[-1].alone and workers(out[-1][-1].setups[0]) == workers(job.setups[0]):
            out[-1].append(job)
        else:
            out.append(Segment([job], alone))
    return out


def guarded_footprint(setup: Setup, T: int) -> int:
    footprint = getattr(setup.env, "footprint", None)
    return 0 if footprint is None else int(footprint(T))


def workers(setup: Setup) -> tuple:
    return setup.backend, setup.n_jobs, setup.address


class SweepRun:
    """What one run of a sweep holds: the algorithms it built, the shards it read, its tables
    (:class:`Tables`, told how many plans add to each), each job's rows, and the clock of its
    timing rows (each plan's recorded span starts where the last one ended: they add up)."""

    def __init__(self, jobs: list[Job], progress: bool, full: bool):
        self.progress, self.full = progress, full
        self.shards = store.ShardCache()
        self.tables = Tables(Counter(p for job in jobs for s in job.setups
                                     if s.results_dir is not None and not s.dry_run
                                     for p in [s.results_dir / "tables" / f"{s.experiment}.parquet"]))
        self.parts: dict = {}  # job num -> {scenario index: rows}
        self.comparators: dict = {}  # job num -> set
        self.planned: list = []  # (job, plan) of every plan drawn, in order
        self.gathered: set = set()  # ids of the plans gathered
        self.last_end = time.time()

    # ------------------------------------------------------------------------- one plan
    def plan(self, job: Job, setup: Setup):
        if job.title and setup is job.setups[0]:
            job.log.info(job.title)
        p = timed_plan(setup, self.shards)
        s = p.setup
        nested = "" if s.instances is None else f"instances={s.instances} x "
        job.log.info(f"[{s.experiment}] env={s.env_name} T={s.Ts} {nested}trials={s.trials} seed={s.seed}: "
                     f"{len(p.todo)} cells to run, {len(p.done)} already stored (code {code_fingerprint()})")
        for bad in p.corrupt:
            job.log.warning(f"warning: unreadable or partial cell file moved to {bad}; the cell is recomputed")
        if s.dry_run:
            job.log.info("dry run: the config is valid; nothing was run.")
        elif not p.todo:
            job.log.info("nothing to run: every cell of this command is already stored (overwrite=true recomputes).")
        self.planned.append((job, p))
        return p

    def finished(self, job: Job, index: int, running, report: bool = True) -> None:
        """A plan's cells are done: gather them into its table, print its summary, record its time."""
        from bandits.experiments.report.summary import (  # scipy.stats: only once there are rows
            summary_text,
            timing_text,
        )

        p = running.plan
        s = p.setup
        executed = time.time()
        rows, table = self.tables.gather(p, running.result(), self.full)
        self.gathered.add(id(p))
        workers_ = 1 if s.n_jobs == 1 else _effective(s.n_jobs)
        span = p.timing.pop("last_batch", executed) - p.timing.pop("first_batch", executed)
        if report:  # (trials=auto reports once, after its last look)
            if len(self.planned) > 1:  # every plan's header printed first: each block names its own
                where = f" -> {p.table_path}" if p.table_path is not None else ""
                job.log.info(f"\n== {job.title + ' ' if job.title else ''}[{s.experiment}]{where}")
            job.log.info(summary_text(rows, timing_text(span, len(p.todo), workers_, p.timing),
                                      comparators=compared(p)))
        end = time.time()
        timings.record(s.results_dir, stage="run", experiment=s.experiment, cells_run=len(p.todo),
                       cells_stored=len(p.done), workers=workers_, start=round(self.last_end, 3), end=round(end, 3),
                       execute_s=max(0.0, executed - max(self.last_end, p.timing.get("drawn", executed))),
                       gather_s=end - executed, **p.timing)
        self.last_end = end
        if report and p.table_path is not None:
            later = " (written by the sweep's last job that adds to it)" if self.tables.will_write_later(p) else ""
            job.log.info(f"table: {p.table_path}{later}")
        problems_note(p, table, job.log.info)
        self.parts.setdefault(job.num, {})[index] = rows
        self.comparators.setdefault(job.num, set()).update(compared(p))
        p.instances.clear()  # a sweep of 600 plans holds no finished plan's instances

    def rows(self, job: Job) -> pd.DataFrame:
        parts = self.parts.get(job.num, {})
        if not parts:
            out = store.finish(pd.DataFrame(columns=store.SCHEMA.names))
        else:
            out = pd.concat([parts[i] for i in sorted(parts)], ignore_index=True) if len(parts) > 1 else parts[0]
        out.attrs["comparators"] = self.comparators.get(job.num, set())
        return out

    # ------------------------------------------------------------------------- ways to run
    def dry(self, job: Job) -> pd.DataFrame:
        for setup in job.setups:
            self.plan(job, setup)
        return store.finish(pd.DataFrame(columns=store.SCHEMA.names))

    def stream(self, segment: list[Job], report: bool = True) -> None:
        """The jobs of ``segment`` as one stream: each job's plans drawn when the stream reaches
        them (in the thread that hands the batches out); a plan that cannot be drawn (bad input
        found only now) stops the stream and is raised in its turn, after the plans before it."""
        owner: dict = {}
        failure: list = []

        def plans():
            for job in segment:
                for index, setup in enumerate(job.setups):
                    try:
                        p = self.plan(job, setup)
                    except (ConfigError, ReportedError, OSError) as exc:  # raised below, in its turn
                        failure.append(exc)
                        return
                    p.timing["drawn"] = time.time()
                    owner[id(p)] = (job, index)
                    yield p

        s = segment[0].setups[0]
        first = s.experiment if len(segment) == 1 and len(segment[0].setups) == 1 else \
            f"{s.experiment} and more"
        execute(plans(), s.backend, s.n_jobs, s.address, self.progress, description=first,
                finished=lambda r: self.finished(*owner[id(r.plan)], r, report))
        if failure:
            raise failure[0]

    def auto(self, job: Job) -> None:
        """A trials=auto job: its looks, each a stream of the trials it adds, then one summary of
        every trial and the verdict."""
        from bandits.experiments.report.summary import summary_text

        looks: list = []

        def look(setups):
            self.stream([Job(job.num, setups, job.overrides, job.log)], report=False)
            rows = self.rows(job)
            self.parts.pop(job.num, None)
            looks.append(rows)
            return rows

        rows, verdict = run_auto(job.setups, job.setups[0].auto, look, job.log.info)
        job.log.info(summary_text(rows, comparators=self.comparators.get(job.num, set())))
        job.log.info(verdict)
        for s in job.setups:
            if s.results_dir is not None:
                job.log.info(f"table: {s.results_dir / 'tables' / f'{s.experiment}.parquet'}")
        self.parts[job.num] = {0: rows}

    def interrupted(self) -> None:
        stored = sum(len(rows) for parts in self.parts.values() for rows in parts.values())
        for _, p in self.planned:
            if id(p) not in self.gathered and p.table_path is not None:
                stored += len(self.tables.gather(p)[0])
        log.warning(f"interrupted: {stored} cells of this command are stored; run the same command again "
                    "to compute the rest.")


def _effective(n_jobs: int) -> int:
    from joblib import effective_n_jobs
    return effective_n_jobs(n_jobs)
