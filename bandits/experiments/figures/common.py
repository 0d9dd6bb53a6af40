"""Shared helpers of the plot stage: one-line notices, reading a result table, 95%
t-interval bands, the slope rule, and what each configuration is told (its knowledge group).

The figures themselves are drawn by :mod:`bandits.experiments.figures.charts` (with
:mod:`~bandits.experiments.figures.axes`, :mod:`~bandits.experiments.figures.styles` and
:mod:`~bandits.experiments.figures.bars`), into the stage's
:class:`~bandits.experiments.figures.drawing.Drawing`; the names shown for configurations are
in :mod:`bandits.experiments.figures.names`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from bandits.experiments.figures.knowledge import (  # noqa: F401 -- the groups, named here for the modules
    GROUP_LINES,
    GROUP_ORDER,
    KNOWS_B_T,
    KNOWS_BOTH,
    KNOWS_UPSILON,
    ORACLE,
    OTHER,
    PARAMETER_FREE,
    TUNED,
    hand_set_text,
    knowledge_group,
)
from bandits.experiments.figures.names import LABELS  # noqa: F401 -- named here for bandits.experiments.docs.render
from bandits.experiments.report.summary import band
from bandits.experiments.setup.regret_kind import rows_regret_floor

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
# the ones it draws, by cell key, from the file a row came from (its FILE_COLUMN).
CURVE_COLUMNS = ("checkpoints", "regret_curve", "reward_curve", "actions")
FILE_COLUMN = "_file"  # the column read_table adds: the table file each row was read from


def read_table(path: Path) -> pd.DataFrame | None:
    """A result table with its ``label`` column filled in and without its per-round columns
    (:data:`CURVE_COLUMNS`, read when drawn from the file each row names in
    :data:`FILE_COLUMN`: :func:`curve_band`), or None (after a notice) when the file cannot be
    read, has no rows, or is not a result table."""
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
    return rows.assign(label=config_labels(rows), **{FILE_COLUMN: str(path)})


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
    The band is the t-interval (over instances and trials, the two-stage bootstrap's:
    :func:`bandits.experiments.report.summary.band`), its lower edge clipped at 0 where the regret cannot be
    negative (:func:`bandits.experiments.setup.regret_kind.rows_regret_floor`;
    :func:`bandits.experiments.figures.charts.clipped`)."""
    out = []
    floor = rows_regret_floor(rows)
    for (label, T), g in rows.groupby([config_labels(rows), "T"], sort=True):
        m, lo, hi, _ = band(g, low=floor)
        out.append({key: label, "T": int(T), "trials": len(g), "mean_regret": m, "ci_low": lo, "ci_high": hi})
    return _with_algo(pd.DataFrame(out), rows, key)


def stored_curves(rows: pd.DataFrame, column: str, firsts) -> tuple[dict, object]:
    """The checkpoints of the rows at positions ``firsts`` (position -> array) and a function
    of row positions giving the matrix of their ``column`` curves (one row each). From the rows
    themselves when they hold the column, else read by cell key from their tables' files
    (:data:`FILE_COLUMN`, by :func:`bandits.experiments.store.table_store.select_rows`: a batch at a time,
    only these rows, as Arrow arrays with no object per row)."""
    if column in rows.columns:
        return ({i: np.asarray(rows["checkpoints"].iloc[i]) for i in firsts},
                lambda idx: np.stack(rows[column].to_numpy()[idx]))
    import pyarrow as pa
    import pyarrow.compute as pc

    from bandits.experiments.store.table_store import select_rows

    keys = pd.Index(pd.unique(rows["cell_key"].to_numpy()))  # a row given twice is read once
    of_row = keys.get_indexer(rows["cell_key"].to_numpy())
    first_keys = keys[of_row[list(firsts)]]
    parts, positions, checkpoints = [], [], {}
    for file in pd.unique(rows[FILE_COLUMN].astype(str)):
        got = select_rows(Path(file), keys, [column])
        positions.append(keys.get_indexer(got.column("cell_key").to_numpy()))
        parts.append(got.column(column))
        ticks = select_rows(Path(file), first_keys, ["checkpoints"])  # the first row of each configuration
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
        mean, low, high, _ = band(rows.iloc[idx], values, floor)
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


# ----------------------------------------------------------------------------- what each algorithm is told

class KnowledgeGroups(dict):
    """label -> knowledge group, and ``hand_set``: label -> the constants set by hand that its
    label does not spell out ("window=400"), which the legend adds to its text."""

    def __init__(self, groups: dict | None = None, hand_set: dict | None = None):
        super().__init__(groups or {})
        self.hand_set = hand_set or {}


def knowledge_groups(rows: pd.DataFrame) -> KnowledgeGroups:
    """label -> knowledge group of every configuration of ``rows`` (empty without ``algo_params``),
    with the constants each one's configuration set by hand (:class:`KnowledgeGroups`)."""
    if "algo_params" not in rows.columns or rows.empty:
        return KnowledgeGroups()
    first = rows.assign(_label=config_labels(rows)).drop_duplicates("_label")
    algos = first["algo"].astype(str) if "algo" in first.columns else pd.Series(None, index=first.index)
    triples = list(zip(first["_label"], first["algo_params"], algos, strict=True))
    hand = {label: hand_set_text(params, algo, label) for label, params, algo in triples}
    return KnowledgeGroups({label: knowledge_group(params, algo) for label, params, algo in triples},
                           {label: text for label, text in hand.items() if text})
