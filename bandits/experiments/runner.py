"""Run an experiment: validate everything, fan the trials out with joblib, store each
finished cell atomically, gather the experiment's table, log a summary.

Three steps, each a plain function:

* :func:`setup_from_config` (the CLI) or :func:`bandits.experiments.api.simulate` (Python)
  build a :class:`Setup`: the environment, the algorithms by name, the horizons and
  the top-level values, all validated;
* :func:`plan` checks every algorithm/environment pair and every horizon before any
  work, draws the instances and lists the cells, split into done and to-do;
* :func:`execute` runs the to-do cells (a trial's cells share one reward table, see
  :mod:`bandits.simulation` for the seeds), and :func:`gather` merges them into
  ``results/tables/<experiment>.parquet``.

Nothing is written when ``results_dir`` is None (the Python API's default): the
rows are returned instead, with exactly the numbers the CLI would store.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from omegaconf import DictConfig, ListConfig, OmegaConf

from bandits.algorithms.protocol import is_protocol_policy
from bandits.errors import ConfigError, ReportedError, Unavailable, last_line, require_float, require_int
from bandits.experiments import store, timings
from bandits.experiments.adaptive_trials import AutoTrials, auto_trials, run_auto
from bandits.experiments.fingerprint import code_fingerprint, package_version, provenance, source_hash, stable_hash
from bandits.experiments.names import NAME_MAX, check_algo_key, check_label, file_name  # noqa: F401
from bandits.experiments.params import recorded_params
from bandits.experiments.worker import Batch, CellSpec, Done, Failed, WorkerTraceback, run_tagged, to_json
from bandits.simulation import check_needs, guarded, learner_info, problem_kinds, stream

log = logging.getLogger("drift_bandits")



# ----------------------------------------------------------------------------- building

def plain(node) -> dict:
    return OmegaConf.to_container(node, resolve=True) if isinstance(node, (DictConfig, ListConfig)) else dict(node)


_BUILT: dict = {}  # an algorithm spec (JSON) -> its checked built-in object, copied for each later setup


def build(spec: dict, kind: str):
    """Instantiate a config node ``{name, _target_, **params}`` into (name, object). A
    config without a name is named after its class (a user's policy, say).

    A built-in algorithm (a ``bandits.`` class: its constructor only stores its parameters)
    is built and checked once per process and spec, and handed out as a copy: the scenarios
    and seeds of a sweep name the same algorithms again and again (7 of them x 12 scenarios
    x 50 seeds in master_geo), and Hydra's instantiate costs milliseconds each."""
    import copy

    from hydra.errors import InstantiationException
    from hydra.utils import instantiate

    reserved = ("name", "label") if kind == "algo" else ("name",)  # an algorithm's display label; env.label is a column
    spec = {k: v for k, v in spec.items() if k not in reserved}
    target = spec.get("_target_")
    if not target or target == "???":
        raise ConfigError(f"{kind} config has no _target_: set {kind}._target_=package.module.Class.")
    memo = None
    if kind == "algo" and str(target).startswith("bandits."):
        memo = json.dumps(spec, sort_keys=True, default=repr)
        if memo in _BUILT:
            return str(target).rsplit(".", 1)[-1], copy.deepcopy(_BUILT[memo])
    check_parameters(kind, target, [k for k in spec if k != "_target_"])
    try:
        obj = instantiate(spec, _convert_="all")
    except InstantiationException as exc:
        msg = str(exc).strip().splitlines()
        raise ConfigError(f"cannot build {kind} from _target_={target}: {' '.join(msg)}") from None
    if kind == "algo" and not (callable(getattr(obj, "play", None)) or is_protocol_policy(obj)):
        raise ConfigError(f"algo {target} is not a policy: it needs play(rewards, info, rng) or "
                          "reset/select/update (see bandits/algorithms/protocol.py).")
    if kind == "algo" and callable(getattr(obj, "check_params", None)):
        guarded(obj, "check_params", "before any work")  # environments: per horizon, in check_setup()
    if memo is not None:
        if len(_BUILT) > 10_000:
            _BUILT.clear()
        _BUILT[memo] = copy.deepcopy(obj)
    return str(target).rsplit(".", 1)[-1], obj


def check_parameters(kind: str, target: str, given: list) -> None:
    """The class exists and takes every parameter given (a misspelt one gets a "did you mean")."""
    import difflib
    import inspect

    from hydra.utils import get_class

    from bandits.experiments.targets import import_problem

    quiet = logging.getLogger("hydra.utils")
    level, quiet.level = quiet.level, logging.CRITICAL  # the error is reported below, once
    try:
        cls = get_class(target)
    except Exception as exc:  # noqa: BLE001 -- hydra wraps import errors of every kind
        raise import_problem(kind, target, exc) from None  # the class or module missing, named
    finally:
        quiet.setLevel(level)
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return
    valid = [n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for key in given:
        if key not in valid:
            close = difflib.get_close_matches(key, valid, 1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"{kind} {cls.__name__} has no parameter {key!r}{hint}; its parameters: "
                              f"{', '.join(valid) or 'none'}.")


def algorithm(spec: dict, name: str | None = None):
    """(name, object, spec) of one algorithm config; the name defaults to the config's
    ``name``, then to the class name."""
    check_label("algo.label", spec.get("label"))
    if name is not None:
        check_algo_key(name)
    built_name, obj = build(spec, "algo")
    name = name or spec.get("name") or built_name
    return name, obj, recorded_params(obj, {**spec, "name": name, "label": spec.get("label")})


ALGO_PREFIX = re.compile(r"(?<![\w.])algo\.(?=\w)")


@contextmanager
def at_key(key: str | None):
    """The key path of an algorithm in its messages: an algorithm under ``algos.<key>``
    reports ``algos.<key>.window`` where its own checks say ``algo.window``."""
    try:
        yield
    except ConfigError as exc:
        if key is None or isinstance(exc, ReportedError):
            raise
        raise type(exc)(ALGO_PREFIX.sub(f"algos.{key}.", str(exc))) from exc


def algo_key(setup: Setup, name: str) -> str | None:
    """The key under ``algos`` of one of ``setup``'s algorithms, or None for the single ``algo``."""
    return name if setup.keyed else None


@dataclass
class Setup:
    """What to run, validated: one environment, the algorithms by name, horizons, trials."""
    experiment: str
    env_name: str
    env: object
    env_cfg: dict
    algos: dict  # name -> (object, config dict)
    Ts: list
    trials: int
    seed: int
    n_jobs: int = 1
    save_actions: bool = False
    overwrite: bool = False
    results_dir: Path | None = Path("outputs")
    backend: str = "loky"
    address: str | None = None
    keyed: bool = True  # the algorithms sit under algos.<name> (not a single algo)
    batch_cells: int = 20_000  # cells of one batch (and shard) at most; 1 = a batch and a file per cell
    batch_s: float = 10.0  # seconds of work a batch is sized to (what an interrupt can lose per worker)
    auto: AutoTrials | None = None  # trials=auto: trials added in looks (bandits.experiments.adaptive_trials)
    trials_from: int = 0  # the first trial of the cells to plan (a later look of trials=auto)


def horizons(value, scale: float = 1.0) -> list:
    values = list(value) if isinstance(value, (list, tuple, ListConfig)) else [value]
    if not values:
        raise ConfigError("T must be a positive integer or a non-empty list of them.")
    Ts = [require_int("T", v, minimum=1, maximum=LIMITS["T"]) for v in values]
    twice = sorted({t for t in Ts if Ts.count(t) > 1})
    if twice:
        raise ConfigError(f"T lists {', '.join(map(str, twice))} more than once: each horizon is one set of cells "
                          "(give every horizon once).")
    if scale != 1.0:  # horizons that round to one scaled horizon collapse into it
        Ts = sorted({max(1, round(T * scale)) for T in Ts})
    return Ts


def _bool(name, value) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be true or false, got {value!r}.")
    return value


def experiment_name(value) -> str:
    return file_name("experiment_name", "adhoc" if value is None else value)


# The top-level keys of conf/config.yaml (hydra's own node aside): anything else is a typo.
TOP_LEVEL = ("algo", "env", "algos", "scenarios", "experiment_name", "T", "horizon_scale", "trials", "auto", "seed",
             "n_jobs", "overwrite", "save_actions", "dry_run", "debug", "results_dir", "parallel", "slurm")
SEED_MAX = 2 ** 63 - 1  # the seed column is a 64-bit integer
LIMITS = {"trials": 1_000_000, "T": 10 ** 9}


def check_top_level_keys(cfg: DictConfig) -> None:
    unknown = [k for k in cfg if k not in TOP_LEVEL and k != "hydra"]
    if unknown:
        import difflib
        hints = [f"{k!r} (did you mean {close[0]!r}?)" if (close := difflib.get_close_matches(k, TOP_LEVEL, 1))
                 else repr(k) for k in unknown]
        raise ConfigError(f"unknown top-level key {', '.join(hints)}; the top-level keys are {', '.join(TOP_LEVEL)}.")


def scenario_configs(cfg: DictConfig) -> list[DictConfig]:
    """The jobs of a composed config: itself, or, for an experiment with ``scenarios``
    (scenario name -> environment config), one config per scenario, with that
    environment and the results table ``<experiment_name>.<scenario>``. Everything
    else (algorithms, horizons, trials, the root seed) is shared; a scenario is left
    out with ``~scenarios.<name>``."""
    check_top_level_keys(cfg)
    scenarios = cfg.get("scenarios")
    if not scenarios:
        return [cfg]
    from omegaconf import OmegaConf

    base = OmegaConf.to_container(cfg, resolve=False)  # once: a config copy per scenario is most of the cost
    envs = base.pop("scenarios")
    out = []
    for name in scenarios:
        file_name("scenario name", str(name))
        if not isinstance(scenarios[name], DictConfig) or "_target_" not in scenarios[name]:
            raise ConfigError(f"scenarios.{name} must be an environment config (with _target_), e.g. "
                              f"`- /env@scenarios.{name}: piecewise_bernoulli` in the experiment's defaults.")
        out.append(OmegaConf.create({**base, "env": envs[name], "scenarios": {},
                                     "experiment_name": f"{experiment_name(cfg.get('experiment_name'))}.{name}"}))
    return out


def check_seed(cfg: DictConfig) -> int:
    return require_int("seed", cfg.seed, minimum=0, maximum=SEED_MAX)


def setup_key(cfg: DictConfig) -> str | None:
    """What :func:`setup_from_config` builds from, the root seed left out: two configs with
    one key build the same environment and algorithms (None: the config does not resolve, so
    let the setup report why)."""
    from omegaconf import OmegaConf

    try:
        values = OmegaConf.to_container(cfg, resolve=True)
    except Exception:  # noqa: BLE001 -- the setup raises the error itself, as a ConfigError
        return None
    values.pop("seed", None)
    return json.dumps(values, sort_keys=True, default=repr)


def setup_from_config(cfg: DictConfig) -> Setup:
    """Validate the top-level values and build the environment and algorithms of a
    composed config (``algos`` of an experiment, or the single ``algo``) of one job
    (an experiment with ``scenarios`` is first split by :func:`scenario_configs`)."""
    check_top_level_keys(cfg)
    if cfg.get("scenarios"):
        raise ConfigError("this config lists scenarios: split it with scenario_configs() first.")
    _bool("debug", cfg.get("debug", False))
    _bool("dry_run", cfg.get("dry_run", False))
    scale = require_float("horizon_scale", cfg.get("horizon_scale", 1.0), minimum=0.0, strict=True)
    Ts = horizons(cfg.T, scale)
    auto = auto_trials(cfg.trials, plain(cfg.auto) if cfg.get("auto") else None, LIMITS["trials"])
    trials = auto.first if auto else require_int("trials", cfg.trials, minimum=1, maximum=LIMITS["trials"])
    seed = check_seed(cfg)
    n_jobs = require_int("n_jobs", cfg.n_jobs)
    if n_jobs == 0:
        raise ConfigError("n_jobs must be a positive number of workers or -1 (all cores), got 0.")
    overwrite = _bool("overwrite", cfg.get("overwrite", False))
    save_actions = _bool("save_actions", cfg.get("save_actions", False))
    name = experiment_name(cfg.get("experiment_name"))

    env_cfg = plain(cfg.env)
    env_name = env_cfg.get("name") or str(env_cfg.get("_target_", "env")).rsplit(".", 1)[-1]
    _, env = build(env_cfg, "env")

    algo_cfgs = plain(cfg.algos) if cfg.get("algos") else {}
    if algo_cfgs and cfg.get("algo") is not None:
        raise ConfigError(f"two ways of naming the algorithms at once: algo={plain(cfg.algo).get('name')} and the "
                          f"algorithms under algos ({', '.join(algo_cfgs)}); keep one: drop algo=..., or list it "
                          f"too with algos=[...] or +algo@algos.<name>=<algo config>.")
    if not algo_cfgs:
        if cfg.get("algo") is None:
            raise ConfigError("no algorithm: choose one with algo=<name>, or several with algos=[name,name,...].")
        algo_cfgs = {None: plain(cfg.algo)}
    algos = {}
    for key, spec in algo_cfgs.items():
        try:
            with at_key(key):
                name_, obj, spec = algorithm(spec, key)  # the key under `algos` names the algorithm
        except Unavailable as exc:
            log.warning(f"note: {key or spec.get('name')}: {exc}")
            continue
        algos[name_] = (obj, spec)
    if not algos:
        raise ConfigError("no algorithm left to run (see the notes above).")

    par = cfg.get("parallel") or {}
    backend = str(par.get("backend", "loky"))
    if backend not in ("loky", "dask"):
        raise ConfigError(f"parallel.backend must be loky or dask, got {backend!r}.")
    results_dir = cfg.get("results_dir", "outputs")
    if not isinstance(results_dir, str) or not results_dir.strip():
        raise ConfigError(f"results_dir must be a folder path, got {results_dir!r}.")
    batch_cells = require_int("parallel.batch_cells", par.get("batch_cells", 20_000), minimum=1)
    batch_s = require_float("parallel.batch_s", par.get("batch_s", 10.0), minimum=0.0)
    return Setup(name, env_name, env, env_cfg, algos, Ts, trials, seed, n_jobs, save_actions, overwrite,
                 Path(results_dir), backend, par.get("address"), keyed=None not in algo_cfgs,
                 batch_cells=batch_cells, batch_s=batch_s, auto=auto)


# ----------------------------------------------------------------------------- planning

@dataclass(slots=True)
class Cell:
    algo_name: str
    algo: object
    algo_cfg: dict
    T: int
    trial: int
    key: str
    config_hash: str


@dataclass
class Plan:
    setup: Setup
    instances: dict = field(default_factory=dict)
    todo: list = field(default_factory=list)
    done: list = field(default_factory=list)
    corrupt: list = field(default_factory=list)  # damaged shards moved aside (their cells recomputed)
    stored: store.Stored | None = None  # the cells folder as planned
    timing: dict = field(default_factory=dict)  # seconds of the run's parts (bandits.experiments.timings)
    running: object = None  # its Running, when its batches joined the stream before its job began

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


def check_compatible(setup: Setup) -> None:
    """Every algorithm against the environment's kind of problem, before any work."""
    kind = setup.env.problem_kind()
    wrong = {name: problem_kinds(obj) for name, (obj, _) in setup.algos.items() if kind not in problem_kinds(obj)}
    if wrong:
        from bandits.experiments.registry import pair_message

        raise ConfigError(pair_message(wrong, setup.env_name, kind))


def cell_code(*objs) -> str:
    """The library's fingerprint, plus the source of any user class (policy or
    environment) defined outside it, so that editing one's own code never reuses a
    stale cell."""
    return "+".join([code_fingerprint(), *filter(None, (source_hash(type(o)) for o in objs))])


CELL_BYTES = 40_000  # a stored cell: about 20 KB of curves and metadata, with room to spare


MANAGED = ("runs", "tables", "hydra")  # the parts of a results folder a run writes


def check_results_folder(results_dir: Path | None, cells: int = 0, save_actions_T: int = 0,
                         experiment: str | None = None) -> None:
    """Before any work: the results folder is a folder (or can be made), writable, with
    free space for the cells planned (an estimate), and every path the run will write (its
    cells' folder, the tables folder and its table) is of the right kind and writable. One
    paragraph if not."""
    if results_dir is None:
        return
    import shutil
    import tempfile

    where = f"results_dir={str(results_dir)!r}"
    existing = next((p for p in (results_dir, *results_dir.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise ConfigError(f"{where}: {str(existing)!r} is a file, not a folder; choose another results_dir.")
    try:
        results_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=results_dir, prefix=".write-test-"):
            pass
    except OSError as exc:
        raise ConfigError(f"{where} cannot be written ({last_line(exc)}); choose a writable results_dir.") from None
    folders = [results_dir / "runs", results_dir / "tables"]
    if experiment is not None:
        folders.insert(1, results_dir / "runs" / experiment)
    for folder in folders:
        if folder.exists() and not folder.is_dir():
            raise ConfigError(f"{where}: {str(folder)!r} is a file, and this run writes its "
                              f"{'cells' if folder.parent.name == 'runs' or folder.name == 'runs' else 'table'} "
                              "into a folder of that name; move the file away or choose another results_dir.")
        if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
            raise ConfigError(f"{where}: {str(folder)!r} cannot be written; choose a writable results_dir.")
    if experiment is not None:
        table = results_dir / "tables" / f"{experiment}.parquet"
        if table.exists() and not table.is_file():
            raise ConfigError(f"{where}: {str(table)!r} is a folder, where this run writes its table; move it away "
                              "or choose another experiment_name or results_dir.")
    need = cells * (CELL_BYTES + 4 * save_actions_T)
    free = shutil.disk_usage(results_dir).free
    if need > free:
        raise ConfigError(f"{where}: the {cells} cells planned need about {need / 1e6:,.0f} MB and only "
                          f"{free / 1e6:,.0f} MB are free; free some space or choose another results_dir.")


def data_paths(cfg, prefix: str = "env") -> list[tuple[str, str]]:
    """(key, value) of every file path of an environment config: ``path`` and ``*_path`` keys
    holding text (its input files, and a file it writes such as autoloan's surrogate)."""
    out = []
    for key, value in (cfg or {}).items():
        if isinstance(value, dict):
            out += data_paths(value, f"{prefix}.{key}")
        elif (key == "path" or str(key).endswith("_path")) and isinstance(value, str) and value.strip():
            out.append((f"{prefix}.{key}", value))
    return out


def check_inputs_apart(setup: Setup) -> None:
    """Inputs and outputs never overlap: a data path that lies inside the results folder's
    managed parts (cells, tables, run logs), or resolves through links into them, is refused
    before any work (the run would overwrite it)."""
    if setup.results_dir is None:
        return
    managed = [(setup.results_dir / part).resolve() for part in MANAGED]
    for key, value in data_paths(setup.env_cfg):
        target = Path(value).expanduser().resolve()
        inside = next((m for m in managed if target == m or m in target.parents), None)
        if inside is not None:
            raise ConfigError(f"{key}={value!r} lies inside {str(inside)!r}, a part of the results folder that runs "
                              f"write ({', '.join(f'{m}/' for m in MANAGED)}): the run could overwrite your data. "
                              "Keep data files outside them (anywhere else, the results folder itself included).")


def memory_limit() -> int:
    """What a run may use: 80% of the machine's memory."""
    return int(0.8 * os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


def check_memory(setup: Setup, T: int) -> None:
    """The instance (``env.footprint``) is held by the main process and by every worker,
    each with a trial's rewards of the same size: refuse what cannot fit, before drawing it."""
    footprint = getattr(setup.env, "footprint", None)
    if footprint is None:
        return
    from joblib import effective_n_jobs
    workers = effective_n_jobs(setup.n_jobs)
    one = guarded(setup.env, "footprint", f"T={T}", T)
    need, limit = one * (1 + 2 * workers), memory_limit()
    if need > limit:
        raise ConfigError(f"env={setup.env_name} at T={T:,}: the instance takes about {one / 1e9:,.1f} GB in memory, "
                          f"and with {workers} worker(s) each holding a copy and a trial's rewards the run needs "
                          f"about {need / 1e9:,.1f} GB, more than the {limit / 1e9:,.1f} GB this machine allows (80% "
                          "of its memory). Use a smaller T, fewer workers (n_jobs) or a smaller problem.")


def check_setup(setup: Setup) -> Setup:
    """The environment at every horizon, the memory it needs, and every algorithm /
    environment pair (no instance is drawn: cheap enough to check any quoted command)."""
    for T in setup.Ts:
        guarded(setup.env, "check_params", f"T={T}", T)
        check_memory(setup, T)
    check_compatible(setup)
    return setup


def plan(setup: Setup) -> Plan:
    """Check the pairs and horizons, draw the instances, and list the cells (done / to do).
    Raises ConfigError before any work starts."""
    out = Plan(check_setup(setup))
    check_inputs_apart(setup)
    trials = setup.auto.max_trials if setup.auto else setup.trials  # trials=auto: room for its cap
    check_results_folder(setup.results_dir, len(setup.Ts) * trials * len(setup.algos),
                         max(setup.Ts) if setup.save_actions else 0, setup.experiment)
    stored = store.scan(out.folder) if out.folder is not None else store.Stored()
    out.stored, out.corrupt = stored, stored.corrupt
    for T in setup.Ts:
        inst = guarded(setup.env, "instance", f"T={T}", T, stream(setup.seed, 0, T))
        out.instances[T] = inst
        for name, (obj, spec) in setup.algos.items():
            with at_key(algo_key(setup, name)):
                check_needs(obj, name, inst, setup.env_name, setup.env)
                learner_info(obj, inst)  # an oracle reference told what this problem does not know: refused now
                if callable(getattr(obj, "resolve", None)):
                    guarded(obj, "resolve", f"algo={name}, T={T}", T, inst.info)  # impossible constants, now
            config_hash = stable_hash({"env": setup.env_cfg, "algo": spec, "T": T, "seed": setup.seed})
            code = cell_code(obj, setup.env)
            for trial in range(setup.trials_from, setup.trials):
                key = stable_hash({"experiment": setup.experiment, "config": config_hash, "trial": trial,
                                   "code": code, "save_actions": setup.save_actions})
                cell = Cell(name, obj, spec, T, trial, key, config_hash)
                (out.done if key in stored.where and not setup.overwrite else out.todo).append(cell)
    return out


def timed_plan(setup: Setup) -> Plan:
    """:func:`plan`, with its seconds in the plan's timing (``plan_s``)."""
    began = time.time()
    out = plan(setup)
    out.timing["plan_s"] = time.time() - began
    return out


def make_plan(cfg: DictConfig) -> Plan:
    return plan(setup_from_config(cfg))


# ----------------------------------------------------------------------------- running

def stored_info(instance) -> dict:
    """What a row records of an instance: every scalar or list the learner was told and
    every evaluation-only one (arrays such as contexts or the price grid are left out)."""
    both = {**instance.info, **instance.evaluation}
    return {k: v for k, v in both.items() if not isinstance(v, np.ndarray)}


class Batches:
    """The pending cells as batches of one horizon, sized while they run. A horizon's first
    batch is one trial; each next one is twice the last, up to what its measured time per cell
    (or one measured at another horizon, scaled by T) fits into ``batch_s`` seconds, and at
    most ``batch_cells`` cells. Near the end a batch is cut so that every worker gets one. The
    longest horizons go first, so that no long batch is left for the end. Whole trials stay
    in one batch (they share one reward draw) unless a trial alone is larger than the batch."""

    def __init__(self, plan: Plan, batch_cells: int, batch_s: float, workers: int):
        self.pending: dict = {}
        params: dict = {}  # one configured-values dict per algorithm, shared by its cells
        for cell in plan.todo:
            if cell.algo_name not in params:
                params[cell.algo_name] = {k: v for k, v in cell.algo_cfg.items() if k != "name"}
            spec = CellSpec(cell.algo_name, cell.algo, params[cell.algo_name], cell.key, cell.config_hash)
            trials = self.pending.setdefault(cell.T, {})
            trials.setdefault(cell.trial, []).append(spec)
        self.pending = {T: deque(sorted(trials.items())) for T, trials in self.pending.items()}
        self.remaining = len(plan.todo)
        self.batch_cells, self.batch_s, self.workers = batch_cells, batch_s, max(1, workers)
        self.last: dict = {}  # T -> cells of its last batch
        self.rate: dict = {}  # T -> measured seconds per cell

    def observe(self, done: Done) -> None:
        if done.cells:
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

    def __iter__(self):
        for T in sorted(self.pending, reverse=True):
            queue = self.pending[T]
            while queue:
                n = self.size(T, len(queue[0][1]))
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
                self.last[T] = filled
                self.remaining -= filled
                yield Batch(T, trials)


def effective_workers(s: Setup) -> int:
    from joblib import effective_n_jobs
    return effective_n_jobs(s.n_jobs)


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


def same_workers(setups: list) -> bool:
    """The setups run on the same kind and number of workers (one pool, one stream of batches)."""
    return all((s.backend, s.n_jobs) == (setups[0].backend, setups[0].n_jobs) for s in setups)


def streams(setup: Setup) -> bool:
    """The setup's batches go to a pool of loky workers (not the main process, not Dask)."""
    return setup.backend == "loky" and setup.n_jobs != 1


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
                     "env_info": {T: to_json(stored_info(inst)) for T, inst in plan.instances.items()}}
        plan.timing.update(write_s=0.0, worker_s=0.0, kernel_s=0.0, warm_s=0.0)
        self.writer = Writer(plan.folder, s.batch_cells, s.batch_s, plan.timing, plan.stored)
        self.batches = Batches(plan, s.batch_cells, s.batch_s, workers)
        self.sink = self.writer.add if sink_in_process else None
        self.out: list = []
        self.sent = self.back = 0
        self.all_sent = False
        self.joined = False  # its batches are in a BatchStream
        self.failed: Failed | None = None

    def jobs(self, tag: int):
        from joblib import delayed

        s = self.plan.setup
        for b in self.batches:
            if self.failed is not None:
                break
            self.sent += 1
            self.plan.timing.setdefault("first_batch", time.time())  # its batches' span starts here
            yield delayed(run_tagged)(tag, self.meta, s.env, self.plan.instances[b.T], b, s.batch_s, self.sink)
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
        return self.writer.tables if self.plan.folder is None else self.out


class BatchStream:
    """The batches of several plans as one stream on one joblib pool of loky workers: the
    scenarios of a command, and the next job of a -m sweep, whose plans join the stream
    while this job's batches run (:func:`execute_all`), so that no worker waits at the end of
    a scenario or of a job for the next one's first batch. Each batch comes back tagged with
    its plan. The stream outlives a job while the next job's batches are in it; it ends when
    its last plan's batches are handed out and no plan joined, and is closed when they are all
    back (:func:`close_stream`). joblib pulls the batches from :meth:`_jobs` in its own thread."""

    def __init__(self, n_jobs: int, running: list):
        import itertools
        import threading

        from joblib import Parallel

        self.n_jobs = n_jobs
        self.lock = threading.Lock()
        self.queue: deque = deque()  # (tag, Running) with batches still to hand out, in order
        self.owners: dict = {}  # tag -> Running
        self.open = True  # plans may still join: the batches are not all handed out
        self.tags = itertools.count()
        self.join(running)
        self.pool = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
        self.pool.__enter__()
        self.results = self.pool(self._jobs())

    def _jobs(self):
        while True:
            with self.lock:
                if not self.queue:
                    self.open = False
                    return
                tag, running = self.queue[0]
            yield from running.jobs(tag)
            with self.lock:
                self.queue.popleft()

    def join(self, running: list) -> bool:
        """Add plans to the stream (False: too late, its batches are all handed out)."""
        with self.lock:
            if not self.open:
                return False
            for r in running:
                tag = next(self.tags)
                self.queue.append((tag, r))
                self.owners[tag] = r
                r.joined = True
            return True

    def next(self):
        """Wait for the next batch back and hand it to its plan: that plan's Running, or None
        when every batch of the stream is back."""
        try:
            tag, done = next(self.results)
        except StopIteration:
            return None
        owner = self.owners[tag]
        owner.take(done)
        if owner.finished:  # written now, also a next job's plan: an interrupt keeps its cells
            owner.writer.flush()
            del self.owners[tag]
        return owner

    def pending(self, mine: list) -> bool:
        """Plans other than ``mine`` with batches still to come back (the next job's)."""
        return any(not any(r is m for m in mine) for r in self.owners.values())

    def close(self, abort: bool = False) -> None:
        """Wait for every batch (``abort``: stop the running ones, after an error), write
        what came back, and release the pool (its workers stay, with their loaded kernels)."""
        try:
            if abort:
                self.results.close()
            else:
                while self.next() is not None:
                    pass
        finally:
            self.pool.__exit__(None, None, None)
            for r in self.owners.values():
                r.writer.flush()


_STREAM: dict = {"stream": None}


def close_stream(abort: bool = False) -> None:
    """Close the stream of batches kept for the next job of a sweep (the CLI, at the end of
    a command)."""
    current, _STREAM["stream"] = _STREAM["stream"], None
    if current is not None:
        current.close(abort)


def execute(plan: Plan, progress: bool = True) -> list:
    """Run the pending cells in batches (:class:`Batches`); the main process writes their rows
    as shards (:class:`Writer`). Returns the rows as tables (in-memory runs) or the batches'
    Done records. An interrupt or a kill loses at most the batches in flight and the rows not
    yet written (each about ``parallel.batch_s`` seconds of work); Ctrl-C in the main process
    (``n_jobs=1``) loses nothing finished."""
    return execute_all([plan], progress)[0]


def execute_all(plans: list, progress: bool = True, finished=None, ahead=None) -> list:
    """:func:`execute` of several plans with the same backend and ``n_jobs`` as one stream of
    batches (:class:`BatchStream`; the scenarios of one command: 12 of them per seed in
    master_geo). ``finished(i)`` is called in this thread as soon as every batch of plan i is
    back and written, while the workers go on with the next plans' batches. ``ahead()``, called
    once in this thread, plans the next job of a sweep and returns its plans (or None): on loky
    workers they join the stream at once, so that the workers go on with them at the end of
    this job (their plans carry their :class:`Running` into that job's own execute_all); in the
    main process or on Dask they are only planned, once every batch of this job is handed out.
    Returns :func:`execute`'s result per plan."""
    from joblib import effective_n_jobs
    from tqdm.auto import tqdm

    s = plans[0].setup
    in_process = s.backend == "loky" and s.n_jobs == 1
    workers = 1 if in_process else effective_n_jobs(s.n_jobs)
    running = []
    for p in plans:
        running.append(p.running or Running(p, workers, in_process))
        p.running = None
    called: set = set()

    def finish_ready():
        for i, r in enumerate(running):
            r.raise_failure()
            if i not in called and r.finished:
                called.add(i)
                r.writer.flush()
                if finished is not None:
                    finished(i)

    total = sum(len(p.todo) for p in plans)
    bar = tqdm(total=total, desc=s.experiment if len(plans) == 1 else f"{s.experiment} and {len(plans) - 1} more",
               unit="cell", delay=2.0, disable=not progress)
    for r in running:  # batches that came back while the job before was running
        bar.update(sum(d.cells for d in r.out))
    try:
        if streams(s):
            _stream_all(running, workers, bar, finish_ready, ahead)
        else:
            _run_all(running, bar, finish_ready, ahead, dask=s.backend == "dask")
    except BaseException:
        close_stream(abort=True)
        raise
    finally:
        for r in running:
            r.writer.flush()  # whatever finished, also when interrupted
        bar.close()
    return [r.result() for r in running]


def _stream_all(running: list, workers: int, bar, finish_ready, ahead) -> None:
    """The loop of :func:`execute_all` on loky workers."""
    n_jobs = running[0].plan.setup.n_jobs
    new = [r for r in running if not r.joined]
    while True:
        current = _STREAM["stream"]
        if new and current is None:
            _STREAM["stream"] = current = BatchStream(n_jobs, new)
            new = []
        elif new and current.n_jobs == n_jobs and current.join(new):
            new = []
        if not new and ahead is not None:
            following, ahead = ahead(), None
            if following and all(streams(p.setup) and p.setup.n_jobs == n_jobs for p in following):
                joining = [Running(p, workers, False) for p in following]
                if current is None:
                    _STREAM["stream"] = current = BatchStream(n_jobs, joining)
                if current.n_jobs == n_jobs and current.join(joining):
                    for p, r in zip(following, joining, strict=True):
                        p.running = r
        finish_ready()
        if not new and all(r.finished for r in running):
            break
        if current is None:
            raise RuntimeError("internal error: plans still running with no stream of batches")
        owner = current.next()
        if owner is None:  # the stream ended: plans that came too late start the next one
            close_stream()
            continue
        if any(owner is r for r in running) and owner.failed is None:
            bar.update(owner.out[-1].cells)
    current = _STREAM["stream"]
    if current is not None and not current.pending(running):
        close_stream()


def _run_all(running: list, bar, finish_ready, ahead, dask: bool) -> None:
    """The loop of :func:`execute_all` in the main process or on Dask; ``ahead()`` once every
    batch is handed out."""
    jobs = (job for i, r in enumerate(running) for job in r.jobs(i))
    if any(len(r.plan.todo) for r in running):
        results = _execute_dask(running[0].plan, jobs) if dask else (job[0](*job[1], **job[2]) for job in jobs)
        for tag, done in results:
            running[tag].take(done)
            if not isinstance(done, Failed):
                bar.update(done.cells)
            finish_ready()
            if ahead is not None and all(r.all_sent for r in running):
                ahead, call = None, ahead
                call()
    for r in running:  # plans with nothing to run, and the last ones
        r.all_sent = True
    finish_ready()
    if ahead is not None:
        ahead()


def _execute_dask(plan: Plan, jobs) -> list:
    """joblib's Dask backend: the batches fan out over a Dask cluster (``parallel.address``,
    e.g. tcp://scheduler:8786), or over a local one when no address is given."""
    try:
        from dask.distributed import Client
    except ImportError as exc:
        raise ConfigError("parallel.backend=dask needs dask.distributed (pip install -e \".[cluster]\").") from exc
    from joblib import Parallel, parallel_config

    client = Client(plan.setup.address) if plan.setup.address else Client(processes=False)
    try:
        with parallel_config(backend="dask"):
            return Parallel(n_jobs=-1)(jobs)
    finally:
        client.close()


def gather(plan: Plan, tables: list | None = None, full: bool = False) -> pd.DataFrame:
    """This plan's rows, labelled as in the experiment's table. With a results folder the
    finished cells are merged into ``results/tables/<experiment>.parquet`` first (an
    experiment with no finished cell writes no table; a table a later job of the sweep adds to
    is written by that job: :data:`DEFER`), and the rows returned are the light columns with
    the labels (``full``: every column, curves included); without one, ``tables`` are the
    rows :func:`execute` returned."""
    return gather_table(plan, tables, full)[0]


def gather_table(plan: Plan, tables: list | None = None, full: bool = False) -> tuple:
    """:func:`gather`, and the light rows of the whole table (with their labels)."""
    if plan.table_path is None:
        import pyarrow as pa
        rows = pa.concat_tables(tables).to_pandas() if tables else pd.DataFrame(columns=store.SCHEMA.names)
        rows = store.finish(rows)
        return rows, rows
    keys = [c.key for c in plan.done + plan.todo]
    path = plan.table_path
    stored = plan.stored if plan.stored is not None else store.scan(plan.folder, verify=False)
    if path in DEFER and not full:
        pending = DEFERRED.get(path)
        if pending is None:
            old = store.table_light(path)
            pending = DEFERRED[path] = Deferred(plan.folder, [], [] if old is None else [old])
        pending.keys.extend(keys)
        pending.light.extend(store.cells_light(keys, stored))
        table = store.labelled_light(pending.light)
    else:
        pending = DEFERRED.pop(path, None)
        if pending is not None:  # the sweep's last job of this table writes the cells of the jobs before
            keys, stored = pending.keys + keys, store.scan(plan.folder, verify=False)
        if not any(k in stored.where for k in keys) and not path.exists():
            empty = pd.DataFrame(columns=[*store.LIGHT, "label"])
            return empty, empty
        table = store.merge_into_table(path, plan.folder, keys, stored)
    mine = set(c.key for c in plan.done + plan.todo)
    if full:
        rows = store.read_rows(path, mine)
    else:
        rows = table[table["cell_key"].isin(mine)]
    return rows.sort_values(["label", "T", "trial"], kind="stable").reset_index(drop=True), table


# The tables of a -m sweep that a later job of the sweep adds to (the CLI names them for each
# job): a job's cells are written as shards, as always, but such a table is written once, by
# the last job that adds to it, with the cells of the jobs before (DEFERRED: their keys, and
# the light rows that label each job's summary as the merged table would), instead of every
# job reading and rewriting the growing table (a 50-seed master_geo sweep rewrote each of its
# 12 tables 50 times). Until then, or after a kill, the cells are in their shards: the same
# command or `collect` writes the table; a failed or interrupted sweep writes it on the way out
# (flush_deferred).
DEFER: set = set()


@dataclass
class Deferred:
    folder: Path
    keys: list
    light: list


DEFERRED: dict = {}


def flush_deferred() -> None:
    """Write every table whose writing was left to a later job of the sweep that did not run."""
    while DEFERRED:
        path, pending = DEFERRED.popitem()
        store.merge_into_table(path, pending.folder, pending.keys, store.scan(pending.folder, verify=False))


# The next job of a -m sweep, planned as soon as this job's batches are handed to the workers
# (the CLI names it: AHEAD["next"], its composed config), and its batches queued behind this
# job's (BatchStream), so that the workers never wait for its planning (instances drawn, the
# store scanned) or for its first batch: PLANNED holds its plans by scenario config, and run()
# takes them when it is handed those configs. A plan drawn ahead is the plan the job would draw:
# the same setup, seeds and store (its cells are its own: no other job of the sweep writes them).
AHEAD: dict = {"next": None}
PLANNED: dict = {}
AHEAD_BYTES = 0.05  # plan ahead only an instance that takes under 5% of memory_limit() (env.footprint)


def config_text(cfg: DictConfig) -> str:
    return OmegaConf.to_yaml(cfg)


def plan_ahead() -> list | None:
    """Plan the next job (AHEAD["next"]) into PLANNED and return its plans; a job that cannot
    be planned (bad input, a large instance) is left to plan, and report its errors, in its own
    turn (None)."""
    cfg, AHEAD["next"] = AHEAD["next"], None
    PLANNED.clear()
    if cfg is None or cfg.get("dry_run") is True:
        return None
    try:
        for job in scenario_configs(cfg):
            setup = setup_from_config(job)
            footprint = getattr(setup.env, "footprint", None)
            if footprint is not None and sum(footprint(T) for T in setup.Ts) > AHEAD_BYTES * memory_limit():
                PLANNED.clear()
                return None
            PLANNED[config_text(job)] = timed_plan(setup)
    except (ConfigError, ReportedError):
        PLANNED.clear()
    return list(PLANNED.values()) or None


def planned_ahead(jobs: list) -> list | None:
    """The plans of ``jobs`` drawn ahead by :func:`plan_ahead`, or None (any is missing)."""
    if not PLANNED:
        return None
    ready = [PLANNED.get(config_text(job)) for job in jobs]
    PLANNED.clear()
    return None if any(p is None for p in ready) else ready


def run(cfg: DictConfig, progress: bool = True, full: bool = False) -> pd.DataFrame:
    """Entry point behind the CLI: plan, execute, gather, summarise (each scenario of an
    experiment with ``scenarios`` into its own table). Returns this run's rows: their light
    columns and labels (``full``: every column, curves included)."""
    jobs = scenario_configs(cfg)
    ready = planned_ahead(jobs)
    if ready is not None:
        setups = [p.setup for p in ready]
    elif len(jobs) > 1:
        setups = [check_setup(setup_from_config(job)) for job in jobs]  # all validated before the first runs
    else:
        setups = [setup_from_config(jobs[0])]
    if setups[0].auto is not None and not jobs[0].get("dry_run"):
        return run_auto_trials(jobs, setups, progress, full)
    return run_setups(jobs, setups, progress, full, ready)


def compared(plan: Plan) -> set:
    """The comparators of a plan's regret (one per instance; the environment records it)."""
    from bandits.experiments.regret_kind import comparator

    return {comparator(stored_info(inst)) for inst in plan.instances.values()}


def run_auto_trials(jobs: list, setups: list, progress: bool, full: bool) -> pd.DataFrame:
    """:func:`run` with ``trials=auto``: the looks of :func:`bandits.experiments.adaptive_trials.run_auto`,
    each a :func:`run_setups` of the trials it adds, then one summary of every trial and the
    comparison with the best."""
    from bandits.experiments.summary import summary_text

    comparators: set = set()

    def look(ss):
        rows = run_setups(jobs, ss, progress, full, report=False)
        comparators.update(rows.attrs.get("comparators", ()))
        return rows

    rows, verdict = run_auto(setups, setups[0].auto, look, log.info)
    log.info(summary_text(rows, comparators=comparators))
    log.info(verdict)
    for s in setups:
        if s.results_dir is not None:
            log.info(f"table: {s.results_dir / 'tables' / f'{s.experiment}.parquet'}")
    return rows


def run_setups(jobs: list, setups: list, progress: bool = True, full: bool = False,
               ready: list | None = None, report: bool = True) -> pd.DataFrame:
    """:func:`run` of jobs whose setups are built (by :func:`setup_from_config`): plan each
    (``ready``: their plans, drawn ahead), run the batches of all of them as one stream on one
    pool of workers (:func:`execute_all`; one plan after the other where their backends or
    ``n_jobs`` differ), and gather and summarise each as soon as its cells are done, while the
    workers go on with the next; once every batch is handed out, the sweep's next job is planned
    (:func:`plan_ahead`)."""
    dry = bool(jobs[0].get("dry_run"))  # a boolean: checked in setup_from_config
    plans, began = [], []
    for i, setup in enumerate(setups):
        began.append(time.time())
        p = ready[i] if ready is not None else timed_plan(setup)
        s = p.setup
        log.info(f"[{s.experiment}] env={s.env_name} T={s.Ts} trials={s.trials} seed={s.seed}: "
                 f"{len(p.todo)} cells to run, {len(p.done)} already stored (code {code_fingerprint()})")
        for bad in p.corrupt:
            log.warning(f"warning: unreadable or partial cell file moved to {bad}; the cell is recomputed")
        if dry:
            log.info("dry run: the config is valid; nothing was run.")
        elif not p.todo:
            log.info("nothing to run: every cell of this command is already stored (overwrite=true recomputes).")
        plans.append(p)
    if dry:
        return store.finish(pd.DataFrame(columns=store.SCHEMA.names))
    parts: dict = {}
    last_end = began[0]  # each plan's recorded span starts where the last one recorded ended: they add up
    executing = time.time()

    def finished(i: int, p: Plan) -> None:
        from bandits.experiments.summary import summary_text, timing_text  # scipy.stats: only once there are rows

        nonlocal last_end
        s = p.setup
        executed = time.time()
        start = max(last_end, executing)
        rows, table = gather_table(p, full=full)
        workers = 1 if s.n_jobs == 1 else effective_workers(s)
        span = p.timing.pop("last_batch", executed) - p.timing.pop("first_batch", executed)
        if report:  # (trials=auto reports once, after its last look)
            log.info(summary_text(rows, timing_text(span, len(p.todo), workers, p.timing), comparators=compared(p)))
        end = time.time()
        timings.record(s.results_dir, stage="run", experiment=s.experiment, cells_run=len(p.todo),
                       cells_stored=len(p.done), workers=workers, start=round(last_end, 3), end=round(end, 3),
                       execute_s=executed - start, gather_s=end - executed, **p.timing)
        last_end = end
        later = " (written by the sweep's last job that adds to it)" if p.table_path in DEFER else ""
        if report:
            log.info(f"table: {p.table_path}{later}")
        problems_note(p, table)
        parts[i] = rows

    groups = [list(range(len(plans)))] if same_workers(setups) else [[i] for i in range(len(plans))]
    for group in groups:
        executing = time.time()
        try:
            execute_all([plans[i] for i in group], progress,
                        finished=lambda j, group=group: finished(group[j], plans[group[j]]),
                        ahead=plan_ahead if group is groups[-1] else None)
        except KeyboardInterrupt:
            stored = sum(len(gather(plans[i])) if i not in parts else len(parts[i]) for i in range(len(plans)))
            log.warning(f"interrupted: {stored} cells of this command are stored; run the same command again "
                        "to compute the rest.")
            raise
    out = parts[0] if len(plans) == 1 else pd.concat([parts[i] for i in range(len(plans))], ignore_index=True)
    out.attrs["comparators"] = set().union(*(compared(p) for p in plans))  # what the summaries say regret is
    return out


def problems_note(plan: Plan, table: pd.DataFrame) -> None:
    """One line when the table (``table``: its light rows) now holds several problems
    (environments or their parameters): the summary, labels and generic figures keep them
    apart; a name of its own gives a problem its own table."""
    if plan.table_path is None or table.empty:
        return
    table = table[["env", "env_params"]].astype(str)
    problems = table.drop_duplicates()
    if len(problems) > 1:
        names = ", ".join(sorted(problems["env"].astype(str).unique()))
        log.info(f"note: table {plan.experiment} holds {len(problems)} problems ({names}, with their parameters); "
                 "labels, the summary and the generic figures keep them apart; experiment_name=<name> gives a "
                 "problem a table of its own.")
