"""Means and 95% t-intervals over trials (the band used in every figure and table)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats


def t_interval(values) -> tuple[float, float, float]:
    """Mean and 95% Student-t interval of the mean; a single value gives a zero-width band."""
    x = np.asarray(values, dtype=np.float64)
    m = float(x.mean())
    if len(x) < 2:
        return m, m, m
    half = float(stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)))
    return m, m - half, m + half


def summarize(rows: pd.DataFrame) -> pd.DataFrame:
    """One line per (algo, T): trials, mean final regret +- 95% CI, mean reward, mean wall time."""
    out = []
    for (algo, T), g in rows.groupby(["algo", "T"], sort=True):
        m, lo, hi = t_interval(g["final_regret"])
        out.append({"algo": algo, "T": int(T), "trials": len(g),
                    "regret": f"{m:.1f} ± {(hi - lo) / 2:.1f}",
                    "reward": round(float(g["final_reward"].mean()), 1),
                    "sec/trial": round(float(g["wall_time_s"].mean()), 4)})
    return pd.DataFrame(out)
