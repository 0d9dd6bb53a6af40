"""Shared helpers of the plot stage: one-line notices, reading a result table, 95%
t-interval bands, the slope rule, log-log and curve figures, saving PNG + PDF + CSV,
and the code versions and run scale behind each figure.

Readability, one helper each, used by every figure:

* :func:`curve_styles`: a distinct (colour, marker) pair for every curve of a figure (up to
  20; the same label keeps its style across figures where it can), markers placed sparsely;
  the line style tells the curve's knowledge group (:func:`knowledge_groups`: what the
  algorithm is told, from what it declares, or "tuned by hand":
  :mod:`bandits.experiments.figures.knowledge`), and :func:`grouped_legend` lists the curves
  under their group's heading;
* ``highlight``: curves drawn thicker and on top, the others lighter (the plot stage's
  ``--highlight LABEL[,LABEL]`` or ``DRIFT_BANDITS_HIGHLIGHT``; every drawing function
  takes ``highlight=`` and falls back to the stage's choice, :data:`HIGHLIGHT`);
* bands: the 95% t-interval over trials, its lower edge clipped at 0 where the regret
  cannot be negative (pseudo-regret against the best action of each round,
  :func:`regret_by_T`, :func:`curve_band`), and :func:`band_footer` says so; on a log axis
  :func:`band_line` clips a band's lower edge at a tenth of the mean (with 2-3 trials it
  often reaches zero or below, which a log axis cannot show);
* captions say what was pooled (:func:`bandits.experiments.figures.pooling.pooled_text`:
  instances, root seeds, whether noise varies) and what the regret is measured against
  (:func:`say_regret`, :mod:`bandits.experiments.regret_kind`); a figure of regret against
  T at a single T is a bar chart (:mod:`bandits.experiments.figures.bars`); a legend lists
  only what is drawn;
* :func:`log_axis`: log axes label their decades, and 2 and 5 only when the axis spans
  less than two decades (never the crowded 3, 4, 6 ...);
* :func:`integer_axis`: count axes (rounds t, numbers of replays) get integer ticks;
* :func:`change_points` / :func:`mark_changes`: the change rounds the environment reported
  (evaluation data, ``env_info``) as thin vertical lines on figures against t;
* :data:`SCALES`: a figure drawn from a table of a reduced run carries a banner saying so
  (the stage's scale check, :mod:`bandits.experiments.figures.scale`), wrapped to fit the
  figure like its footer (:mod:`bandits.experiments.figures.layout`).
"""

from __future__ import annotations

import json
import math
import sys
import warnings
import zlib
from dataclasses import dataclass
from itertools import cycle
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import LogFormatterSciNotation, LogLocator, MaxNLocator  # noqa: E402

from bandits.experiments.figures.knowledge import (  # noqa: E402, F401 -- the groups, named here for the modules
    GROUP_LINES,
    GROUP_ORDER,
    KNOWS_B_T,
    KNOWS_BOTH,
    KNOWS_UPSILON,
    ORACLE,
    OTHER,
    PARAMETER_FREE,
    TUNED,
    knowledge_group,
)
from bandits.experiments.figures.layout import axis_label, place_texts  # noqa: E402
from bandits.experiments.figures.pooling import pooled_text  # noqa: E402
from bandits.experiments.regret_kind import DYNAMIC, rows_regret_floor, rows_regret_kind  # noqa: E402
from bandits.experiments.summary import bounded_t_interval  # noqa: E402

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
# The run scale behind each figure (the stage's scale check): figure name -> "" for the
# shipped configuration, else a short description ("reduced scale: 2 of 50 trials").
SCALES: dict = {}
# The tables behind each figure (figure name -> set of table names) and the figures
# written (figure name -> folder): the stage's closing summary, one line per experiment.
SOURCES: dict = {}
WRITTEN: dict = {}
# The rows' columns the stage adds: the table a row came from, and its run scale.
TABLE_COLUMN, SCALE_COLUMN = "_table", "_scale"


