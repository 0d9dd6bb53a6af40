"""Axes that stay readable: log axes that label their decades, and 2 and 5 only when the axis
spans less than two decades (:func:`log_axis`); integer ticks on count axes
(:func:`integer_axis`); the change rounds the environment reported as thin vertical lines
(:func:`change_points`, :func:`mark_changes`); a mean line with its band, clipped on a log axis
(:func:`band_line`)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.ticker import LogFormatterSciNotation, LogLocator, MaxNLocator

LOG_BAND_FLOOR = 0.1  # on a log axis a band's lower edge is clipped at this fraction of the mean
SPARSE_SPAN = 2.0  # a log axis spanning fewer decades also labels 2 and 5 (x its decade)


class SparseLogFormatter(LogFormatterSciNotation):
    """Minor tick labels of a log axis that never crowd: none when the axis spans
    SPARSE_SPAN decades or more, else only the coefficients 2 and 5 (more of them where
    the view would hold fewer than two labels; on an axis so short that its ticks are
    linear, every few of them, at most four)."""

    def __init__(self):
        super().__init__(labelOnlyBase=False, minor_thresholds=(np.inf, np.inf))
        self._labelled: set = set()
        self._linear: set = set()

    def set_locs(self, locs=None):
        self._sublabels = None
        self._labelled, self._linear = set(), set()
        vmin, vmax = sorted(self.axis.get_view_interval()) if self.axis is not None else (1.0, 10.0)
        if not (vmin > 0 and np.isfinite(vmax)) or math.log10(vmax / vmin) >= SPARSE_SPAN:
            return
        majors = math.floor(math.log10(vmax)) - math.floor(math.nextafter(math.log10(vmin), -math.inf))
        decades = range(math.floor(math.log10(vmin)), math.floor(math.log10(vmax)) + 1)
        for coefficients in ({2, 5}, {2, 3, 5, 7}, set(range(2, 10))):
            shown = [c * 10.0 ** e for e in decades for c in coefficients if vmin <= c * 10.0 ** e <= vmax]
            if len(shown) + majors >= 2:
                self._labelled = coefficients
                return
        inside = sorted(x for x in (locs if locs is not None else []) if vmin <= x <= vmax)
        self._linear = set(inside[::max(1, math.ceil(len(inside) / 4))])

    def __call__(self, x, pos=None):
        if x <= 0:
            return ""
        if x in self._linear:
            return f"{x:g}"
        exponent = math.floor(math.log10(x) + 1e-9)
        coefficient = x / 10.0 ** exponent
        if abs(coefficient - round(coefficient)) > 1e-6 or round(coefficient) not in self._labelled:
            return ""
        return super().__call__(x, pos)


def log_axis(ax, which: str = "both") -> None:
    """A log scale on ``which`` axis ("x", "y" or "both") whose tick labels never collide:
    decades labelled, and 2 and 5 only on short axes (:class:`SparseLogFormatter`)."""
    for name in ("x", "y") if which == "both" else (which,):
        (ax.set_xscale if name == "x" else ax.set_yscale)("log")
        axis = ax.xaxis if name == "x" else ax.yaxis
        axis.set_major_locator(LogLocator(base=10.0))
        axis.set_major_formatter(LogFormatterSciNotation(base=10.0))
        axis.set_minor_locator(LogLocator(base=10.0, subs="auto"))
        axis.set_minor_formatter(SparseLogFormatter())


def integer_axis(ax, which: str = "x") -> None:
    """Integer ticks on a count axis (rounds, numbers of events)."""
    for name in ("x", "y") if which == "both" else (which,):
        (ax.xaxis if name == "x" else ax.yaxis).set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))


# Environments whose reported ``change_points`` are not changes of the problem: the sinusoid
# drifts continuously and reports the rounds at which its best arm switches (the reading
# bandits/environments/sinusoid.py documents, for the algorithms tuned with Upsilon_T).
NO_DISCRETE_CHANGES = ("sinusoid",)


def change_points(rows: pd.DataFrame) -> list | None:
    """The change rounds the environment reported for ``rows`` (evaluation data in
    ``env_info``, at the rows' largest T), or None when there are none, the environment
    drifts without discrete changes (:data:`NO_DISCRETE_CHANGES`), or the rows' instances
    report different ones (an instance sweep)."""
    if "env_info" not in rows.columns or rows.empty:
        return None
    if "env" in rows.columns and rows["env"].astype(str).isin(NO_DISCRETE_CHANGES).any():
        return None
    top = rows[rows["T"] == rows["T"].max()] if "T" in rows.columns else rows
    found = set()
    for text in top["env_info"].dropna().unique():
        try:
            points = json.loads(text).get("change_points") if isinstance(text, str) else None
        except (ValueError, AttributeError):
            points = None
        found.add(json.dumps(points))
    if len(found) != 1:
        return None
    points = json.loads(found.pop())
    return [int(c) for c in points] if isinstance(points, list) and points else None


def change_points_source(rows: pd.DataFrame) -> str | None:
    """Where the rows' change points come from (``env_info``'s ``change_points_source``:
    ``generator``, ``declared``, ...), when every row says the same, else None."""
    if "env_info" not in rows.columns or rows.empty:
        return None
    found = set()
    for text in rows["env_info"].dropna().unique():
        try:
            found.add(json.loads(text).get("change_points_source") if isinstance(text, str) else None)
        except (ValueError, AttributeError):
            found.add(None)
    return found.pop() if len(found) == 1 else None


def change_points_label(n: int, source: str | None) -> str:
    """The legend text of ``n`` change points: "true" only where the generator drew them; a
    declared change point (a data file's, a user's list) was not checked against the data."""
    if source == "generator":
        return f"true change points ({n})"
    if source == "declared":
        return f"declared change points ({n}, not checked against the data)"
    return f"change points ({n}{', ' + source if source else ''})"


def mark_changes(ax, points, source: str | None = "generator") -> Line2D | None:
    """Thin vertical lines at the change rounds ``points``; the legend handle (named by
    :func:`change_points_label` from ``source``), or None."""
    if not points:
        return None
    # one collection, not a line per change: a geometric instance has thousands of them, and
    # thousands of artists made a figure take seconds to lay out and save
    ax.vlines(points, 0, 1, transform=ax.get_xaxis_transform(), colors="0.35", lw=0.6, linestyles=[(0, (3, 3))],
              alpha=0.8, zorder=0.8)
    return Line2D([], [], color="0.35", lw=0.6, ls=(0, (3, 3)), label=change_points_label(len(points), source))


def band_line(ax, x, mean, low, high, band_alpha: float = 0.25, **kwargs):
    """A mean line with its 95% band in the same colour. On a log y axis (set it first)
    the band's lower edge is clipped at LOG_BAND_FLOOR x the mean, so that a band reaching
    zero or below never fills down to the bottom of the axis; ``ax.bands_clipped`` then
    says so (for the footer)."""
    line, = ax.plot(x, mean, **kwargs)
    mean, low, high = (np.asarray(v, dtype=float) for v in (mean, low, high))
    if ax.get_yscale() == "log":
        positive = mean > 0
        floor = np.where(positive, mean * LOG_BAND_FLOOR, np.nan)
        if np.any(positive & ~(low >= floor)):
            ax.bands_clipped = True
        low = np.where(positive, np.fmax(low, floor), np.nan)
        high = np.where(positive, high, np.nan)
    ax.fill_between(x, low, high, color=line.get_color(), alpha=band_alpha, lw=0)
    return line
