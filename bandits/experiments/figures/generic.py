"""Generic figures for any table no paper module owns (a user's own runs or sweeps,
e.g. ``adhoc``), named after the table; one curve per configuration label. The stage hands
this module the tables of one experiment together (``bench_mine.abrupt_few``,
``bench_mine.stationary``, ...: :func:`experiment_of`).

A table may hold several problems (runs of different environments, or of one environment
with different parameters, into one table): each environment configuration (the ``env``
column and the ``env_params`` JSON) gets figures of its own, named ``<table>_<problem>``
(just ``<table>`` when the table holds one problem) and titled with the environment's name
and, in brackets, the parameters that tell it apart from the table's other configurations
of that environment, as the labels do (:mod:`bandits.experiments.compose.labels`). Within a problem
the curves are labelled afresh among its own rows (no bracket naming the environment).
Runs with different root seeds (different instances) get a curve per seed where that stays
readable, else pooled curves whose caption names the seeds
(:mod:`bandits.experiments.figures.pooling`).

* several horizons T: mean final regret against T, log-log, 95% bands, with the fitted
  slope in the legend where the slope rule measures one (``<table>``);
* a single horizon: mean cumulative regret against t from the stored curves, 95% bands
  (``<table>``);
* parameter sweeps: when several labels share an ``algo`` and their configurations
  (algo_params without "derived", and env_params as ``env.<name>``) differ in exactly one
  scalar numeric parameter, also the mean final regret (95% band) at the largest T they
  all have against that parameter, one curve per algo (``<table>_sweep_<param>``); the
  x-axis is logarithmic when the values are positive and span more than 10x. Sweeps
  compare configurations of one environment (by name) only; a sweep of an environment
  parameter is one such sweep;
* the leaderboard of an experiment with several configurations
  (``<experiment>_leaderboard.csv``, :mod:`bandits.experiments.figures.leaderboard`): one
  scenario per table's scenario, problem and root seed, and the overall ranking across
  them when there are several (``<experiment>_leaderboard_overall.csv``).

The regret is named for what it is (:mod:`bandits.experiments.setup.regret_kind`): dynamic regret,
or the regret against the best fixed policy where no change point is known. Each figure's
CSV holds the numbers plotted. Generic tables make no claims.
"""

from __future__ import annotations

import json
import math
import numbers
import re
import textwrap

import matplotlib.pyplot as plt
import pandas as pd

from bandits.experiments.compose.labels import _flatten, _text, assign_labels
from bandits.experiments.figures import leaderboard as leaderboards
from bandits.experiments.figures.axes import log_axis
from bandits.experiments.figures.charts import (
    band_footer,
    clipped,
    curve_figure,
    draw_curves,
    grouped_legend,
    loglog_figure,
    save_figure,
    say_regret,
)
from bandits.experiments.figures.common import knowledge_groups, notice, regret_by_T
from bandits.experiments.figures.drawing import Drawing
from bandits.experiments.figures.layout import axis_label
from bandits.experiments.figures.leaderboard import leaderboard
from bandits.experiments.figures.names import LABELS
from bandits.experiments.figures.pooling import mean_over, pooled_text, seeds_of, separate_seeds
from bandits.experiments.run.timings import experiment_group
from bandits.experiments.setup.regret_kind import DYNAMIC, rows_regret_kind

LOG_SPAN = 10.0  # a sweep's x-axis is logarithmic when its positive values span more than this factor


def experiment_of(table: str) -> str:
    """The experiment of a table: ``bench_mine`` for ``bench_mine.abrupt_few`` (a dot before a
    digit is the name's own: :func:`bandits.experiments.run.timings.experiment_group`)."""
    return str(experiment_group(pd.Series([table])).iloc[0])


def draw(tables: dict, drawing: Drawing, highlight=None) -> list[dict]:
    """The figures of each table of one experiment and the experiment's leaderboard;
    ``highlight`` replaces the stage's configurations to highlight (``drawing.highlight``)."""
    boards = []
    for name, rows in sorted(tables.items()):
        problems = problem_configurations(rows)
        for suffix, problem, mine in problems:
            regret_figure(name if len(problems) == 1 else f"{name}_{suffix}", problem, separate_seeds(mine),
                          drawing, highlight, table=name)
            boards += problem_leaderboards(experiment_of(name), scenario_name(name, problem, len(problems)), mine)
        by_env = list(rows.groupby(_env_names(rows), sort=True))
        for env, mine in by_env:
            fig_base = name if len(by_env) == 1 else f"{name}_{_safe(env)}"
            for param, values in sweeps(name, mine).items():
                sweep_figure(fig_base, param, values, mine, drawing, env, highlight)
    leaderboards.write(boards, drawing.folder)
    return []


def scenario_name(table: str, problem: str, problems: int) -> str:
    """A leaderboard scenario: the table's scenario (``abrupt_few`` of ``bench_mine.abrupt_few``)
    and, where the table holds several problems or has no scenario, the problem."""
    own = table.partition(".")[2] if experiment_of(table) != table else ""
    return ", ".join(part for part in (own, problem if problems > 1 or not own else "") if part)


def problem_leaderboards(experiment: str, scenario: str, rows: pd.DataFrame) -> list[pd.DataFrame]:
    """The leaderboard of one problem, one scenario per root seed (an instance: trials pair
    within it), when it has at least two configurations; oracles (by what their class
    declares) are listed but not ranked."""
    if rows["label"].nunique() < 2:
        return []
    oracles = {algo for algo, group in knowledge_groups(rows.assign(label=rows["algo"])).items()
               if str(group).startswith("oracle")}
    seeds = seeds_of(rows)
    parts = [(scenario, rows)] if len(seeds) <= 1 else \
        [(f"{scenario} (seed={seed})", rows[rows["seed"] == seed]) for seed in seeds]
    return [leaderboard(part, name, oracles).assign(experiment=experiment) for name, part in parts]


