"""Regret at one horizon: a horizontal bar per configuration, sorted (lowest regret at the
top), its 95% interval as an error bar, coloured by knowledge group (what the algorithm is
told), the highlighted configurations in bold. What a log-log figure against T draws when
the table holds a single T, where its curves would be a column of dots."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.patches import Patch

from bandits.experiments.figures.knowledge import GROUP_ORDER, OTHER
from bandits.experiments.figures.names import LABELS, is_highlighted, parse_highlight

GROUP_COLORS = dict(zip(GROUP_ORDER, ("#1f77b4", "#6baed6", "#6a3d9a", "#b39ddb", "#ff7f0e", "#fdbf6f", "#e6b400",
                                      "#2ca02c", "#7f7f7f", "#bcbd22"), strict=True))
ROW_INCHES = 0.28  # height per bar


def figure_size(n: int) -> tuple[float, float]:
    return 8.0, max(3.2, 1.4 + ROW_INCHES * n)


def draw_bars(ax, data: pd.DataFrame, key: str, groups: dict, highlight=None, xlabel: str = "") -> list[str]:
    """The bars of ``data`` (one row per configuration: mean_regret, ci_low, ci_high) on
    ``ax``, sorted by mean, the configurations ``highlight`` names in bold; returns the
    knowledge groups drawn (for the legend)."""
    data = data.sort_values(["mean_regret", key], ascending=[False, True], kind="stable")  # the lowest at the top
    chosen = parse_highlight(highlight)
    y = np.arange(len(data))
    colors = [GROUP_COLORS.get(groups.get(label, OTHER), GROUP_COLORS[OTHER]) for label in data[key]]
    mean = data["mean_regret"].to_numpy(float)
    err = np.vstack([mean - data["ci_low"].to_numpy(float), data["ci_high"].to_numpy(float) - mean])
    ax.barh(y, mean, color=colors, alpha=0.85, height=0.7, zorder=2)
    ax.errorbar(mean, y, xerr=err, fmt="none", ecolor="black", elinewidth=1, capsize=3, zorder=3)
    algo_of = data["algo"] if "algo" in data.columns and key != "algo" else data[key]
    names = [LABELS.get(label, label) for label in data[key]]
    ax.set_yticks(y, names, fontsize=8)
    for tick, label, algo in zip(ax.get_yticklabels(), data[key], algo_of, strict=True):
        if is_highlighted(label, chosen, algo):
            tick.set_fontweight("bold")
    ax.axvline(0.0, color="black", lw=0.6)
    ax.set_xlabel(xlabel)
    ax.grid(True, axis="x", alpha=0.3)
    drawn = {groups.get(label, OTHER) for label in data[key]}
    return [g for g in GROUP_ORDER if g in drawn] + sorted(drawn - set(GROUP_ORDER))


def bar_legend(ax, drawn_groups: list) -> None:
    """One legend row per knowledge group drawn (and none when only "other" is)."""
    if drawn_groups == [OTHER]:
        return
    handles = [Patch(color=GROUP_COLORS.get(g, GROUP_COLORS[OTHER]), alpha=0.85, label=g) for g in drawn_groups]
    ax.legend(handles=handles, fontsize=7, loc="best", title="what each algorithm is told", title_fontsize=7)


def bar_figure(data: pd.DataFrame, key: str, groups: dict, title: str, xlabel: str, highlight=None):
    """A figure of :func:`draw_bars` with its group legend; returns (figure, axes)."""
    fig, ax = plt.subplots(figsize=figure_size(data[key].nunique()))
    bar_legend(ax, draw_bars(ax, data, key, groups, highlight, xlabel))
    ax.set_title(title, fontsize=10)
    return fig, ax
