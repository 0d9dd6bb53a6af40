"""Means and 95% t-intervals over trials (the band used in every figure and table),
and the summary a run prints."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

WIDTH = 100  # terminal columns the printed tables fit in


def t_interval(values) -> tuple[float, float, float]:
    """Mean and 95% Student-t interval of the mean; a single value gives a zero-width band."""
    x = np.asarray(values, dtype=np.float64)
    m = float(x.mean())
    if len(x) < 2:
        return m, m, m
    half = float(stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)))
    return m, m - half, m + half


def summarize(rows: pd.DataFrame) -> pd.DataFrame:
    """One line per (label, T): trials, mean final regret +- 95% CI, mean reward, mean wall time."""
    key = "label" if "label" in rows.columns and rows["label"].notna().all() else "algo"
    out = []
    for (label, T), g in rows.groupby([key, "T"], sort=True):
        m, lo, hi = t_interval(g["final_regret"])
        out.append({"label": label, "T": int(T), "trials": len(g),
                    "regret": f"{m:.1f} ± {(hi - lo) / 2:.1f}",
                    "reward": round(float(g["final_reward"].mean()), 1),
                    "sec/trial": round(float(g["wall_time_s"].mean()), 4)})
    return pd.DataFrame(out, columns=["label", "T", "trials", "regret", "reward", "sec/trial"])


def fit_width(table: pd.DataFrame, column: str, width: int = WIDTH) -> str:
    """``table`` as text no wider than ``width``, shortening ``column`` (with …) if needed."""
    text = table.to_string(index=False)
    longest = max((len(line) for line in text.splitlines()), default=0)
    if longest <= width or table.empty:
        return text
    room = max(12, int(table[column].astype(str).str.len().max()) - (longest - width))
    short = table.copy()
    short[column] = short[column].astype(str).map(lambda s: s if len(s) <= room else s[: room - 1] + "…")
    return short.to_string(index=False)


def summary_text(rows: pd.DataFrame) -> str:
    if rows.empty:
        return "no finished cells."
    return fit_width(summarize(rows), "label")
