"""Run a config: validate everything, fan the trials out with joblib, store each
finished cell atomically, gather the experiment's table, print a summary.

Seeds (spec §1). One root ``seed`` per experiment; every stream is a
``numpy.random.SeedSequence(seed, spawn_key=...)``:

* environment instance:   spawn_key (0, T)           -- shared by all trials
* trial noise:            spawn_key (1, T, trial)     -- shared by all algorithms
* algorithm randomness:   spawn_key (2, T, trial, crc32(algo name))

so every algorithm of a trial faces the same rewards, and a cell's result does not
depend on which worker ran it or in which order: tables are bit-identical for any
``n_jobs`` (except ``wall_time_s``).
"""

from __future__ import annotations

import copy
import json
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from omegaconf import DictConfig, ListConfig, OmegaConf
from tqdm.auto import tqdm

from bandits.algorithms.protocol import is_protocol_policy, play
from bandits.errors import ConfigError, Unavailable, require_int
from experiments import store
from experiments.fingerprint import code_fingerprint, package_version, provenance, stable_hash
from experiments.summary import summarize

N_CHECKPOINTS = 200


def stream(seed: int, *key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=tuple(int(k) for k in key)))


def algo_stream_id(name: str) -> int:
    return zlib.crc32(name.encode())


def checkpoints(T: int) -> np.ndarray:
    """About 200 rounds (1-based), evenly spaced, always ending at T."""
    return np.unique(np.linspace(0, T, N_CHECKPOINTS + 1)[1:].round().astype(np.int64).clip(1, T))


# ----------------------------------------------------------------------------- building

def _plain(node) -> dict:
    return OmegaConf.to_container(node, resolve=True) if isinstance(node, (DictConfig, ListConfig)) else dict(node)


def build(spec: dict, kind: str):
    """Instantiate a config node ``{name, _target_, **params}`` into (name, object)."""
    from hydra.errors import InstantiationException
    from hydra.utils import instantiate

    spec = dict(spec)
    name = spec.pop("name", None)
    target = spec.get("_target_")
    if not target or target == "???":
        raise ConfigError(f"{kind} config {name!r} has no _target_: set {kind}._target_=package.module.Class.")
    name = name or str(target).rsplit(".", 1)[-1]
    try:
        obj = instantiate(spec, _convert_="all")
    except InstantiationException as exc:
        msg = str(exc).strip().splitlines()
        raise ConfigError(f"cannot build {kind} {name!r} from _target_={target}: {' '.join(msg)}") from None
    if kind == "algo" and not (callable(getattr(obj, "play", None)) or is_protocol_policy(obj)):
        raise ConfigError(f"algo {name!r} ({target}) is not a policy: it needs play(rewards, info, rng) or "
                          "reset/select/update (see bandits/algorithms/protocol.py).")
    if kind == "algo" and callable(getattr(obj, "check_params", None)):
        obj.check_params()  # environments are checked per horizon, in make_plan
    return name, obj


@dataclass
class Cell:
    algo_name: str
    algo: object
    algo_cfg: dict
    T: int
    trial: int
    key: str
    config_hash: str
    path: Path


@dataclass
class Plan:
    experiment: str
    env_name: str
    env: object
    env_cfg: dict
    seed: int
    trials: int
    Ts: list
    n_jobs: int
    save_actions: bool
    results_dir: Path
    instances: dict = field(default_factory=dict)
    todo: list = field(default_factory=list)
    done: list = field(default_factory=list)
    corrupt: list = field(default_factory=list)  # unreadable cell files moved aside (recomputed)
    backend: str = "loky"
    address: str | None = None

    @property
    def table_path(self) -> Path:
        return self.results_dir / "tables" / f"{self.experiment}.parquet"


def _horizons(value) -> list:
    values = list(value) if isinstance(value, (list, tuple, ListConfig)) else [value]
    if not values:
        raise ConfigError("T must be a positive integer or a non-empty list of them.")
    return [require_int("T", v, minimum=1) for v in values]


def _bool(name, value) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be true or false, got {value!r}.")
    return value


