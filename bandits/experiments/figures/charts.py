"""The figures of the plot stage: curves with their 95% bands, the legend grouped by what each
algorithm is told, log-log regret against T (a bar chart at a single T), regret or reward
against t, the footer that says what the bands are, and saving PNG + PDF + CSV.

Readability, one helper each, used by every figure:

* :func:`~bandits.experiments.figures.styles.curve_styles`: a distinct (colour, marker) pair
  for every curve of a figure (up to 20; the same label keeps its style across figures where
  it can), markers placed sparsely; the line style tells the curve's knowledge group
  (:func:`~bandits.experiments.figures.common.knowledge_groups`: what the algorithm is told,
  from what it declares, or "tuned by hand": :mod:`bandits.experiments.figures.knowledge`),
  and :func:`grouped_legend` lists the curves under their group's heading;
* highlight: curves drawn thicker and on top, the others lighter (the plot stage's
  ``--highlight LABEL[,LABEL]`` or ``DRIFT_BANDITS_HIGHLIGHT``, carried by its
  :class:`~bandits.experiments.figures.drawing.Drawing`; :func:`loglog_figure` and
  :func:`curve_figure` take ``highlight=`` and fall back to the stage's choice, the functions
  that draw on given axes draw the ``highlight`` they are given);
* bands: the 95% t-interval over trials (over drawn instances, the two-stage bootstrap's), its
  lower edge clipped at 0 where the regret cannot be negative (pseudo-regret against the best action of each round,
  :func:`~bandits.experiments.figures.common.regret_by_T`,
  :func:`~bandits.experiments.figures.common.curve_band`), and :func:`band_footer` says so;
  on a log axis :func:`~bandits.experiments.figures.axes.band_line` clips a band's lower edge
  at a tenth of the mean (with 2-3 trials it often reaches zero or below, which a log axis
  cannot show);
* captions say what was pooled (:func:`bandits.experiments.figures.pooling.pooled_text`:
  instances, root seeds, whether noise varies) and what the regret is measured against
  (:func:`say_regret`, :mod:`bandits.experiments.setup.regret_kind`); a figure of regret against
  T at a single T is a bar chart (:mod:`bandits.experiments.figures.bars`); a legend lists
  only what is drawn;
* :func:`~bandits.experiments.figures.axes.log_axis`: log axes label their decades, and 2
  and 5 only when the axis spans less than two decades (never the crowded 3, 4, 6 ...);
* :func:`~bandits.experiments.figures.axes.integer_axis`: count axes (rounds t, numbers of
  replays) get integer ticks;
* :func:`~bandits.experiments.figures.axes.change_points` /
  :func:`~bandits.experiments.figures.axes.mark_changes`: the change rounds the environment
  reported (evaluation data, ``env_info``) as thin vertical lines on figures against t;
* the run scale: a figure drawn from a table of a reduced run carries a banner saying so
  (the stage's scale check, :mod:`bandits.experiments.plots.scale`, recorded in the
  :class:`~bandits.experiments.figures.drawing.Drawing`), wrapped to fit the figure like its
  footer (:mod:`bandits.experiments.figures.layout`).

Every figure goes through :func:`save_figure`, which writes it into the Drawing's folder and
records it there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import cycle

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from bandits.experiments.figures.axes import (  # noqa: E402
    LOG_BAND_FLOOR,
    band_line,
    change_points,
    change_points_source,
    integer_axis,
    log_axis,
    mark_changes,
)
from bandits.experiments.figures.bars import bar_figure  # noqa: E402
from bandits.experiments.figures.common import (  # noqa: E402
    curve_band,
    knowledge_groups,
    measured_slope,
    regret_by_T,
    trials_text,
)
from bandits.experiments.figures.drawing import Drawing  # noqa: E402
from bandits.experiments.figures.knowledge import GROUP_LINES, GROUP_ORDER, OTHER  # noqa: E402
from bandits.experiments.figures.layout import axis_label, place_texts  # noqa: E402
from bandits.experiments.figures.names import LABELS, is_highlighted, parse_highlight  # noqa: E402
from bandits.experiments.figures.pooling import NESTED, mean_over, pooled_text  # noqa: E402
from bandits.experiments.figures.styles import MARKEVERY, curve_styles  # noqa: E402
from bandits.experiments.setup.regret_kind import DYNAMIC, rows_regret_kind  # noqa: E402


def in_order(labels, order) -> list:
    """Labels in the order given (those not in it last, alphabetically)."""
    order = list(order)
    return sorted(labels, key=lambda a: (order.index(a) if a in order else len(order), a))



@dataclass
class Entry:
    """One legend row: a handle, its text and its knowledge group (None: after the groups)."""
    handle: object
    text: str
    group: str | None = None
    bold: bool = False


def with_hand_set(name: str, hand_set: str | None) -> str:
    """A legend's text for a configuration with constants set by hand: "m_ucb (window=400)"."""
    return f"{name} ({hand_set})" if hand_set else name


