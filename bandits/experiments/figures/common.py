"""Shared helpers of the plot stage: one-line notices, reading a result table, 95%
t-interval bands, the slope rule, log-log and curve figures, saving PNG + PDF + CSV,
and the code versions behind each figure."""

from __future__ import annotations

import sys
import warnings
from itertools import cycle
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from bandits.experiments.summary import t_interval  # noqa: E402

# Display names in legends; a label not listed is shown as it is.
LABELS = {"sw_ucb_opt": "SW-UCB-opt", "sw_ucb_obl": "SW-UCB-obl", "exp3s": "EXP3.S (Rexp3)",
          "exp3s_auer": "EXP3.S (Auer et al.)", "bob": "BOB",
          "ucb": "UCB", "sw_ucb": "SW-UCB", "obl_w050": "SW-UCB-obl, w x 1/2", "obl_w075": "SW-UCB-obl, w x 3/4",
          "obl_w133": "SW-UCB-obl, w x 4/3", "obl_w200": "SW-UCB-obl, w x 2", "obl_S1": "SW-UCB-obl, S = 1",
          "bob_S1": "BOB, S = 1", "mw": "MW (Keskin & Zeevi)", "company": "company (recorded prices)",
          "iltcb": "ILTCB (practical)", "iltcb_theory": "ILTCB (theory)",
          "oracle_restart": "ILTCB restarted at true changes",
          "epsilon_greedy": "epsilon-greedy", "exp4": "Exp4", "vw_epsilon": "VW --epsilon", "vw_cover": "VW --cover",
          "ada_iltcb_plus": "Ada-ILTCB+ (practical)", "ada_iltcb_plus_theory": "Ada-ILTCB+ (theory)",
          "ada_iltcb_plus_noreplay": "Ada-ILTCB+ without replay",
          "sw_ucb_glb_opt": "SW-UCB-GLB-opt", "sw_ucb_glb_obl": "SW-UCB-GLB-obl", "bob_glb": "BOB (GLB)",
          "glm_ucb": "GLM-UCB", "sw_ucb_comb_opt": "SW-UCB-comb-opt", "sw_ucb_comb_obl": "SW-UCB-comb-obl",
          "bob_semibandit": "BOB (semi-bandit)", "cucb": "CUCB",
          "d_linucb": "D-LinUCB", "restart_linucb": "RestartUCB", "restart_linucb_bob": "RestartUCB-BOB",
          "master_oful": "MASTER-OFUL", "master_oful_nolog": "MASTER-OFUL (earlier reading)",
          "master_ctx": "MASTER (epsilon-greedy, ours)", "master_iltcb": "MASTER-ILTCB"}

LINE_WIDTH = 100  # notices and the printed claims table fit a terminal this wide
MIN_HORIZONS = 3  # the slope rule (package docstring)
REQUIRED_COLUMNS = ("algo", "T", "trial", "final_regret")


# ----------------------------------------------------------------------------- notices

def notice(subject: str, problem: str, consequence: str = "skipped") -> None:
    """One line on stderr, ``notice: <subject>: <problem>; <consequence>``; the problem
    is shortened so that the line fits LINE_WIDTH columns where it can."""
    head, tail = f"notice: {subject}: ", f"; {consequence}" if consequence else ""
    problem = " ".join(str(problem).split())
    room = max(LINE_WIDTH - len(head) - len(tail), 20)
    if len(problem) > room:
        problem = problem[:room - 3] + "..."
    print(head + problem + tail, file=sys.stderr)


def one_line(exc: BaseException) -> str:
    """An exception as ``Type: first line of its message``."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


# ----------------------------------------------------------------------------- code versions

# Which code produced each figure: figure name -> "fingerprint (git commit)" list.
VERSIONS: dict = {}


def code_versions(rows: pd.DataFrame, figure: str) -> str:
    """The code versions behind ``rows``; mixing versions in one figure gives a warning
    that names them (their cells were computed by different code)."""
    cols = [c for c in ("code_fingerprint", "git_commit") if c in rows.columns]
    pairs = sorted({" ".join(str(v) for v in r if v is not None and v == v)
                    for r in rows[cols].itertuples(index=False)}) if cols else []
    text = "; ".join(pairs)
    if len(pairs) > 1:
        warnings.warn(f"{figure} mixes cells from different code versions: {text}", stacklevel=2)
    VERSIONS[figure] = text
    return text


# ----------------------------------------------------------------------------- reading

def config_labels(rows: pd.DataFrame) -> pd.Series:
    """Each row's configuration: its ``label`` where the table has one, else its ``algo``."""
    if "label" not in rows.columns:
        return rows["algo"].astype(str)
    return rows["label"].where(rows["label"].notna(), rows["algo"]).astype(str)


