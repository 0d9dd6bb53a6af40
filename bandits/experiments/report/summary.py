"""Means and 95% t-intervals over trials (the band used in every figure and table),
and the summary a run prints."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from bandits.experiments.report import bootstrap

WIDTH = 100  # terminal columns the printed tables fit in
SUMMARY_SEED = 20261207  # the summary's bootstrap resamples (a printed summary is the same every time)


def t_interval(values, axis=None, level: float = 0.95):
    """Mean and 95% (``level``) Student-t interval of the mean over trials; a single trial gives
    a zero-width band. ``values``: one value per trial (floats returned), or with
    ``axis=0`` one row per trial (arrays returned: a band at every checkpoint)."""
    x = np.asarray(values, dtype=np.float64)
    n = x.shape[0]
    m = x.mean(axis=axis)
    if n < 2:
        return (float(m), float(m), float(m)) if axis is None else (m, m.copy(), m.copy())
    half = stats.t.ppf(0.5 + level / 2, n - 1) * x.std(axis=axis, ddof=1) / np.sqrt(n)
    if axis is None:
        m, half = float(m), float(half)
    return m, m - half, m + half


def bounded_t_interval(values, low: float | None = None, axis=None):
    """:func:`t_interval` with its lower edge raised to ``low`` where it falls below: the
    band of a quantity that cannot be smaller (pseudo-regret against the best action of each
    round is never below 0, yet with few trials the t-interval reaches below). Returns
    (mean, lower, upper, clipped), ``clipped`` True when some lower edge was raised (a
    figure or table then says "clipped at 0"). ``low`` None: the t-interval as it is."""
    m, lo, hi = t_interval(values, axis=axis)
    if low is None:
        return m, lo, hi, False
    if axis is None:
        return m, max(lo, low), hi, bool(lo < low)
    return m, np.maximum(lo, low), hi, bool(np.any(lo < low))


def band(rows: pd.DataFrame, values=None, low: float | None = None):
    """(mean, lower, upper, clipped) of one configuration at one horizon: the t-interval over
    trials (:func:`bounded_t_interval`), or, where the rows hold drawn instances, the two-stage
    bootstrap's interval over instances and trials (:mod:`bandits.experiments.report.bootstrap`).
    ``values``: one row of numbers per row of ``rows`` (a curve each), else the final regret."""
    x = rows["final_regret"].to_numpy(dtype=np.float64) if values is None else np.asarray(values, dtype=np.float64)
    axis = None if x.ndim == 1 else 0
    if bootstrap.instance_count(rows) < 2:
        return bounded_t_interval(x, low, axis=axis)
    m, lo, hi = bootstrap.mean_interval(x[bootstrap.nested_positions(rows)], np.random.default_rng(SUMMARY_SEED))
    if axis is None:
        m, lo, hi = float(m), float(lo), float(hi)
    if low is None:
        return m, lo, hi, False
    clipped = bool(np.any(np.asarray(lo) < low))
    return m, (max(lo, low) if axis is None else np.maximum(lo, low)), hi, clipped


def summarize(rows: pd.DataFrame, settings: list[str] = ()) -> pd.DataFrame:
    """One line per (environment when there are several, swept settings, label, T): trials (or
    instances x trials, where the rows hold drawn instances), mean final regret +- 95% CI (the
    t-interval over trials, or the two-stage bootstrap's over instances and trials), mean
    reward, and the kernel's mean time per cell (``play`` alone).
    ``settings``: columns of ``rows`` (a sweep's swept settings) shown first and sorted by, as
    numbers where they are numbers."""
    key = "label" if "label" in rows.columns and rows["label"].notna().all() else "algo"
    several = "env" in rows.columns and rows["env"].nunique() > 1
    shown = [s for s in settings if s in rows.columns and s not in ("T", "label", "env")]
    by = (["env"] if several else []) + shown + [key, "T"]
    out = []
    for group, g in rows.groupby(by, sort=True):
        *env_and_settings, label, T = group
        n = bootstrap.instance_count(g)
        m, lo, hi, _ = band(g)
        cells = f"{n} x {bootstrap.nested_positions(g).shape[1]}" if n > 1 else len(g)
        out.append({**dict(zip((["env"] if several else []) + shown, env_and_settings, strict=True)),
                    "label": label, "T": int(T), "trials": cells,
                    "regret": f"{m:.1f} ± {(hi - lo) / 2:.1f}",
                    "reward": round(float(g["final_reward"].mean()), 1),
                    "kernel s/cell": round(float(g["wall_time_s"].mean()), 4)})
    columns = (["env"] if several else []) + shown + ["label", "T", "trials", "regret", "reward", "kernel s/cell"]
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


def timing_text(span_s: float, cells: int, workers: int, timing: dict) -> str:
    """Where the run's time went, in quantities of one kind: per cell of work, the workers'
    seconds and the kernels' part of them (so the kernels never exceed the whole), with the
    wall time the batches spanned on their own line, and the seconds of compiling or loading
    kernels (numba's cache) on another, since they are paid once per worker, not per cell."""
    if cells <= 0:
        return ""
    warm = float(timing.get("warm_s", 0.0))
    work = max(0.0, float(timing.get("worker_s", 0.0)) - warm)
    kernel = float(timing.get("kernel_s", 0.0))
    lines = [f"time: {cells} cells, {span_s:.2f} s wall on {workers} worker{'s' if workers != 1 else ''}; per cell "
             f"of work {1e3 * work / cells:.2f} ms, of which the kernels {1e3 * kernel / cells:.2f} ms"]
    if warm >= 0.005:  # kernels this process had loaded already cost nothing: no line
        lines.append(f"compiling and loading kernels: {warm:.2f} s in all (numba's cache, cold on first use; not in "
                     "the per-cell times)")
    return "\n".join(lines)


def regret_line(comparators: set) -> str:
    """What the summary's ``regret`` column is: dynamic regret against the best action of each
    round (or a class's best policy per piece), or, where no change point is known, the regret
    against the best fixed policy (:mod:`bandits.experiments.setup.regret_kind`)."""
    from bandits.experiments.setup.regret_kind import BEST_FIXED_POLICY, DYNAMIC, FIXED_POLICY

    if not comparators:
        return ""
    words = [f"{FIXED_POLICY} (no change point known)" if c == BEST_FIXED_POLICY else f"{DYNAMIC} against the {c}"
             for c in sorted(comparators)]
    return f"regret: {' / '.join(words)}; mean ± 95% t-interval half-width over trials"


def summary_text(rows: pd.DataFrame, timing: str = "", settings: list[str] = (), comparators: set = ()) -> str:
    """The printed summary: :func:`summarize`, what its regret is measured against, the timing."""
    if rows.empty:
        return "no finished cells."
    line = regret_line(set(comparators))
    if line and bootstrap.instance_count(rows) > 1:
        line = line.replace("mean ± 95% t-interval half-width over trials",
                            "mean ± half the 95% interval over instances x trials (the two-stage bootstrap, "
                            "docs/usage.md, \"Instances\")")
    lines = [fit_width(summarize(rows, settings), "label"), line, timing]
    return "\n".join(line for line in lines if line)
