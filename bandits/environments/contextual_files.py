"""Reading a contextual table's file (:class:`bandits.environments.contextual_table.ContextualTable`,
sources ``file`` and ``supervised``): which columns hold the contexts and the rewards, costs or
labels, how labels become arms, and the checks every value passes.

Columns (``.csv`` / ``.parquet``; an ``.npz`` names its arrays itself, and these keys
are refused for it, as for ``river``):

* ``features``: the context columns, a list of names (``env.features=[age,income]``),
  in the order of the coordinates of x. Not given: the columns ``x0 .. x{d-1}`` if the
  file has any (all of them, none missing), else every column of numbers other than
  the reward / cost / label columns, in the file's order; a column of text is then
  left out (and listed as ignored), a column mixing numbers and text is refused with
  its row. A named feature must hold numbers: a column of text or categories is
  refused (not encoded: encode it yourself, e.g. one 0/1 column per value).
* ``label`` (``supervised``): the label column's name; or a list of names of 0/1
  columns, one per arm in arm order (multi-label). Not given: a column named
  ``label``, else the columns ``y0 .. y{K-1}``.
* ``rewards`` / ``costs`` (``file``): the reward (or cost) columns, one per arm in
  arm order. Not given: ``r0 .. r{K-1}`` (or ``c0 .. c{K-1}``).

A bad name is refused with the file's columns and what the key takes. What was read
is recorded in the results table's ``env_info`` (evaluation data, never shown to a
learner): ``feature_columns``, ``ignored_columns`` (the file's other columns),
``reward_columns`` / ``cost_columns`` or ``label_column``, and ``label_map``, the
arm -> label map (``label_map[a]`` is the label arm a pays for: the label itself for
numeric labels, the class name for text labels, the 0/1 column for multi-label;
None for an arm ``env.K`` adds that no label names). It reveals no reward.

Checks (one ConfigError paragraph each, :mod:`bandits.environments.files`, whose
:func:`~bandits.environments.files.read_columns` reads the columns): the file (kind,
size, signature), the names given (columns of the file, none twice, a feature never
the label), numeric arrays / columns (a value that is not a number: its column and
row), no missing value (an empty or NA cell: its column and row; rows count from 0
below the header), at most ``max_cells`` values, finite values of size at most
``max_abs_value``, X two-dimensional with as many rows as R / C / y / Y, K >= 2,
rewards and costs in [0, 1], numeric labels integers in 0..K-1, multi-label entries 0
or 1, at least ``fit_rows + T`` rows.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from bandits.environments import files
from bandits.environments.files import read_columns
from bandits.errors import ConfigError

FORMATS = (".npz", ".csv", ".parquet")
TARGETS = {"file": ("R", "C"), "supervised": ("y", "Y")}  # the arrays holding the rewards, in .npz
COLUMN_PREFIX = {"R": "r", "C": "c", "Y": "y"}  # the same as csv / parquet columns (y: a `label` column)


def _numbered(names, prefix: str) -> list[str]:
    """Columns prefix0, prefix1, ... (checked to be consecutive from 0)."""
    found = sorted((int(m.group(1)), str(c)) for c in names if (m := re.fullmatch(rf"{prefix}(\d+)", str(c))))
    return [c for _, c in found]


def _consecutive(cols: list[str], prefix: str, where: str) -> None:
    if cols != [f"{prefix}{k}" for k in range(len(cols))]:
        raise ConfigError(f"{where}: columns must be {prefix}0..{prefix}{len(cols) - 1} with none missing, "
                          f"found {cols}.")


FEATURE_HINT = ("Context features must be numbers: encode a categorical column yourself (one 0/1 column per "
                "value, e.g. with pandas.get_dummies) or leave it out of env.features.")
NAME_KEYS = ("env.features", "env.label", "env.rewards", "env.costs", "env.change_column")  # name a file's columns
PIECES_TAKES = "one column of piece ids (numbers or text): a row whose id differs from the row before starts a piece"


def _targets(names: list, where: str, source: str, given: dict) -> tuple[str, list]:
    """(R, C, y or Y; its columns): named by env.rewards / env.costs / env.label, or by the
    convention r0.. / c0.. / a `label` column / y0..."""
    if source == "file" and "env.rewards" in given and "env.costs" in given:
        raise ConfigError("env.rewards and env.costs both name the table's rewards: give one of them (a cost c is "
                          "the reward 1 - c).")
    arms = "one column per arm, in the order of the arms"
    if "env.rewards" in given:
        return "R", files.named_columns(given["env.rewards"], names, "env.rewards", where,
                                        f"the reward columns ({arms}, rewards in [0, 1])")
    if "env.costs" in given:
        return "C", files.named_columns(given["env.costs"], names, "env.costs", where,
                                        f"the cost columns ({arms}, costs in [0, 1])")
    if "env.label" in given:
        label = given["env.label"]
        if isinstance(label, (list, tuple)):
            return "Y", files.named_columns(label, names, "env.label", where,
                                            f"one label column, or a list of 0/1 multi-label columns ({arms})")
        return "y", files.named_columns(label, names, "env.label", where,
                                        "one label column (class indices 0..K-1, or text labels) or a list of 0/1 "
                                        "multi-label columns")
    options = TARGETS[source]
    targets = {n: (["label"] if n == "y" else _numbered(names, COLUMN_PREFIX[n])) for n in options}
    targets = {n: cols for n, cols in targets.items() if cols and set(cols) <= set(names)}
    if len(targets) != 1:
        wanted = " or ".join("a 'label' column" if n == "y" else f"columns {COLUMN_PREFIX[n]}0.." for n in options)
        keys = "env.label=<column>" if source == "supervised" else "env.rewards=[...] (or env.costs=[...])"
        raise ConfigError(f"{where} must hold exactly one of {wanted} (env.source={source}), or name them with "
                          f"{keys}; found {list(names)[:10]}.")
    (name, cols), = targets.items()
    if name != "y":
        _consecutive(cols, COLUMN_PREFIX[name], where)
    return name, cols


def read_table_file(path: Path, where: str, source: str, max_cells: float, given: dict | None = None,
          max_columns: int = files.MAX_COLUMNS):
    """X, (the name of, the array of) the reward target (R, C, y or Y), and what was read
    (the columns of a .csv / .parquet file). ``given`` holds the keys of NAME_KEYS that
    were set."""
    given = given or {}
    options = TARGETS[source]
    if path.suffix.lower() == ".npz":
        if given:
            raise ConfigError(f"{where}: {' and '.join(given)} name{'s' if len(given) == 1 else ''} the columns of a "
                              ".csv or .parquet file; an .npz file holds its arrays under the names 'X' and "
                              f"{' or '.join(map(repr, options))}.")
        headers = files.npz_headers(path, where)
        present = [n for n in options if n in headers]
        if "X" not in headers or len(present) != 1:
            other = "supervised" if source == "file" else "file"
            hint = (f" (it holds {' / '.join(n for n in TARGETS[other] if n in headers)}: env.source={other}?)"
                    if any(n in headers for n in TARGETS[other]) else "")
            raise ConfigError(f"{where} must hold an array 'X' and exactly one of {' or '.join(map(repr, options))} "
                              f"(env.source={source}); found {sorted(headers)}{hint}.")
        text_labels = present[0] == "y" and headers["y"][1].kind in "US"  # class names: mapped to arms, sorted
        for name in ("X", present[0]):
            shape, dtype = headers[name]
            if not (name == "y" and text_labels):
                files.check_dtype(dtype, f"'{name}'", where)
            files.check_cells(int(np.prod(shape[:1] or (1,))), int(np.prod(shape[1:] or (1,))), where, max_cells)
        with np.load(path, allow_pickle=False) as data:
            target = np.asarray(data["y"]).astype(str).astype(object) if text_labels else \
                np.asarray(data[present[0]], dtype=np.float64)
            return np.asarray(data["X"], dtype=np.float64), present[0], target, {}, None
    chosen = {}

    def pick(names, where):
        names = [str(c) for c in names]
        name, cols = _targets(names, where, source, given)
        pieces = [] if "env.change_column" not in given else \
            files.named_columns(given["env.change_column"], names, "env.change_column", where, PIECES_TAKES)
        if set(pieces) & set(cols):
            raise ConfigError(f"{where}: column {pieces[0]!r} is the {_role(name)}; it cannot also be the column of "
                              "piece ids (env.change_column).")
        optional = []
        if "env.features" in given:
            xs = files.named_columns(given["env.features"], names, "env.features", where,
                                     f"numeric context columns other than the {_role(name)} ({', '.join(cols)})")
            both = [c for c in xs if c in cols]
            if both:
                raise ConfigError(f"{where}: column {both[0]!r} is the {_role(name)}; it cannot also be a context "
                                  "feature (env.features).")
        else:
            xs = _numbered(names, "x")
            if xs:
                _consecutive(xs, "x", where)
            else:  # every numeric column other than the target's (and the piece ids)
                optional = [c for c in names if c not in cols and c not in pieces]
                if not optional:
                    raise ConfigError(f"{where} has no context columns: no columns x0, x1, ... and no column besides "
                                      f"the {_role(name)} ({', '.join(cols)}); found {names[:10]}.")
        if set(pieces) & set(xs):
            raise ConfigError(f"{where}: column {pieces[0]!r} is a context feature; it cannot also be the column of "
                              "piece ids (env.change_column): name the features with env.features=[...].")
        chosen.update(X=xs, name=name, cols=cols, pieces=pieces)
        return files.Pick(numbers=xs + ([] if name == "y" else cols), labels=(cols if name == "y" else []) + pieces,
                          optional=optional, hints={c: FEATURE_HINT for c in xs + optional})

    frame = read_columns(path, where, pick, max_cells, max_columns)
    xs = chosen["X"] or frame.optional
    if not xs:
        raise ConfigError(f"{where} has no numeric column to use as context features: its columns other than the "
                          f"{_role(chosen['name'])} hold text ({', '.join(frame.ignored[:10])}). {FEATURE_HINT} "
                          "Name the features with env.features=[...].")
    X = np.column_stack([frame.values[c] for c in xs])
    cols = chosen["cols"]
    target = frame.values[cols[0]] if chosen["name"] == "y" else np.column_stack([frame.values[c] for c in cols])
    record = {"feature_columns": list(xs), "ignored_columns": frame.ignored}
    if chosen["name"] in ("R", "C"):
        record[{"R": "reward_columns", "C": "cost_columns"}[chosen["name"]]] = list(cols)
    elif chosen["name"] == "y":
        record["label_column"] = cols[0]
    else:
        record["label_map"] = list(cols)  # arm a pays when the a-th 0/1 column does
    if chosen["pieces"]:
        record["change_column"] = chosen["pieces"][0]
    return X, chosen["name"], target, record, frame.values[chosen["pieces"][0]] if chosen["pieces"] else None


def _role(name: str) -> str:
    return {"R": "reward columns", "C": "cost columns", "y": "label column", "Y": "label columns"}[name]


def encode_labels(target: np.ndarray, where: str, column: str, K: int | None):
    """(class indices, labels) of a label column: the labels that occur map to arms 0..n-1 in
    sorted order (labels: arm -> label), never by their magnitude or what they spell, so that
    the number of arms comes from the file's values (a label 999999 is one more arm, not a
    million). Numbers must be integers; text labels are class names."""
    if target.dtype != object:
        files.check_values(target, column, where, np.inf, axes=("row",))
        frac = target != np.round(target)
        if frac.any():
            i = int(np.flatnonzero(frac)[0])
            raise ConfigError(f"{where}: {column} must be integers or text (class labels), row {i} holds "
                              f"{target[i]:g}.")
        labels, codes = np.unique(target.astype(np.int64), return_inverse=True)
        _check_arms(K, labels, where, column)
        return codes.astype(np.float64), [int(v) for v in labels]
    values = np.asarray([str(v) for v in target])
    empty = values == ""
    if empty.any():
        raise ConfigError(f"{where}: {column}, row {int(np.flatnonzero(empty)[0])} has no value (an empty label); "
                          "fill it in or drop the row.")
    labels, codes = np.unique(values, return_inverse=True)
    _check_arms(K, labels, where, column)
    return codes.astype(np.float64), labels.tolist()


def _check_arms(K, labels, where: str, column: str) -> None:
    if K is not None and int(K) < len(labels):
        shown = ", ".join(map(repr, labels[:10].tolist())) + (", ..." if len(labels) > 10 else "")
        raise ConfigError(f"{where}: env.K={K} arms, but {column} holds {len(labels)} distinct labels ({shown}); "
                          f"one arm per label: set env.K >= {len(labels)} or leave it unset.")


def check_data(X, name: str, target, where: str, max_abs: float, K: int | None = None,
               labels: str = "labels 'y'", max_cells: float = np.inf):
    """Shapes and values of X and the target (``labels`` names a label target in the
    messages); returns the base reward matrix B (rows x K), its size checked against
    ``max_cells`` before it is allocated."""
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ConfigError(f"{where}: 'X' must be a rows x d array of contexts, got shape {X.shape}.")
    files.check_values(X, "'X'", where, max_abs, axes=("row", "feature"))
    if target.shape[0] != X.shape[0]:
        raise ConfigError(f"{where}: 'X' has {X.shape[0]} rows but '{name}' has {target.shape[0]}; "
                          "every row is one round's context and its rewards.")
    if name == "y":
        if target.ndim != 1:
            raise ConfigError(f"{where}: {labels} must be one integer per row, got shape {target.shape}.")
        files.check_values(target, labels, where, max_abs, axes=("row",))
        frac = target != np.round(target)
        if frac.any():
            i = int(np.flatnonzero(frac)[0])
            raise ConfigError(f"{where}: {labels} must be integers (class indices), row {i} holds {target[i]:g}; "
                              "labels that are names rather than indices are read as text and mapped to arms in "
                              "sorted order.")
        K = int(target.max()) + 1 if K is None else int(K)
        outside = (target < 0) | (target >= K)
        if outside.any():
            i = int(np.flatnonzero(outside)[0])
            raise ConfigError(f"{where}: {labels} must be class indices 0..{K - 1} (K = {K}, env.K), "
                              f"row {i} holds {target[i]:g}.")
    else:
        if target.ndim != 2:
            raise ConfigError(f"{where}: '{name}' must be a rows x K array, got shape {target.shape}.")
        files.check_values(target, f"'{name}'", where, max_abs, 0.0, 1.0)
        if name == "Y" and not np.isin(target, (0.0, 1.0)).all():
            i = np.argwhere(~np.isin(target, (0.0, 1.0)))[0]
            raise ConfigError(f"{where}: the multi-label matrix 'Y' must hold 0 or 1, found "
                              f"{target[tuple(i)]:g} at {files.position(i)}.")
        if K is not None and int(K) != target.shape[1]:
            raise ConfigError(f"{where}: env.K={K} but '{name}' has {target.shape[1]} columns (one per arm).")
        K = target.shape[1]
    if K < 2:
        raise ConfigError(f"{where}: a bandit needs K >= 2 arms (classes), found K = {K}.")
    if name == "y":
        files.check_cells(len(target), K, where, max_cells)
        B = np.zeros((len(target), K))
        B[np.arange(len(target)), target.astype(np.int64)] = 1.0
        return B
    return 1.0 - target if name == "C" else target
