"""Is a table the run its experiment ships? The scale check of the plot stage.

A results folder may hold tables of a reduced run (``python run.py +experiment=fig2a
trials=2``, ``horizon_scale=0.1``, a subset of the algorithms), which a study would
otherwise draw under the paper's title. :func:`run_scale` compares a table's run with its
experiment's shipped config (composed as the command line composes it,
``bandits.experiments.compose.registry.compose(["+experiment=<name>"])``): the number of trials
of each cell, the horizons T, the root seed (the set of seeds of a sweep over instances),
the algorithm keys, and the environment's and algorithms' stored settings. It returns ""
when they agree, or when the table belongs to no shipped experiment (an ad-hoc table),
else a short description, "reduced scale: 2 of 50 trials, T x0.1" ("not the shipped
configuration: ..." when nothing is smaller, only different). Figures drawn from the
table carry it as a banner, and its claims rows in the ``scale`` column.

Two full-scale runs are not the shipped config's defaults, and are declared by the studies
that ship them (:class:`bandits.experiments.studies.Run`, which the release runs as declared):
the sweeps over root seeds and the contextual experiments' paper horizons (``CTX_SCALE=paper``).
"""

from __future__ import annotations

import json
import re
from functools import cache

import pandas as pd

from bandits.experiments import studies

REDUCED, DIFFERENT = "reduced scale", "not the shipped configuration"
_HIDDEN = ("name", "label", "derived")


# ----------------------------------------------------------------------------- which experiment

@cache
def _templates() -> dict:
    """experiment config -> its ``experiment_name`` as written (interpolations kept), as a regex
    and the config keys of its interpolations."""
    from omegaconf import OmegaConf

    from bandits.experiments.compose.registry import CONF, extra_folders, names

    out = {}
    for name in names("experiment"):
        for folder in (*extra_folders(), CONF):  # a folder of the user's own configs first
            path = folder / "experiment" / f"{name}.yaml"
            if path.is_file():
                raw = OmegaConf.to_container(OmegaConf.load(path), resolve=False).get("experiment_name", name)
                break
        else:
            continue
        raw = str(raw)
        keys = re.findall(r"\$\{([^}]+)\}", raw)
        pieces = re.split(r"(\$\{[^}]+\})", raw)
        pattern = "".join("(.+?)" if p.startswith("${") else re.escape(p) for p in pieces)
        out[name] = (re.compile(pattern), keys)
    return out


def _match(table: str):
    """(experiment config, overrides, scenario or None) whose run writes ``table``, or None."""
    templates = _templates()
    candidates = [(table, None)] + [(table[:i], table[i + 1:]) for i in range(len(table) - 1, 0, -1)
                                    if table[i] == "."]
    for stem, scenario in candidates:
        for name, (pattern, keys) in templates.items():
            found = pattern.fullmatch(stem)
            if not found:
                continue
            overrides = tuple(f"{k}={v}" for k, v in zip(keys, found.groups(), strict=True))
            shipped = composed(name, overrides)
            if shipped is None:
                continue
            if scenario is None and not shipped["scenarios"]:
                return name, overrides, None
            if scenario is not None and scenario in shipped["scenarios"]:
                return name, overrides, scenario
    return None


def experiment_of(table: str) -> str:
    """The shipped experiment a table belongs to (``ns_benchmark`` for ``ns_benchmark.stationary``,
    ``ctx_delay`` for ``ctx_delay_shift0.25``), else the table's name."""
    try:
        found = _match(table)
    except Exception:  # noqa: BLE001 -- configs that cannot be read: the table's own name
        found = None
    return found[0] if found else table


@cache
def composed(name: str, overrides: tuple = ()) -> dict | None:
    """The shipped run of an experiment config: trials, horizons, seed, algorithms and the
    environment (per scenario), as plain values; None if it does not compose."""
    from omegaconf import OmegaConf

    from bandits.experiments.compose.registry import compose
    from bandits.experiments.setup.setups import horizons

    try:
        cfg = compose([f"+experiment={name}", *overrides])
        plain = OmegaConf.to_container(cfg, resolve=True)
        Ts = horizons(cfg.T, float(cfg.get("horizon_scale", 1.0)))
    except Exception:  # noqa: BLE001 -- a config that does not compose is not a shipped run
        return None
    envs = {k: v for k, v in (plain.get("scenarios") or {}).items()}
    cells = int(plain["trials"]) * int(plain.get("instances") or 1)  # trials stored per cell: instances x trials
    return {"trials": cells, "T": Ts, "seed": int(plain["seed"]), "algos": plain.get("algos") or {},
            "env": plain.get("env") or {}, "scenarios": envs}


# ----------------------------------------------------------------------------- the comparison

def _canonical(params: dict) -> str:
    from bandits.experiments.run.worker import to_json

    return to_json({k: v for k, v in params.items() if k not in _HIDDEN})