def draw_curves(ax, data: pd.DataFrame, key: str, x: str, y: str, low: str, high: str, order=(), groups=None,
                highlight=None, text=None, lw: float = 1.4) -> list:
    """Every configuration of ``data`` (column ``key``) as a mean line with its band, in
    its own style (:func:`curve_styles`), the line style of its knowledge group, sparse
    markers, the configurations ``highlight`` names thicker and on top; returns the legend
    entries. ``text(label, rows)`` gives a legend text (default: the display name)."""
    labels = in_order(data[key].unique(), order)
    styles, groups = curve_styles(labels), groups or {}
    hand = getattr(groups, "hand_set", {})  # constants set by hand (common.KnowledgeGroups), said in the legend
    chosen = parse_highlight(highlight)
    shade = 0.22 if len(labels) < WIDE_FROM else 0.12  # many bands: lighter, so that they do not pile up
    algo_of = data.groupby(key)["algo"].first() if "algo" in data.columns and key != "algo" else {}
    bright_ones = {label for label in labels
                   if is_highlighted(label, chosen, algo_of.get(label) if len(algo_of) else None)}
    entries = []
    for label in labels:
        d = data[data[key] == label].sort_values(x)
        style, group = styles[str(label)], groups.get(label, OTHER)
        bright = label in bright_ones
        dim = bool(bright_ones) and not bright  # a figure without the highlighted curves is drawn as usual
        line = band_line(ax, d[x], d[y], d[low], d[high], band_alpha=shade / 2 if dim else shade, color=style.color,
                         marker=style.marker, ms=6 if bright else 4, ls=GROUP_LINES.get(group, "-"),
                         lw=2.8 if bright else (0.9 if dim else lw), alpha=0.45 if dim else 1.0,
                         zorder=4 if bright else 2,
                         markevery=(0.013 * (style.slot % 8), MARKEVERY) if len(d) > 12 else None,
                         label=text(label, d) if text else with_hand_set(LABELS.get(label, label), hand.get(label)))
        entries.append(Entry(line, line.get_label(), group, bright))
    return entries


def grouped_legend(ax, entries: list, outside: bool = False, fontsize: float = 8, **kwargs):
    """The legend, its curves listed under the heading of their knowledge group
    (:data:`GROUP_ORDER`) when any group is known; entries without a group (reference
    lines, change points) last."""
    curves = [e for e in entries if e.group is not None]
    rest = [e for e in entries if e.group is None]
    handles, texts, bold = [], [], set()
    if any(e.group != OTHER for e in curves):
        known = [g for g in GROUP_ORDER if any(e.group == g for e in curves)]
        known += sorted({e.group for e in curves} - set(known))
        for group in known:
            bold.add(len(texts))
            handles.append(Line2D([], [], ls="none"))
            texts.append(group)
            for e in (e for e in curves if e.group == group):
                handles.append(e.handle)
                texts.append("  " + e.text)
    else:
        handles, texts = [e.handle for e in curves], [e.text for e in curves]
    strong = {i for i, e in enumerate(curves) if e.bold}
    for e in rest:
        handles.append(e.handle)
        texts.append(e.text)
    where = dict(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0) if outside else {}
    legend = ax.legend(handles, texts, fontsize=fontsize, **{**where, **kwargs})
    for i, t in enumerate(legend.get_texts()):
        if i in bold:
            t.set_fontweight("bold")
            t.set_fontstyle("italic")
    if strong:
        names = {curves[i].text for i in strong}
        for t in legend.get_texts():
            if t.get_text().strip() in names:
                t.set_fontweight("bold")
    return legend


REFERENCE_STYLES = [("black", "--"), ("dimgray", "-."), ("gray", ":")]