def make_plan(cfg: DictConfig) -> Plan:
    """Validate the whole config and list the cells to run. Raises ConfigError
    before any work starts."""
    Ts = _horizons(cfg.T)
    trials = require_int("trials", cfg.trials, minimum=1)
    seed = require_int("seed", cfg.seed, minimum=0)
    n_jobs = require_int("n_jobs", cfg.n_jobs)
    if n_jobs == 0:
        raise ConfigError("n_jobs must be a positive number of workers or -1 (all cores), got 0.")
    overwrite = _bool("overwrite", cfg.get("overwrite", False))
    save_actions = _bool("save_actions", cfg.get("save_actions", False))
    experiment = str(cfg.get("experiment") or "adhoc")

    env_cfg = _plain(cfg.env)
    env_name, env = build(env_cfg, "env")
    for T in Ts:
        env.check_params(T)

    algo_cfgs = _plain(cfg.algos) if cfg.get("algos") else {}
    if algo_cfgs and cfg.get("algo") is not None:
        raise ConfigError(f"this experiment runs the algorithms under `algos` ({', '.join(algo_cfgs)}); "
                          f"drop the algo=... override, or add one with +algo@algos.<name>=<algo config>.")
    if not algo_cfgs:
        if cfg.get("algo") is None:
            raise ConfigError("no algorithm: choose one with algo=<name>.")
        a = _plain(cfg.algo)
        algo_cfgs = {a.get("name") or "algo": a}
    algos = {}
    for key, spec in algo_cfgs.items():
        spec = {**spec, "name": key}  # the key under `algos` is the label in tables and figures
        try:
            name, obj = build(spec, "algo")
        except Unavailable as exc:
            print(f"note: {key}: {exc}")
            continue
        algos[name] = (obj, spec)
    if not algos:
        raise ConfigError("no algorithm left to run (see the notes above).")

    plan = Plan(experiment, env_name, env, env_cfg, seed, trials, Ts, n_jobs, save_actions,
                Path(cfg.get("results_dir", "results")))
    par = cfg.get("parallel") or {}
    plan.backend = str(par.get("backend", "loky"))
    plan.address = par.get("address")
    if plan.backend not in ("loky", "dask"):
        raise ConfigError(f"parallel.backend must be loky or dask, got {plan.backend!r}.")
    code = code_fingerprint()
    for T in Ts:
        inst = env.instance(T, stream(seed, 0, T))
        plan.instances[T] = inst
        for name, (obj, spec) in algos.items():
            if callable(getattr(obj, "resolve", None)):
                obj.resolve(T, inst.info)  # surfaces impossible constants (e.g. H < 2) now
            config_hash = stable_hash({"env": env_cfg, "algo": spec, "T": T, "seed": seed})
            for trial in range(trials):
                key = stable_hash({"experiment": experiment, "config": config_hash, "trial": trial,
                                   "code": code, "save_actions": save_actions})
                path = plan.results_dir / "runs" / experiment / f"{key}.parquet"
                cell = Cell(name, obj, spec, T, trial, key, config_hash, path)
                if path.exists() and not overwrite and not store.valid_cell(path, key):
                    bad = store.quarantine(path)
                    plan.corrupt.append(bad)
                (plan.todo if overwrite or not path.exists() else plan.done).append(cell)
    return plan


# ----------------------------------------------------------------------------- running

def evaluate(means: np.ndarray, rewards: np.ndarray, actions: np.ndarray, optimal: np.ndarray | None = None,
             masks: bool = False) -> dict:
    """Cumulative dynamic pseudo-regret (from expected rewards, against ``optimal`` or the
    best action of each round) and realised reward. With ``masks`` (semi-bandits) an
    action is a bit mask of items and earns the sum over its items."""
    T, K = means.shape
    if masks:
        bits = ((actions[:, None] >> np.arange(K)[None, :]) & 1).astype(bool)
        if actions.min() < 0 or actions.max() >= 2 ** K:
            raise RuntimeError("algorithm returned invalid item masks")
        regret = np.cumsum(optimal - (means * bits).sum(axis=1))
        return {"regret": regret, "reward": np.cumsum((rewards * bits).sum(axis=1))}
    if actions.shape != (T,) or actions.min() < 0 or actions.max() >= K:
        raise RuntimeError(f"algorithm returned invalid actions (shape {actions.shape}, range "
                           f"[{actions.min()}, {actions.max()}], K={K})")
    rounds = np.arange(T)
    best = means.max(axis=1) if optimal is None else optimal
    regret = np.cumsum(best - means[rounds, actions])
    reward = np.cumsum(rewards[rounds, actions])
    return {"regret": regret, "reward": reward}


def _json(obj) -> str:
    def default(o):
        if isinstance(o, np.generic):
            return o.item()
        if isinstance(o, np.ndarray):
            return o.tolist()
        return str(o)
    return json.dumps(obj, sort_keys=True, default=default)


_WARM: set = set()


def warm_up(algo, rewards, instance) -> None:
    """Load (or compile) an algorithm's kernels once per process on a few rounds, so
    that ``wall_time_s`` measures the run, not the JIT."""
    key = type(algo)
    if key in _WARM:
        return
    n = min(len(rewards), 20)
    feats = instance.features[:n] if instance.features is not None and instance.features.shape[0] > 1 \
        else instance.features
    try:
        play(copy.deepcopy(algo), rewards[:n], instance.info, np.random.default_rng(0), feats)
    except Exception:  # a policy that cannot run on 20 rounds is timed cold; the real run reports errors
        pass
    _WARM.add(key)


def public_info(info: dict) -> dict:
    """The scalar constants of an instance, as stored with each row (arrays such as the
    price grid or recorded prices are left out)."""
    return {k: v for k, v in info.items() if not isinstance(v, np.ndarray)}


