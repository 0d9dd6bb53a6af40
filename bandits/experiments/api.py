"""The runner from Python: ``from bandits import simulate``.

    from bandits import simulate
    from bandits.reference import ReferenceSWUCB  # a policy object (any protocol policy works)

    table = simulate(env="sinusoid", algos=["sw_ucb_obl", "bob"], T=[3000, 6000], trials=3, seed=0)
    table = simulate(env={"name": "sinusoid", "B_T_exponent": 1 / 3},
                     algos={"w50": {"name": "sw_ucb", "window": 50}, "mine": ReferenceSWUCB(window=50)},
                     T=1000, trials=2, seed=2, n_jobs=2)

Environments and algorithms are given as config names (``conf/env``, ``conf/algo``),
config dicts (a ``name`` picks the config to start from and the other keys override
it; a dict with ``_target_`` stands alone) or objects (an environment, a built-in
algorithm, or a policy following :mod:`bandits.algorithms.protocol`). ``algos`` is a
dict ``name -> spec`` (the name is the ``algo`` column and keys the algorithm's seed
stream, as a key under ``algos`` does on the command line) or a list of specs, named
after their configs or classes.

The table returned has the columns, seeds and numbers of the table the CLI stores:
``simulate(env="sinusoid", algos=["bob"], T=2000, trials=3, seed=1)`` and
``python run.py algo=bob env=sinusoid T=2000 trials=3 seed=1`` give bit-identical
``final_regret``. Nothing is written unless ``results_dir`` is given; with it the
cells are stored and reused exactly as the CLI's are.
"""

from __future__ import annotations

import numbers
import os
from pathlib import Path

import pandas as pd

from bandits.algorithms.protocol import is_protocol_policy
from bandits.errors import ConfigError
from bandits.experiments.compose import registry
from bandits.experiments.compose.building import algorithm, build
from bandits.experiments.compose.names import check_algo_key, file_name
from bandits.experiments.compose.params import recorded_params
from bandits.experiments.run.adaptive_trials import run_auto
from bandits.experiments.run.execution import execute
from bandits.experiments.run.gathering import gather
from bandits.experiments.run.planning import plan
from bandits.experiments.setup.auto_trials import auto_trials
from bandits.experiments.setup.setups import LIMITS, SEED_MAX, Setup, horizons
from bandits.experiments.store.table_store import ORDER
from bandits.simulation import guarded


def _params(obj) -> dict:
    """The configuration of an object, for its identity in the table: its class and the
    parameters it stores (public attributes; fitted state ends in ``_``)."""
    cls = type(obj)
    params = {k: v for k, v in vars(obj).items() if not k.startswith("_") and not k.endswith("_")}
    return {"_target_": f"{cls.__module__}.{cls.__qualname__}", **params}


def _spec(group: str, spec) -> dict | None:
    """A config dict from a name or a dict (None for an object)."""
    if isinstance(spec, str):
        return registry.group_config(group, spec)
    if isinstance(spec, dict):
        if "_target_" in spec:
            return dict(spec)
        if not spec.get("name"):
            raise ConfigError(f"an {group} config dict needs a 'name' (one of {', '.join(registry.names(group))}) "
                              "or a '_target_'.")
        return {**registry.group_config(group, spec["name"]), **spec}
    return None


def _environment(env):
    spec = _spec("env", env)
    if spec is None:
        cfg = _params(env)
        return getattr(env, "name", type(env).__name__), env, cfg
    name = spec.get("name") or spec["_target_"].rsplit(".", 1)[-1]
    return name, build(spec, "env")[1], spec


def _algorithms(algos) -> dict:
    if isinstance(algos, (str, dict)) and not (isinstance(algos, dict) and _is_named_map(algos)):
        algos = [algos]
    items = algos.items() if isinstance(algos, dict) else [(None, a) for a in algos]
    out = {}
    for key, spec in items:
        cfg = _spec("algo", spec)
        if cfg is None:  # an object
            if callable(getattr(spec, "check_params", None)):
                guarded(spec, "check_params", "before any work")
            name, obj, cfg = key or type(spec).__name__, spec, recorded_params(spec, {**_params(spec), "label": None})
            cfg["name"] = name
        else:
            name, obj, cfg = algorithm(cfg, key)
        if name in out:
            raise ConfigError(f"two algorithms are named {name!r}: give them names with algos={{name: spec}}.")
        out[name] = (obj, cfg)
    if not out:
        raise ConfigError("no algorithm given.")
    return out


def _is_named_map(algos: dict) -> bool:
    """``{name: spec, ...}`` rather than one config dict (which has name / _target_ keys)."""
    return "_target_" not in algos and not isinstance(algos.get("name"), str)


def _bad(argument: str, value, allowed: str) -> ConfigError:
    return ConfigError(f"simulate({argument}={value!r}): {allowed} (got a value of type {type(value).__name__}).")


def _flag(argument: str, value) -> bool:
    if not isinstance(value, bool):  # "false" is a truthy string: never read as a flag
        raise _bad(argument, value, "must be True or False")
    return value