def _loads(text) -> dict:
    try:
        value = json.loads(text) if isinstance(text, str) else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _horizon_factor(table_T: list, shipped_T: list) -> float | None:
    """The factor s with {round(T s)} = the table's horizons (horizon_scale), if there is one."""
    from bandits.experiments.setup.setups import horizons

    if not table_T or not shipped_T:
        return None
    s = max(table_T) / max(shipped_T)
    for candidate in (float(f"{s:.2g}"), float(f"{s:.3g}"), s):
        if candidate > 0 and horizons(shipped_T, candidate) == sorted(table_T):
            return candidate
    return None


def _listed(values, most: int = 3) -> str:
    values = list(values)
    return ", ".join(map(str, values[:most])) + (f" and {len(values) - most} more" if len(values) > most else "")


def differences(rows: pd.DataFrame, shipped: dict, experiment: str, scenario: str | None) -> tuple[list, list]:
    """(reductions, other differences) of ``rows`` against the shipped run, each a short phrase."""
    reduced, different = [], []
    # trials per cell (per instance for a sweep over seeds)
    keys = [c for c in ("seed", "algo", "T") if c in rows.columns]
    per_cell = rows.groupby(keys)["trial"].nunique()
    lo, hi, want_trials = int(per_cell.min()), int(per_cell.max()), shipped["trials"]
    count = f"{lo}" if lo == hi else f"{lo} to {hi}"
    if lo < want_trials:
        reduced.append(f"{count} of {want_trials} trials")
    elif hi > want_trials:
        different.append(f"{count} trials (shipped {want_trials})")
    # the algorithm keys
    algos, want = set(rows["algo"].astype(str)), set(shipped["algos"])
    if want and want - algos:
        reduced.append(f"{len(algos & want)} of {len(want)} algorithms")
    if want and algos - want:
        different.append(f"other algorithms ({_listed(sorted(algos - want))})")
    # the seeds: one root seed, or a sweep over seeds 0..n-1
    seeds = sorted({int(s) for s in rows["seed"].dropna()}) if "seed" in rows.columns else []
    sweep = studies.seed_sweeps().get(experiment)
    if sweep is not None and seeds:
        if set(seeds) < set(range(sweep)):
            reduced.append(f"{len(seeds)} of {sweep} instances")
        elif set(seeds) != set(range(sweep)):
            different.append(f"seeds {_listed(seeds)} (shipped 0 to {sweep - 1})")
    elif seeds and seeds != [shipped["seed"]]:
        different.append(f"seed {_listed(seeds)} (shipped {shipped['seed']})")
    # the horizons
    table_T = sorted(int(T) for T in rows["T"].unique())
    full = [shipped["T"], studies.other_full_horizons().get(experiment)]
    if table_T not in [sorted(T) for T in full if T]:
        factor = _horizon_factor(table_T, shipped["T"])
        if factor is not None:
            (reduced if factor < 1 else different).append(f"T x{factor:g}")
        elif set(table_T) < set(shipped["T"]):
            reduced.append(f"{len(table_T)} of {len(shipped['T'])} horizons T")
        elif max(table_T) < max(shipped["T"]):
            reduced.append(f"T up to {max(table_T)} (shipped up to {max(shipped['T'])})")
        else:
            different.append(f"T = {_listed(table_T)} (shipped {_listed(shipped['T'])})")
    # the stored settings of the environment and the algorithms
    env = shipped["scenarios"].get(scenario) if scenario else shipped["env"]
    if env is not None and "env_params" in rows.columns:
        want_env = _loads(_canonical(env))
        for text in rows["env_params"].dropna().unique():
            got = _loads(text)
            keys_ = sorted(k for k in set(got) | set(want_env) if k not in _HIDDEN and got.get(k) != want_env.get(k))
            if keys_:
                different.append(f"env {_listed(keys_, 2)} changed")
                break
    if "algo_params" in rows.columns:
        changed = []
        for algo, text in rows.drop_duplicates("algo")[["algo", "algo_params"]].itertuples(index=False):
            spec = shipped["algos"].get(algo)
            if spec is not None and _canonical(_loads(text)) != _canonical(spec):
                changed.append(str(algo))
        if changed:
            different.append(f"settings of {_listed(changed, 2)} changed")
    return reduced, different


def run_scale(table: str, rows: pd.DataFrame) -> str:
    """"" for a table of its experiment's shipped run (or of no shipped experiment), else a
    short description of how its run differs."""
    try:
        found = _match(table)
    except Exception:  # noqa: BLE001 -- configs that cannot be read: nothing to compare with
        return ""
    if found is None:
        return ""
    name, overrides, scenario = found
    reduced, different = differences(rows, composed(name, overrides), name, scenario)
    if reduced:
        return f"{REDUCED}: " + ", ".join(reduced + different)
    return f"{DIFFERENT}: " + ", ".join(different) if different else ""
