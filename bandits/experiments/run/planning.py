"""The plan of a setup: its instances drawn (one per horizon, or ``instances`` of them, each
shared by its trials and every algorithm), and its cells listed (a cell: one algorithm,
horizon and trial), split into those a valid shard already holds and those to run. A cell's
key covers its configuration, trial and the code that computes its numbers
(:mod:`bandits.experiments.store.fingerprint`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from omegaconf import DictConfig

from bandits.experiments.setup.checks import check_instance, check_setup
from bandits.experiments.setup.setups import Setup, setup_from_config
from bandits.experiments.store import table_store as store
from bandits.experiments.store.fingerprint import code_fingerprint, source_hash, stable_hash
from bandits.simulation import guarded, stream


@dataclass(slots=True)
class Cell:
    algo_name: str
    algo: object
    algo_cfg: dict
    T: int
    trial: int
    key: str
    config_hash: str
    instance: int | None = None  # None: the horizon's one instance


@dataclass
class Plan:
    setup: Setup
    instances: dict = field(default_factory=dict)
    todo: list = field(default_factory=list)
    done: list = field(default_factory=list)
    corrupt: list = field(default_factory=list)  # damaged shards moved aside (their cells recomputed)
    stored: store.Stored | None = None  # the cells folder as planned
    timing: dict = field(default_factory=dict)  # seconds of the run's parts (bandits.experiments.run.timings)

    @property
    def experiment(self) -> str:
        return self.setup.experiment

    @property
    def table_path(self) -> Path | None:
        rd = self.setup.results_dir
        return None if rd is None else rd / "tables" / f"{self.experiment}.parquet"

    @property
    def folder(self) -> Path | None:
        """The experiment's cells folder (its shards)."""
        rd = self.setup.results_dir
        return None if rd is None else rd / "runs" / self.experiment


def cell_code(*objs) -> str:
    """The library's fingerprint, plus the source of any user class (policy or
    environment) defined outside it, so that editing one's own code never reuses a
    stale cell."""
    return "+".join([code_fingerprint(), *filter(None, (source_hash(type(o)) for o in objs))])


INSTANCE_KEY = 3  # spawn key (3, i): instance i of an experiment with `instances`, the same at every T


def trial_index(trial: int, instance: int | None, instances: int | None) -> int:
    """The stored trial number (and trial stream) of trial ``trial`` of ``instance``: the
    trial itself without ``instances``; else ``trial * instances + instance``, so that every
    cell of an algorithm at one horizon has its own number and streams, and adding trials
    (``trials=auto``'s looks) keeps the numbers of the trials already run."""
    return trial if instance is None else trial * instances + instance


def instance_of(index: int, instances: int | None) -> int | None:
    """The instance of a stored trial number (:func:`trial_index` inverted)."""
    return None if instances is None else index % instances


def draw_instance(setup: Setup, T: int, instance: int | None):
    """The instance a horizon's cells face: the horizon's own draw (spawn key (0, T)), or
    instance i of ``instances`` (spawn key (3, i) at every T, so that an environment whose draw
    does not depend on T, such as drawn means with change points at fractions of T, poses the
    same problem at every horizon)."""
    where = f"T={T}" if instance is None else f"T={T}, instance {instance}"
    rng = stream(setup.seed, 0, T) if instance is None else stream(setup.seed, INSTANCE_KEY, instance)
    return guarded(setup.env, "instance", where, T, rng)


def plan(setup: Setup, shards: store.ShardCache | None = None) -> Plan:
    """Draw the instances of a checked setup, check what each algorithm needs from them, and
    list the cells (done / to do). Raises ConfigError before any work starts. ``shards``: the
    sweep's cache of the shards read (a folder's older shards are read once per sweep).
    ``plan.instances`` maps (T, instance) to the drawn instance (instance None: the horizon's one)."""
    out = Plan(check_setup(setup))
    stored = store.scan(out.folder, cache=shards) if out.folder is not None else store.Stored()
    out.stored, out.corrupt = stored, stored.corrupt
    for T in setup.Ts:
        for instance in setup.instance_ids:
            inst = draw_instance(setup, T, instance)
            out.instances[(T, instance)] = inst
            check_instance(setup, T, inst)
        for name, (obj, spec) in setup.algos.items():
            described = {"env": setup.env_cfg, "algo": spec, "T": T, "seed": setup.seed}
            if setup.instances is not None:  # (a run without instances keeps its cells' keys)
                described["instances"] = setup.instances
            config_hash = stable_hash(described)
            code = cell_code(obj, setup.env)
            for trial in range(setup.trials_from, setup.trials):
                for instance in setup.instance_ids:
                    index = trial_index(trial, instance, setup.instances)
                    key = stable_hash({"experiment": setup.experiment, "config": config_hash, "trial": index,
                                       "code": code, "save_actions": setup.save_actions})
                    cell = Cell(name, obj, spec, T, index, key, config_hash, instance)
                    (out.done if key in stored.where and not setup.overwrite else out.todo).append(cell)
    return out


def timed_plan(setup: Setup, shards: store.ShardCache | None = None) -> Plan:
    """:func:`plan`, with its seconds in the plan's timing (``plan_s``)."""
    began = time.time()
    out = plan(setup, shards)
    out.timing["plan_s"] = time.time() - began
    return out


def plan_config(cfg: DictConfig) -> Plan:
    """The plan of one composed config without scenarios (``collect``, tests): its setup built,
    checked and planned."""
    return plan(setup_from_config(cfg))


def stored_info(instance) -> dict:
    """What a row records of an instance: every scalar or list the learner was told and
    every evaluation-only one (arrays such as contexts or the price grid are left out)."""
    both = {**instance.info, **instance.evaluation}
    return {k: v for k, v in both.items() if not isinstance(v, np.ndarray)}


def compared(plan: Plan) -> set:
    """The comparators of a plan's regret (one per instance; the environment records it)."""
    from bandits.experiments.setup.regret_kind import comparator

    return {comparator(stored_info(inst)) for inst in plan.instances.values()}
