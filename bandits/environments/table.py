"""Replay a user's own problem from a file (spec §2 ``table``).

The file holds ``means`` (T x K, the expected reward of arm a at round t) and,
optionally, ``rewards`` (T x K, what arm a pays if chosen at round t):

* ``.npz``: arrays named ``means`` and ``rewards``, and optionally ``actions``:
  the action sets as feature vectors, (T, K, d) per round or (K, d) for every
  round. With ``actions`` the problem is linear: SW-UCB, UCB and BOB use the
  vectors (their dimension must equal ``env.d`` when that is set);
* ``.csv`` / ``.parquet``: columns ``mean_0 .. mean_{K-1}`` and optionally
  ``reward_0 .. reward_{K-1}``, one row per round.

The first ``T`` rows are used.

Before anything is loaded whole the file is checked (:mod:`bandits.environments.files`):
a regular file of at most ``max_file_mb`` MB (default 1024) whose first bytes match its
format, numeric arrays or columns only (no dates, complex numbers, text, objects), at
most ``max_cells`` values in memory (default 2e8); then every value must be finite,
at most ``max_abs_value`` in size (default 1e6: larger is surely a unit error) and, when
``reward_range: [lo, hi]`` is declared, means and rewards must lie within it (it is
then what the learner is told, as ``reward_range`` and ``reward_bound``). Without ``rewards`` the environment adds
Gaussian noise of sd ``R`` per trial; with them, every trial replays the same
rewards (only the algorithms' own randomness differs between trials).

Constants told to algorithms: L = 1 for basis-vector arms, else the largest
action norm; S = ``env.S`` if given, else max_t ||means[t]||_2 for K arms (theta_t
is the means row) and 1 for linear tables (the paper's normalisation: theta is not
in the file); B_T = ``env.B_T`` if given, else the realised infinity-norm variation
of ``means`` (the K-armed budget of hedging §8.2).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bandits.environments import files
from bandits.environments.base import Instance, gaussian_rewards, variation
from bandits.errors import ConfigError, last_line, require_float, require_int

FORMATS = (".npz", ".csv", ".parquet")
MAX_CELLS = 2e8  # values of a table held in memory (1.6 GB of floats); env.max_cells raises it


def _columns(frame_columns, prefix: str) -> list[str]:
    cols = [str(c) for c in frame_columns if str(c).startswith(prefix)]
    return sorted(cols, key=lambda c: int(c[len(prefix):]) if c[len(prefix):].isdigit() else -1)


def _column_names(names, where: str) -> tuple[list[str], list[str]]:
    """The mean_k and reward_k columns, checked to be mean_0..mean_{K-1} and matching."""
    mean_cols = _columns(names, "mean_")
    if not mean_cols:
        raise ConfigError(f"{where} has no columns named mean_0, mean_1, ... (found: {list(names)[:10]}).")
    expected = [f"mean_{k}" for k in range(len(mean_cols))]
    if mean_cols != expected:
        raise ConfigError(f"{where}: mean columns must be {expected}, found {mean_cols}.")
    reward_cols = _columns(names, "reward_")
    if reward_cols and reward_cols != [f"reward_{k}" for k in range(len(mean_cols))]:
        raise ConfigError(f"{where}: reward columns must match the mean columns one for one "
                          f"(reward_0..reward_{len(mean_cols) - 1}), found {reward_cols}.")
    return mean_cols, reward_cols


def _check_cells(rows: int, cols: int, where: str, max_cells: float) -> None:
    if rows * cols > max_cells:
        raise ConfigError(f"{where} holds {rows:,} x {cols:,} = {rows * cols:,} values, over the limit of "
                          f"{max_cells:,.0f} held in memory (env.max_cells); use fewer rows or raise the limit.")


def _read_npz(path: Path, where: str, max_cells: float):
    headers = files.npz_headers(path, where)
    if "means" not in headers:
        raise ConfigError(f"{where} has no array named 'means' (found: {sorted(headers)}).")
    for name in ("means", "rewards", "actions"):
        if name in headers:
            shape, dtype = headers[name]
            files.check_dtype(dtype, f"'{name}'", where)
            _check_cells(int(np.prod(shape[:1] or (1,))), int(np.prod(shape[1:] or (1,))), where, max_cells)
    with np.load(path, allow_pickle=False) as data:
        return tuple(np.asarray(data[n], dtype=np.float64) if n in headers else None
                     for n in ("means", "rewards", "actions"))


def read_frame(path: Path, where: str, pick, max_cells: float) -> dict:
    """The numeric columns ``pick(names, where)`` chooses from a .csv or .parquet file, as
    {column: float64 array}, after checking their types (or every value parses as a
    number) and the number of cells; ConfigError on any defect."""
    return (_frame_parquet if path.suffix.lower() == ".parquet" else _frame_csv)(path, where, pick, max_cells)


def _frame_parquet(path: Path, where: str, pick, max_cells: float) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        schema = pq.ParquetFile(path).schema_arrow
        rows = pq.ParquetFile(path).metadata.num_rows
    except (pa.ArrowException, OSError) as exc:
        raise ConfigError(f"{where} is not a readable Parquet file ({exc}).") from None
    cols = pick(schema.names, where)
    for col in cols:
        t = schema.field(col).type
        if not (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)):
            raise ConfigError(f"{where}: column {col} holds {t} values; it must hold numbers.")
    _check_cells(rows, len(cols), where, max_cells)
    frame = pq.read_table(path, columns=cols).to_pandas()
    return {c: frame[c].to_numpy(dtype=np.float64) for c in cols}


def _frame_csv(path: Path, where: str, pick, max_cells: float) -> dict:
    import pandas as pd

    try:
        names = list(pd.read_csv(path, nrows=0).columns)
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise ConfigError(f"{where} could not be read as CSV ({last_line(exc)}).") from None
    cols = pick(names, where)
    try:
        frame = pd.read_csv(path, usecols=cols)
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise ConfigError(f"{where} could not be read as CSV ({last_line(exc)}).") from None
    _check_cells(len(frame), len(cols), where, max_cells)
    out = {}
    for col in cols:
        values = pd.to_numeric(frame[col], errors="coerce")
        bad = values.isna() & frame[col].notna()
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise ConfigError(f"{where}: column {col}, row {row} holds {frame[col].iloc[row]!r}, not a number.")
        out[col] = values.to_numpy(dtype=np.float64)
    return out


def _read_columnar(path: Path, where: str, max_cells: float):
    names = {}

    def pick(columns, where):
        names["mean"], names["reward"] = _column_names(columns, where)
        return names["mean"] + names["reward"]

    frame = read_frame(path, where, pick, max_cells)
    stack = lambda cols: np.column_stack([frame[c] for c in cols]) if cols else None  # noqa: E731
    return stack(names["mean"]), stack(names["reward"]), None


READERS = {".npz": _read_npz, ".parquet": _read_columnar, ".csv": _read_columnar}


def load_table(path: str | Path, max_file_mb: float = files.MAX_FILE_MB, max_abs_value: float = files.MAX_ABS_VALUE,
               reward_range=None, max_cells: float = MAX_CELLS):
    """Read ``means``, optional ``rewards`` and optional ``actions`` from a file, after
    checking the file (kind, size, format, numeric content) and before trusting any value
    (finite, plausible in size, within ``reward_range`` when declared); ConfigError on any
    defect."""
    where = "table file"
    path = files.check_file(path, where, FORMATS, max_file_mb)
    where = f"table file {str(path)!r}"
    means, rewards, actions = READERS[path.suffix.lower()](path, where, max_cells)
    if means.ndim != 2 or means.shape[0] < 1 or means.shape[1] < 2:
        raise ConfigError(f"{where}: 'means' must be a T x K array with K >= 2 arms, got shape {means.shape}.")
    if rewards is not None and rewards.shape != means.shape:
        raise ConfigError(f"{where}: 'rewards' has shape {rewards.shape} but 'means' has {means.shape}.")
    if actions is not None:
        if actions.ndim == 2:
            actions = actions[None, :, :]
        if actions.ndim != 3 or actions.shape[1] != means.shape[1] or actions.shape[0] not in (1, means.shape[0]):
            raise ConfigError(f"{where}: 'actions' must be (T, K, d) or (K, d) with K = {means.shape[1]} "
                              f"and T = {means.shape[0]}, got shape {actions.shape}.")
    lo, hi = (None, None) if reward_range is None else reward_range
    for label, arr in (("means", means), ("rewards", rewards), ("actions", actions)):
        if arr is not None:
            inside = label != "actions"
            files.check_values(arr, label, where, max_abs_value, lo if inside else None, hi if inside else None)
    return means, rewards, actions


class Table:
    name = "table"
    problem_kinds = ("karmed", "linear")

    def __init__(self, path: str | None = None, R: float = 0.1, B_T: float | None = None, d: int | None = None,
                 S: float | None = None, reward_range=None, max_file_mb: float = files.MAX_FILE_MB,
                 max_abs_value: float = files.MAX_ABS_VALUE, max_cells: float = MAX_CELLS):
        self.path = path
        self.S = S
        self.R = R
        self.B_T = B_T
        self.d = d
        self.reward_range = reward_range
        self.max_file_mb = max_file_mb
        self.max_abs_value = max_abs_value
        self.max_cells = max_cells

    def problem_kind(self) -> str:
        """K arms, or linear when the file holds action vectors (call after check_params)."""
        return "karmed" if self._load()[2] is None else "linear"

    def _range(self):
        if self.reward_range is None:
            return None
        rr = list(self.reward_range) if isinstance(self.reward_range, (list, tuple)) else None
        if rr is None or len(rr) != 2:
            raise ConfigError(f"env.reward_range must be [lo, hi], got {self.reward_range!r}.")
        lo, hi = (require_float(f"env.reward_range[{i}]", v) for i, v in enumerate(rr))
        if hi <= lo:
            raise ConfigError(f"env.reward_range must have lo < hi, got {rr}.")
        return lo, hi

    def check_params(self, T: int) -> None:
        if not self.path:
            raise ConfigError("env=table needs env.path=<file.npz|.csv|.parquet>.")
        require_float("env.R", self.R, minimum=0.0)
        require_float("env.B_T", self.B_T, minimum=0.0, allow_none=True)
        require_float("env.S", self.S, minimum=0.0, allow_none=True)
        require_float("env.max_file_mb", self.max_file_mb, minimum=0.0, strict=True)
        require_float("env.max_abs_value", self.max_abs_value, minimum=0.0, strict=True)
        require_float("env.max_cells", self.max_cells, minimum=1.0)
        self._range()
        if self.d is not None:
            require_int("env.d", self.d, minimum=1)
        means, _, actions = self._load()
        if self.d is not None and actions is not None and actions.shape[2] != int(self.d):
            raise ConfigError(f"table file {self.path!r}: its action vectors have dimension {actions.shape[2]} "
                              f"but env.d={self.d}.")
        if means.shape[0] < T:
            raise ConfigError(f"table file {self.path!r} has {means.shape[0]} rounds but T={T}; "
                              f"set T <= {means.shape[0]}.")

    def _load(self):
        if getattr(self, "data_", None) is None:
            self.data_ = load_table(self.path, float(self.max_file_mb), float(self.max_abs_value), self._range(),
                                    float(self.max_cells))
        return self.data_

    def footprint(self, T: int) -> int:
        """Bytes of the instance in memory (the file's arrays up to round T)."""
        return int(sum(a[:T].nbytes for a in self._load() if a is not None))

    def instance(self, T: int, rng: np.random.Generator | None = None) -> Instance:
        means, rewards, actions = self._load()
        means = np.ascontiguousarray(means[:T])
        rewards = None if rewards is None else np.ascontiguousarray(rewards[:T])
        if actions is not None:
            actions = np.ascontiguousarray(actions[:T])
        declared = self._range()
        info = {"d": int(means.shape[1]) if actions is None else int(actions.shape[2]), "R": float(self.R),
                "L": 1.0 if actions is None else float(np.linalg.norm(actions, axis=-1).max()),
                "linear": actions is not None,
                "S": float(self.S) if self.S is not None else (
                    float(np.sqrt((means ** 2).sum(axis=1)).max()) if actions is None else 1.0),
                "reward_bound": max(1.0, float(np.abs(means).max())) if declared is None else
                max(abs(declared[0]), abs(declared[1]))}
        if declared is not None:
            info["reward_range"] = declared
        evaluation = {"synthetic": False, **variation(means)}
        info["B_T"] = float(self.B_T) if self.B_T is not None else evaluation["variation_inf"]
        return Instance(means=means, info=info, evaluation=evaluation, rewards=rewards, features=actions)

    def rewards(self, instance: Instance, rng: np.random.Generator) -> np.ndarray:
        if instance.rewards is not None:
            return instance.rewards
        return gaussian_rewards(instance.means, float(self.R), rng)
