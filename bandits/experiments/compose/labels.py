"""Human-readable labels for the configurations of a results table.

A row's ``label`` names its configuration (algorithm and environment settings; T,
trial and seed are columns of their own). It starts from the user's ``algo.label``
when set, else the algorithm's name (its key under ``algos``, its config name, or
its class name), and adds, in brackets, exactly the settings that tell apart the
configurations sharing that start within the table::

    sw_ucb                                  one configuration of sw_ucb in the table
    sw_ucb[window=200], sw_ucb[window=800]  a sweep over the window
    bob[env.B_T_exponent=0], bob[env.B_T_exponent=0.333333]

Labels are therefore unique within a table, and may grow brackets when a later run
adds a configuration that shares a name with an earlier one.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

_HIDDEN = ("derived", "name", "label")


def _flatten(value, prefix: str, out: dict) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out)
    else:
        out[prefix] = value


def settings(algo: str, env: str, algo_params: str | None, env_params: str | None) -> tuple[str, dict]:
    """(start of the label, flat settings) of one stored configuration."""
    a = json.loads(algo_params) if isinstance(algo_params, str) else {}
    e = json.loads(env_params) if isinstance(env_params, str) else {}
    start = a.get("label") or algo
    flat: dict = {"algo": algo}
    _flatten({k: v for k, v in a.items() if k not in _HIDDEN}, "", flat)
    flat["env"] = env
    _flatten({k: v for k, v in e.items() if k != "name"}, "env", flat)  # env.label is a setting (a column name)
    return start, flat


def _text(value, exact: bool) -> str:
    if isinstance(value, float) and not exact:
        return format(value, ".6g")
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _bracket(flat: dict, keys: list, exact: bool) -> str:
    return "[" + ",".join(f"{k}={_text(flat.get(k), exact)}" for k in keys) + "]"


def assign_labels(table: pd.DataFrame) -> pd.Series:
    """The label of every row of ``table`` (columns algo, env, algo_params, env_params)."""
    if table.empty:
        return pd.Series([], index=table.index, dtype=object)
    env_params = table["env_params"] if "env_params" in table.columns else pd.Series(None, index=table.index)
    # One entry per distinct configuration (a table of a million cells has a few hundred).
    seen: dict = {}
    codes = np.fromiter((seen.setdefault(k, len(seen)) for k in zip(table["algo"], table["env"], table["algo_params"],
                                                                    env_params, strict=True)),
                        dtype=np.int64, count=len(table))
    configs = {i: settings(str(algo), str(env), ap, ep) for (algo, env, ap, ep), i in seen.items()}
    groups: dict = {}
    for start, flat in configs.values():
        key = json.dumps(flat, sort_keys=True, default=str)
        groups.setdefault(start, {}).setdefault(key, flat)
    names: dict = {}
    for start, distinct in groups.items():
        if len(distinct) == 1:
            names[start] = {k: start for k in distinct}
            continue
        flats = list(distinct.values())
        all_keys = sorted({k for f in flats for k in f}, key=lambda k: (k == "env" or k.startswith("env."), k))
        varying = [k for k in all_keys if len({json.dumps(f.get(k), sort_keys=True, default=str) for f in flats}) > 1]
        short = {k: start + _bracket(f, varying, exact=False) for k, f in distinct.items()}
        if len(set(short.values())) < len(short):  # rounding made two settings look alike
            short = {k: start + _bracket(f, varying, exact=True) for k, f in distinct.items()}
        names[start] = short
    per_config = np.array([names[start][json.dumps(flat, sort_keys=True, default=str)]
                           for start, flat in configs.values()], dtype=object)
    return pd.Series(per_config[codes], index=table.index, dtype=object)
