"""A contextual bandit from data: a user's logged contexts and rewards, or a supervised
(classification / multi-label) table turned into a bandit problem.

Sources (``source``):

* ``file``: contexts X (rows x d) and a full reward matrix R (rows x K), or a cost
  matrix C, from ``env.path``: ``.npz`` with arrays ``X`` and ``R`` (or ``C``), or
  ``.csv`` / ``.parquet`` with context columns and one reward (or cost) column per arm
  (see Columns). Rewards (and costs) must lie in [0, 1]; a cost c becomes the reward
  1 - c. The table is replayed: every trial sees the same rewards.
* ``supervised``: contexts X and labels ``y``, or a multi-label 0/1 matrix ``Y``
  (rows x K), from ``env.path``: ``.npz`` with ``X`` and ``y`` (or ``Y``), or ``.csv`` /
  ``.parquet`` with context columns and a label column (or 0/1 columns, one per arm).
  Arm = label (the bake-off conversion of Bietti, Agarwal & Langford): arm a pays
  B[t, a] = 1{y_t = a} (multi-label: Y[t, a]). Labels (integers, or text: a CSV column
  of names, a Parquet string or categorical column, an ``.npz`` ``y`` of strings) are
  mapped to arms by the sorted set of the values that occur in the file (arm 0 = the
  smallest, or the first in code-point order, and so on), never by their magnitude or
  what they spell: K = ``env.K`` if set (at least the number of labels: the extra arms
  never pay), else the number of labels, so a label 999999 is one more arm, not a
  million (labels 0..K-1 that all occur keep their arms). Multi-label: K = the columns of Y.
* ``river``: the same supervised conversion on ``bandits.environments.river_data.load(
  dataset, rows, rng)``, which returns {"X": (rows, d) float, "y": (rows,) int or "Y":
  (rows, K) 0/1, optionally "change_points": [int] (the stream's own drifts, rows of the
  returned stream)}.

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

Rows. The first ``fit_rows`` rows are a held-out prefix, used only to fit the policy
class, never played; the T played rounds are the next T rows (so the file needs
``fit_rows + T`` rows). The held-out prefix is rewarded under the first piece's label map.

Induced drift (supervised and river sources; ``drift``):

* ``none``: arm a pays B[t, a].
* ``permutation``: ``n_changes`` change points, evenly spaced (``change_points: even``,
  c_j = floor(j T / (n_changes + 1))), drawn uniformly without replacement (``random``,
  from the instance rng) or given as a list of rounds (``change_points: [300, 900]``;
  ``n_changes`` is then not read), split the rounds into pieces s = 0..n_changes. Piece s has a
  class-to-arm map sigma_s (sigma_0 = identity); sigma_{s+1} = pi o sigma_s with pi a
  uniformly drawn derangement of the arms (redrawn until no arm is fixed), so every class
  moves to another arm at every change point. Arm a pays 1 iff sigma_s(y_t) = a, i.e.
  R[t, a] = B[t, sigma_s^{-1}(a)]; the best arm of each round changes at every change
  point and, the labels aside, nowhere else.
* ``rotation``: a gradual rotation of the label map: u_t = ``turns`` * K * t / T shifts,
  s_t = floor(u_t), p_t = u_t - s_t; class c pays on arm (c + s_t) mod K with probability
  1 - p_t and on arm (c + s_t + 1) mod K with probability p_t, so the mean
  mu[t, a] = (1 - p_t) B[t, (a - s_t) mod K] + p_t B[t, (a - s_t - 1) mod K] and the reward
  is Bernoulli(mu), independently per arm, per trial. Change points (reported to the
  evaluation) are the rounds where floor(u_t + 1/2) changes, i.e. where the class's
  likelier arm switches.

Change points go to ``evaluation`` only; a learner is told S_switches and Delta_TV only
when the drift is induced by us (``supervised``/``river`` with ``drift`` other than
none, and no change points of the stream itself): S_switches = 1 + changes; Delta_TV =
sum over changes of the mean over rows of sum_r |P(r) - Q(r)| (the per-context reward
law is a point mass: 2 for every row whose reward vector moves; rotation: the bound
sum_t mean_x sum_a 2 |mu_t(a | x) - mu_{t-1}(a | x)| of the product law's distance, which is
2 (u_{T-1} - u_0) times the mean over the played rows b = B[t] of sum_a |b_a - b_{a-1 mod K}|).

Declared change points (the data's own drift, ``drift: none``, sources ``file`` and
``supervised``): ``change_points``, a list of rounds where a new piece starts (counted from
0 among the T played rows), or ``change_column``, a column of piece ids (a played row whose
id differs from the row before starts a piece). They are checked, never derived from the
data, and go to the evaluation only, where they split the comparator below into pieces
(:mod:`bandits.environments.change_points` says why and how). ``env_info`` records
``change_points``, ``change_points_source`` (``declared``; ``generator`` for the induced
drift and a river stream's own changes; else ``none``), ``comparator`` (``best policy per
piece``, or ``best fixed policy`` without change points), ``change_column`` when given, and
``trial_noise`` (false: every trial replays the same rewards, but for rotation's draws).

Policy class (``policy_class: finite``): N = ``n_policies`` linear argmax policies
x -> argmax_a W_a . (x, 1). ``n_fitted`` of them are fitted by ridge regression
(penalty ``ridge``) of the held-out prefix's reward vectors on (x, 1), one regression
per arm: ``fit: slices`` fits policy i on the i-th of ``n_fitted`` disjoint slices of a
random partition of the prefix rows; ``fit: bootstrap`` on a resample with replacement of
``fit_rows`` prefix rows (both seeded from the instance rng). The other N - n_fitted
policies have random W (entries N(0, 1)). The order is shuffled. ``info`` reveals the
contexts and every policy's action at every round (``policy_actions``). ``fit_rows: 0``
(a deviation, no held-out data) leaves every policy random. ``policy_class: linear``
(the linear class of ``bandits/contextual/policy_class.py``) is refused: no contextual
algorithm takes a class other than a finite one (``policy_actions``).

Regret. ``optimal`` (the runner's dynamic regret) is the reward of the class's best
policy in each stationary piece (between the change points: induced, the stream's or
declared), pi*_s = argmax_pi sum_{t in s} mu[t, pi(x_t)] (ties to the lowest index; one
piece when there are no change points: the best fixed policy), reported as
``optimal_policy``; the per-round regret against it may be negative. The second,
named reference, the per-round best action max_a mu[t, a], is recorded as the evaluation
scalar ``regret_gap_best_action`` = sum_t (max_a mu[t, a] - optimal_t): a run's regret
against the best action is ``final_regret + regret_gap_best_action``.

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

from bandits.environments import change_points, files
from bandits.environments.base import Instance, bernoulli_noise, bernoulli_rewards
from bandits.environments.drifting_contextual import policy_actions
from bandits.environments.files import read_columns
from bandits.environments.table import MAX_CELLS
from bandits.errors import ConfigError, require_choice, require_float, require_int

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


def _read(path: Path, where: str, source: str, max_cells: float, given: dict | None = None,
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


def derangement(K: int, rng: np.random.Generator) -> np.ndarray:
    """A uniform permutation of 0..K-1 with no fixed point (rejection sampling)."""
    while True:
        p = rng.permutation(K)
        if (p != np.arange(K)).all():
            return p


def best_policy_per_piece(means: np.ndarray, pred: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """pi*_s = argmax_pi sum_{t in piece s} means[t, pred[t, pi]] (lowest index on ties), per round."""
    T = means.shape[0]
    ends = np.r_[starts[1:], T]
    best = np.empty(T, dtype=np.int64)
    for s, e in zip(starts, ends, strict=True):
        total = np.zeros(pred.shape[1])
        for a in range(s, e, 8192):  # in chunks: never a (T, N) float matrix
            b = min(a + 8192, e)
            total += means[np.arange(a, b)[:, None], pred[a:b]].sum(axis=0)
        best[s:e] = int(np.argmax(total))
    return best


def ridge_policies(X1: np.ndarray, B: np.ndarray, groups: list, ridge: float) -> np.ndarray:
    """(len(groups), K, d + 1): per group of rows, W_a = (X1' X1 + ridge I)^-1 X1' B[:, a]."""
    out = []
    for rows in groups:
        A = X1[rows].T @ X1[rows] + ridge * np.eye(X1.shape[1])
        out.append(np.linalg.solve(A, X1[rows].T @ B[rows]).T)
    return np.stack(out) if out else np.empty((0, B.shape[1], X1.shape[1]))


def river_loader():
    """The bundled-data module (``bandits/environments/river_data.py``), or one paragraph."""
    try:
        from bandits.environments import river_data
    except ImportError as exc:
        if exc.name != "bandits.environments.river_data":
            raise
        raise ConfigError("env.source=river: the bundled datasets (bandits/environments/river_data.py) are not "
                          "part of this installation.") from None
    return river_data


class ContextualTable:
    name = "contextual_table"
    problem_kinds = ("contextual",)

    def __init__(self, source: str = "file", path: str | None = None, dataset: str | None = None,
                 features=None, label=None, rewards=None, costs=None, K: int | None = None, drift: str = "none",
                 n_changes: int = 3, change_points: str = "even",
                 turns: float = 1.0, policy_class: str = "finite", n_policies: int = 50, n_fitted: int = 10,
                 fit: str = "slices", fit_rows: int = 500, ridge: float = 1.0,
                 max_file_mb: float = files.MAX_FILE_MB, max_abs_value: float = files.MAX_ABS_VALUE,
                 max_cells: float = MAX_CELLS, max_columns: int = files.MAX_COLUMNS, change_column=None):
        self.source = source
        self.change_column = change_column
        self.path = path
        self.dataset = dataset
        self.features = features
        self.label = label
        self.reward_columns = rewards  # env.rewards (the attribute `rewards` is the environment's method)
        self.cost_columns = costs  # env.costs
        self.K = K
        self.drift = drift
        self.n_changes = n_changes
        self.change_points = change_points
        self.turns = turns
        self.policy_class = policy_class
        self.n_policies = n_policies
        self.n_fitted = n_fitted
        self.fit = fit
        self.fit_rows = fit_rows
        self.ridge = ridge
        self.max_file_mb = max_file_mb
        self.max_abs_value = max_abs_value
        self.max_cells = max_cells
        self.max_columns = max_columns

    def problem_kind(self) -> str:
        return "contextual"

    def check_params(self, T: int) -> None:
        require_choice("env.source", self.source, {"file", "supervised", "river"})
        require_choice("env.drift", self.drift, {"none", "permutation", "rotation"})
        change_points.check_contextual(self.change_points, self.change_column, self.source, self.drift, T)
        require_choice("env.policy_class", self.policy_class, {"finite", "linear"})
        require_choice("env.fit", self.fit, {"slices", "bootstrap"})
        if self.policy_class == "linear":
            raise ConfigError("env.policy_class=linear: no contextual algorithm takes the linear policy class yet "
                              "(they all read a finite class, policy_actions); use env.policy_class=finite.")
        require_int("env.n_changes", self.n_changes, minimum=0)
        require_float("env.turns", self.turns, minimum=0.0)
        N = require_int("env.n_policies", self.n_policies, minimum=1)
        n_fit = require_int("env.n_fitted", self.n_fitted, minimum=0)
        require_int("env.fit_rows", self.fit_rows, minimum=0)
        require_float("env.ridge", self.ridge, minimum=0.0, strict=True)
        require_float("env.max_file_mb", self.max_file_mb, minimum=0.0, strict=True)
        require_float("env.max_abs_value", self.max_abs_value, minimum=0.0, strict=True)
        require_float("env.max_cells", self.max_cells, minimum=1.0)
        require_int("env.max_columns", self.max_columns, minimum=1)
        if self.K is not None:
            require_int("env.K", self.K, minimum=2)
        if n_fit > N:
            raise ConfigError(f"env.n_fitted={n_fit} is more than the class's env.n_policies={N}.")
        if self.fit == "slices" and n_fit > int(self.fit_rows) > 0:
            raise ConfigError(f"env.fit=slices cuts the env.fit_rows={self.fit_rows} held-out rows into "
                              f"env.n_fitted={n_fit} disjoint slices: give at least one row per slice.")
        if self.drift != "none" and self.source == "file":
            raise ConfigError(f"env.drift={self.drift} permutes class labels: it needs env.source=supervised or "
                              "river (a reward table has no labels to permute).")
        if self.drift == "permutation" and isinstance(self.change_points, str) and int(self.n_changes) >= T:
            raise ConfigError(f"env.n_changes={self.n_changes} change points do not fit in T={T} rounds.")
        given = self._names()
        if given and self.source == "river":
            raise ConfigError(f"{' and '.join(given)} name the columns of a data file (env.source=file or supervised); "
                              f"a river dataset (env.dataset={self.dataset}) brings its own features and labels.")
        if self.source == "file" and "env.label" in given:
            raise ConfigError("env.label names the label column of a classification table (env.source=supervised); "
                              "a logged table (env.source=file) names its reward columns with env.rewards=[...] (or "
                              "its cost columns with env.costs=[...]).")
        if self.source == "supervised" and {"env.rewards", "env.costs"} & set(given):
            raise ConfigError("env.rewards and env.costs name the reward or cost columns of a logged table "
                              "(env.source=file); with env.source=supervised the reward is the label's indicator: "
                              "name the label column with env.label=<column>.")
        if self.source == "river":
            if not self.dataset:
                raise ConfigError("env.source=river needs env.dataset=<name> (see bandits/environments/river_data.py).")
            river_loader()
        elif not self.path:
            raise ConfigError(f"env.source={self.source} needs env.path=<file.npz|.csv|.parquet>.")
        if self.source != "river":
            rows = self._load()[0].shape[0]
            if rows < int(self.fit_rows) + T:
                raise ConfigError(f"contextual table {self.path!r} has {rows} rows, fewer than env.fit_rows="
                                  f"{self.fit_rows} held-out rows plus T={T} rounds; lower T or env.fit_rows.")

    def _names(self) -> dict:
        """The keys naming a file's columns that are set, checked to be names or lists of names."""
        given = {}
        for key, value in zip(NAME_KEYS, (self.features, self.label, self.reward_columns, self.cost_columns,
                                          self.change_column), strict=True):
            if value is None:
                continue
            items = list(value) if isinstance(value, (list, tuple)) else [value]
            if not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in items):
                raise ConfigError(f"{key} must be a column name or a list of column names, got {value!r}.")
            given[key] = value
        return given

    def _load(self):
        """(X, B, stream change points) of the file, checked once; what was read goes to
        ``columns_`` (the column names, the label map: arm -> label)."""
        if getattr(self, "data_", None) is None:
            where = "contextual table"
            path = files.check_file(self.path, where, FORMATS, float(self.max_file_mb))
            where = f"contextual table {str(path)!r}"
            X, name, target, record, self.pieces_ = _read(path, where, "file" if self.source == "file" else
                                                          "supervised", float(self.max_cells), self._names(),
                                                          int(self.max_columns))
            column = f"label column {record['label_column']!r}" if "label_column" in record else "labels 'y'"
            labels = None
            if name == "y":
                target, labels = encode_labels(target, where, column, self.K)
            B = check_data(X, name, target, where, float(self.max_abs_value),
                           self.K if labels is None else (self.K or len(labels)), column, float(self.max_cells))
            if name == "y":  # arm a pays when the label is label_map[a] (an arm no label names: None)
                record["label_map"] = list(range(B.shape[1])) if labels is None else \
                    labels + [None] * (B.shape[1] - len(labels))
            elif name == "Y" and "label_map" not in record:
                record["label_map"] = list(range(B.shape[1]))
            self.data_, self.columns_ = (X, B, []), record
        return self.data_

    def _declared(self, fit_rows: int, T: int):
        """The data's change points the user declared (drift none): the rounds listed, or those
        whose piece id (env.change_column) differs from the row before; None when not declared."""
        if self.change_column is not None:
            return change_points.from_column(self.pieces_, fit_rows, T)
        if self.drift == "none" and not isinstance(self.change_points, str):
            return [int(c) for c in self.change_points]
        return None

    def _river(self, rows: int, rng: np.random.Generator):
        data = river_loader().load(str(self.dataset), rows, rng)
        name = "Y" if "Y" in data else "y"
        X = np.asarray(data["X"], dtype=np.float64)
        where = f"river dataset {self.dataset!r}"
        B = check_data(X, name, np.asarray(data[name], dtype=np.float64), where, float(self.max_abs_value), self.K)
        return X[:rows], B[:rows], [int(c) for c in data.get("change_points", [])]

    def footprint(self, T: int) -> int:
        """Bytes of the instance: contexts, means (and rewards), every policy's actions. A river
        dataset is loaded once (seed 0) to learn its d and K."""
        if self.source == "river":
            if getattr(self, "shape_", None) is None:
                X, B, _ = self._river(int(self.fit_rows) + T, np.random.default_rng(0))
                self.shape_ = (X.shape[1], B.shape[1])
            d, K = self.shape_
        else:
            d, K = self._load()[0].shape[1], self._load()[1].shape[1]
        return 8 * T * (d + 2 * K) + 2 * T * int(self.n_policies)

    def _drift(self, B: np.ndarray, T: int, rng: np.random.Generator):
        """(means, change points, Delta_TV) of the played rounds under the induced drift."""
        K = B.shape[1]
        if self.drift == "none":
            return B.copy(), [], 0.0
        if self.drift == "permutation":
            S = int(self.n_changes)
            if not isinstance(self.change_points, str):  # the rounds given (env.n_changes is not read)
                cps = [int(c) for c in self.change_points]
            elif self.change_points == "even":
                cps = [int(np.floor(j * T / (S + 1))) for j in range(1, S + 1)]
            else:
                cps = sorted(int(c) for c in rng.choice(np.arange(1, T), size=S, replace=False))
            starts = np.r_[0, cps].astype(np.int64)
            piece = np.searchsorted(starts, np.arange(T), side="right") - 1
            sigma, inverse = np.arange(K), []
            for s in range(len(starts)):
                if s:
                    sigma = derangement(K, rng)[sigma]  # every class moves to another arm
                inverse.append(np.argsort(sigma))  # sigma^-1(a)
            inverse = np.stack(inverse)
            means = B[np.arange(T)[:, None], inverse[piece]]  # R[t, a] = B[t, sigma_s^-1(a)]
            delta = sum(2.0 * float((B[:, inverse[s]] != B[:, inverse[s - 1]]).any(axis=1).mean())
                        for s in range(1, len(starts)))
            return means, cps, delta
        u = float(self.turns) * K * np.arange(T) / T
        s, p = np.floor(u).astype(np.int64), u - np.floor(u)
        a = np.arange(K)[None, :]
        rows = np.arange(T)[:, None]
        means = (1 - p)[:, None] * B[rows, (a - s[:, None]) % K] + p[:, None] * B[rows, (a - s[:, None] - 1) % K]
        cps = [int(t) for t in np.flatnonzero(np.diff(np.floor(u + 0.5))) + 1]
        # mu(. | x) is piecewise linear in u with slope B[a - s - 1] - B[a - s]: sum_a |slope| = n_b
        n_b = np.abs(B - np.roll(B, 1, axis=1)).sum(axis=1).mean()
        return means, cps, float(2 * (u[-1] - u[0]) * n_b)

    def instance(self, T: int, rng: np.random.Generator) -> Instance:
        fit_rows = int(self.fit_rows)
        X, B, stream_cps = self._river(fit_rows + T, rng) if self.source == "river" else self._load()
        X_fit, B_fit, X, B = X[:fit_rows], B[:fit_rows], np.ascontiguousarray(X[fit_rows:fit_rows + T]), \
            B[fit_rows:fit_rows + T]
        stream_cps = [c - fit_rows for c in stream_cps if fit_rows < c < fit_rows + T]
        means, induced, delta = self._drift(B, T, rng)
        K, d, N = means.shape[1], X.shape[1], int(self.n_policies)
        n_fit = min(int(self.n_fitted), N) if fit_rows else 0
        X1 = np.column_stack([X_fit, np.ones(fit_rows)])
        if self.fit == "slices":
            groups = np.array_split(rng.permutation(fit_rows), n_fit) if n_fit else []
        else:
            groups = [rng.integers(0, fit_rows, size=fit_rows) for _ in range(n_fit)]
        W = np.concatenate([ridge_policies(X1, B_fit, groups, float(self.ridge)),
                            rng.standard_normal((N - n_fit, K, d + 1))])
        order = rng.permutation(N)
        W = W[order]
        pred = policy_actions(W, np.column_stack([X, np.ones(T)]))
        declared = self._declared(fit_rows, T)
        cps = sorted(set(induced) | set(stream_cps) | set(declared or ()))
        source = "declared" if declared is not None else "generator" if self.drift != "none" or stream_cps else "none"
        optimal_policy = best_policy_per_piece(means, pred, np.r_[0, cps].astype(np.int64))
        optimal = means[np.arange(T), pred[np.arange(T), optimal_policy]]
        info = {"d": int(d), "K": int(K), "contextual": True, "n_policies": N, "reward_bound": 1.0,
                "reward_range": (0.0, 1.0), "contexts": X, "policy_actions": pred}
        if self.drift != "none" and not stream_cps:  # known by construction: what algorithms that know S may read
            info.update(S_switches=1 + len(induced), Delta_TV=float(delta))
        evaluation = {"synthetic": False, "source": str(self.source), **change_points.record(cps, source),
                      "comparator": change_points.policy_comparator(cps),
                      "trial_noise": self.drift == "rotation" and bernoulli_noise(means),
                      **(self.columns_ if self.source != "river" else {}),
                      "optimal_policy": optimal_policy, "policy_weights": W,
                      "fitted_policies": np.argsort(order)[:n_fit].tolist(),
                      "regret_gap_best_action": float((means.max(axis=1) - optimal).sum())}
        return Instance(means=np.ascontiguousarray(means), info=info, evaluation=evaluation, optimal=optimal,
                        rewards=None if self.drift == "rotation" else np.ascontiguousarray(means))

    def rewards(self, instance: Instance, rng: np.random.Generator) -> np.ndarray:
        """The replayed table, or (rotation drift) Bernoulli rewards of the mixed label map."""
        if instance.rewards is not None:
            return instance.rewards
        return bernoulli_rewards(instance.means, rng)
