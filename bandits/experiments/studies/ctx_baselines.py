"""Issue 5: regret against t of ILTCB and the contextual baselines on a stationary (S = 1)
and a switching (S = 5) drifting_contextual instance (tables ``ctx_baselines_S<pieces>``).
Claims: on the stationary instance ILTCB does not lose to the baselines; on a switching
one ILTCB without restarts falls behind ``oracle_restart`` (ILTCB restarted at the true
changes).
"""

from __future__ import annotations

import pandas as pd

from bandits.experiments.figures.charts import curve_figure
from bandits.experiments.figures.claims import have, verdict
from bandits.experiments.figures.drawing import Drawing
from bandits.experiments.studies import Run

EXPERIMENTS = (Run("ctx_baselines", sweep=("env.n_pieces=1,5",)),)
TABLES = ("ctx_baselines_S[0-9]*",)
CTX_ORDER = ["iltcb", "oracle_restart", "epsilon_greedy", "exp4", "vw_epsilon", "vw_cover"]


def draw(tables: dict, drawing: Drawing) -> list[dict]:
    claims = []
    for name in sorted(tables, key=lambda n: int(n.removeprefix("ctx_baselines_S"))):
        claims += instance(name, int(name.removeprefix("ctx_baselines_S")), tables[name], drawing)
    return claims


def instance(name: str, pieces: int, rows: pd.DataFrame, drawing: Drawing) -> list[dict]:
    label = "stationary" if pieces == 1 else f"switching, S = {pieces}"
    curve_figure(rows, name, "regret_curve", "dynamic regret (mean over trials)",
                 f"Contextual baselines, {label}: K = 5, d = 10, N = 500", drawing, CTX_ORDER)
    reg = rows.groupby("label")["final_regret"].mean()
    if pieces == 1:
        others = reg.drop(["iltcb", "oracle_restart"], errors="ignore")
        if others.empty:
            drawing.skip(name, "a baseline")
        if not have(drawing, name, reg.index, ["iltcb"]) or others.empty:
            return []
        ratio = float(reg["iltcb"] / others.min())
        return [{"claim": "stationary: ILTCB does not lose to the baselines (ILTCB / best other)",
                 "figure": name, "measured": f"{ratio:.3f} (best other: {others.idxmin()})",
                 "expected": "<= 1", "verdict": verdict(ratio <= 1.0)}]
    if not have(drawing, name, reg.index, ["iltcb", "oracle_restart"]):
        return []
    ratio = float(reg["iltcb"] / reg["oracle_restart"])
    return [{"claim": "switching: ILTCB without restarts falls behind oracle_restart (ILTCB / oracle_restart)",
             "figure": name, "measured": round(ratio, 3), "expected": "> 1", "verdict": verdict(ratio > 1.0)}]
