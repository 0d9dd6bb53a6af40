"""Contextual bandits on data (ours): ``ctx_data.<problem>``, every contextual algorithm on
bundled supervised datasets turned into bandit problems (with and without induced
drift) and on drifting data streams (``contextual_table``).

* One figure per problem: mean regret against t at the largest T (95% bands): dynamic
  regret against the class's best policy of each piece, or, on a problem without change
  points, the regret against the best fixed policy (the figure says which).
* ``ctx_data_leaderboard.csv``: per problem, each algorithm's mean final regret relative
  to the best one's, with a 95% paired bootstrap interval, its rank and cost per round
  (the same table as the K-armed benchmark's), and the overall ranking across the
  problems (``ctx_data_leaderboard_overall.csv``).
* Claims, the comparisons C1-C3 make on synthetic data, asked again on data: on every
  drifting problem, does Ada-ILTCB+ (practical) have lower regret than ILTCB; on every
  problem, does VW's online learner still have the lowest regret of all. Tolerances: none
  (a ratio below or above 1 at the largest T), fixed before the first full run.
"""

from __future__ import annotations

import json

import pandas as pd

from bandits.experiments.figures import leaderboard as leaderboards
from bandits.experiments.figures.charts import curve_figure
from bandits.experiments.figures.claims import have, verdict
from bandits.experiments.figures.drawing import Drawing
from bandits.experiments.figures.leaderboard import leaderboard
from bandits.experiments.figures.names import LABELS
from bandits.experiments.studies import Run

EXPERIMENTS = (Run("ctx_data", contextual=True),)
TABLES = ("ctx_data.*",)
ORDER = ["ada_iltcb_plus", "ada_iltcb_plus_theory", "ada_iltcb_plus_noreplay", "iltcb", "epsilon_greedy", "exp4",
         "vw_epsilon", "master_iltcb", "master_ctx"]
ADA, ILTCB, VW = "ada_iltcb_plus", "iltcb", "vw_epsilon"
MASTER_ILTCB = "master_iltcb"  # MASTER over ILTCB, the successor to Ada-ILTCB+ (Wei & Luo, App. I.6)


def claim_figures(tables: dict) -> set:
    return {name.replace(".", "_") for name in tables}


def params(rows: pd.DataFrame) -> dict:
    value = rows["env_params"].iloc[0]
    return json.loads(value) if isinstance(value, str) else {}


def provenance(rows: pd.DataFrame) -> str:
    """What the problem's data are, for the figure: a real data set or a synthetic stream."""
    from bandits.environments.river_data import STREAMS

    p = params(rows)
    data = p.get("dataset") or p.get("path") or "data"
    kind = "synthetic stream" if p.get("dataset") in STREAMS else "real data"
    drift = p.get("drift", "none")
    return f"{data} ({kind}{', induced ' + drift + ' drift' if drift not in ('none', None) else ''})"


def drifting(rows: pd.DataFrame) -> bool:
    """A problem drifts when its environment reports change points or a drift mode."""
    info = json.loads(rows["env_info"].iloc[0]) if isinstance(rows["env_info"].iloc[0], str) else {}
    return bool(info.get("change_points")) or params(rows).get("drift", "none") not in ("none", None)


def draw(tables: dict, drawing: Drawing) -> list[dict]:
    claims, boards = [], []
    for name in sorted(tables):
        problem = name.partition(".")[2] or name
        figure = name.replace(".", "_")
        rows = tables[name]
        top = rows[rows["T"] == rows["T"].max()]
        curve_figure(top, figure, "regret_curve", "dynamic regret (mean over trials)",
                     f"ctx_data {problem}: {provenance(rows)}", drawing, ORDER)
        board = leaderboard(rows, problem)
        boards.append(board.assign(experiment="ctx_data"))
        claims += problem_claims(drawing, figure, problem, board, drifting(rows))
    leaderboards.write(boards, drawing.folder)
    return claims


def problem_claims(drawing: Drawing, figure: str, problem: str, board: pd.DataFrame, drifts: bool) -> list[dict]:
    """The C1-C3 comparisons on one problem at its largest T."""
    last = board[board["T"] == board["T"].max()].set_index("algo")
    claims = []
    if drifts and have(drawing, figure, last.index, [ADA, ILTCB]):
        ratio = float(last.loc[ADA, "mean_regret"] / last.loc[ILTCB, "mean_regret"])
        claims.append({"claim": f"{problem}: {LABELS.get(ADA, ADA)} has lower regret than {LABELS.get(ILTCB, ILTCB)} "
                                "on drifting data (ratio at the largest T)", "figure": figure,
                       "measured": round(ratio, 3), "expected": "< 1", "verdict": verdict(ratio < 1)})
    if MASTER_ILTCB in last.index and have(drawing, figure, last.index, [ADA, MASTER_ILTCB]):
        ratio = float(last.loc[ADA, "mean_regret"] / last.loc[MASTER_ILTCB, "mean_regret"])
        claims.append({"claim": f"{problem}: {LABELS.get(ADA, ADA)} has lower regret than "
                                f"{LABELS.get(MASTER_ILTCB, MASTER_ILTCB)} (ratio at the largest T)", "figure": figure,
                       "measured": round(ratio, 3), "expected": "< 1", "verdict": verdict(ratio < 1)})
    if have(drawing, figure, last.index, [VW]):
        best = str(last["mean_regret"].idxmin())
        claims.append({"claim": f"{problem}: {LABELS.get(VW, VW)} has the lowest regret of all (largest T)",
                       "figure": figure,
                       "measured": f"lowest: {LABELS.get(best, best)} ({last.loc[best, 'mean_regret']:.1f}); "
                                   f"VW {last.loc[VW, 'mean_regret']:.1f}",
                       "expected": "VW lowest", "verdict": verdict(best == VW)})
    return claims
