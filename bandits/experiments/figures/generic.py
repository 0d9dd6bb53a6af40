"""Generic figures for any table no paper module owns (a user's own runs or sweeps,
e.g. ``adhoc``), named after the table; one curve per configuration label:

* several horizons T: mean final dynamic regret against T, log-log, 95% bands, with the
  fitted slope in the legend where the slope rule measures one (``<table>``);
* a single horizon: mean cumulative dynamic regret against t from the stored curves,
  95% bands (``<table>``);
* parameter sweeps: when several labels share an ``algo`` and their configurations
  (algo_params without "derived", and env_params as ``env.<name>``) differ in exactly one
  scalar numeric parameter, also the mean final regret (95% band) at the largest T they
  all have against that parameter, one curve per algo (``<table>_sweep_<param>``); the
  x-axis is logarithmic when the values are positive and span more than 10x.

Each figure's CSV holds the numbers plotted. Generic tables make no claims.
"""

from __future__ import annotations

import json
import math
import numbers
import re
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from bandits.experiments.figures.common import (
    LABELS,
    band_line,
    code_versions,
    curve_figure,
    loglog_figure,
    notice,
    regret_by_T,
    save_figure,
    trials_text,
)

LOG_SPAN = 10.0  # a sweep's x-axis is logarithmic when its positive values span more than this factor


def draw(tables: dict, out_dir: Path) -> list[dict]:
    for name, rows in tables.items():
        regret_figure(name, rows, out_dir)
        for param, values in sweeps(name, rows).items():
            sweep_figure(name, param, values, rows, out_dir)
    return []


def regret_figure(name: str, rows: pd.DataFrame, out_dir: Path) -> pd.DataFrame:
    horizons = sorted(rows["T"].unique())
    if len(horizons) > 1:
        return loglog_figure(rows, name, f"{name}: dynamic regret against T", {}, out_dir, key="label")
    return curve_figure(rows, name, "regret_curve", "dynamic regret (mean over trials)",
                        f"{name}: dynamic regret against t (T = {horizons[0]})", out_dir, [], key="label")


# ----------------------------------------------------------------------------- sweeps

def _json_dict(text) -> dict:
    value = json.loads(text) if isinstance(text, str) else {}
    return value if isinstance(value, dict) else {}


def configurations(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per label: its algo and its configured parameters, flattened (nested keys
    joined by dots; the environment's as ``env.<name>``)."""
    first = rows.drop_duplicates("label").set_index("label")
    env = first["env_params"] if "env_params" in first else pd.Series(None, index=first.index)
    algo = first["algo_params"] if "algo_params" in first else pd.Series(None, index=first.index)
    params = [{**{k: v for k, v in _json_dict(a).items() if k != "derived"}, "env": _json_dict(e)}
              for a, e in zip(algo, env, strict=True)]
    flat = pd.json_normalize(params, sep=".").set_axis(first.index)
    return pd.concat([first[["algo"]], flat], axis=1)


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _is_scalar_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def sweeps(name: str, rows: pd.DataFrame) -> dict:
    """parameter -> {algo: Series label -> value} for every algo whose labels differ in
    exactly one scalar numeric parameter."""
    found: dict = {}
    for algo, group in configurations(rows).groupby("algo"):
        if len(group) < 2:
            continue
        params = group.drop(columns="algo")
        varying = [c for c in params if params[c].map(_canonical).nunique() > 1]
        if len(varying) == 1 and params[varying[0]].map(_is_scalar_number).all():
            found.setdefault(varying[0], {})[algo] = pd.to_numeric(params[varying[0]])
        elif varying:
            notice(name, f"{algo} configurations differ in {', '.join(varying)} (a sweep varies one number)",
                   "no sweep figure")
    return found


def sweep_points(rows: pd.DataFrame, values: pd.Series) -> pd.DataFrame | None:
    """Mean final regret (95% band) of each label of ``values`` at the largest T they all have."""
    mine = rows[rows["label"].isin(values.index)]
    shared = set.intersection(*(set(g["T"]) for _, g in mine.groupby("label")))
    if not shared:
        return None
    points = regret_by_T(mine[mine["T"] == max(shared)], key="label")
    points.insert(0, "value", points["label"].map(values))
    return points[["algo", "value", "label", "T", "trials", "mean_regret", "ci_low", "ci_high"]]


def sweep_figure(name: str, param: str, by_algo: dict, rows: pd.DataFrame, out_dir: Path) -> pd.DataFrame:
    fig_name = f"{name}_sweep_{re.sub(r'[^A-Za-z0-9_.-]', '_', param)}"
    data = []
    for algo, values in by_algo.items():
        points = sweep_points(rows, values)
        if points is None:
            notice(fig_name, f"{algo}'s configurations share no horizon T")
            continue
        data.append(points)
    if not data:
        return pd.DataFrame()
    data = pd.concat(data, ignore_index=True).sort_values(["algo", "value"], kind="stable")
    data.insert(1, "parameter", param)
    data["code"] = code_versions(rows[rows["label"].isin(data["label"])], fig_name)
    fig, ax = plt.subplots(figsize=(6.0, 4.4))
    for algo, d in data.groupby("algo"):
        band_line(ax, d["value"], d["mean_regret"], d["ci_low"], d["ci_high"], marker="o", ms=4,
                  label=f"{LABELS.get(algo, algo)} (T = {d['T'].iloc[0]})")
    values = data["value"]
    if (values > 0).all() and values.max() > LOG_SPAN * values.min():
        ax.set_xscale("log")
    ax.set_xlabel(param)
    ax.set_ylabel("dynamic regret at T (mean over trials)")
    ax.set_title(f"{name}: final regret against {param}", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    return save_figure(fig, data, out_dir, fig_name, f"bands: 95% t-interval over {trials_text(data['trials'])}")
