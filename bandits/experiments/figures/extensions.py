"""Issue 7: generalized linear (``ext_glb``, hedging §8.3) and combinatorial semi-bandit
(``ext_semibandit``, §8.4) slopes against hedging Table 2, and the lower-bound instance
(``lower_bound``, §4): every linear algorithm against the Omega(d^(2/3) B_T^(1/3) T^(2/3))
curve. No experiment of the paper; claims: each slope roughly matches Table 2's rate, and
no algorithm beats the lower-bound rate.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from bandits.experiments.figures.claims import SLOPE_TOLERANCE, have, slope_claim, slope_verdict, verdict
from bandits.experiments.figures.common import (
    LABELS,
    Entry,
    band_footer,
    clipped,
    code_versions,
    grouped_legend,
    knowledge_groups,
    loglog_figure,
    plot_loglog,
    regret_by_T,
    save_figure,
    with_slopes,
)
from bandits.experiments.figures.pooling import pooled_text

EXT_THEORY = {
    # Table 2 with B_T fixed: known B_T (opt) d^(2/3) B_T^(1/3) T^(2/3) -> 2/3; the oblivious window
    # B_T T^(2/3) -> 2/3; BOB adds d^(1/2) T^(3/4) (semi-bandit d^(1/4) m^(3/4) T^(3/4)) -> 3/4.
    "ext_glb": {"sw_ucb_glb_opt": (2 / 3, "2/3"), "sw_ucb_glb_obl": (2 / 3, "2/3"), "bob_glb": (0.75, "3/4"),
                "glm_ucb": (float("nan"), "none")},
    "ext_semibandit": {"sw_ucb_comb_opt": (2 / 3, "2/3"), "sw_ucb_comb_obl": (2 / 3, "2/3"),
                       "bob_semibandit": (0.75, "3/4"), "cucb": (float("nan"), "none")},
}
TABLES = (*EXT_THEORY, "lower_bound")
LOWER_BOUND_SLOPE = 2 / 3


def draw(tables: dict, out_dir: Path) -> list[dict]:
    claims = []
    for name, theory in EXT_THEORY.items():
        if name not in tables:
            continue
        data = loglog_figure(tables[name], name, f"{name}: dynamic regret against T (hedging Table 2)", theory,
                             out_dir)
        for algo, (exponent, label) in theory.items():
            if np.isfinite(exponent) and have(name, data["algo"], [algo]):  # NaN: no rate to check
                claims.append(slope_claim(f"{LABELS.get(algo, algo)} regret slope roughly matches theory", name,
                                          data[data["algo"] == algo], f"{label} ({exponent:.3f}) +- {SLOPE_TOLERANCE}",
                                          lambda slope, exponent=exponent: slope_verdict(slope, exponent)))
    if "lower_bound" in tables:
        claims += lower_bound(tables["lower_bound"], out_dir)
    return claims


def lower_bound(rows: pd.DataFrame, out_dir: Path) -> list[dict]:
    """Every algorithm's regret against T with the lower-bound curve (constant 1) stored
    in ``env_info``; claim: no fitted slope below 2/3 - tolerance."""
    data = with_slopes(regret_by_T(rows), {})
    curve = rows.groupby("T")["env_info"].first().map(lambda s: json.loads(s)["lower_bound_curve"])
    fig, ax = plt.subplots(figsize=(6.0, 4.4))
    entries = plot_loglog(ax, data, {}, groups=knowledge_groups(rows))
    line, = ax.plot(curve.index, curve.values, "k--", lw=1, label="d^(2/3) B_T^(1/3) T^(2/3) (constant 1)",
                    marker="x" if len(curve) == 1 else None)  # one T: a line of no length would not show
    grouped_legend(ax, [*entries, Entry(line, line.get_label())], fontsize=8, loc="upper left")
    ax.set_title("Lower-bound instance (hedging §4): d = 5, B_T = 1", fontsize=10)
    claims = [slope_claim(f"{LABELS.get(algo, algo)} cannot beat the Omega(d^(2/3) B_T^(1/3) T^(2/3)) rate "
                          "(fitted slope)", "lower_bound", d, f">= 2/3 - {SLOPE_TOLERANCE}",
                          lambda slope: verdict(slope >= LOWER_BOUND_SLOPE - SLOPE_TOLERANCE))
              for algo, d in data.groupby("algo")]
    data = data.drop(columns=["fitted_slope", "theory_slope"])  # the CSV's columns as before
    data["lower_bound_curve"] = data["T"].map(curve)
    data["code"] = code_versions(rows, "lower_bound")
    save_figure(fig, data, out_dir, "lower_bound", band_footer(ax, data["trials"], pooled_text(rows), clipped(data)))
    return claims