def shown(path: Path, parts: int = 3) -> str:
    """The last ``parts`` components of ``path`` (``results/tables/fig2b.parquet``): short
    enough to leave room in a notice for the problem itself."""
    return str(Path(*path.parts[-parts:]))


def read_table(path: Path) -> pd.DataFrame | None:
    """A result table with its ``label`` column filled in, or None (after a notice) when
    the file cannot be read, has no rows, or is not a result table."""
    name = path.stem
    try:
        rows = pd.read_parquet(path)
    except Exception as exc:  # any unreadable file: say so and go on with the others
        notice(name, f"{shown(path)} is unreadable ({one_line(exc)})")
        return None
    missing = [c for c in REQUIRED_COLUMNS if c not in rows.columns]
    if missing:
        notice(name, f"{shown(path)} lacks the columns {', '.join(missing)}")
        return None
    if rows.empty:
        notice(name, f"{shown(path)} has no rows")
        return None
    rows = rows.assign(label=config_labels(rows))
    code_versions(rows, name)
    return rows


def report_gaps(name: str, rows: pd.DataFrame) -> None:
    """One notice if the (label, T) grid has holes or its cells hold different numbers of
    rows (trials): the figure is drawn from what is there."""
    sizes = rows.groupby(["label", "T"]).size()
    grid = pd.MultiIndex.from_product(sizes.index.levels)
    holes = [f"{label} at T={T}" for label, T in grid.difference(sizes.index)]
    problems = []
    if holes:
        problems.append(f"no cells for {', '.join(holes)}")
    if sizes.nunique() > 1:
        problems.append(f"trials per cell vary ({sizes.min()} to {sizes.max()})")
    if problems:
        notice(name, "incomplete table: " + "; ".join(problems), "drawn from the cells present")


# ----------------------------------------------------------------------------- bands and slopes

def _with_algo(data: pd.DataFrame, rows: pd.DataFrame, key: str) -> pd.DataFrame:
    """Name each configuration's algorithm too when curves are keyed by something else."""
    if key != "algo" and "algo" in rows.columns:
        algo_of = rows.assign(_key=config_labels(rows)).groupby("_key")["algo"].first()
        data.insert(1, "algo", data[key].map(algo_of))
    return data


def regret_by_T(rows: pd.DataFrame, key: str = "algo") -> pd.DataFrame:
    """Mean final regret and 95% band per (configuration, T). The configuration is the
    row's label (else algo); ``key`` names its column (paper CSVs keep the name ``algo``)."""
    out = []
    for (label, T), g in rows.groupby([config_labels(rows), "T"], sort=True):
        m, lo, hi = t_interval(g["final_regret"])
        out.append({key: label, "T": int(T), "trials": len(g), "mean_regret": m, "ci_low": lo, "ci_high": hi})
    return _with_algo(pd.DataFrame(out), rows, key)


def curve_band(rows: pd.DataFrame, column: str, key: str = "algo") -> pd.DataFrame:
    """Mean and 95% t-band of a stored curve at every checkpoint, per configuration."""
    out = []
    for label, g in rows.groupby(config_labels(rows), sort=True):
        t = np.asarray(g["checkpoints"].iloc[0])
        values = np.stack(g[column].to_numpy())
        mean, low, high = t_interval(values, axis=0)
        out.append(pd.DataFrame({key: label, "t": t, "trials": len(values), "mean": mean,
                                 "ci_low": low, "ci_high": high}))
    return _with_algo(pd.concat(out, ignore_index=True), rows, key)


def fitted_slope(T, regret) -> float:
    """Least-squares slope of log(regret) on log(T)."""
    return float(np.polyfit(np.log(np.asarray(T, float)), np.log(np.asarray(regret, float)), 1)[0])


def measured_slope(T, regret) -> tuple[float, str]:
    """The slope rule: ``(slope, "")`` where a log-log slope means something (at least
    MIN_HORIZONS horizons, mean regret positive and non-decreasing in T), else
    ``(nan, why not)``."""
    order = np.argsort(np.asarray(T, float))
    T, regret = np.asarray(T, float)[order], np.asarray(regret, float)[order]
    if len(np.unique(T)) < MIN_HORIZONS:
        return float("nan"), f"fewer than {MIN_HORIZONS} horizons"
    if np.any(np.diff(regret) < 0):
        return float("nan"), "not monotone in T"
    if regret[0] <= 0:
        return float("nan"), "regret not positive"
    return fitted_slope(T, regret), ""


def trials_text(trials: pd.Series) -> str:
    lo, hi = int(trials.min()), int(trials.max())
    return f"{lo} trials" if lo == hi else f"{lo} to {hi} trials"


# ----------------------------------------------------------------------------- figures

def in_order(labels, order) -> list:
    """Labels in the order given (those not in it last, alphabetically)."""
    order = list(order)
    return sorted(labels, key=lambda a: (order.index(a) if a in order else len(order), a))


