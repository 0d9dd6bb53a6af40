"""The leaderboard of any experiment with several algorithms: per scenario and T, each
configuration's mean final regret relative to the best learner's, with a 95% paired
bootstrap interval (over trials; over instances, then trials, where the rows hold drawn
instances), its rank and its measured cost per round; and, when the experiment has several
scenarios, an overall ranking across them.

Written as ``<experiment>_leaderboard.csv`` (one row per scenario, T and configuration) and
``<experiment>_leaderboard_overall.csv`` (one row per configuration: the geometric mean over
the scenarios of its ratio to the best at each scenario's largest T, its mean rank there,
and its overall rank by that geometric mean; a configuration missing from a scenario is not
ranked). An oracle reference is listed but never "best" and never ranked.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from bandits.experiments.figures.drawing import code_versions
from bandits.experiments.report import bootstrap
from bandits.experiments.report.summary import SUMMARY_SEED, band
from bandits.experiments.setup.regret_kind import rows_regret_floor

BOOTSTRAP = {"n_resamples": 2000, "seed": 0}
ORACLES = ("oracle_restart_ucb",)  # the shipped experiments' oracle reference, by algorithm key
OVERALL = "_overall"  # the suffix of the overall ranking's file


def ratio_interval(regret: np.ndarray, best: np.ndarray) -> tuple[float, float]:
    """95% paired percentile-bootstrap interval of mean(regret) / mean(best) over trials
    (the algorithms of a trial share its rewards, so trials are resampled in pairs)."""
    if len(regret) < 2 or best.mean() <= 0:
        r = regret.mean() / best.mean() if best.mean() > 0 else np.inf
        return float(r), float(r)
    res = stats.bootstrap((regret, best), lambda a, b, axis: a.mean(axis=axis) / b.mean(axis=axis), paired=True,
                          vectorized=True, n_resamples=BOOTSTRAP["n_resamples"], method="percentile",
                          random_state=np.random.default_rng(BOOTSTRAP["seed"]))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def nested_ratio_interval(pair: pd.DataFrame, label: str, best: str) -> tuple[float, float]:
    """The two-stage bootstrap's interval (:mod:`~bandits.experiments.report.bootstrap`) of
    mean(regret of ``label``) / mean(regret of ``best``) over the instances and trials of
    ``pair`` (one horizon's rows of the two), resampled in pairs: an instance and a trial are
    drawn once for both."""
    labels, x = bootstrap.nested_by(pair, "label")
    draws = bootstrap.resamples(x.shape[1], x.shape[2], np.random.default_rng(SUMMARY_SEED))
    top, bottom = (bootstrap.resampled_means(x[labels.index(name)], draws) for name in (label, best))
    with np.errstate(divide="ignore", invalid="ignore"):
        return bootstrap.interval(top / bottom, x.shape[1])


def leaderboard(rows: pd.DataFrame, scenario: str, oracles=ORACLES) -> pd.DataFrame:
    """Per T: every configuration's mean final regret (95% interval, clipped at 0 where the
    regret cannot be negative: the t-interval over trials, or over drawn instances the
    two-stage bootstrap's, :func:`~bandits.experiments.report.summary.band`), its ratio to the
    best learner's (lowest mean; the configurations of the algorithms ``oracles`` excluded)
    with a 95% paired bootstrap interval (trials paired by their ``trial`` number, which names
    the instance too), its rank, and its cost per round (median wall time of a trial / T)."""
    out = []
    code = code_versions(rows, f"leaderboard {scenario}")
    floor = rows_regret_floor(rows)
    oracles = set(oracles)
    for T, at_T in rows.groupby("T"):
        per_trial = at_T.pivot_table(index="trial", columns="label", values="final_regret")
        means = per_trial.mean()
        algo_of = at_T.groupby("label")["algo"].first()
        learners = means[[c for c in means.index if algo_of[c] not in oracles]]
        best = learners.idxmin()
        instances = bootstrap.instance_count(at_T)
        for label, mean in means.sort_values().items():
            if label == best:
                low, high = 1.0, 1.0
            elif instances >= 2:
                low, high = nested_ratio_interval(at_T[at_T["label"].isin([label, best])], label, best)
            else:
                both = per_trial[[label, best]].dropna().to_numpy()
                low, high = ratio_interval(both[:, 0], both[:, 1])
            cells = at_T[at_T["label"] == label]
            _, lo, hi, _ = band(cells, low=floor)
            cost = float(np.median(cells["wall_time_s"]) / T * 1e9) if "wall_time_s" in cells.columns else np.nan
            out.append({"scenario": scenario, "T": int(T), "algo": label, "mean_regret": mean, "ci_low": lo,
                        "ci_high": hi, "ratio_to_best": mean / means[best] if means[best] > 0 else np.inf,
                        "ratio_ci_low": low, "ratio_ci_high": high, "best": best,
                        "rank": int(learners.rank(method="min").get(label, np.nan))
                        if label in learners.index else None,
                        "ns_per_round": cost, "trials": len(cells), "instances": max(instances, 1),
                        "code": code})
    return pd.DataFrame(out).round({"mean_regret": 4, "ci_low": 4, "ci_high": 4, "ratio_to_best": 4,
                                    "ratio_ci_low": 4, "ratio_ci_high": 4, "ns_per_round": 1})


def overall(board: pd.DataFrame) -> pd.DataFrame:
    """The ranking across the scenarios of ``board`` (one experiment's leaderboard) at each
    scenario's largest T: per configuration the scenarios it ran in, the geometric mean of
    its ratio to the best, its mean rank, and its rank by the geometric mean among the
    configurations ranked in every scenario."""
    last = board[board["T"] == board.groupby("scenario")["T"].transform("max")]
    n = last["scenario"].nunique()
    out = []
    for algo, g in last.groupby("algo", sort=True):
        ratios = g["ratio_to_best"].to_numpy(float)
        ranked = g["rank"].notna().all() and len(g) == n
        out.append({"algo": algo, "scenarios": len(g),
                    "geometric_mean_ratio": float(np.exp(np.log(ratios).mean())) if np.all(ratios > 0) else np.nan,
                    "mean_rank": float(g["rank"].mean()) if ranked else np.nan, "ranked": ranked})
    table = pd.DataFrame(out)
    ranked = table["ranked"] & table["geometric_mean_ratio"].notna()
    table["rank"] = table["geometric_mean_ratio"].where(ranked).rank(method="min")
    table = table.sort_values(["rank", "geometric_mean_ratio", "algo"], na_position="last", kind="stable")
    return table.drop(columns="ranked").round({"geometric_mean_ratio": 4, "mean_rank": 2}).reset_index(drop=True)


def write(boards: list[pd.DataFrame], out_dir: Path) -> list[str]:
    """Each experiment's leaderboard (``boards``: leaderboard tables with an ``experiment``
    column), and its overall ranking where it has several scenarios; returns the files written."""
    if not boards:
        return []
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for experiment, board in pd.concat(boards, ignore_index=True).groupby("experiment", sort=True):
        board = board.drop(columns="experiment")
        board.to_csv(out_dir / f"{experiment}_leaderboard.csv", index=False)
        written.append(f"{experiment}_leaderboard.csv")
        if board["scenario"].nunique() > 1:
            overall(board).to_csv(out_dir / f"{experiment}_leaderboard{OVERALL}.csv", index=False)
            written.append(f"{experiment}_leaderboard{OVERALL}.csv")
    return written
