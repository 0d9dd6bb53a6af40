"""MASTER on Gerogiannis, Huang & Veeravalli's experiment (Grimoid/Is-BB-NS-RL-Feasible):
``master_geo*.<problem>``. Claims: their abstract's two statements, per problem.

The tolerance rule is the published experiments' (:mod:`bandits.experiments.figures.published`),
fixed before any of these experiments ran.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from bandits.experiments.figures.claims import have, verdict
from bandits.experiments.figures.drawing import Drawing
from bandits.experiments.figures.names import LABELS
from bandits.experiments.figures.published import claim_figures, draw_published, figure_name
from bandits.experiments.studies import Run

# Gerogiannis et al.'s experiment draws a new instance for every run: a sweep over root seeds.
EXPERIMENTS = (Run("master_geo_unif"), Run("master_geo", seeds=50))
TABLES = ("master_geo*.*",)
__all__ = ["EXPERIMENTS", "TABLES", "claim_figures", "draw"]

# ----------------------------------------------------------------------------- MASTER
MASTER_DETECTORS = ("glr_klucb_global", "qcd_klucb")


def draw(tables: dict, drawing: Drawing) -> list[dict]:
    return draw_published(tables, drawing, master_claims)


def master_test_restarts(rows: pd.DataFrame, master: str) -> float:
    """Mean number of test-triggered restarts per trial of a MASTER (its derived count)."""
    runs = rows[rows["label"] == master]
    counts = runs["algo_params"].map(lambda p: json.loads(p).get("derived", {}).get("test_restarts", np.nan))
    return float(counts.mean())


# MASTER as the paper's text writes it, and as their code runs it (epochs from floor(log2 T))
MASTERS = ("master_ucb", "master_ucb_reimpl")


def master_claims(drawing: Drawing, name: str, rows: pd.DataFrame, stats: pd.DataFrame) -> list[dict]:
    fig = figure_name(name)
    out = []
    T = int(rows["T"].max())
    for master in MASTERS:
        if master not in stats.index:
            continue
        which = "" if master == "master_ucb" else f" ({LABELS.get(master, master)})"
        restarts = master_test_restarts(rows, master)
        if np.isfinite(restarts):
            out.append({"claim": f"MASTER's tests are not triggered at a practical horizon (their abstract; their "
                                 f"code pauses at any detection){which}: test-triggered restarts per trial (T={T})",
                        "figure": fig, "measured": round(restarts, 3), "expected": "0",
                        "verdict": verdict(restarts == 0)})
        for detector in MASTER_DETECTORS:
            if have(drawing, fig, stats.index, [detector]):
                r = float(stats.loc[detector, "mean"] / stats.loc[master, "mean"])
                out.append({"claim": f"quickest change detection beats MASTER (their abstract: \"consistently "
                                     f"outperform MASTER\"){which}: {LABELS.get(detector, detector)} / MASTER (T={T})",
                            "figure": fig, "measured": round(r, 3), "expected": "< 1", "verdict": verdict(r < 1)})
    if not any(m in stats.index for m in MASTERS):
        have(drawing, fig, stats.index, ["master_ucb"])  # records the missing algorithm
    return out
