"""The result store: one Parquet file per finished cell, written atomically.

A cell is one configuration (algorithm and environment settings, T, root seed) and
one trial; its identity is (``config_hash``, ``trial``), where the hash covers every
config value. Its file appears only once the cell is complete (write to a temporary
file in the same folder, then ``os.replace``), so an interrupted sweep never leaves
a half-written cell, and a re-run skips every cell whose file exists.
``results/tables/<experiment>.parquet`` gathers the cells of an experiment (also
written atomically): rows that differ in any config value stay distinct, and a
re-computed cell (new code) replaces its older row. Every row gets a ``label``
(:mod:`bandits.experiments.labels`). Files get the permissions the umask allows, like any
other file the user creates, so a results folder can be shared.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from bandits.errors import last_line
from bandits.experiments.labels import assign_labels

SCHEMA = pa.schema([
    ("experiment", pa.string()),
    ("env", pa.string()),
    ("algo", pa.string()),
    ("label", pa.string()),  # human-readable, unique per configuration within a table (bandits.experiments.labels)
    ("T", pa.int64()),
    ("trial", pa.int64()),
    ("seed", pa.int64()),
    ("final_regret", pa.float64()),
    ("final_reward", pa.float64()),
    ("wall_time_s", pa.float64()),
    ("config_hash", pa.string()),
    ("code_fingerprint", pa.string()),
    ("package_version", pa.string()),
    ("cell_key", pa.string()),
    ("algo_params", pa.string()),  # JSON: configured and derived constants (window, beta, ...)
    ("env_params", pa.string()),  # JSON: the environment's configuration
    ("env_info", pa.string()),  # JSON: what the learner was told and the evaluation-only scalars
    ("checkpoints", pa.list_(pa.int64())),  # rounds t (1-based) at which curves are kept
    ("regret_curve", pa.list_(pa.float64())),  # cumulative dynamic (pseudo-)regret at checkpoints
    ("reward_curve", pa.list_(pa.float64())),  # cumulative realised reward at checkpoints
    ("actions", pa.list_(pa.int32())),  # every round's arm if save_actions, else null
    ("events", pa.string()),  # JSON: an algorithm's events (Ada-ILTCB+: blocks, replays, restarts), else null
    ("git_commit", pa.string()),  # commit of the source tree (+ "-dirty" with local edits), if it is a git checkout
    ("python_version", pa.string()),
    ("numpy_version", pa.string()),
    ("numba_version", pa.string()),
    ("host", pa.string()),
])

KEY_COLUMNS = ["config_hash", "trial"]
ORDER = ["seed", "label", "T", "trial", "env"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# Read once, in the main thread, before any worker writes (os.umask is process-wide).
FILE_MODE = 0o666 & ~_umask()


def _atomic_write(table: pa.Table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        os.chmod(tmp, FILE_MODE)  # mkstemp makes 0600 whatever the umask
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_cell(path: Path, row: dict) -> None:
    _atomic_write(pa.Table.from_pylist([row], schema=SCHEMA), path)


def valid_cell(path: Path, key: str) -> bool:
    """A stored cell is trusted only if it is a readable one-row Parquet file of the
    expected schema and key (a partial or corrupted file is never read as a result)."""
    try:
        table = pq.read_table(path, schema=SCHEMA)
    except Exception:
        return False
    return table.num_rows == 1 and table.column("cell_key")[0].as_py() == key


def quarantine(path: Path) -> Path:
    """Move a bad cell file aside (kept for inspection) so the cell is recomputed."""
    bad = path.with_suffix(path.suffix + ".corrupt")
    os.replace(path, bad)
    return bad


def read_cells(paths) -> pd.DataFrame:
    """Cells as rows (columns added since a cell was written are null)."""
    tables = [pq.read_table(p, schema=SCHEMA) for p in paths]
    if not tables:
        return SCHEMA.empty_table().to_pandas()
    return pa.concat_tables(tables).to_pandas()


def finish(rows: pd.DataFrame) -> pd.DataFrame:
    """Labels and the stable row order of a table, with the column types of a table
    read back from its file (a round trip through the schema), so an in-memory table
    and a stored one compare equal."""
    rows = rows.copy()
    rows["label"] = assign_labels(rows)
    rows = rows.sort_values(ORDER, kind="stable").reset_index(drop=True)
    return pa.Table.from_pandas(rows[SCHEMA.names], schema=SCHEMA, preserve_index=False).to_pandas()


class table_lock:
    """Exclusive lock around a table's read-merge-write, for processes on one host
    (cells themselves need no lock: one file each, atomic rename). Across hosts, run
    ``python -m bandits.experiments.collect`` afterwards: it rebuilds tables from the cells."""

    def __init__(self, path: Path):
        self.path = path.parent / f".{path.name}.lock"

    def __enter__(self):
        import fcntl
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fh = open(self.path, "w")
        fcntl.flock(self.fh, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        import fcntl
        fcntl.flock(self.fh, fcntl.LOCK_UN)
        self.fh.close()


def merge_into_table(path: Path, new: pd.DataFrame) -> pd.DataFrame:
    """Add ``new``'s rows to the table at ``path``, replacing rows of the same cell
    (``config_hash``, ``trial``), and relabel; returns the whole table."""
    with table_lock(path):
        return _merge(path, new)


def _read_old(path: Path) -> pd.DataFrame:
    """A stored table, with columns added since it was written filled with nulls. A
    damaged table is rebuilt from its experiment's cells, with a notice: the cells are
    the record, the table only gathers them."""
    try:
        old = pd.read_parquet(path)
    except (pa.ArrowException, OSError, ValueError) as exc:
        return rebuild_from_cells(path, last_line(exc))
    foreign = foreign_columns(old)
    if foreign:
        return rebuild_from_cells(path, foreign)
    for name in SCHEMA.names:
        if name not in old.columns:
            old[name] = None
    return old[SCHEMA.names]


# The columns every results table has had since its first version: a file without them, or
# with a row whose identity is missing, is not one of ours (a data file put in its place, say).
CORE = ("experiment", "algo", "T", "trial", "seed", "final_regret", "config_hash", "cell_key")


def foreign_columns(frame: pd.DataFrame) -> str | None:
    """Why ``frame`` is not a results table of ours, or None."""
    missing = [c for c in CORE if c not in frame.columns]
    if missing:
        return f"not a results table: no column {', '.join(missing)}"
    if len(frame) and frame[list(KEY_COLUMNS) + ["cell_key"]].isna().any().any():
        return "not a results table: rows without a cell identity"
    return None


def rebuild_from_cells(path: Path, reason: str) -> pd.DataFrame:
    """Every valid cell of the table's experiment (``results/runs/<experiment>/``); of two
    cells of one configuration and trial (older code), the newer file wins."""
    cells = sorted((path.parent.parent / "runs" / path.stem).glob("*.parquet"), key=lambda p: p.stat().st_mtime)
    valid = [p for p in cells if valid_cell(p, p.stem)]
    rows = read_cells(valid).drop_duplicates(KEY_COLUMNS, keep="last")
    bad = quarantine(path)
    logging.getLogger("drift_bandits").warning(
        f"warning: the table {path} was damaged ({reason}); rebuilt from its {len(rows)} cells (the damaged file "
        f"is kept as {bad.name}).")
    return rows


def _merge(path: Path, new: pd.DataFrame) -> pd.DataFrame:
    if path.exists() and len(new):
        old = _read_old(path)
        keep = ~old.set_index(KEY_COLUMNS).index.isin(new.set_index(KEY_COLUMNS).index)
        merged = pd.concat([old[keep], new], ignore_index=True)
    elif path.exists():
        merged = _read_old(path)
    else:
        merged = new
    merged = finish(merged)
    _atomic_write(pa.Table.from_pandas(merged, schema=SCHEMA, preserve_index=False), path)
    return merged


def read_table(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path)
