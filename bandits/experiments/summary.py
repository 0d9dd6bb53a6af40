"""Means and 95% t-intervals over trials (the band used in every figure and table),
and the summary a run prints."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

WIDTH = 100  # terminal columns the printed tables fit in


def t_interval(values, axis=None):
    """Mean and 95% Student-t interval of the mean over trials; a single trial gives a
    zero-width band. ``values``: one value per trial (floats returned), or with
    ``axis=0`` one row per trial (arrays returned: a band at every checkpoint)."""
    x = np.asarray(values, dtype=np.float64)
    n = x.shape[0]
    m = x.mean(axis=axis)
    if n < 2:
        return (float(m), float(m), float(m)) if axis is None else (m, m.copy(), m.copy())
    half = stats.t.ppf(0.975, n - 1) * x.std(axis=axis, ddof=1) / np.sqrt(n)
    if axis is None:
        m, half = float(m), float(half)
    return m, m - half, m + half


def summarize(rows: pd.DataFrame) -> pd.DataFrame:
    """One line per (environment when there are several, label, T): trials, mean final regret
    +- 95% CI, mean reward, and the kernel's mean time per cell (``play`` alone)."""
    key = "label" if "label" in rows.columns and rows["label"].notna().all() else "algo"
    several = "env" in rows.columns and rows["env"].nunique() > 1
    by = (["env"] if several else []) + [key, "T"]
    out = []
    for group, g in rows.groupby(by, sort=True):
        *env, label, T = group
        m, lo, hi = t_interval(g["final_regret"])
        out.append({**({"env": env[0]} if several else {}), "label": label, "T": int(T), "trials": len(g),
                    "regret": f"{m:.1f} ± {(hi - lo) / 2:.1f}",
                    "reward": round(float(g["final_reward"].mean()), 1),
                    "kernel s/cell": round(float(g["wall_time_s"].mean()), 4)})
    columns = (["env"] if several else []) + ["label", "T", "trials", "regret", "reward", "kernel s/cell"]
    return pd.DataFrame(out, columns=columns)


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


def timing_text(wall_s: float, cells: int, kernel_s: float) -> str:
    """The run's wall time per cell next to its kernels' (the rest is bookkeeping and storage)."""
    if cells <= 0:
        return ""
    return (f"time: {wall_s:.2f} s wall for {cells} cells = {1e3 * wall_s / cells:.2f} ms per cell, of which the "
            f"kernels {1e3 * kernel_s / cells:.2f} ms")


def summary_text(rows: pd.DataFrame, timing: str = "") -> str:
    if rows.empty:
        return "no finished cells."
    return fit_width(summarize(rows), "label") + (f"\n{timing}" if timing else "")
