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

from pathlib import Path

import pandas as pd

from bandits.errors import ConfigError, require_int
from bandits.experiments import registry
from bandits.experiments.runner import Setup, algorithm, build, execute, experiment_name, gather, horizons, plan
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
            name, obj, cfg = key or type(spec).__name__, spec, {**_params(spec), "label": None}
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


def simulate(env, algos, T, trials: int = 10, seed: int = 0, n_jobs: int = 1, experiment: str = "adhoc",
             results_dir: str | Path | None = None, save_actions: bool = False, overwrite: bool = False,
             progress: bool = False) -> pd.DataFrame:
    """Run ``algos`` on ``env`` for each horizon in ``T`` and ``trials`` trials from the
    root ``seed``; return the result table (one row per algorithm, T and trial)."""
    env_name, env_obj, env_cfg = _environment(env)
    setup = Setup(experiment_name(experiment), env_name, env_obj, env_cfg, _algorithms(algos), horizons(T),
                  require_int("trials", trials, minimum=1), require_int("seed", seed, minimum=0),
                  require_int("n_jobs", n_jobs), save_actions, overwrite,
                  None if results_dir is None else Path(results_dir))
    p = plan(setup)
    rows = execute(p, progress=progress)
    return gather(p, rows)
