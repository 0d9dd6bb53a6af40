"""Checks on a user's data file before it is loaded whole: the right kind of path, a
size limit (raise it with the environment's ``max_file_mb``), the file's own signature,
numeric columns and arrays (no dates, complex numbers, text or Python objects), and
values that are finite and of a plausible size. Each defect is one ConfigError
paragraph naming the file and the defect.

The columns of a ``.csv`` / ``.parquet`` file are read by :func:`read_columns`, shared
by ``env=table`` and ``env=contextual_table``: the environment picks the columns by
name (:func:`named_columns` checks names given in the config), and every picked
column is checked: numbers where numbers are needed (a value that is not one is
named with its column and row), a label column read as it is (numbers or text), no
missing value (an empty or NA cell: its column and row), and at most ``max_cells``
values. Rows are counted from 0, the first row below the header.
"""

from __future__ import annotations

import difflib
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bandits.errors import ConfigError, last_line

MAX_FILE_MB = 1024.0  # the default limit on a data file's size
MAX_COLUMNS = 10_000  # the default limit on a table's columns (env.max_columns raises it)
HEADER_BYTES_PER_COLUMN = 256  # a CSV header may be at most max_columns times this long, read before parsing
MAX_ABS_VALUE = 1e6  # the default bound on |value| for means and rewards: anything larger is surely a unit error
SIGNATURES = {".npz": b"PK\x03\x04", ".parquet": b"PAR1"}
NUMERIC_KINDS = "biuf"  # bool, signed and unsigned integers, floats
KIND_NAMES = {"c": "complex numbers", "M": "dates", "m": "time spans", "O": "Python objects", "U": "text",
              "S": "bytes", "V": "structured records"}


def check_file(path, what: str, suffixes: tuple, max_mb: float = MAX_FILE_MB) -> Path:
    """``path`` is an existing, readable regular file with one of ``suffixes``, at most
    ``max_mb`` megabytes, whose first bytes match its format."""
    if path is None or not str(path).strip():
        raise ConfigError(f"{what}: no path given.")
    path = Path(str(path)).expanduser()
    where = f"{what} {str(path)!r}"
    if not path.exists():
        raise ConfigError(f"{where} does not exist.")
    if path.is_dir():
        raise ConfigError(f"{where} is a folder, not a file.")
    if not path.is_file():
        raise ConfigError(f"{where} is not a regular file.")
    suffix = path.suffix.lower()
    if suffix not in suffixes:
        raise ConfigError(f"{where} has suffix {suffix!r}; supported: {', '.join(suffixes)}.")
    size_mb = path.stat().st_size / 1e6
    if size_mb > max_mb:
        raise ConfigError(f"{where} is {size_mb:,.0f} MB, over the limit of {max_mb:,.0f} MB; raise the "
                          f"environment's max_file_mb (env.max_file_mb=...) if that is intended.")
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError as exc:
        raise ConfigError(f"{where} cannot be read ({exc.strerror or exc}).") from None
    if not head:
        raise ConfigError(f"{where} is empty.")
    signature = SIGNATURES.get(suffix)
    if signature and not head.startswith(signature):
        raise ConfigError(f"{where} is not a {suffix} file: it does not start with the {suffix} signature "
                          f"(is it another format renamed?).")
    if suffix == ".csv" and b"\x00" in head:
        raise ConfigError(f"{where} is not a text CSV file (it holds binary data).")
    return path


def check_dtype(dtype, label: str, where: str) -> None:
    dtype = np.dtype(dtype)
    if dtype.kind not in NUMERIC_KINDS:
        kind = KIND_NAMES.get(dtype.kind, str(dtype))
        raise ConfigError(f"{where}: {label} holds {kind} (dtype {dtype}); it must hold numbers.")


def npz_headers(path: Path, where: str) -> dict:
    """{array name: (shape, dtype)} of an .npz file, read from the headers alone."""
    out = {}
    try:
        with zipfile.ZipFile(path) as archive:
            for member in archive.namelist():
                if not member.endswith(".npy"):
                    continue
                with archive.open(member) as fh:
                    version = np.lib.format.read_magic(fh)
                    read = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                        np.lib.format.read_array_header_2_0
                    shape, _, dtype = read(fh)
                out[member[:-4]] = (tuple(shape), np.dtype(dtype))
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        raise ConfigError(f"{where} is not a readable .npz archive ({exc}).") from None
    return out