def record_sources(rows: pd.DataFrame, figure: str) -> None:
    """Remember which tables (and which run scales) ``figure`` is drawn from."""
    if TABLE_COLUMN in rows.columns:
        SOURCES.setdefault(figure, set()).update(rows[TABLE_COLUMN].dropna().astype(str).unique())
    if SCALE_COLUMN in rows.columns:
        scales = sorted({s for s in rows[SCALE_COLUMN].dropna().astype(str).unique() if s})
        SCALES[figure] = "; ".join(scales)


def code_versions(rows: pd.DataFrame, figure: str) -> str:
    """The code versions behind ``rows``; mixing versions in one figure gives a warning
    that names them (their cells were computed by different code). Also records the
    tables and run scale behind ``figure`` (:func:`record_sources`)."""
    record_sources(rows, figure)
    cols = [c for c in ("code_fingerprint", "git_commit") if c in rows.columns]
    pairs = sorted({" ".join(str(v) for v in r if v is not None and v == v)
                    for r in rows[cols].drop_duplicates().itertuples(index=False)}) if cols else []
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


# The per-round columns are left on disk when a table is read: at 10^6 cells they are most
# of its memory, and a figure draws them for a few configurations at most. curve_band reads
# the ones it draws, by cell key, from the file of the table (TABLE_FILES) a row came from.
CURVE_COLUMNS = ("checkpoints", "regret_curve", "reward_curve", "actions")
TABLE_FILES: dict = {}  # table name -> its file (read_table)


