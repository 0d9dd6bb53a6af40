"""Cells on disk: rows of the results schema in Parquet files, written atomically.

A results folder keeps an experiment's finished cells under ``runs/<experiment>/`` as
*shards*: Parquet files of one or more rows of :data:`SCHEMA`, each written whole or not at
all (:func:`bandits.experiments.store.atomic.replaced`). One shard holds the rows of the batches
that finished in about ``parallel.batch_s`` seconds, at most ``parallel.batch_cells``; a results folder
of the earlier layout, one ``<cell key>.parquet`` per cell, is a folder of one-row shards
and reads the same way. Shards are plain Parquet with one schema, so the folder is a
pyarrow / pandas / Dask / DuckDB dataset as it is (``pyarrow.dataset.dataset(folder)``).

Names are unique (``part-<uuid>.parquet``), so folders written by several processes or
hosts merge by copying them together. Of two rows of one cell (a cell recomputed with
``overwrite=true``, or by two hosts at once) the newer shard's wins.

Shards are written by the main process, as the batches' rows arrive (workers import no
pyarrow, see :mod:`bandits.experiments.run.worker`).
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from bandits.experiments.store.atomic import replaced

SCHEMA = pa.schema([
    ("experiment", pa.string()),
    ("env", pa.string()),
    ("algo", pa.string()),
    ("label", pa.string()),  # human-readable, unique per configuration within a table (compose.labels)
    ("T", pa.int64()),
    ("trial", pa.int64()),
    ("instance", pa.int64()),  # instance i of `instances` (the same draw at every T); null: the horizon's one
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

SHARD_PREFIX = "part-"
LIST_COLUMNS = [f.name for f in SCHEMA if pa.types.is_list(f.type)]


def atomic_write(table: pa.Table, path: Path) -> None:
    """``table`` at ``path``, whole or not at all, with the permissions the umask allows."""
    with replaced(path) as tmp:
        pq.write_table(table, tmp, write_page_checksum=True)


def columns_table(cols: dict) -> pa.Table:
    """The rows of :func:`bandits.experiments.run.worker.columns` (a list per column; a list column
    as lengths and one concatenated array, or None) as one table of SCHEMA."""
    n = len(cols["cell_key"])
    arrays = []
    for f in SCHEMA:
        value = cols.get(f.name)
        if f.name in LIST_COLUMNS:
            if value is None:
                arrays.append(pa.nulls(n, type=f.type))
                continue
            lengths, flat = value
            offsets = np.zeros(n + 1, dtype=np.int32)
            np.cumsum(lengths, out=offsets[1:])
            arrays.append(pa.ListArray.from_arrays(pa.array(offsets), pa.array(flat, type=f.type.value_type),
                                                   type=f.type))
        else:
            arrays.append(pa.array([None] * n if value is None else value, type=f.type))
    return pa.Table.from_arrays(arrays, schema=SCHEMA)


def write_shard(folder: Path, table: pa.Table) -> Path:
    """One shard of ``table``'s rows in ``folder``, under a name no other writer uses."""
    path = folder / f"{SHARD_PREFIX}{uuid.uuid4().hex}.parquet"
    atomic_write(table, path)
    return path


def conform(table: pa.Table) -> pa.Table:
    """``table`` in SCHEMA's columns and types: a column added since it was written is null."""
    columns = []
    for f in SCHEMA:
        if f.name in table.column_names:
            col = table.column(f.name)
            columns.append(col if col.type == f.type else col.cast(f.type))
        else:
            columns.append(pa.nulls(table.num_rows, type=f.type))
    return pa.Table.from_arrays(columns, schema=SCHEMA)


def read_shard(path: Path, columns: list[str] | None = None) -> pa.Table:
    """A shard's rows (every page's checksum verified), in SCHEMA's types; ``columns``
    picks some. Raises on a damaged, partial or foreign file (see :func:`check_shard`)."""
    table = pq.read_table(path, columns=columns, page_checksum_verification=True)
    if columns is None:
        return conform(table)
    return table


def check_shard(path: Path, table: pa.Table) -> str | None:
    """Why a shard read back is not one of ours, or None: no cell identity column, rows without
    one, or (for a one-cell file of the earlier layout, ``<cell key>.parquet``) a row whose key
    is not its name."""
    if "cell_key" not in table.column_names or table.num_rows == 0:
        return "no cells"
    keys = table.column("cell_key")
    if keys.null_count:
        return "rows without a cell key"
    if not path.name.startswith(SHARD_PREFIX) and (table.num_rows != 1 or keys[0].as_py() != path.stem):
        return "a one-cell file whose row is not the cell its name says"
    return None


def shard_paths(folder: Path) -> list[Path]:
    """The shards of an experiment's folder, oldest first (by modification time, then name),
    so that of two rows of one cell the later one read is the newer."""
    if not folder.is_dir():
        return []
    paths = [p for p in folder.iterdir() if p.suffix == ".parquet" and not p.name.startswith(".")]
    stamped = []
    for p in paths:
        try:
            stamped.append((p.stat().st_mtime_ns, p.name, p))
        except FileNotFoundError:  # moved aside by another process meanwhile
            continue
    return [p for _, _, p in sorted(stamped)]


def quarantine(path: Path) -> Path:
    """Move a bad shard aside (kept for inspection), so that its cells are recomputed."""
    bad = path.with_suffix(path.suffix + ".corrupt")
    os.replace(path, bad)
    return bad
