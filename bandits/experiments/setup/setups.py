"""A job's configuration as a :class:`Setup`: one environment, the algorithms by name, the
horizons, trials and root seed, and where and how to run, every top-level value validated.
An experiment with ``scenarios`` is one setup per scenario (:func:`scenario_configs`)."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path

from omegaconf import DictConfig, ListConfig, OmegaConf

from bandits.errors import ConfigError, Unavailable, require_float, require_int
from bandits.experiments.compose.building import BuildCache, algorithm, at_key, build, plain
from bandits.experiments.compose.names import file_name
from bandits.experiments.setup.auto_trials import AutoTrials, auto_trials

log = logging.getLogger("drift_bandits")


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
    batched_trials: int | None = None  # a batched policy's trials per batch at most; None: all of a horizon's
    auto: AutoTrials | None = None  # trials=auto: trials added in looks (bandits.experiments.setup.auto_trials)
    trials_from: int = 0  # the first trial of the cells to plan (a later look of trials=auto)
    checked: bool = False  # bandits.experiments.setup.checks.check_setup has passed it
    dry_run: bool = False  # validate and list the cells, run nothing
    instances: int | None = None  # None: one instance per horizon; N: N instances, `trials` trials in each

    @property
    def instance_ids(self) -> list:
        """The instances drawn at every horizon: [None] (the horizon's one instance, spawn key
        (0, T)) or 0 .. N-1 (spawn key (3, i), the same draw at every T)."""
        return [None] if self.instances is None else list(range(self.instances))

    @property
    def cells_per_algo(self) -> int:
        """Cells of one algorithm at one horizon: instances x trials."""
        return (self.instances or 1) * self.trials

    def algo_key(self, name: str) -> str | None:
        """The key under ``algos`` of one of its algorithms, or None for the single ``algo``."""
        return name if self.keyed else None


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


# Words the plot stage appends to a table's name for its other outputs (``<experiment>_sweep_window``,
# ``<experiment>_leaderboard.csv``, the benchmark's ``_aggregate``, ...): an experiment named with
# one would write another experiment's file.
DERIVED_WORDS = ("sweep", "leaderboard", "aggregate", "improvement", "profiles", "ranks", "ratios", "timeline")
DERIVED = re.compile(rf"_({'|'.join(DERIVED_WORDS)})(?=$|[_.+-])")


def experiment_name(value) -> str:
    name = file_name("experiment_name", "adhoc" if value is None else value)
    word = DERIVED.search(name.split(".")[0] if value is not None else "")
    if word:
        raise ConfigError(f"experiment_name={name!r} contains '{word.group(0)}', which the plot stage appends to a "
                          f"table's name for its other outputs (<experiment>_sweep_<setting>, "
                          f"<experiment>_leaderboard.csv, ...): another experiment's files would be overwritten. "
                          f"Choose a name without _{', _'.join(DERIVED_WORDS)} as a word.")
    return name


# The top-level keys of conf/config.yaml (hydra's own node aside): anything else is a typo.
TOP_LEVEL = ("algo", "env", "algos", "scenarios", "experiment_name", "T", "horizon_scale", "trials", "instances",
             "auto", "seed",
             "n_jobs", "overwrite", "save_actions", "dry_run", "debug", "results_dir", "parallel", "slurm")
SEED_MAX = 2 ** 63 - 1  # the seed column is a 64-bit integer
LIMITS = {"trials": 1_000_000, "T": 10 ** 9, "instances": 100_000}


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

    try:
        values = OmegaConf.to_container(cfg, resolve=True)
    except Exception:  # noqa: BLE001 -- the setup raises the error itself, as a ConfigError
        return None
    values.pop("seed", None)
    return json.dumps(values, sort_keys=True, default=repr)


def setup_from_config(cfg: DictConfig, cache: BuildCache | None = None) -> Setup:
    """Validate the top-level values and build the environment and algorithms of a
    composed config (``algos`` of an experiment, or the single ``algo``) of one job
    (an experiment with ``scenarios`` is first split by :func:`scenario_configs`); the
    up-front checks that need no instance are :func:`bandits.experiments.setup.checks.check_setup`'s.
    ``cache``: the sweep's built algorithms (:class:`bandits.experiments.compose.building.BuildCache`)."""
    check_top_level_keys(cfg)
    if cfg.get("scenarios"):
        raise ConfigError("this config lists scenarios: split it with scenario_configs() first.")
    _bool("debug", cfg.get("debug", False))
    dry_run = _bool("dry_run", cfg.get("dry_run", False))
    scale = require_float("horizon_scale", cfg.get("horizon_scale", 1.0), minimum=0.0, strict=True)
    Ts = horizons(cfg.T, scale)
    auto = auto_trials(cfg.trials, plain(cfg.auto) if cfg.get("auto") else None, LIMITS["trials"])
    trials = auto.first if auto else require_int("trials", cfg.trials, minimum=1, maximum=LIMITS["trials"])
    seed = check_seed(cfg)
    instances = cfg.get("instances")
    if instances is not None:
        instances = require_int("instances", instances, minimum=1, maximum=LIMITS["instances"])
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
                name_, obj, spec = algorithm(spec, key, cache)  # the key under `algos` names the algorithm
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
    batched_trials = par.get("batched_trials")
    if batched_trials is not None:
        batched_trials = require_int("parallel.batched_trials", batched_trials, minimum=1)
    return Setup(name, env_name, env, env_cfg, algos, Ts, trials, seed, n_jobs, save_actions, overwrite,
                 Path(results_dir), backend, par.get("address"), keyed=None not in algo_cfgs,
                 batch_cells=batch_cells, batch_s=batch_s, batched_trials=batched_trials, auto=auto, dry_run=dry_run,
                 instances=instances)