def _integer(argument: str, value, minimum: int, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not minimum <= value <= maximum:
        raise _bad(argument, value, f"must be an integer from {minimum:,} to {maximum:,}")
    return int(value)


def _horizons(value) -> list:
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if not values:
        raise _bad("T", value, f"must be a horizon or a non-empty list of them (integers from 1 to {LIMITS['T']:,})")
    Ts = [_integer("T", v, 1, LIMITS["T"]) for v in values]
    twice = sorted({t for t in Ts if Ts.count(t) > 1})
    if twice:
        raise ConfigError(f"simulate(T={value!r}) lists {', '.join(map(str, twice))} more than once: each horizon is "
                          "one set of cells (give every horizon once).")
    return horizons(Ts)


def _results_dir(value) -> Path | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, os.PathLike)) or not str(value).strip():
        raise _bad("results_dir", value, "must be a folder path (str or pathlib.Path) or None (nothing is written)")
    return Path(value)


def _check_env(env) -> None:
    if isinstance(env, (str, dict)):
        return
    if not all(callable(getattr(env, m, None)) for m in ("instance", "rewards")):
        raise _bad("env", env, "must be an environment config name (e.g. 'sinusoid'), a config dict, or an "
                   "environment object (with instance() and rewards())")


def _is_policy(obj) -> bool:
    return callable(getattr(obj, "play", None)) or is_protocol_policy(obj)


def _check_algos(algos) -> None:
    allowed = ("must be an algorithm config name, a config dict, a policy object (play(), or reset() / select() / "
               "update()), a non-empty list of them, or a dict name -> one of them")
    if algos is None or (isinstance(algos, (list, tuple, dict)) and not algos):
        raise _bad("algos", algos, allowed)
    if isinstance(algos, dict) and _is_named_map(algos):
        for key, spec in algos.items():
            check_algo_key(key)
            if not (isinstance(spec, (str, dict)) or _is_policy(spec)):
                raise _bad(f"algos[{key!r}]", spec, allowed.split(", a non-empty")[0])
        return
    for spec in (algos if isinstance(algos, (list, tuple)) else [algos]):
        if not (isinstance(spec, (str, dict)) or _is_policy(spec)):
            raise _bad("algos", spec, allowed)


def simulate(env, algos, T, trials: int | str = 10, seed: int = 0, n_jobs: int = 1, experiment: str = "adhoc",
             results_dir: str | Path | None = None, save_actions: bool = False, overwrite: bool = False,
             progress: bool = False, auto: dict | None = None, instances: int | None = None) -> pd.DataFrame:
    """Run ``algos`` on ``env`` for each horizon in ``T`` and ``trials`` trials from the
    root ``seed``; return the result table (one row per algorithm, T and trial). Every
    argument is checked before any work: bad input raises :class:`bandits.errors.ConfigError`
    (a ``ValueError``) with one paragraph naming the argument and what it takes.
    ``trials="auto"`` adds trials in looks until every algorithm is told apart from the best
    (``auto``: first, step, max_trials, precision, confidence, as the command line's ``auto.*``;
    :mod:`bandits.experiments.run.adaptive_trials`); the verdict is the table's ``attrs["auto"]``."""
    _check_env(env)
    _check_algos(algos)
    Ts = _horizons(T)
    if auto is not None and trials != "auto":
        raise _bad("auto", auto, "is read only with trials='auto' (the number of trials is then chosen in looks)")
    looks = auto_trials(trials, auto, LIMITS["trials"])
    trials = looks.first if looks else _integer("trials", trials, 1, LIMITS["trials"])
    seed = _integer("seed", seed, 0, SEED_MAX)
    if instances is not None:
        instances = _integer("instances", instances, 1, LIMITS["instances"])
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or not (n_jobs == -1 or n_jobs >= 1):
        raise _bad("n_jobs", n_jobs, "must be a positive number of workers or -1 (all cores)")
    flags = {name: _flag(name, value) for name, value in
             (("save_actions", save_actions), ("overwrite", overwrite), ("progress", progress))}
    experiment = file_name("simulate(experiment)", experiment)
    folder = _results_dir(results_dir)
    env_name, env_obj, env_cfg = _environment(env)
    setup = Setup(experiment, env_name, env_obj, env_cfg, _algorithms(algos), Ts, trials, seed, int(n_jobs),
                  flags["save_actions"], flags["overwrite"], folder, auto=looks, instances=instances)

    def run(setups):
        p = plan(setups[0])
        ran = execute([p], setups[0].backend, setups[0].n_jobs, progress=flags["progress"])[0]
        return gather(p, ran.result(), full=True)

    if looks is None:
        return run([setup])
    rows, verdict = run_auto([setup], looks, run, lambda _: None)
    rows = rows.sort_values(ORDER, kind="stable").reset_index(drop=True)  # the order of one gathered table
    rows.attrs["auto"] = verdict
    return rows
