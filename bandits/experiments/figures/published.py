"""Claims against a published experiment: the shared tolerance rule and the drawing of a
published experiment's tables (each baseline against its own paper's experiment: the studies
``glr_experiments``, ``dlinucb_notebooks`` and ``master_geo``).

Every tolerance below was fixed before any of these experiments ran (the commit that added
them precedes their first run).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bandits.experiments.figures import leaderboard as leaderboards
from bandits.experiments.figures.charts import curve_figure
from bandits.experiments.figures.drawing import Drawing
from bandits.experiments.figures.leaderboard import leaderboard

# ----------------------------------------------------------------------------- tolerances
# A published mean regret is reproduced when ours is within the larger of
#  * REL_TOL of it: the sources leave constants unstated that move a mean by tens of per
#    cent without changing the algorithm (tie rules, the UCB padding, deterministic against
#    random forced exploration, Delta n / Delta s); the chapter's own two runs of the same
#    algorithm and problem (its tables at T = 5000 against the UCB / kl-UCB table) differ
#    by more than that, so 25% is a strict reading of "the same number";
#  * Z combined standard errors, sqrt(sd_ours^2 / n_ours + sd_pub^2 / n_pub): chance alone
#    (Z = 3: a two-sided 0.3% false alarm per row when both means estimate the same value).
# A value read off a figure gets its reading error on top (READ_ERROR, one pixel pair).
REL_TOL = 0.25
Z = 3.0

# The curves' order in these experiments' figures.
ORDER = ["oracle_restart_klucb", "oracle_restart_ucb", "glr_klucb", "glr_klucb_global", "glr_klucb_code",
         "glr_klucb_code_global", "glr_klucb_opt", "glr_klucb_opt_global", "qcd_klucb", "cusum_klucb",
         "cusum_klucb_code", "cusum_klucb_m400", "cusum_ucb", "cusum_ucb_code", "m_klucb", "m_klucb_code",
         "m_klucb_w800", "m_ucb", "m_ucb_code", "master_ucb", "master_ucb_reimpl", "d_klucb", "d_klucb_code",
         "sw_klucb_gm", "discounted_ts", "exp3s", "kl_ucb", "thompson", "d_linucb", "sw_linucb", "linucb"]
# The display names of these experiments' algorithms and variants: names.PUBLISHED_LABELS.


def figure_name(table: str) -> str:
    return table.replace(".", "_")


def draw_published(tables: dict, drawing: Drawing, claims_of) -> list[dict]:
    """Each table's regret curve at its largest T and its scenario's leaderboard row, and the
    claims ``claims_of(drawing, name, last, stats)`` makes of it (``last``: the rows at the
    largest T; ``stats``: :func:`final_stats` of them); a sweep over instances gets one trial key."""
    claims, boards = [], []
    for name in sorted(tables):
        experiment, _, scenario = name.partition(".")
        rows = tables[name]
        if "seed" in rows.columns and rows["seed"].nunique() > 1:  # a sweep over instances: one trial key
            rows = rows.assign(trial=rows["seed"].astype(np.int64) * 1_000_000 + rows["trial"].astype(np.int64))
        last = rows[rows["T"] == rows["T"].max()]
        curve_figure(last, figure_name(name), "regret_curve", "dynamic regret (mean over trials)",
                     f"{experiment}: {scenario.replace('_', ' ')} (T = {int(last['T'].iloc[0])})", drawing, ORDER)
        boards.append(leaderboard(rows, scenario).assign(experiment=experiment))
        claims += claims_of(drawing, name, last, final_stats(last))
    leaderboards.write(boards, drawing.folder)
    return claims


def claim_figures(tables: dict) -> set:
    return {figure_name(name) for name in tables}


def final_stats(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean, sd and number of trials of the final regret per configuration."""
    g = rows.groupby("label")["final_regret"]
    return pd.DataFrame({"mean": g.mean(), "sd": g.std(ddof=1).fillna(0.0), "n": g.size()})


# ----------------------------------------------------------------------------- numeric claims

def tolerance(published: float, stats: pd.Series, sd_pub: float | None = None, n_pub: int | None = None,
              read_error: float = 0.0) -> float:
    se2 = stats["sd"] ** 2 / max(int(stats["n"]), 1)
    if sd_pub is not None and n_pub:
        se2 += sd_pub ** 2 / n_pub
    return max(REL_TOL * published, Z * float(np.sqrt(se2))) + read_error


def number_claim(claim: str, figure: str, ours: pd.Series, published: float, tol: float) -> dict:
    diff = float(ours["mean"]) - published
    ok = abs(diff) <= tol
    return {"claim": claim, "figure": figure,
            "measured": f"{ours['mean']:.1f} +- {ours['sd']:.1f} ({int(ours['n'])} trials)",
            "expected": f"{published:g} +- {tol:.0f}",
            "verdict": "agrees" if ok else ("disagrees: ours higher" if diff > 0 else "disagrees: ours lower")}
