"""The result store: an experiment's finished cells as shards, gathered into its table.

A cell is one configuration (algorithm and environment settings, T, root seed) and one
trial; its identity is (``config_hash``, ``trial``), where the hash covers every config
value, and its ``cell_key`` adds the code that computed it. Cells live in
``<results>/runs/<experiment>/`` as shards (:mod:`bandits.experiments.store.shards`: Parquet files
of whole batches of cells, each written atomically); a re-run computes exactly the cells no
valid shard holds. A shard that is unreadable, damaged (every page carries a checksum) or
not of our schema is moved aside as ``.corrupt`` and its cells are recomputed.

``<results>/tables/<experiment>.parquet`` gathers the cells of an experiment (also written
atomically): rows that differ in any config value stay distinct, and a recomputed cell
(new code) replaces its older row. Every row gets a ``label``
(:mod:`bandits.experiments.compose.labels`). The table is written in bounded memory: the order and
labels are computed from a few light columns, and the full rows are streamed through
sorted buckets of :data:`BUCKET_ROWS` rows, so a table of a million cells needs no more
memory than one bucket. Files get the permissions the umask allows, so a results folder
can be shared.
"""

from __future__ import annotations

import contextlib
import logging
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from bandits.errors import last_line
from bandits.experiments.compose.labels import assign_labels
from bandits.experiments.store.atomic import replaced
from bandits.experiments.store.shards import (  # noqa: F401 -- the store's public names
    SCHEMA,
    atomic_write,
    check_shard,
    columns_table,
    conform,
    quarantine,
    read_shard,
    shard_paths,
    write_shard,
)

log = logging.getLogger("drift_bandits")

KEY_COLUMNS = ["config_hash", "trial"]
ORDER = ["seed", "label", "T", "trial", "env"]
# What the labels, the row order, the identity and a run's summary need: read without the curves.
LIGHT = ["experiment", "env", "algo", "T", "trial", "instance", "seed", "final_regret", "final_reward", "wall_time_s",
         "config_hash", "cell_key", "algo_params", "env_params", "code_fingerprint", "git_commit"]
REPEATED = ["experiment", "env", "algo", "algo_params", "env_params", "config_hash", "code_fingerprint",
            "git_commit"]  # read as categories
BUCKET_ROWS = 100_000  # rows of the table held in memory at once while it is written

# The columns every results table has had since its first version: a file without them, or
# with a row whose identity is missing, is not one of ours (a data file put in its place, say).
CORE = ("experiment", "algo", "T", "trial", "seed", "final_regret", "config_hash", "cell_key")


def finish(rows: pd.DataFrame) -> pd.DataFrame:
    """Labels and the stable row order of a table, with the column types of a table
    read back from its file (a round trip through the schema), so an in-memory table
    and a stored one compare equal."""
    rows = rows.copy()
    rows["label"] = assign_labels(rows)
    rows = rows.sort_values(ORDER, kind="stable").reset_index(drop=True)
    return pa.Table.from_pandas(rows[SCHEMA.names], schema=SCHEMA, preserve_index=False).to_pandas()


# ----------------------------------------------------------------------------- the cells folder

@dataclass
class Stored:
    """The cells of an experiment's folder: each key's shard and row (the newest shard
    wins), and the shards moved aside as damaged."""
    where: dict = field(default_factory=dict)  # cell_key -> (shard path, row)
    corrupt: list = field(default_factory=list)


class ShardCache(dict):
    """The keys of each shard a sweep has read, by path, with the file's identity when read
    (inode, size, modification time) and whether it was verified whole. A shard never changes
    once written (a unique name, an atomic rename), so a sweep's plans scan its folder's older
    shards once, not once per job (a 50-seed master_geo sweep read each scenario's shards 50
    times). One cache per sweep, handed down by whoever owns it."""