def read_table(path: Path) -> pd.DataFrame | None:
    """A result table with its ``label`` column filled in and without its per-round columns
    (:data:`CURVE_COLUMNS`, read when drawn: :func:`curve_band`), or None (after a notice)
    when the file cannot be read, has no rows, or is not a result table."""
    import pyarrow.parquet as pq

    name = path.stem
    try:
        columns = [c for c in pq.read_schema(path).names if c not in CURVE_COLUMNS]
        rows = pd.read_parquet(path, columns=columns)
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
    TABLE_FILES[name] = path
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
    row's label (else algo); ``key`` names its column (paper CSVs keep the name ``algo``).
    The band is the t-interval, its lower edge clipped at 0 where the regret cannot be
    negative (:func:`bandits.experiments.regret_kind.rows_regret_floor`; :func:`clipped`)."""
    out = []
    floor = rows_regret_floor(rows)
    for (label, T), g in rows.groupby([config_labels(rows), "T"], sort=True):
        m, lo, hi, _ = bounded_t_interval(g["final_regret"], floor)
        out.append({key: label, "T": int(T), "trials": len(g), "mean_regret": m, "ci_low": lo, "ci_high": hi})
    return _with_algo(pd.DataFrame(out), rows, key)


def stored_curves(rows: pd.DataFrame, column: str, firsts) -> tuple[dict, object]:
    """The checkpoints of the rows at positions ``firsts`` (position -> array) and a function
    of row positions giving the matrix of their ``column`` curves (one row each). From the rows
    themselves when they hold the column, else read by cell key from their tables' files
    (:data:`TABLE_FILES`, by :func:`bandits.experiments.store.select_rows`: a batch at a time,
    only these rows, as Arrow arrays with no object per row)."""
    if column in rows.columns:
        return ({i: np.asarray(rows["checkpoints"].iloc[i]) for i in firsts},
                lambda idx: np.stack(rows[column].to_numpy()[idx]))
    import pyarrow as pa
    import pyarrow.compute as pc

    from bandits.experiments.store import select_rows

    keys = pd.Index(pd.unique(rows["cell_key"].to_numpy()))  # a row given twice is read once
    of_row = keys.get_indexer(rows["cell_key"].to_numpy())
    first_keys = keys[of_row[list(firsts)]]
    parts, positions, checkpoints = [], [], {}
    for name in pd.unique(rows[TABLE_COLUMN].astype(str)):
        got = select_rows(TABLE_FILES[name], keys, [column])
        positions.append(keys.get_indexer(got.column("cell_key").to_numpy()))
        parts.append(got.column(column))
        ticks = select_rows(TABLE_FILES[name], first_keys, ["checkpoints"])  # the first row of each configuration
        checkpoints |= dict(zip(ticks.column("cell_key").to_pylist(), ticks.column("checkpoints").to_pylist(),
                                strict=True))
    got = np.concatenate(positions)
    if len(np.unique(got)) != len(keys):
        raise ValueError(f"{len(keys) - len(np.unique(got))} rows have no stored {column} in their tables")
    curves = pa.chunked_array([c for part in parts for c in part.chunks], type=parts[0].type).combine_chunks()
    slot = np.empty(len(keys), np.int64)
    slot[got] = np.arange(len(got))  # cell key -> its place among the curves read
    slot = slot[of_row]  # row position -> the same

    def values(idx):
        picked = curves.take(pa.array(slot[idx]))
        lengths = pc.list_value_length(picked).to_numpy(zero_copy_only=False)
        if len(np.unique(lengths)) != 1:
            raise ValueError(f"the {column} curves of one configuration differ in length")
        return picked.flatten().to_numpy().reshape(len(idx), int(lengths[0]))

    return {int(i): np.asarray(checkpoints[k]) for i, k in zip(firsts, first_keys, strict=True)}, values


def curve_band(rows: pd.DataFrame, column: str, key: str = "algo") -> pd.DataFrame:
    """Mean and 95% t-band of a stored curve at every checkpoint, per configuration (the
    curves from the rows or their tables' files: :func:`stored_curves`); a regret curve's
    band is clipped at 0 where the regret cannot be negative, as in :func:`regret_by_T`."""
    groups = sorted(rows.groupby(config_labels(rows).to_numpy(), sort=True).indices.items())
    checkpoints, curves = stored_curves(rows, column, [idx[0] for _, idx in groups])
    floor = rows_regret_floor(rows) if column == "regret_curve" else None
    out = []
    for label, idx in groups:
        t = checkpoints[idx[0]]
        values = curves(idx)
        mean, low, high, _ = bounded_t_interval(values, floor, axis=0)
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


# ----------------------------------------------------------------------------- styles

# Twenty colours told apart on white (matplotlib's ten, then ten darker or lighter others),
# each with its own marker, chosen so that similar colours never share a marker.
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf", "#000075", "#469990", "#800000", "#808000", "#f032e6", "#e6b400", "#000000", "#a05195",
           "#5f9ed1", "#ff9896")
SLOT_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*", "s", "D", "^", "o", "P", "v", "X", ">", "<", "*")
MARKER_CYCLE = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")
N_STYLES = len(PALETTE)
MARKEVERY = 0.1  # curves with many points: a marker every tenth of the axes' diagonal
# The style slot of the labels that share figures most often, so that a label keeps its
# colour and marker from one figure to the next; other labels take a slot from a hash of
# their name, the next free one when two want the same.
PREFERRED_SLOT = {
    # the hedging paper's algorithms, in the colours of its figures
    "sw_ucb_opt": 0, "exp3s": 1, "bob": 2, "sw_ucb_obl": 3, "ucb": 4, "ucb1": 4,
    # the change-detection and passive baselines of the non-stationary benchmark
    "glr_klucb": 5, "glr_klucb_global": 6, "cusum_ucb": 7, "m_ucb": 8, "master_ucb": 9, "d_ucb": 10,
    "sw_ucb_gm": 11, "discounted_ts": 12, "sw_ts": 13, "kl_ucb": 14, "thompson": 15, "oracle_restart_ucb": 16,
    "m_ucb_theorem": 17, "glr_klucb_alpha005": 18, "master_ucb_nolog": 19,
    # their counterparts elsewhere take the same slot
    "d_linucb": 10, "restart_linucb": 12, "restart_linucb_bob": 13, "master_oful": 9, "master_oful_nolog": 19,
    "oracle_restart_klucb": 16, "d_klucb": 10, "sw_klucb_gm": 11, "m_klucb": 8, "cusum_klucb": 7, "qcd_klucb": 18,
    "sw_linucb": 11, "linucb": 4, "exp3s_auer": 6,
    "mw": 5, "company": 7,
    "sw_ucb_glb_opt": 0, "bob_glb": 2, "sw_ucb_glb_obl": 3, "glm_ucb": 4,
    "sw_ucb_comb_opt": 0, "bob_semibandit": 2, "sw_ucb_comb_obl": 3, "cucb": 4,
    "iltcb": 0, "epsilon_greedy": 1, "exp4": 2, "vw_epsilon": 3, "vw_cover": 4, "ada_iltcb_plus": 5,
    "ada_iltcb_plus_theory": 6, "ada_iltcb_plus_noreplay": 7, "master_ctx": 8, "master_iltcb": 9,
    "oracle_restart": 16,
}


@dataclass(frozen=True)
class Style:
    color: str
    marker: str
    slot: int


def base_label(label) -> str:
    """A label without its bracket of settings (``sw_ucb[window=200]`` -> ``sw_ucb``)."""
    return str(label).split("[", 1)[0]


def preferred_slot(label) -> int:
    base = base_label(label)
    return PREFERRED_SLOT.get(base, zlib.crc32(base.encode()) % N_STYLES)


def slot_style(slot: int) -> Style:
    """Slot k < 20: the k-th colour and its marker; beyond, the colours again with other markers."""
    color, marker = PALETTE[slot % N_STYLES], SLOT_MARKERS[slot % N_STYLES]
    if slot >= N_STYLES:
        marker = MARKER_CYCLE[(MARKER_CYCLE.index(marker) + 5 * (slot // N_STYLES)) % len(MARKER_CYCLE)]
    return Style(color, marker, slot)


def curve_styles(labels) -> dict:
    """label -> Style for the curves of one figure: distinct (colour, marker) pairs for up
    to 20 labels (40 with repeated colours), deterministic whatever the order given; a label
    gets its preferred slot unless a label with a fixed slot, or one earlier in name order,
    took it first."""
    labels = list(dict.fromkeys(str(label) for label in labels))
    order = sorted(labels, key=lambda lab: (base_label(lab) not in PREFERRED_SLOT, lab != base_label(lab), lab))
    used: set = set()
    out = {}
    for label in order:
        start, layer = preferred_slot(label), 0
        while True:
            free = [layer * N_STYLES + (start + k) % N_STYLES for k in range(N_STYLES)]
            free = [slot for slot in free if slot not in used]
            if free:
                break
            layer += 1
        used.add(free[0])
        out[label] = slot_style(free[0])
    return out


# ----------------------------------------------------------------------------- what each algorithm is told

def knowledge_groups(rows: pd.DataFrame) -> dict:
    """label -> knowledge group of every configuration of ``rows`` (empty without ``algo_params``)."""
    if "algo_params" not in rows.columns or rows.empty:
        return {}
    first = rows.assign(_label=config_labels(rows)).drop_duplicates("_label")
    algos = first["algo"].astype(str) if "algo" in first.columns else pd.Series(None, index=first.index)
    return {label: knowledge_group(params, algo) for label, params, algo in
            zip(first["_label"], first["algo_params"], algos, strict=True)}


# ----------------------------------------------------------------------------- highlighting

# The labels the plot stage highlights (``--highlight`` or DRIFT_BANDITS_HIGHLIGHT); a drawing
# function's ``highlight=`` argument replaces it for that figure.
HIGHLIGHT: list = []
# the module-level records the figure modules write and read (stage.py hands them to its workers)
RECORDS = ("VERSIONS", "SCALES", "SOURCES", "WRITTEN", "TABLE_FILES", "HIGHLIGHT")
HIGHLIGHT_ENV = "DRIFT_BANDITS_HIGHLIGHT"


def parse_highlight(text) -> list:
    """``"a,b"`` (or a list of such) -> ["a", "b"]."""
    if text is None:
        return []
    parts = [text] if isinstance(text, str) else list(text)
    return [name.strip() for part in parts for name in str(part).split(",") if name.strip()]


def highlight_names(highlight=None) -> list:
    return list(HIGHLIGHT) if highlight is None else parse_highlight(highlight)


def is_highlighted(label, chosen, algo=None) -> bool:
    """Whether ``label`` is one of ``chosen``: by its label, its name without settings, its
    algorithm or its display name."""
    if not chosen:
        return False
    names = {str(label), base_label(label), LABELS.get(str(label), str(label)), LABELS.get(base_label(label), "")}
    if algo is not None:
        names |= {str(algo), LABELS.get(str(algo), "")}
    return bool(names & set(chosen))


# ----------------------------------------------------------------------------- axes

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


def mark_changes(ax, points) -> Line2D | None:
    """Thin vertical lines at the change rounds ``points``; the legend handle, or None."""
    if not points:
        return None
    # one collection, not a line per change: a geometric instance has thousands of them, and
    # thousands of artists made a figure take seconds to lay out and save
    ax.vlines(points, 0, 1, transform=ax.get_xaxis_transform(), colors="0.35", lw=0.6, linestyles=[(0, (3, 3))],
              alpha=0.8, zorder=0.8)
    return Line2D([], [], color="0.35", lw=0.6, ls=(0, (3, 3)), label=f"true change points ({len(points)})")


# ----------------------------------------------------------------------------- figures

def in_order(labels, order) -> list:
    """Labels in the order given (those not in it last, alphabetically)."""
    order = list(order)
    return sorted(labels, key=lambda a: (order.index(a) if a in order else len(order), a))


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


@dataclass
class Entry:
    """One legend row: a handle, its text and its knowledge group (None: after the groups)."""
    handle: object
    text: str
    group: str | None = None
    bold: bool = False


def draw_curves(ax, data: pd.DataFrame, key: str, x: str, y: str, low: str, high: str, order=(), groups=None,
                highlight=None, text=None, lw: float = 1.4) -> list:
    """Every configuration of ``data`` (column ``key``) as a mean line with its band, in
    its own style (:func:`curve_styles`), the line style of its knowledge group, sparse
    markers, highlighted curves thicker and on top; returns the legend entries.
    ``text(label, rows)`` gives a legend text (default: the display name)."""
    labels = in_order(data[key].unique(), order)
    styles, groups = curve_styles(labels), groups or {}
    chosen = highlight_names(highlight)
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
                         label=text(label, d) if text else LABELS.get(label, label))
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
                groups: dict | None = None, highlight=None, regret: str = DYNAMIC) -> list:
    """Curves of ``regret_by_T`` data with their fitted slopes in the legend, and each
    distinct theoretical rate of ``theory`` (label -> (exponent, "a/b")) once, as a
    reference power law anchored at the first point of the first curve that has it (only
    when the data span several T: a reference over one T would be a point, listed but not
    drawn). ``groups``: label -> knowledge group (:func:`knowledge_groups`), for the legend;
    ``regret``: what the regret is (:mod:`bandits.experiments.regret_kind`), for the y axis."""
    log_axis(ax, "both")

    def text(label, d):
        slope = d["fitted_slope"].iloc[0]
        name = LABELS.get(label, label)
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
    ax.set_ylabel(axis_label(f"{regret} at T (mean over trials)"))
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
    over how many trials, what was pooled (``note``), and where its edges were clipped."""
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
    return text.replace(f"{DYNAMIC} against ", f"{regret}, by ").replace(DYNAMIC, regret)


def loglog_figure(rows: pd.DataFrame, fig_name: str, title: str, theory: dict, out_dir: Path,
                  key: str = "algo", wide: bool | None = None, highlight=None) -> pd.DataFrame:
    """Log-log mean final regret against T with 95% bands, or at a single T a bar chart of
    the regret per configuration (:mod:`bandits.experiments.figures.bars`); returns (and
    writes as CSV) the numbers plotted. ``wide``: room for many curves, the legend beside
    the plot (default: from WIDE_FROM curves)."""
    data = regret_by_T(rows, key)
    data["code"] = code_versions(rows, fig_name)
    data = with_slopes(data, theory, key)
    regret, groups = rows_regret_kind(rows), knowledge_groups(rows)
    title = say_regret(title, regret)
    if data["T"].nunique() == 1:
        from bandits.experiments.figures.bars import bar_figure

        T = int(data["T"].iloc[0])
        fig, ax = bar_figure(data, key, groups, title, f"{regret} at T = {T} (mean over trials)", highlight)
        return save_figure(fig, data, out_dir, fig_name, band_footer(ax, data["trials"], pooled_text(rows),
                                                                     clipped(data), what="error bars"))
    wide = data[key].nunique() >= WIDE_FROM if wide is None else wide
    fig, ax = plt.subplots(figsize=(9.5, 5.2) if wide else (6.0, 4.4))
    plot_loglog(ax, data, theory, key, legend_outside=wide, groups=groups, highlight=highlight, regret=regret)
    ax.set_title(title, fontsize=10)
    return save_figure(fig, data, out_dir, fig_name, band_footer(ax, data["trials"], pooled_text(rows),
                                                                 clipped(data)))


def curve_figure(rows: pd.DataFrame, fig_name: str, column: str, ylabel: str, title: str, out_dir: Path,
                 order: list, key: str = "algo", footnote: str | None = None, highlight=None) -> pd.DataFrame:
    """Mean cumulative reward or regret against t, 95% bands, and the change points the
    environment reported (when the rows' instances share them). A regret figure names the
    rows' kind of regret (``dynamic regret`` in ``ylabel`` and ``title`` becomes "regret
    against the best fixed policy" where no change point is known); ``footnote`` (default:
    what the rows pool, :func:`bandits.experiments.figures.pooling.pooled_text`) goes in
    the footer."""
    data = curve_band(rows, column, key)
    data["code"] = code_versions(rows, fig_name)
    if column == "regret_curve":
        regret = rows_regret_kind(rows)
        ylabel, title = say_regret(ylabel, regret), say_regret(title, regret)
    wide = data[key].nunique() >= WIDE_FROM
    fig, ax = plt.subplots(figsize=(9.5, 5.2) if wide else (6.0, 4.4))
    entries = draw_curves(ax, data, key, "t", "mean", "ci_low", "ci_high", order, knowledge_groups(rows), highlight)
    changes = mark_changes(ax, change_points(rows))
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
    return save_figure(fig, data, out_dir, fig_name, band_footer(ax, data["trials"], note,
                                                                 clipped(data, "mean") if column == "regret_curve"
                                                                 else False))


def scale_banner(fig_name: str) -> str:
    """The banner of a figure drawn from a reduced run ("" for the shipped configuration)."""
    scale = SCALES.get(fig_name, "")
    return f"{scale} \N{EM DASH} not the paper's figure" if scale else ""


def save_figure(fig, data: pd.DataFrame, out_dir: Path, fig_name: str, footer: str) -> pd.DataFrame:
    """Footer, the reduced-scale banner where it applies (each fitted to the figure's width:
    :mod:`bandits.experiments.figures.layout`), PNG + PDF, and the exact numbers plotted as CSV."""
    place_texts(fig, footer, scale_banner(fig_name))
    out_dir.mkdir(parents=True, exist_ok=True)
    for ext in ("png", "pdf"):
        # no creation date in the PDF: the same numbers give the same file (no churn in git)
        fig.savefig(out_dir / f"{fig_name}.{ext}", dpi=150, metadata={"CreationDate": None} if ext == "pdf" else None)
    plt.close(fig)
    data.to_csv(out_dir / f"{fig_name}.csv", index=False)
    WRITTEN[fig_name] = out_dir
    return data
