"""Change points: the rounds where a problem's expected rewards change, one definition for
every environment.

A change point is a round t in 1..T-1 (0-based: the first round of a new stationary piece)
at which some arm's expected reward differs from the round before,
max_a |mu_t(a) - mu_{t-1}(a)| > tol, with ``tol`` = 0 by default: any difference, compared
exactly. Upsilon_T is their number, and the size of the smallest change is

    min_change = min over change points c of max_a |mu_c(a) - mu_{c-1}(a)|

(0 when there is none): the definitions of ``Upsilon_T`` and ``min_change`` in
:data:`bandits.environments.base.LEARNER_KEYS`. ``table`` derives all three from its
means; ``piecewise_bernoulli`` computes min_change at the change points it draws.

Change points declared by a user (a list of rounds, or a column of piece ids) are checked
here: whole numbers, strictly increasing, each in 1..T-1; one paragraph otherwise.

A contextual table's change points are declared (``contextual_table``: ``change_points``,
``change_column``) or made by its induced drift, never derived from the data: each row holds
its own context, so its reward vector (logged, or the label's indicator) differs from the
row before whether or not the law of (x, r) has changed, and one row per round cannot tell
a change of that law. A column of piece ids (a regime, a week, a version: numbers or text)
marks a piece by a new id; a 0/1 "a piece starts here" flag is not read as flags (its
cumulative sum is a piece id).

What the evaluation records (every built-in environment, :data:`~bandits.environments.base.EVALUATION_KEYS`):
``change_points`` ([] when none is known; left out for a gradual drift, :func:`gradual`) and
``change_points_source``, a key of :data:`~bandits.environments.base.CHANGE_POINT_SOURCES`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bandits.environments.base import CHANGE_POINT_SOURCES
from bandits.errors import ConfigError

# derived change points on more than this share of the rounds read as a smooth drift: noted in env_info
SMOOTH_SHARE = 0.5


def largest_moves(means: np.ndarray) -> np.ndarray:
    """max_a |means[t, a] - means[t - 1, a]| for t = 1..T-1 (T - 1 values)."""
    if means.shape[0] < 2:
        return np.zeros(0)
    return np.abs(np.diff(means, axis=0)).max(axis=1)


def from_means(means: np.ndarray, tol: float = 0.0) -> list[int]:
    """The change points of ``means`` (T x K): the rounds t in 1..T-1 where some arm's mean
    moves by more than ``tol`` from round t - 1."""
    return [int(t) for t in np.flatnonzero(largest_moves(means) > tol) + 1]


def smallest_change(means: np.ndarray, points) -> float:
    """min_change: min over the change points c of max_a |means[c, a] - means[c - 1, a]|; 0
    when there is none."""
    points = np.asarray(points, dtype=np.int64)
    if not len(points):
        return 0.0
    return float(np.abs(means[points] - means[points - 1]).max(axis=1).min())


def from_column(values: np.ndarray, first: int, T: int) -> list[int]:
    """The change points of a column of piece ids over the played rows ``first .. first+T-1``:
    the rounds t in 1..T-1 whose id differs from the row before (numbers or text)."""
    played = np.asarray(values[first:first + T])
    return [int(t) for t in np.flatnonzero(played[1:] != played[:-1]) + 1]


def _whole(v) -> bool:
    if isinstance(v, (bool, np.bool_)):
        return False
    if isinstance(v, (int, np.integer)):
        return True
    return isinstance(v, (float, np.floating)) and float(v).is_integer()


def check_declared(key: str, value, T: int) -> list[int]:
    """Declared change points as a list of ints: whole numbers, strictly increasing, each in
    1..T-1 (round indices among the T played rounds, counted from 0; round c is the first of
    a new piece); one ConfigError paragraph naming ``key`` and the bad value otherwise."""
    rule = (f"{key} takes the rounds where a new piece starts: whole numbers, strictly increasing, each in "
            f"1..{T - 1} (rounds count from 0 among the T={T} played rounds; round c is the first round of the "
            f"new piece)")
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ConfigError(f"{rule}, e.g. {key}=[{max(1, T // 2)}]; got {value!r}.")
    for v in value:
        if not _whole(v):
            raise ConfigError(f"{rule}; got {list(value)!r}, whose {v!r} is not a whole number.")
        if not 1 <= v <= T - 1:
            raise ConfigError(f"{rule}; got {list(value)!r}, whose {int(v)} lies outside 1..{T - 1}.")
    points = [int(v) for v in value]
    for a, b in zip(points[:-1], points[1:], strict=True):
        if b <= a:
            raise ConfigError(f"{rule}; got {points!r}, where {b} follows {a}.")
    return points


def record(points, source: str) -> dict:
    """The evaluation entries of a problem's change points and where they come from. An
    empty list with a source other than ``none`` says that the source knows of no change
    (a constant file, a generator drawing one piece, a declared stationary table)."""
    if source not in CHANGE_POINT_SOURCES:
        raise ValueError(f"unknown change point source {source!r}; one of {sorted(CHANGE_POINT_SOURCES)}")
    return {"change_points": [int(c) for c in points], "change_points_source": source}


def of_table(means: np.ndarray, tol: float = 0.0, declared=None, Upsilon_T=None, min_change=None):
    """(told, evaluation) of a problem given by its means (``table``): the change points
    derived from ``means`` (or ``declared``: a checked list), Upsilon_T their number and
    min_change their smallest size, unless set (``Upsilon_T`` / ``min_change``). ``told``
    holds the learner keys; ``evaluation`` the change points, their source, the keys the
    user set (``declared_keys``; the others are derived) and, when the means move at most
    rounds, a note that a gradual drift is read as that many change points."""
    points = from_means(means, tol) if declared is None else [int(c) for c in declared]
    told = {"Upsilon_T": len(points) if Upsilon_T is None else int(Upsilon_T),
            "min_change": smallest_change(means, points) if min_change is None else float(min_change)}
    evaluation = record(points, "derived from means" if declared is None else "declared")
    evaluation["declared_keys"] = [k for k, v in (("change_points", declared), ("Upsilon_T", Upsilon_T),
                                                  ("min_change", min_change)) if v is not None]
    rounds = means.shape[0] - 1
    if declared is None and len(points) > SMOOTH_SHARE * rounds:
        evaluation["change_points_note"] = f"the means move at {len(points)} of {rounds} rounds: gradual drift"
    return told, evaluation


PERMUTATION_MODES = ("even", "random")  # contextual_table: where drift=permutation places its changes


def check_contextual(change_points, change_column, source: str, drift: str, T: int) -> None:
    """The change point keys of ``contextual_table``: ``change_points`` is a mode of the
    permutation drift (even, random) or a list of rounds (the data's own change points, or
    where the permutation switches); ``change_column`` names a column of piece ids. One
    ConfigError paragraph for a bad value or a combination that cannot apply."""
    if isinstance(change_points, str):
        if change_points not in PERMUTATION_MODES:
            raise ConfigError(f"env.change_points={change_points!r}: it takes {' or '.join(PERMUTATION_MODES)} (where "
                              "env.drift=permutation places its changes), or a list of the rounds where a new piece "
                              f"starts, e.g. env.change_points=[{max(1, T // 2)}].")
    else:
        check_declared("env.change_points", change_points, T)
        if drift == "rotation":
            raise ConfigError("env.change_points lists rounds, but env.drift=rotation turns the label map gradually "
                              "and its change points follow from env.turns; drop env.change_points.")
        if source == "river" and drift == "none":
            raise ConfigError("env.change_points declares the change points of a data file (env.source=file or "
                              "supervised); a river dataset brings its own (the concept changes of a stream) or has "
                              "none (bundled data in shuffled order, gradually drifting streams).")
    if change_column is None:
        return
    if isinstance(change_column, (list, tuple)):
        raise ConfigError(f"env.change_column names one column (of piece ids), got {list(change_column)!r}.")
    if not isinstance(change_points, str):
        raise ConfigError("env.change_points and env.change_column both declare the change points: give one of them.")
    if drift != "none":
        raise ConfigError(f"env.change_column declares the change points of the data; with env.drift={drift} the "
                          "change points are the induced drift's: drop env.change_column or set env.drift=none.")


def gradual() -> dict:
    """The evaluation entry of a gradual drift: no change point is known, and ``change_points``
    is left out (not []), so that an oracle told the change points is refused there rather
    than run as if the problem were stationary."""
    return {"change_points_source": "none"}


def policy_comparator(points) -> str:
    """The comparator of a contextual problem whose regret is against the class's best
    policy in each piece (a key of :data:`~bandits.environments.base.COMPARATORS`)."""
    return "best policy per piece" if len(points) else "best fixed policy"