def _identity(path: Path) -> tuple:
    st = path.stat()
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def scan(folder: Path, verify: bool = True, cache: ShardCache | None = None) -> Stored:
    """Every valid shard of ``folder``. ``verify`` reads each shard whole (every page's
    checksum, the schema, the identity of every row) before trusting it; without it only the
    keys are read (the cells were verified when the run was planned). A shard in ``cache``
    (read before by this sweep), and not changed since, is not read again."""
    cache = ShardCache() if cache is None else cache
    out = Stored()
    for path in shard_paths(folder):
        why = None
        try:
            ident = _identity(path)
            known = cache.get(path)
            if known is not None and known[0] == ident and (known[1] or not verify):
                keys = known[2]
            else:
                table = read_shard(path) if verify else read_shard(path, ["cell_key"])
                why = check_shard(path, table)
                if why is None:
                    keys = table.column("cell_key").to_pylist()
                    cache[path] = (ident, verify, keys)
        except FileNotFoundError:
            continue  # moved aside by another process meanwhile
        except Exception as exc:  # noqa: BLE001 -- any unreadable file is a damaged shard
            why = last_line(exc)
        if why is not None:
            cache.pop(path, None)
            try:
                out.corrupt.append(quarantine(path))
            except FileNotFoundError:
                pass
            continue
        for row, key in enumerate(keys):
            out.where[key] = (path, row)
    return out


# ----------------------------------------------------------------------------- the table

class table_lock:
    """Exclusive lock around a table's read-merge-write, for processes on one host
    (shards themselves need no lock: unique names, atomic rename). Across hosts, run
    ``drift-bandits collect`` afterwards: it rebuilds tables from the shards."""

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


def _light(table: pa.Table, src: int) -> pa.Table:
    """The light columns of ``table`` (a column it lacks is null), with where each row is
    (``_src``: which source, ``_row``: its row there)."""
    cols = [table.column(n) if n in table.column_names else pa.nulls(table.num_rows, type=SCHEMA.field(n).type)
            for n in LIGHT]
    cols = [c if c.type == SCHEMA.field(n).type else c.cast(SCHEMA.field(n).type)
            for c, n in zip(cols, LIGHT, strict=True)]
    where = [pa.array(np.full(table.num_rows, src, dtype=np.int64)), pa.array(np.arange(table.num_rows))]
    return pa.Table.from_arrays([*cols, *where], names=[*LIGHT, "_src", "_row"])


def _frame(light: list[pa.Table]) -> pd.DataFrame:
    """Light tables as one frame; repeated strings as categories (a million rows of JSON are a
    few hundred distinct values), decoded where the order sorts them."""
    table = pa.concat_tables(light)
    table = pa.Table.from_arrays([table.column(n).combine_chunks().dictionary_encode() if n in REPEATED
                                  else table.column(n) for n in table.column_names], names=table.column_names)
    frame = table.to_pandas()
    frame["env"] = frame["env"].astype(object)  # in ORDER: sorted as text, not by category code
    return frame


def _read_old(path: Path) -> pa.Table | str:
    """The light columns of a stored table, or why it cannot be used (unreadable, or not one
    of ours): then it is rebuilt from the cells."""
    try:
        schema = pq.read_schema(path)
        missing = [c for c in CORE if c not in schema.names]
        if missing:
            return f"not a results table: no column {', '.join(missing)}"
        table = pq.read_table(path, columns=[c for c in LIGHT if c in schema.names])
    except (pa.ArrowException, OSError, ValueError) as exc:
        return last_line(exc)
    if table.num_rows and any(table.column(c).null_count for c in [*KEY_COLUMNS, "cell_key"]):
        return "not a results table: rows without a cell identity"
    return _light(table, 0)


@dataclass
class Source:
    """Where full rows come from: the old table (read in row groups) or one shard (held in
    memory when it was read already and the table is small)."""
    path: Path
    is_table: bool
    table: pa.Table | None = None


def merge_into_table(path: Path, folder: Path, keys: list[str] | None, stored: Stored | None = None) -> pd.DataFrame:
    """Add the cells ``keys`` of ``folder`` (every valid cell of it when None) to the table at
    ``path``, replacing rows of the same cell (``config_hash``, ``trial``), relabel, and write
    it; returns the light columns (with labels) of the whole table."""
    with table_lock(path):
        return _merge(path, folder, keys, stored)