def plot_loglog(ax, data: pd.DataFrame, theory: dict, key: str = "algo", legend_outside: bool = False,
                groups: dict | None = None, highlight=None, regret: str = DYNAMIC,
                over: str = "mean over trials") -> list:
    """Curves of ``regret_by_T`` data with their fitted slopes in the legend, and each
    distinct theoretical rate of ``theory`` (label -> (exponent, "a/b")) once, as a
    reference power law anchored at the first point of the first curve that has it (only
    when the data span several T: a reference over one T would be a point, listed but not
    drawn). ``groups``: label -> knowledge group (:func:`knowledge_groups`), for the legend;
    ``highlight``: the configurations drawn thicker and on top (:func:`draw_curves`);
    ``regret``: what the regret is (:mod:`bandits.experiments.setup.regret_kind`), and ``over``
    what its mean is over (:func:`~bandits.experiments.figures.pooling.mean_over`), for the y axis."""
    log_axis(ax, "both")

    def text(label, d):
        slope = d["fitted_slope"].iloc[0]
        name = with_hand_set(LABELS.get(label, label), getattr(groups, "hand_set", {}).get(label))
        return f"{name}: slope {slope:.2f}" if np.isfinite(slope) else name

    entries = draw_curves(ax, data, key, "T", "mean_regret", "ci_low", "ci_high", theory, groups, highlight, text)
    references: dict = {}
    for label in in_order(data[key].unique(), theory):
        d = data[data[key] == label].sort_values("T")
        exponent, ref_text = theory.get(label, (float("nan"), ""))
        anchor = d["mean_regret"].iloc[0]
        if np.isfinite(exponent) and round(exponent, 6) not in references and anchor > 0:
            references[round(exponent, 6)] = (ref_text, exponent, d["T"].iloc[0], anchor)
    T = np.array([data["T"].min(), data["T"].max()], dtype=float)
    for (ref_text, exponent, T0, y0), (color, style) in zip(references.values() if T[1] > T[0] else [],
                                                            cycle(REFERENCE_STYLES)):
        line, = ax.plot(T, y0 * (T / T0) ** exponent, color=color, ls=style, lw=1, label=f"reference slope {ref_text}")
        entries.append(Entry(line, line.get_label()))
    ax.set_xlabel("T")
    ax.set_ylabel(axis_label(f"{regret} at T ({over})"))
    grouped_legend(ax, entries, outside=legend_outside, fontsize=7 if legend_outside else 8,
                   **({} if legend_outside else {"loc": "upper left"}))
    ax.grid(True, which="both", alpha=0.3)
    return entries


def with_slopes(data: pd.DataFrame, theory: dict, key: str = "algo") -> pd.DataFrame:
    """Each curve's slope under the slope rule (NaN where it is not measured) and its
    theoretical exponent (NaN where there is none)."""
    data = data.copy()
    data["fitted_slope"] = np.nan
    data["theory_slope"] = np.nan
    for label, d in data.groupby(key):
        data.loc[d.index, "fitted_slope"] = measured_slope(d["T"], d["mean_regret"])[0]
        data.loc[d.index, "theory_slope"] = theory.get(label, (np.nan, ""))[0]
    return data


WIDE_FROM = 7  # curves from which a figure is drawn wide, its legend beside the plot


def clipped(data: pd.DataFrame, mean: str = "mean_regret", low: str = "ci_low", high: str = "ci_high") -> bool:
    """Whether some band of ``data`` had its lower edge raised to 0 (:func:`regret_by_T`,
    :func:`curve_band`): a t-interval is symmetric about its mean, so its own lower edge is
    2 x mean - upper edge."""
    m, lo, hi = (data[c].to_numpy(dtype=float) for c in (mean, low, high))
    return bool(np.any((lo == 0.0) & (2 * m - hi < 0.0)))


CLIPPED_TEXT = "clipped at 0 (pseudo-regret is never negative)"


def band_footer(ax, trials: pd.Series, note: str = "", clipped_at_zero: bool = False, what: str = "bands") -> str:
    """The footer that says which interval the bands (or error bars) draw: the 95% t-interval
    over how many trials (over drawn instances, the two-stage bootstrap's), what was pooled
    (``note``), and where its edges were clipped."""
    if NESTED in note:  # drawn instances: the bands are the two-stage bootstrap's (report.summary.band)
        text = f"{what}: 95% two-stage bootstrap interval (instances, then trials) over {note}"
    else:
        text = f"{what}: 95% t-interval over {trials_text(trials)}{f' ({note})' if note else ''}"
    if clipped_at_zero:
        text += f", {CLIPPED_TEXT}"
    if getattr(ax, "bands_clipped", False):
        text += f"; on the log axis lower edges clipped at mean x {LOG_BAND_FLOOR:g}"
    return text


def say_regret(text: str, regret: str) -> str:
    """``text`` (a title or axis label written for dynamic regret) for the rows' kind of
    regret: "regret against the best fixed policy, by t" for "dynamic regret against t"."""
    if regret == DYNAMIC:
        return text
    # one pass: ``regret`` may itself contain "dynamic regret" ("... against the best policy per piece")
    return re.sub(rf"{re.escape(DYNAMIC)}( against )?", lambda m: f"{regret}, by " if m.group(1) else regret, text)


