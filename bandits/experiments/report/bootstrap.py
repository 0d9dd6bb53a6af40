"""Intervals that cover the instance: the two-stage bootstrap of a nested design, and the
multiplicity correction of a family of verdicts.

A design with drawn instances is nested: ``n`` instances, ``m`` trials in each (the trials of
an instance share its draw, every algorithm of a trial shares its rewards). A statistic's
interval must cover the variation between instances as well as the noise within one, so each
resample draws the instances first (``n`` of them, with replacement), then, within each drawn
instance, its trials (``m``, with replacement): Davison & Hinkley (1997), *Bootstrap Methods
and their Application*, §3.8, the strategy that resamples at both stages. The same resampled
indices serve every algorithm (paired by instance and trial) and, where the horizons share
their instances, every horizon's instance stage; horizons draw their trial stage apart,
since their trials share no reward stream.

Resampling at both stages counts the within-instance noise twice (once through the spread of
the instance means, once in the second stage), so where that noise dominates an interval is
conservative; with few instances a percentile interval is too narrow, by the factor
sqrt((n - 1) / n) of the instance stage's variance and by the normal quantile where a t
quantile belongs. Two intervals therefore, both measured by ``tests/test_bootstrap.py`` on
synthetic data of known variance components (between-dominated, mixed, within-dominated):

* a **mean** (:func:`mean_interval`: the summaries, the figure bands, the leaderboards' means)
  gets mean +- t_{n-1, 1 - alpha / 2} sqrt(n / (n - 1)) sd*, with sd* the standard deviation of
  the resampled means: the bootstrap's standard error in a t interval over ``n`` instances.
  It reaches its level where the instances dominate (0.95 at 10 instances x 5 trials), and is
  conservative where the noise within an instance does (0.96 to 1.0);
* any other statistic (a ratio, a slope, an aggregate: :func:`interval`) takes the
  percentiles of its resamples at the tail level Phi(-sqrt(n / (n - 1)) t_{n-1, 1 - alpha / 2})
  in place of alpha / 2, which undoes both narrowings and keeps a skewed statistic's
  asymmetry (Hesterberg 2015, The American Statistician 69(4), calls this the expanded
  percentile interval; its text was not re-read here, so the module rests on the coverage
  test, not on the citation). For a mean it covers about 0.94 where the instances dominate,
  which is why a mean takes the interval above.

Multiplicity: :func:`holm` adjusts a family's p-values (Holm 1979) and :func:`bonferroni_level`
gives the level of each of ``k`` intervals whose family holds at ``level``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

RESAMPLES = 2000
LEVEL = 0.95
METHOD = ("two-stage bootstrap (instances, then trials within each; Davison & Hinkley 1997, §3.8): "
          "a mean's t interval on the bootstrap standard error, any other statistic's expanded percentile interval")


@dataclass(frozen=True)
class Resamples:
    """Indices of ``B`` two-stage resamples of ``n`` instances x ``m`` trials: ``instances``
    (B, n) picks the instances, ``trials`` (B, n, m) the trials within each pick."""
    instances: np.ndarray
    trials: np.ndarray

    @property
    def n(self) -> int:
        return self.instances.shape[1]


def resamples(n: int, m: int, rng: np.random.Generator, B: int = RESAMPLES,
              instances: np.ndarray | None = None) -> Resamples:
    """Two-stage resample indices; ``instances``: an instance stage to share (horizons that
    share their instances), with this draw's own trial stage."""
    inst = rng.integers(0, n, size=(B, n)) if instances is None else instances
    return Resamples(inst, rng.integers(0, m, size=(inst.shape[0], n, m)))


def resampled_means(values: np.ndarray, r: Resamples) -> np.ndarray:
    """The mean of each resample of ``values`` (n instances x m trials [x columns]): (B,) or
    (B, columns)."""
    x = np.asarray(values, dtype=np.float64)
    picked = x[r.instances[:, :, None], r.trials]  # (B, n, m, ...)
    return picked.mean(axis=(1, 2))