def check_values(arr: np.ndarray, label: str, where: str, max_abs: float, lo: float | None = None,
                 hi: float | None = None, axes: tuple = ("round", "arm", "coordinate")) -> None:
    """Every value finite, |value| <= max_abs, and within [lo, hi] when given; a defect
    is placed by ``axes``, the names of the array's axes."""
    bad = ~np.isfinite(arr)
    if bad.any():
        at = np.argwhere(bad)[0]
        raise ConfigError(f"{where}: {label} holds NaN or inf (first at {position(at, axes)}).")
    big = np.abs(arr) > max_abs
    if big.any():
        at = np.argwhere(big)[0]
        raise ConfigError(f"{where}: {label} holds {arr[tuple(at)]:g} at {position(at, axes)}, larger in size than "
                          f"{max_abs:g}; check the units, or raise env.max_abs_value if that is intended.")
    for outside, side in ((None if lo is None else arr < lo, "below"), (None if hi is None else arr > hi, "above")):
        if outside is not None and outside.any():
            at = np.argwhere(outside)[0]
            raise ConfigError(f"{where}: {label} holds {arr[tuple(at)]:g} at {position(at, axes)}, {side} the "
                              f"declared range [{lo:g}, {hi:g}] (env.reward_range).")


def position(at, axes: tuple = ("round", "arm", "coordinate")) -> str:
    return ", ".join(f"{n} {int(i)}" for n, i in zip(axes, at, strict=False))


def check_cells(rows: int, cols: int, where: str, max_cells: float) -> None:
    if rows * cols > max_cells:
        raise ConfigError(f"{where} holds {rows:,} x {cols:,} = {rows * cols:,} values, over the limit of "
                          f"{max_cells:,.0f} held in memory (env.max_cells); use fewer rows or raise the limit.")


# ----------------------------------------------------------------------------- columns by name

def _listed(names, limit: int = 30) -> str:
    shown = ", ".join(repr(str(n)) for n in list(names)[:limit])
    return shown + (f", ... ({len(names)} columns in all)" if len(names) > limit else "")


def named_columns(given, names, key: str, where: str, allowed: str) -> list[str]:
    """The columns a config key names (one name or a list of names): each a column of
    the file, none twice; ConfigError listing the file's columns and ``allowed`` (what
    the key takes) otherwise."""
    cols = [str(c) for c in given] if isinstance(given, (list, tuple)) else [str(given)]
    names = [str(n) for n in names]
    if not cols:
        raise ConfigError(f"{key} is an empty list; it takes {allowed}. The columns of {where}: {_listed(names)}.")
    for col in cols:
        if col not in names:
            close = difflib.get_close_matches(col, names, 1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"{key} names {col!r}, which is not a column of {where}{hint}; its columns are "
                              f"{_listed(names)}. {key} takes {allowed}.")
    twice = sorted({c for c in cols if cols.count(c) > 1})
    if twice:
        raise ConfigError(f"{key} names {', '.join(map(repr, twice))} more than once; it takes {allowed}.")
    return cols


@dataclass
class Pick:
    """The columns an environment reads from a file, by role."""
    numbers: list  # columns that must hold numbers
    labels: list = field(default_factory=list)  # read as they are: numbers, or text / categories
    optional: list = field(default_factory=list)  # kept when they hold numbers, left out when they hold text
    hints: dict = field(default_factory=dict)  # column -> a sentence added when it does not hold numbers


@dataclass
class Frame:
    values: dict  # column -> float64 array (numbers) or object array (a label column of text)
    optional: list  # the optional columns kept (they hold numbers), in the order given
    ignored: list  # the file's other columns: not picked, or optional and holding text


def read_columns(path: Path, where: str, pick, max_cells: float, max_columns: int = MAX_COLUMNS) -> Frame:
    """The columns ``pick(names, where) -> Pick`` chooses from a .csv or .parquet file,
    after checking the number of columns (before the header is parsed: a CSV header of a
    million columns is refused in milliseconds), their types (or that every value parses as a
    number), that no value is missing, and the number of cells; ConfigError on any defect."""
    if path.suffix.lower() == ".parquet":
        return _columns_parquet(path, where, pick, max_cells, max_columns)
    return _columns_csv(path, where, pick, max_cells, max_columns)


def check_columns(count: int, where: str, max_columns: int) -> None:
    if count > max_columns:
        raise ConfigError(f"{where} has {count:,} columns, over the limit of {max_columns:,} (env.max_columns); "
                          "keep the columns you use, or raise the limit.")


