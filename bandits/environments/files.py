"""Checks on a user's data file before it is loaded whole: the right kind of path, a
size limit (raise it with the environment's ``max_file_mb``), the file's own signature,
numeric columns and arrays (no dates, complex numbers, text or Python objects), and
values that are finite and of a plausible size. Each defect is one ConfigError
paragraph naming the file and the defect.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from bandits.errors import ConfigError

MAX_FILE_MB = 1024.0  # the default limit on a data file's size
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
                 hi: float | None = None) -> None:
    """Every value finite, |value| <= max_abs, and within [lo, hi] when given."""
    bad = ~np.isfinite(arr)
    if bad.any():
        at = np.argwhere(bad)[0]
        raise ConfigError(f"{where}: {label} holds NaN or inf (first at {position(at)}).")
    big = np.abs(arr) > max_abs
    if big.any():
        at = np.argwhere(big)[0]
        raise ConfigError(f"{where}: {label} holds {arr[tuple(at)]:g} at {position(at)}, larger in size than "
                          f"{max_abs:g}; check the units, or raise env.max_abs_value if that is intended.")
    for outside, side in ((None if lo is None else arr < lo, "below"), (None if hi is None else arr > hi, "above")):
        if outside is not None and outside.any():
            at = np.argwhere(outside)[0]
            raise ConfigError(f"{where}: {label} holds {arr[tuple(at)]:g} at {position(at)}, {side} the declared "
                              f"range [{lo:g}, {hi:g}] (env.reward_range).")


def position(at) -> str:
    names = ("round", "arm", "coordinate")
    return ", ".join(f"{n} {int(i)}" for n, i in zip(names, at, strict=False))
