"""The constants table: every number an algorithm or environment derived at run time, as the
result tables record it, collected into ``<results>/constants.csv`` for the documentation
(:mod:`bandits.experiments.docs.render`) to quote.

Numbers such as SW-UCB's window or BOB's block length are derived by the
algorithms at run time and stored only in the (uncommitted) result tables
``<results>/tables/*.parquet`` (``algo_params``: its ``derived`` dict; ``env_info``).
When ``<results>/tables`` exists, they are collected into the committed
``<results>/constants.csv`` (columns experiment, label, T, name, value): one
row per experiment, configuration (``label``, else ``algo``; ``env`` for what the
environment reported, with the root ``seed``), horizon and constant. Only scalars
and lists of at most ``MAX_LIST`` scalars are kept, and only values that are the same
in every trial (and every seed) of their experiment, label and T: outcomes that vary
between trials (oracle calls, restarts, chosen windows) are not constants; a value that
the environment reports the same in every trial of each drawn instance but differently between
instances (``instances=N``: a drifting instance's Delta) is kept as ``<name> by instance``, the
list of its values in instance order. Rows of
experiments without a table are kept, as ``claims.csv`` keeps the rows of figures not
re-plotted. Without ``<results>/tables`` (a fresh clone) the committed file is read.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pandas as pd

from bandits.experiments.store.atomic import write_text

CONSTANT_COLUMNS = ["experiment", "label", "T", "name", "value"]
ENV_LABEL = "env"  # the label of what the environment reported (env_info) and the root seed
MAX_LIST = 16  # longer lists (chosen windows, change points of many pieces) are not kept
MAX_TEXT = 80

def _scalar(v) -> bool:
    return v is None or isinstance(v, (bool, int, float)) or (isinstance(v, str) and len(v) <= MAX_TEXT)


def _keep(v) -> bool:
    """Scalars and short lists of scalars (or of short lists, such as reward ranges)."""
    if v is None or isinstance(v, dict):
        return False
    if isinstance(v, list):
        return len(v) <= MAX_LIST and all(_scalar(x) or (isinstance(x, list) and len(x) <= MAX_LIST
                                                        and all(_scalar(y) for y in x)) for x in v)
    return _scalar(v)


def encode(v) -> str:
    """A constant as text: JSON for numbers, booleans and lists (floats in Python's
    shortest round-trip form), strings as they are."""
    if isinstance(v, str):
        return v
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    return json.dumps(v, separators=(", ", ": "))


def decode(text: str):
    """The inverse of :func:`encode` (a string that is not JSON stays a string)."""
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(text, text)


def _json(text) -> dict:
    if not isinstance(text, str):
        return {}
    try:
        out = json.loads(text)
    except ValueError:
        return {}
    return out if isinstance(out, dict) else {}


TABLE_COLUMNS = ["experiment", "algo", "label", "T", "seed", "algo_params", "env_info", "instance"]
BY_INSTANCE = " by instance"  # the suffix of an environment value that differs only between instances


def table_constants(path: Path) -> pd.DataFrame:
    """The constants of one result table (see the module docstring)."""
    import pyarrow.parquet as pq

    present = set(pq.read_schema(path).names)
    rows = pd.read_parquet(path, columns=[c for c in TABLE_COLUMNS if c in present])
    if rows.empty or not {"algo", "T"} <= set(rows.columns):
        return pd.DataFrame(columns=CONSTANT_COLUMNS)
    experiment = rows["experiment"] if "experiment" in rows.columns else pd.Series(path.stem, index=rows.index)
    label = rows["label"] if "label" in rows.columns else pd.Series(None, index=rows.index, dtype=object)
    rows = rows.assign(experiment=experiment.fillna(path.stem).astype(str),
                       label=label.where(label.notna(), rows["algo"]).astype(str))
    values: dict = {}  # (experiment, label, T, name) -> the encoded value of every row

    def encoded(found: dict) -> dict:
        return {name: encode(v) if _keep(v) else None for name, v in found.items()}

    # a table repeats a few hundred distinct JSON texts over its rows: each is parsed and
    # encoded once (the rows are still visited in order, for the same lists as before)
    derived_of = {p: encoded(_json(p).get("derived") or {}) for p in rows.get("algo_params", pd.Series(dtype=object))
                  .drop_duplicates()} if "algo_params" in rows.columns else {}
    for (exp, lab, T), g in rows.groupby(["experiment", "label", "T"], sort=False):
        seen: dict = {}
        per_instance: dict = {}  # name -> {instance: the values of its rows}
        instances = g["instance"] if "instance" in g.columns else pd.Series(None, index=g.index, dtype=object)
        for params, instance in zip(g.get("algo_params", pd.Series(None, index=g.index, dtype=object)), instances,
                                    strict=True):
            derived = derived_of.get(params, {})
            for name in set(seen) | set(derived):
                seen.setdefault(name, []).append(derived.get(name))
                if instance is not None and not pd.isna(instance):
                    per_instance.setdefault(name, {}).setdefault(int(instance), []).append(derived.get(name))
        for name, vals in seen.items():
            values[(exp, lab, int(T), name)] = vals
            values.update(by_instance((exp, lab, int(T), name), vals, per_instance.get(name, {})))
    info_of: dict = {}
    for (exp, T), g in rows.groupby(["experiment", "T"], sort=False):
        seen = {}
        texts = g["env_info"] if "env_info" in g.columns else pd.Series(None, index=g.index, dtype=object)
        seeds = g["seed"] if "seed" in g.columns else pd.Series(None, index=g.index, dtype=object)
        instances = g["instance"] if "instance" in g.columns else pd.Series(None, index=g.index, dtype=object)
        per_instance: dict = {}  # name -> {instance: the values of its rows}
        for text, seed, instance in zip(texts, seeds, instances, strict=True):
            key = (text, None if seed is None else int(seed))
            if key not in info_of:
                info = _json(text)
                if key[1] is not None:
                    info["seed"] = key[1]
                info_of[key] = encoded(info)
            info = info_of[key]
            for name in set(seen) | set(info):
                seen.setdefault(name, []).append(info.get(name))
                if instance is not None and not pd.isna(instance):
                    per_instance.setdefault(name, {}).setdefault(int(instance), []).append(info.get(name))
        for name, vals in seen.items():
            values[(exp, ENV_LABEL, int(T), name)] = vals
            values.update(by_instance((exp, ENV_LABEL, int(T), name), vals, per_instance.get(name, {})))
    out = [{"experiment": exp, "label": lab, "T": T, "name": name, "value": vals[0]}
           for (exp, lab, T, name), vals in values.items()
           if vals and vals[0] is not None and all(v == vals[0] for v in vals)]
    return pd.DataFrame(out, columns=CONSTANT_COLUMNS)


def by_instance(key: tuple, vals: list, by: dict) -> dict:
    """{(experiment, label, T, name + BY_INSTANCE): [its values in instance order]} when the
    value differs between drawn instances and is the same within each; else nothing."""
    if len(by) < 2 or len(by) > MAX_LIST or len(set(vals)) < 2:
        return {}
    if not all(v[0] is not None and all(x == v[0] for x in v) for v in by.values()):
        return {}
    exp, label, T, name = key
    return {(exp, label, T, name + BY_INSTANCE): [encode([decode(by[i][0]) for i in sorted(by)])]}


def read_constants(path: Path) -> pd.DataFrame:
    if not path.exists():
        return pd.DataFrame(columns=CONSTANT_COLUMNS)
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame["T"] = frame["T"].astype(int)
    return frame


def collect_constants(results: Path) -> pd.DataFrame:
    """``results/constants.csv`` from the tables in ``results/tables`` (merged with the
    rows of experiments that have no table there); returns the merged table."""
    path = results / "constants.csv"
    new = []
    for table in sorted((results / "tables").glob("*.parquet")):
        try:
            new.append(table_constants(table))
        except Exception as exc:  # an unreadable table: say so, keep going
            print(f"notice: {table}: unreadable ({type(exc).__name__}); its constants are not updated",
                  file=sys.stderr)
    new = [n for n in new if not n.empty]
    fresh = pd.concat(new, ignore_index=True) if new else pd.DataFrame(columns=CONSTANT_COLUMNS)
    old = read_constants(path)
    old = old[~old["experiment"].isin(set(fresh["experiment"]))]
    merged = pd.concat([old, fresh], ignore_index=True) if len(old) else fresh
    merged = merged.astype({"T": int}).sort_values(["experiment", "label", "T", "name"], kind="stable")
    merged = merged.reset_index(drop=True)[CONSTANT_COLUMNS]
    write_text(path, merged.to_csv(index=False, lineterminator="\n"))
    return read_constants(path)
