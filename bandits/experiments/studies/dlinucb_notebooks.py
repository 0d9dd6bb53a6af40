"""D-LinUCB against its authors' two notebooks (YRussac/WeightedLinearBandits,
``Experiments/exp_ABRUPT_ENV_NEW.ipynb``, ``exp_SLOW_ENV_NEW.ipynb``): ``dlinucb_<scenario>.<scenario>``.
Claims: our final regret against the values read off the notebooks' stored figure
(``fig/regret_abrupt.png``, ``fig/regret_smooth.png``, identical to the notebooks' 100-run
outputs), and the orderings the figure shows; those that name D-LinUCB again under Wu
2026's two corrected radii (ours).

The tolerance rule is the published experiments' (:mod:`bandits.experiments.figures.published`),
fixed before any of these experiments ran.
"""

from __future__ import annotations

import pandas as pd

from bandits.experiments.figures.claims import have, verdict
from bandits.experiments.figures.drawing import Drawing
from bandits.experiments.figures.names import LABELS
from bandits.experiments.figures.published import claim_figures, draw_published, figure_name, number_claim, tolerance
from bandits.experiments.studies import Run

EXPERIMENTS = (Run("dlinucb_abrupt"), Run("dlinucb_smooth"))
TABLES = ("dlinucb_*.*",)
__all__ = ["EXPERIMENTS", "TABLES", "claim_figures", "draw"]

# ----------------------------------------------------------------------------- D-LinUCB's figure
# Final regret (t = 6000) read off fig/regret_abrupt.png and fig/regret_smooth.png (the README's
# figures; byte-identical to the notebooks' stored 100-run outputs) at the lines' right ends,
# pixel rows converted with the y-axis ticks (abrupt: 67 px per 1000; smooth: 41.6 px per 250).
# READ_ERROR: +-1.5 px. dLinUCB (abrupt 2650, smooth 1505) and LinUCB-OR (abrupt 157) have no
# counterpart here.
DLINUCB_READ = {"dlinucb_abrupt.abrupt": {"d_linucb": 978.0, "sw_linucb": 750.0, "linucb": 4175.0},
                "dlinucb_smooth.smooth": {"d_linucb": 232.0, "sw_linucb": 287.0, "linucb": 1435.0}}
READ_ERROR = {"dlinucb_abrupt.abrupt": 25.0, "dlinucb_smooth.smooth": 10.0}
# The orderings the figure shows at t = 6000: (lower, higher).
DLINUCB_ORDER = {"dlinucb_abrupt.abrupt": [("sw_linucb", "d_linucb"), ("d_linucb", "linucb")],
                 "dlinucb_smooth.smooth": [("d_linucb", "sw_linucb"), ("sw_linucb", "linucb")]}


# D-LinUCB under Wu 2026's corrected confidence radii (the ``radius`` option; ours, not in the
# notebooks): each ordering that names D-LinUCB is repeated with the variant in its place.
RADIUS_VARIANTS = {"d_linucb_horizon": "horizon", "d_linucb_anytime": "anytime"}


def draw(tables: dict, drawing: Drawing) -> list[dict]:
    return draw_published(tables, drawing, claims_of)


def claims_of(drawing: Drawing, name: str, last: pd.DataFrame, stats: pd.DataFrame) -> list[dict]:
    if name not in DLINUCB_READ:
        return []
    return dlinucb_claims(drawing, name, stats) + radius_claims(name, stats)


def radius_claims(name: str, stats: pd.DataFrame) -> list[dict]:
    """The figure's orderings that name D-LinUCB, with each corrected-radius variant in its place."""
    rows = []
    for variant, radius in RADIUS_VARIANTS.items():
        for low, high in DLINUCB_ORDER[name]:
            low_v, high_v = (variant if a == "d_linucb" else a for a in (low, high))
            if "d_linucb" not in (low, high) or not {low_v, high_v} <= set(stats.index):
                continue
            r = float(stats.loc[low_v, "mean"] / stats.loc[high_v, "mean"])
            rows.append({"claim": f"with Wu 2026's {radius} radius in D-LinUCB, as in the notebook's figure, "
                                  f"{LABELS.get(low_v, low_v)} below {LABELS.get(high_v, high_v)} at t = 6000",
                         "figure": figure_name(name), "measured": round(r, 3), "expected": "< 1",
                         "verdict": verdict(r < 1)})
    return rows


def dlinucb_claims(drawing: Drawing, name: str, stats: pd.DataFrame) -> list[dict]:
    fig = figure_name(name)
    rows = []
    for key, value in DLINUCB_READ[name].items():
        if have(drawing, fig, stats.index, [key]):
            rows.append(number_claim(f"{LABELS.get(key, key)}: final regret (t = 6000) against the notebook's figure "
                                     f"(read: {value:g} +- {READ_ERROR[name]:g})", fig, stats.loc[key], value,
                                     tolerance(value, stats.loc[key], read_error=READ_ERROR[name])))
    for low, high in DLINUCB_ORDER[name]:
        if have(drawing, fig, stats.index, [low, high]):
            r = float(stats.loc[low, "mean"] / stats.loc[high, "mean"])
            rows.append({"claim": f"as in the notebook's figure, {LABELS.get(low, low)} below {LABELS.get(high, high)} "
                                  f"at t = 6000 ({LABELS.get(low, low)} / {LABELS.get(high, high)})", "figure": fig,
                         "measured": round(r, 3), "expected": "< 1", "verdict": verdict(r < 1)})
    return rows