def loglog_figure(rows: pd.DataFrame, fig_name: str, title: str, theory: dict, drawing: Drawing,
                  key: str = "algo", wide: bool | None = None, highlight=None) -> pd.DataFrame:
    """Log-log mean final regret against T with 95% bands, or at a single T a bar chart of
    the regret per configuration (:mod:`bandits.experiments.figures.bars`); returns (and
    writes as CSV, :func:`save_figure`) the numbers plotted. ``wide``: room for many curves,
    the legend beside the plot (default: from WIDE_FROM curves); ``highlight``: the
    configurations drawn thicker and on top (default: the stage's, ``drawing.highlight``)."""
    data = regret_by_T(rows, key)
    data["code"] = drawing.record_versions(rows, fig_name)
    data = with_slopes(data, theory, key)
    regret, groups = rows_regret_kind(rows), knowledge_groups(rows)
    title = say_regret(title, regret)
    chosen = drawing.highlight_names(highlight)
    if data["T"].nunique() == 1:
        T = int(data["T"].iloc[0])
        fig, ax = bar_figure(data, key, groups, title, f"{regret} at T = {T} ({mean_over(rows)})", chosen)
        return save_figure(fig, data, drawing, fig_name, band_footer(ax, data["trials"], pooled_text(rows),
                                                                     clipped(data), what="error bars"))
    wide = data[key].nunique() >= WIDE_FROM if wide is None else wide
    fig, ax = plt.subplots(figsize=(9.5, 5.2) if wide else (6.0, 4.4))
    plot_loglog(ax, data, theory, key, legend_outside=wide, groups=groups, highlight=chosen, regret=regret,
                over=mean_over(rows))
    ax.set_title(title, fontsize=10)
    return save_figure(fig, data, drawing, fig_name, band_footer(ax, data["trials"], pooled_text(rows),
                                                                 clipped(data)))


def curve_figure(rows: pd.DataFrame, fig_name: str, column: str, ylabel: str, title: str, drawing: Drawing,
                 order: list, key: str = "algo", footnote: str | None = None, highlight=None) -> pd.DataFrame:
    """Mean cumulative reward or regret against t, 95% bands, and the change points the
    environment reported (when the rows' instances share them). A regret figure names the
    rows' kind of regret (``dynamic regret`` in ``ylabel`` and ``title`` becomes "regret
    against the best fixed policy" where no change point is known); ``footnote`` (default:
    what the rows pool, :func:`bandits.experiments.figures.pooling.pooled_text`) goes in
    the footer; ``highlight`` as in :func:`loglog_figure`."""
    data = curve_band(rows, column, key)
    data["code"] = drawing.record_versions(rows, fig_name)
    if column == "regret_curve":
        regret = rows_regret_kind(rows)
        ylabel, title = say_regret(ylabel, regret), say_regret(title, regret)
    wide = data[key].nunique() >= WIDE_FROM
    fig, ax = plt.subplots(figsize=(9.5, 5.2) if wide else (6.0, 4.4))
    entries = draw_curves(ax, data, key, "t", "mean", "ci_low", "ci_high", order, knowledge_groups(rows),
                          drawing.highlight_names(highlight))
    changes = mark_changes(ax, change_points(rows), change_points_source(rows))
    if changes is not None:
        entries.append(Entry(changes, changes.get_label()))
    ax.axhline(0.0, color="black", lw=0.5)
    integer_axis(ax, "x")
    ax.set_xlabel("t")
    ax.set_ylabel(axis_label(ylabel))
    ax.set_title(title, fontsize=10)
    grouped_legend(ax, entries, outside=wide, fontsize=7 if wide else 8)
    ax.grid(True, alpha=0.3)
    note = pooled_text(rows) if footnote is None else footnote
    return save_figure(fig, data, drawing, fig_name, band_footer(ax, data["trials"], note,
                                                                 clipped(data, "mean") if column == "regret_curve"
                                                                 else False))


def save_figure(fig, data: pd.DataFrame, drawing: Drawing, fig_name: str, footer: str) -> pd.DataFrame:
    """Footer, the reduced-scale banner where it applies (the run scale ``drawing`` recorded for
    ``fig_name``: call :meth:`~bandits.experiments.figures.drawing.Drawing.record_versions`
    first; each fitted to the figure's width: :mod:`bandits.experiments.figures.layout`),
    PNG + PDF in the drawing's folder, and the exact numbers plotted as CSV; the figure is
    recorded as written."""
    place_texts(fig, footer, drawing.scale_banner(fig_name))
    folder = drawing.folder
    folder.mkdir(parents=True, exist_ok=True)
    for ext in ("png", "pdf"):
        # no creation date in the PDF: the same numbers give the same file (no churn in git)
        fig.savefig(folder / f"{fig_name}.{ext}", dpi=150, metadata={"CreationDate": None} if ext == "pdf" else None)
    plt.close(fig)
    data.to_csv(folder / f"{fig_name}.csv", index=False)
    drawing.wrote(fig_name)
    return data