def _merge(path: Path, folder: Path, keys, stored) -> pd.DataFrame:
    stored = stored if stored is not None else scan(folder, verify=False)
    light, sources = [], []
    rebuild = None
    if path.exists():
        old = _read_old(path)
        if isinstance(old, str):
            rebuild = old
        else:
            sources.append(Source(path, True))
            light.append(old)
    wanted = stored.where if keys is None or rebuild else {k: stored.where[k] for k in keys if k in stored.where}
    by_shard: dict = {}
    for shard, row in wanted.values():
        by_shard.setdefault(shard, []).append(row)
    held = 0
    for shard in sorted(by_shard, key=_age):
        try:
            table = read_shard(shard)
        except FileNotFoundError:
            continue  # moved aside by another process meanwhile: its cells are reported missing
        rows = np.asarray(sorted(by_shard[shard]))
        keep = held + table.num_rows <= BUCKET_ROWS  # small tables: each shard is read once
        held += table.num_rows if keep else 0
        sources.append(Source(shard, False, table if keep else None))
        light.append(_light(table, len(sources) - 1).take(pa.array(rows)))
    if not light:
        return pd.DataFrame(columns=[*LIGHT, "label"])
    rows = _frame(light)
    # A recomputed cell replaces the older row of its configuration and trial (the table's,
    # or an older shard's): the last one read wins, and sources are read oldest first.
    rows = rows.drop_duplicates(KEY_COLUMNS, keep="last")
    if rebuild is not None:
        bad = quarantine(path)
        log.warning(f"warning: the table {path} was damaged ({rebuild}); rebuilt from its {len(rows)} cells (the "
                    f"damaged file is kept as {bad.name}).")
    rows = _labelled(rows)
    write_sorted(path, sources, rows)
    return _plain(rows)


def _labelled(rows: pd.DataFrame) -> pd.DataFrame:
    """Light rows (one per cell) with their labels, in the table's order."""
    rows["label"] = assign_labels(rows)
    return rows.sort_values(ORDER, kind="stable").reset_index(drop=True)


def _plain(rows: pd.DataFrame) -> pd.DataFrame:
    # the repeated strings were categories only for the merge: the rows go out with the
    # string columns a table read gives (a category does not add to a string, for one)
    return rows.drop(columns=["_src", "_row"]).astype({c: "str" for c in [*REPEATED, "label"]})


def table_light(path: Path) -> pa.Table | None:
    """The light columns of the table at ``path`` (None: no table, or one that cannot be used,
    which the next merge rebuilds from the cells)."""
    if not path.exists():
        return None
    old = _read_old(path)
    return None if isinstance(old, str) else old


def cells_light(keys, stored: Stored) -> list[pa.Table]:
    """The light columns of the cells ``keys`` from their shards (``stored``: where each is),
    oldest shard first, as :func:`merge_into_table` reads them."""
    by_shard: dict = {}
    for k in keys:
        if k in stored.where:
            shard, row = stored.where[k]
            by_shard.setdefault(shard, []).append(row)
    out = []
    for shard in sorted(by_shard, key=_age):
        try:
            names = pq.read_schema(shard).names
            table = read_shard(shard, [c for c in LIGHT if c in names])
        except FileNotFoundError:
            continue  # moved aside by another process meanwhile: its cells are reported missing
        out.append(_light(table, 0).take(pa.array(np.asarray(sorted(by_shard[shard])))))
    return out


def labelled_light(light: list[pa.Table]) -> pd.DataFrame:
    """What :func:`merge_into_table` returns for a table whose rows are ``light`` (oldest first:
    of two rows of one cell the later wins), without writing it."""
    if not light:
        return pd.DataFrame(columns=[*LIGHT, "label"])
    return _plain(_labelled(_frame(light).drop_duplicates(KEY_COLUMNS, keep="last")))


def _age(path: Path):
    try:
        return (path.stat().st_mtime_ns, path.name)
    except FileNotFoundError:
        return (0, path.name)