def regret_figure(name: str, problem: str, rows: pd.DataFrame, drawing: Drawing, highlight=None,
                  table: str | None = None) -> pd.DataFrame:
    """Figure ``name``: regret against T (several horizons) or against t (one), titled with
    the table's name, the problem and what the regret is measured against."""
    horizons = sorted(rows["T"].unique())
    head = f"{table or name}: {problem}"
    regret = rows_regret_kind(rows)
    if len(horizons) > 1:
        return loglog_figure(rows, name, _wrap(say_regret(f"{head}: {DYNAMIC} against T", regret)), {}, drawing,
                             key="label", highlight=highlight)
    return curve_figure(rows, name, "regret_curve", f"{DYNAMIC} ({mean_over(rows)})",
                        _wrap(say_regret(f"{head}: {DYNAMIC} against t (T = {horizons[0]})", regret)), drawing, [],
                        key="label", highlight=highlight)


# ----------------------------------------------------------------------------- problems

def _env_names(rows: pd.DataFrame) -> pd.Series:
    return rows["env"].fillna("environment").astype(str) if "env" in rows.columns \
        else pd.Series("environment", index=rows.index)


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text.replace("=", "-")).strip("_")


def _wrap(title: str, width: int = 90) -> str:
    return "\n".join(textwrap.wrap(title, width)) if len(title) > width else title


def problem_configurations(rows: pd.DataFrame) -> list[tuple[str, str, pd.DataFrame]]:
    """(file suffix, title text, rows) per environment configuration of ``rows``: the
    environment's name and, in brackets, the parameters in which it differs from the other
    configurations of that environment in the table. The rows of each problem are
    relabelled among themselves when the table holds several."""
    env_params = rows["env_params"] if "env_params" in rows.columns else pd.Series(None, index=rows.index)
    names = _env_names(rows)
    keys = names + "|" + env_params.map(lambda p: _canonical(_json_dict(p)))
    configs = {}
    for key, name, params in zip(keys, names, env_params, strict=True):
        if key not in configs:
            flat: dict = {}
            _flatten({k: v for k, v in _json_dict(params).items() if k not in ("name", "label")}, "", flat)
            configs[key] = (name, flat)
    if len(configs) == 1:
        ((name, _),) = configs.values()
        return [("", name, rows)]
    out = []
    for key, (name, flat) in sorted(configs.items()):
        same = [f for n, f in configs.values() if n == name]
        varying = sorted(k for k in {k for f in same for k in f}
                         if len({_canonical(f.get(k)) for f in same}) > 1)
        shown = ",".join(f"{k}={_text(flat.get(k), exact=False)}" for k in varying)
        mine = rows[keys == key]
        if {"algo", "env", "algo_params"} <= set(mine.columns):
            mine = mine.assign(label=assign_labels(mine))
        out.append((_safe(name + ("_" + shown if shown else "")), name + (f"[{shown}]" if shown else ""), mine))
    return out


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


def sweep_figure(name: str, param: str, by_algo: dict, rows: pd.DataFrame, drawing: Drawing, env: str = "",
                 highlight=None) -> pd.DataFrame:
    fig_name = f"{name}_sweep_{re.sub(r'[^A-Za-z0-9_.-]', '_', param)}"
    data = []
    for algo, values in by_algo.items():
        points = sweep_points(rows, values)
        if points is None:
            notice(fig_name, f"{algo}'s configurations share no horizon T")
            continue
        horizons = rows.loc[rows["label"].isin(values.index), "T"].nunique()
        if horizons > 1:  # said, not silent: every horizon is in the regret-against-T figure and the table
            notice(fig_name, f"{algo} at T = {int(points['T'].iloc[0]):,} only", "other T: the regret-by-T figure")
        data.append(points)
    if not data:
        return pd.DataFrame()
    data = pd.concat(data, ignore_index=True).sort_values(["algo", "value"], kind="stable")
    data.insert(1, "parameter", param)
    data["code"] = drawing.record_versions(rows[rows["label"].isin(data["label"])], fig_name)
    fig, ax = plt.subplots(figsize=(6.0, 4.4))
    values = data["value"]
    if (values > 0).all() and values.max() > LOG_SPAN * values.min():
        log_axis(ax, "x")
    groups = knowledge_groups(rows.assign(label=rows["algo"]))  # one curve per algo
    horizon = data.groupby("algo")["T"].first()
    entries = draw_curves(ax, data.assign(curve=data["algo"]), "curve", "value", "mean_regret", "ci_low", "ci_high",
                          groups=groups, highlight=drawing.highlight_names(highlight),
                          text=lambda algo, d: f"{LABELS.get(algo, algo)} (T = {horizon[algo]})")
    ax.set_xlabel(param)
    ax.set_ylabel(axis_label(f"{rows_regret_kind(rows)} at T ({mean_over(rows)})"))
    ax.set_title(_wrap(f"{name}: {env + ': ' if env else ''}final regret against {param}", 70), fontsize=10)
    grouped_legend(ax, entries)
    ax.grid(True, which="both", alpha=0.3)
    drawn = rows[rows["label"].isin(data["label"]) & rows["T"].isin(data["T"])]
    return save_figure(fig, data, drawing, fig_name, band_footer(ax, data["trials"], pooled_text(drawn),
                                                                 clipped(data)))