def tail_level(n: int, level: float = LEVEL) -> float:
    """The expanded percentile interval's lower tail probability for ``n`` instances."""
    alpha = 1 - level
    if n < 2:
        return alpha / 2
    return float(stats.norm.cdf(-np.sqrt(n / (n - 1)) * stats.t.ppf(1 - alpha / 2, n - 1)))


def interval(boot: np.ndarray, n: int, level: float = LEVEL) -> tuple:
    """The expanded percentile interval of resampled statistics ``boot`` (B,) or (B, columns),
    non-finite resamples left out of a (B,) vector."""
    tail = tail_level(n, level)
    b = np.asarray(boot, dtype=np.float64)
    if b.ndim == 1:
        b = b[np.isfinite(b)]
        if not len(b):
            return float("nan"), float("nan")
        lo, hi = np.quantile(b, [tail, 1 - tail])
        return float(lo), float(hi)
    return np.quantile(b, tail, axis=0), np.quantile(b, 1 - tail, axis=0)


def mean_interval(values: np.ndarray, rng: np.random.Generator, B: int = RESAMPLES, level: float = LEVEL):
    """Mean of ``values`` (n instances x m trials [x columns]) and its interval: mean +-
    t_{n-1} sqrt(n / (n - 1)) times the standard deviation of its two-stage resampled means
    (the module's text says why; nan bounds for one instance)."""
    x = np.asarray(values, dtype=np.float64)
    n = x.shape[0]
    mean = x.mean(axis=(0, 1))
    if n < 2:
        return mean, mean * np.nan, mean * np.nan
    boot = resampled_means(x, resamples(n, x.shape[1], rng, B))
    half = stats.t.ppf(1 - (1 - level) / 2, n - 1) * np.sqrt(n / (n - 1)) * boot.std(axis=0, ddof=1)
    return mean, mean - half, mean + half


def nested_positions(rows: pd.DataFrame) -> np.ndarray:
    """Positions (0 .. len(rows) - 1) of ``rows``, one configuration at one horizon, as
    instances x trials (ordered by instance, then trial), over the trials every instance has;
    rows without an instance (the horizon's one) are one instance."""
    inst = rows["instance"].fillna(-1) if "instance" in rows.columns else pd.Series(-1, index=rows.index)
    frame = pd.DataFrame({"inst": inst.to_numpy(), "trial": rows["trial"].to_numpy(), "pos": np.arange(len(rows))})
    groups = [g.sort_values("trial")["pos"].to_numpy() for _, g in frame.groupby("inst", sort=True)]
    m = min(len(g) for g in groups)
    return np.stack([g[:m] for g in groups])


def nested(rows: pd.DataFrame, column: str = "final_regret") -> np.ndarray:
    """``rows``' values of ``column`` as instances x trials (:func:`nested_positions`)."""
    return rows[column].to_numpy(dtype=np.float64)[nested_positions(rows)]


def nested_by(rows: pd.DataFrame, by: str, column: str = "final_regret") -> tuple[list, np.ndarray]:
    """The configurations of ``rows`` (one horizon) by ``by`` (sorted) and their values of
    ``column`` as one array configurations x instances x trials, over the instances and
    trials every configuration has (:func:`nested`): paired across configurations."""
    names = sorted(rows[by].unique())
    parts = [nested(rows[rows[by] == name], column) for name in names]
    n = min(p.shape[0] for p in parts)
    m = min(p.shape[1] for p in parts)
    return [str(name) for name in names], np.stack([p[:n, :m] for p in parts])


def instance_count(rows: pd.DataFrame) -> int:
    """How many drawn instances ``rows`` hold (1 for rows of a horizon's one instance)."""
    if "instance" not in rows.columns or rows["instance"].isna().all():
        return 1
    return int(rows["instance"].nunique())


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979): reject at ``alpha`` where adjusted <= alpha;
    the family-wise error stays at most ``alpha`` under any dependence."""
    p = np.asarray(p_values, dtype=np.float64)
    order = np.argsort(p)
    k = len(p)
    adjusted = np.maximum.accumulate((k - np.arange(k)) * p[order])
    out = np.empty(k)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def bonferroni_level(level: float, k: int) -> float:
    """The level of each of ``k`` intervals whose family covers at ``level`` (Bonferroni)."""
    return 1 - (1 - level) / max(1, k)