def write_sorted(path: Path, sources: list[Source], rows: pd.DataFrame, bucket_rows: int | None = None) -> None:
    """Write the table whose rows, in order, are ``rows`` (``_src``, ``_row``: where each full
    row is; ``label``: its label), atomically. At most ``bucket_rows`` full rows are held at
    once: each source is read once and its rows handed to the bucket of their place in the
    table (spilled to a temporary Parquet file when there are several buckets), then the
    buckets are sorted and written in turn."""
    bucket_rows = bucket_rows or BUCKET_ROWS
    n = len(rows)
    position = np.arange(n, dtype=np.int64)  # rows are in the table's order already
    src = rows["_src"].to_numpy()
    where = rows["_row"].to_numpy()
    labels = rows["label"].to_numpy(dtype=object)
    n_buckets = max(1, -(-n // bucket_rows))
    path.parent.mkdir(parents=True, exist_ok=True)
    with (tempfile.TemporaryDirectory(dir=path.parent, prefix=f".{path.stem}.buckets.") if n_buckets > 1
          else contextlib.nullcontext()) as spill:
        writers: dict = {}
        memory: dict = {}

        def hand(table: pa.Table, pos: np.ndarray, lab: np.ndarray):
            table = table.set_column(SCHEMA.get_field_index("label"), "label", pa.array(lab, type=pa.string()))
            table = table.append_column("_pos", pa.array(pos))
            bucket = pos // bucket_rows
            for b in np.unique(bucket):
                piece = table.filter(pa.array(bucket == b))
                if n_buckets == 1:
                    memory.setdefault(b, []).append(piece)
                else:
                    if b not in writers:
                        writers[b] = pq.ParquetWriter(Path(spill) / f"{b}.parquet", piece.schema)
                    writers[b].write_table(piece)

        for s, source in enumerate(sources):
            mine = np.flatnonzero(src == s)
            if not len(mine):
                continue
            order = np.argsort(where[mine], kind="stable")
            mine = mine[order]
            if source.is_table:
                reader = pq.ParquetFile(source.path)
                offset = 0
                for batch in reader.iter_batches(batch_size=bucket_rows):
                    lo, hi = np.searchsorted(where[mine], [offset, offset + batch.num_rows])
                    pick = mine[lo:hi]
                    if len(pick):
                        table = conform(pa.Table.from_batches([batch]))
                        hand(table.take(pa.array(where[pick] - offset)), position[pick], labels[pick])
                    offset += batch.num_rows
            else:
                table = source.table if source.table is not None else read_shard(source.path)
                hand(table.take(pa.array(where[mine])), position[mine], labels[mine])
        for w in writers.values():
            w.close()
        with replaced(path) as tmp, pq.ParquetWriter(tmp, SCHEMA) as out:
            for b in range(n_buckets):
                if n_buckets == 1:
                    pieces = memory.get(b, [])
                    if not pieces:
                        continue
                    bucket = pa.concat_tables(pieces)
                else:
                    if b not in writers:
                        continue
                    bucket = pq.read_table(Path(spill) / f"{b}.parquet")
                bucket = bucket.take(pc.sort_indices(bucket.column("_pos")))
                out.write_table(bucket.drop_columns(["_pos"]).cast(SCHEMA))


def select_rows(path: Path, keys, columns=None) -> pa.Table:
    """The rows of ``keys`` in the table at ``path``, in the table's order, as Arrow: their
    ``cell_key`` and ``columns`` (default: every column), read a Parquet batch at a time, so
    that only these rows are ever held, never the whole table."""
    wanted = pa.array(list(keys), type=pa.string())
    source = pq.ParquetFile(path)
    names = None if columns is None else list(dict.fromkeys(["cell_key", *columns]))
    parts = [pa.Table.from_batches([batch]).filter(pc.is_in(batch.column("cell_key"), value_set=wanted))
             for batch in source.iter_batches(columns=names)]
    empty = source.schema_arrow if names is None else pa.schema([source.schema_arrow.field(n) for n in names])
    return pa.concat_tables(parts) if parts else empty.empty_table()


def read_rows(path: Path, keys) -> pd.DataFrame:
    """The full rows of ``keys`` in the table at ``path``, in the table's order."""
    return select_rows(path, keys).to_pandas()


def read_table(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path)