def band_line(ax, x, mean, low, high, **kwargs):
    """A mean line with its 95% band in the same colour."""
    line, = ax.plot(x, mean, **kwargs)
    ax.fill_between(x, low, high, color=line.get_color(), alpha=0.25, lw=0)
    return line


REFERENCE_STYLES = [("black", "--"), ("dimgray", "-."), ("gray", ":")]


def plot_loglog(ax, data: pd.DataFrame, theory: dict, key: str = "algo", legend_outside: bool = False) -> None:
    """Curves of ``regret_by_T`` data with their fitted slopes in the legend, and each
    distinct theoretical rate of ``theory`` (label -> (exponent, "a/b")) once, as a
    reference power law anchored at the first point of the first curve that has it."""
    references: dict = {}
    for i, label in enumerate(in_order(data[key].unique(), theory)):
        d = data[data[key] == label].sort_values("T")
        slope = d["fitted_slope"].iloc[0]
        name = LABELS.get(label, label)
        # beyond the 10 colours of the cycle, a new line style keeps every curve distinct
        band_line(ax, d["T"], d["mean_regret"], d["ci_low"], d["ci_high"], marker="os^"[i // 10 % 3], ms=3,
                  ls=("-", "--", ":")[i // 10 % 3], label=f"{name}: slope {slope:.2f}" if np.isfinite(slope) else name)
        exponent, text = theory.get(label, (float("nan"), ""))
        anchor = d["mean_regret"].iloc[0]
        if np.isfinite(exponent) and round(exponent, 6) not in references and anchor > 0:
            references[round(exponent, 6)] = (text, exponent, d["T"].iloc[0], anchor)
    T = np.array([data["T"].min(), data["T"].max()], dtype=float)
    for (text, exponent, T0, y0), (color, style) in zip(references.values(), cycle(REFERENCE_STYLES)):
        ax.plot(T, y0 * (T / T0) ** exponent, color=color, ls=style, lw=1, label=f"reference slope {text}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("T")
    ax.set_ylabel("dynamic regret at T (mean over trials)")
    if legend_outside:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    else:
        ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, which="both", alpha=0.3)


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


def loglog_figure(rows: pd.DataFrame, fig_name: str, title: str, theory: dict, out_dir: Path,
                  key: str = "algo", wide: bool = False) -> pd.DataFrame:
    """Log-log mean final dynamic regret against T with 95% bands; returns (and writes as
    CSV) the numbers plotted. ``wide``: room for many curves, the legend beside the plot."""
    data = regret_by_T(rows, key)
    data["code"] = code_versions(rows, fig_name)
    data = with_slopes(data, theory, key)
    fig, ax = plt.subplots(figsize=(9.5, 5.2) if wide else (6.0, 4.4))
    plot_loglog(ax, data, theory, key, legend_outside=wide)
    ax.set_title(title, fontsize=10)
    return save_figure(fig, data, out_dir, fig_name, f"bands: 95% t-interval over {trials_text(data['trials'])}")


def curve_figure(rows: pd.DataFrame, fig_name: str, column: str, ylabel: str, title: str, out_dir: Path,
                 order: list, key: str = "algo", footnote: str = "one instance, noise varies") -> pd.DataFrame:
    """Mean cumulative reward or dynamic regret against t, 95% bands."""
    data = curve_band(rows, column, key)
    data["code"] = code_versions(rows, fig_name)
    fig, ax = plt.subplots(figsize=(6.0, 4.4))
    for label in in_order(data[key].unique(), order):
        d = data[data[key] == label]
        band_line(ax, d["t"], d["mean"], d["ci_low"], d["ci_high"], label=LABELS.get(label, label), lw=1.4)
    ax.axhline(0.0, color="black", lw=0.5)
    ax.set_xlabel("t")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    return save_figure(fig, data, out_dir, fig_name,
                       f"bands: 95% t-interval over {trials_text(data['trials'])} ({footnote})")


def save_figure(fig, data: pd.DataFrame, out_dir: Path, fig_name: str, footer: str) -> pd.DataFrame:
    """Footer, PNG + PDF, and the exact numbers plotted as CSV."""
    fig.text(0.99, 0.01, footer, ha="right", va="bottom", fontsize=7)
    fig.tight_layout()
    out_dir.mkdir(parents=True, exist_ok=True)
    for ext in ("png", "pdf"):
        # no creation date in the PDF: the same numbers give the same file (no churn in git)
        fig.savefig(out_dir / f"{fig_name}.{ext}", dpi=150, metadata={"CreationDate": None} if ext == "pdf" else None)
    plt.close(fig)
    data.to_csv(out_dir / f"{fig_name}.csv", index=False)
    return data