def csv_header(path: Path, where: str, max_columns: int) -> list[str]:
    """The column names of a CSV file from its first line, read with a bounded number of bytes
    (``max_columns`` x HEADER_BYTES_PER_COLUMN) and counted before any parser sees it."""
    import csv

    cap = int(max_columns) * HEADER_BYTES_PER_COLUMN
    with open(path, "rb") as fh:
        line = fh.readline(cap + 1)
    if len(line) > cap:
        raise ConfigError(f"{where}: its header (first line) is longer than {cap:,} bytes, {HEADER_BYTES_PER_COLUMN} "
                          f"per column of the limit of {max_columns:,} columns (env.max_columns); keep the columns "
                          "you use, or raise the limit.")
    try:
        text = line.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{where} could not be read as CSV (its header is not UTF-8 text: {exc.reason}).") from None
    fields = next(csv.reader([text]), [])
    check_columns(len(fields), where, max_columns)
    return fields


def _unique(cols) -> list:
    return list(dict.fromkeys(cols))


def _missing(series, col: str, where: str) -> None:
    empty = series.isna().to_numpy()
    if empty.any():
        row = int(np.flatnonzero(empty)[0])
        raise ConfigError(f"{where}: column {col}, row {row} has no value (an empty or NA cell; rows count from 0 "
                          "below the header); fill it in or drop the row.")


def _frame(names, picked: Pick, kept: list) -> tuple[list, list]:
    used = set(picked.numbers) | set(picked.labels) | set(kept)
    return kept, [str(n) for n in names if str(n) not in used]


def _columns_parquet(path: Path, where: str, pick, max_cells: float, max_columns: int) -> Frame:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        schema = pq.ParquetFile(path).schema_arrow
        rows = pq.ParquetFile(path).metadata.num_rows
    except (pa.ArrowException, OSError) as exc:
        raise ConfigError(f"{where} is not a readable Parquet file ({exc}).") from None
    check_columns(len(schema.names), where, max_columns)
    picked = pick(schema.names, where)

    def numeric(t):
        return pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)

    def text(t):
        return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_dictionary(t)

    for col in picked.numbers:
        t = schema.field(col).type
        if not numeric(t):
            hint = f" {picked.hints[col]}" if col in picked.hints else ""
            raise ConfigError(f"{where}: column {col} holds {t} values; it must hold numbers.{hint}")
    for col in picked.labels:
        t = schema.field(col).type
        if not (numeric(t) or text(t)):
            raise ConfigError(f"{where}: column {col} holds {t} values; a label column holds numbers (class "
                              "indices) or text (class names).")
    kept = [c for c in picked.optional if numeric(schema.field(c).type)]
    cols = _unique(picked.numbers + picked.labels + kept)
    check_cells(rows, len(cols), where, max_cells)
    frame = pq.read_table(path, columns=cols).to_pandas()
    out = {}
    for col in cols:
        _missing(frame[col], col, where)
        if col in picked.labels and text(schema.field(col).type):
            out[col] = np.asarray(frame[col].astype(object), dtype=object)
        else:
            out[col] = frame[col].to_numpy(dtype=np.float64)
    return Frame(out, *_frame(schema.names, picked, kept))


def _columns_csv(path: Path, where: str, pick, max_cells: float, max_columns: int) -> Frame:
    import pandas as pd

    csv_header(path, where, max_columns)
    try:
        names = list(pd.read_csv(path, nrows=0).columns)
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise ConfigError(f"{where} could not be read as CSV ({last_line(exc)}).") from None
    picked = pick(names, where)
    cols = _unique(picked.numbers + picked.labels + picked.optional)
    try:
        frame = pd.read_csv(path, usecols=cols)
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise ConfigError(f"{where} could not be read as CSV ({last_line(exc)}).") from None
    check_cells(len(frame), len(cols), where, max_cells)

    out = {}
    for col in cols:
        values = pd.to_numeric(frame[col], errors="coerce")
        optional = col in picked.optional and col not in picked.numbers and col not in picked.labels
        if optional and frame[col].notna().any() and values.isna().all():
            continue  # a column of text (no value is a number): left out of the optional columns
        _missing(frame[col], col, where)
        if col in picked.labels and frame[col].dtype.kind not in "biuf":
            out[col] = np.asarray(frame[col].astype(str), dtype=object)  # text labels, as they are
            continue
        bad = values.isna() & frame[col].notna()
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            hint = (" The column's other values are numbers: fix the value, or leave the column out by naming the "
                    "features to use (env.features=[...])." if optional else
                    f" {picked.hints[col]}" if col in picked.hints else "")
            raise ConfigError(f"{where}: column {col}, row {row} holds {frame[col].iloc[row]!r}, not a number.{hint}")
        out[col] = values.to_numpy(dtype=np.float64)
    kept = [c for c in picked.optional if c in out]
    return Frame(out, *_frame(names, picked, kept))