def run_trial(plan_meta: dict, env, instance, T: int, trial: int, cells: list) -> list:
    """One trial: draw the rewards once, run every pending algorithm on them, write
    each finished cell. Runs in a joblib worker."""
    seed = plan_meta["seed"]
    rewards = env.rewards(instance, stream(seed, 1, T, trial))
    ckpt = checkpoints(T)
    written = []
    for cell in cells:
        algo = copy.deepcopy(cell.algo)
        warm_up(algo, rewards, instance)
        rng = stream(seed, 2, T, trial, algo_stream_id(cell.algo_name))
        start = time.perf_counter()
        actions = np.asarray(play(algo, rewards, instance.info, rng, instance.features), dtype=np.int64)
        wall = time.perf_counter() - start
        curves = evaluate(instance.means, rewards, actions, instance.optimal, bool(instance.info.get("semibandit")))
        params = {k: v for k, v in cell.algo_cfg.items() if k != "name"}
        params["derived"] = getattr(algo, "derived_", {})
        row = {
            "experiment": plan_meta["experiment"], "env": plan_meta["env_name"],
            "algo": cell.algo_name, "T": T, "trial": trial, "seed": seed,
            "final_regret": float(curves["regret"][-1]), "final_reward": float(curves["reward"][-1]),
            "wall_time_s": wall, "config_hash": cell.config_hash,
            "code_fingerprint": plan_meta["code"], "package_version": plan_meta["version"],
            "cell_key": cell.key, "algo_params": _json(params), "env_info": _json(public_info(instance.info)),
            "checkpoints": ckpt.tolist(),
            "regret_curve": curves["regret"][ckpt - 1].tolist(),
            "reward_curve": curves["reward"][ckpt - 1].tolist(),
            "actions": actions.astype(np.int32).tolist() if plan_meta["save_actions"] else None,
            "events": _json(algo.events_) if hasattr(algo, "events_") else None,
            **plan_meta["provenance"],
        }
        store.write_cell(cell.path, row)
        written.append(cell.key)
    return written


def execute(plan: Plan, progress: bool = True) -> int:
    """Run the pending cells; returns how many were written. Finished cells are on
    disk the moment they finish, so an interrupt loses only the trials in flight."""
    by_trial: dict = {}
    for cell in plan.todo:
        by_trial.setdefault((cell.T, cell.trial), []).append(cell)
    meta = {"seed": plan.seed, "experiment": plan.experiment, "env_name": plan.env_name,
            "code": code_fingerprint(), "version": package_version(), "save_actions": plan.save_actions,
            "provenance": provenance()}
    jobs = [delayed(run_trial)(meta, plan.env, plan.instances[T], T, trial, cells)
            for (T, trial), cells in sorted(by_trial.items())]
    if not jobs:
        return 0
    n = 0
    bar = tqdm(total=len(plan.todo), desc=plan.experiment, unit="cell", delay=2.0, disable=not progress)
    try:
        if plan.backend == "dask":
            n = _execute_dask(plan, jobs, bar)
        else:
            if plan.n_jobs == 1:
                results = (job[0](*job[1], **job[2]) for job in jobs)
            else:
                results = Parallel(n_jobs=plan.n_jobs, return_as="generator_unordered")(jobs)
            for written in results:
                n += len(written)
                bar.update(len(written))
    finally:
        bar.close()
    return n


def _execute_dask(plan: Plan, jobs: list, bar) -> int:
    """joblib's Dask backend: the trials fan out over a Dask cluster (``parallel.address``,
    e.g. tcp://scheduler:8786), or over a local one when no address is given."""
    try:
        from dask.distributed import Client
    except ImportError as exc:
        raise ConfigError("parallel.backend=dask needs dask.distributed (pip install -e \".[cluster]\").") from exc
    from joblib import parallel_config

    client = Client(plan.address) if plan.address else Client(processes=False)
    try:
        with parallel_config(backend="dask"):
            results = Parallel(n_jobs=-1)(jobs)
    finally:
        client.close()
    n = sum(len(w) for w in results)
    bar.update(n)
    return n


def gather(plan: Plan) -> pd.DataFrame:
    """Merge this plan's finished cells into results/tables/<experiment>.parquet and
    return the rows of this plan."""
    cells = plan.done + plan.todo
    paths = [c.path for c in cells if c.path.exists()]
    new = store.read_cells(paths)
    store.merge_into_table(plan.table_path, new)
    return new.sort_values(["algo", "T", "trial"], kind="stable").reset_index(drop=True)


def run(cfg: DictConfig, progress: bool = True) -> pd.DataFrame:
    """Entry point behind ``run.py``: plan, execute, gather, summarise."""
    plan = make_plan(cfg)
    print(f"[{plan.experiment}] env={plan.env_name} T={plan.Ts} trials={plan.trials} seed={plan.seed}: "
          f"{len(plan.todo)} cells to run, {len(plan.done)} already done (code {code_fingerprint()})")
    for bad in plan.corrupt:
        print(f"warning: unreadable or partial cell file moved to {bad}; the cell is recomputed")
    try:
        execute(plan, progress=progress)
    except KeyboardInterrupt:
        rows = gather(plan)
        print(f"\ninterrupted: {len(rows)} finished cells are saved; run the same command again to resume.")
        raise
    rows = gather(plan)
    print(summarize(rows).to_string(index=False))
    print(f"table: {plan.table_path}")
    return rows
