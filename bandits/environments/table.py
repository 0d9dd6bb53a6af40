"""Replay a user's own problem from a file (spec §2 ``table``).

The file holds ``means`` (T x K, the expected reward of arm a at round t) and,
optionally, ``rewards`` (T x K, what arm a pays if chosen at round t):

* ``.npz``: arrays named ``means`` and ``rewards``, and optionally ``actions``:
  the action sets as feature vectors, (T, K, d) per round or (K, d) for every
  round. With ``actions`` the problem is linear: SW-UCB, UCB and BOB use the
  vectors (their dimension must equal ``env.d`` when that is set);
* ``.csv`` / ``.parquet``: columns ``mean_0 .. mean_{K-1}`` and optionally
  ``reward_0 .. reward_{K-1}``, one row per round.

The first ``T`` rows are used. Without ``rewards`` the environment adds
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

from bandits.environments.base import Instance, gaussian_rewards, variation
from bandits.errors import ConfigError, require_float, require_int

FORMATS = (".npz", ".csv", ".parquet")


def _columns(frame, prefix: str) -> list[str]:
    cols = [c for c in frame.columns if str(c).startswith(prefix)]
    return sorted(cols, key=lambda c: int(str(c)[len(prefix):]) if str(c)[len(prefix):].isdigit() else -1)


def load_table(path: str | Path):
    """Read ``means``, optional ``rewards`` and optional ``actions`` from a file;
    raise ConfigError on any defect."""
    path = Path(path)
    where = f"table file {str(path)!r}"
    if not path.is_file():
        raise ConfigError(f"{where} does not exist. Set env.path to an .npz, .csv or .parquet file "
                          "holding 'means' (T x K) and optionally 'rewards' (T x K).")
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ConfigError(f"{where} has suffix {suffix!r}; supported: {', '.join(FORMATS)}.")
    try:
        if suffix == ".npz":
            with np.load(path, allow_pickle=False) as data:
                if "means" not in data.files:
                    raise ConfigError(f"{where} has no array named 'means' (found: {data.files}).")
                means = np.asarray(data["means"], dtype=np.float64)
                rewards = np.asarray(data["rewards"], dtype=np.float64) if "rewards" in data.files else None
                actions = np.asarray(data["actions"], dtype=np.float64) if "actions" in data.files else None
        else:
            import pandas as pd
            frame = pd.read_csv(path) if suffix == ".csv" else pd.read_parquet(path)
            actions = None  # per-round action vectors need the .npz format
            mean_cols = _columns(frame, "mean_")
            if not mean_cols:
                raise ConfigError(f"{where} has no columns named mean_0, mean_1, ... "
                                  f"(found: {list(frame.columns)[:10]}).")
            expected = [f"mean_{k}" for k in range(len(mean_cols))]
            if mean_cols != expected:
                raise ConfigError(f"{where}: mean columns must be {expected}, found {mean_cols}.")
            means = frame[mean_cols].to_numpy(dtype=np.float64)
            reward_cols = _columns(frame, "reward_")
            rewards = None
            if reward_cols:
                if reward_cols != [f"reward_{k}" for k in range(len(mean_cols))]:
                    raise ConfigError(f"{where}: reward columns must match the mean columns "
                                      f"one for one (reward_0..reward_{len(mean_cols) - 1}), found {reward_cols}.")
                rewards = frame[reward_cols].to_numpy(dtype=np.float64)
    except ConfigError:
        raise
    except Exception as exc:  # unreadable or corrupt file
        raise ConfigError(f"{where} could not be read: {exc}") from exc
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
    for label, arr in (("means", means), ("rewards", rewards), ("actions", actions)):
        if arr is not None and not np.all(np.isfinite(arr)):
            bad = np.argwhere(~np.isfinite(arr))[0]
            raise ConfigError(f"{where}: {label} holds NaN or inf (first at round {bad[0]}, arm {bad[1]}).")
    return means, rewards, actions


class Table:
    name = "table"
    problem_kinds = ("karmed", "linear")

    def problem_kind(self) -> str:
        """K arms, or linear when the file holds action vectors (call after check_params)."""
        return "karmed" if self._load()[2] is None else "linear"

    def __init__(self, path: str | None = None, R: float = 0.1, B_T: float | None = None, d: int | None = None,
                 S: float | None = None):
        self.path = path
        self.S = S
        self.R = R
        self.B_T = B_T
        self.d = d

    def check_params(self, T: int) -> None:
        if not self.path:
            raise ConfigError("env=table needs env.path=<file.npz|.csv|.parquet>.")
        require_float("env.R", self.R, minimum=0.0)
        require_float("env.B_T", self.B_T, minimum=0.0, allow_none=True)
        require_float("env.S", self.S, minimum=0.0, allow_none=True)
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
            self.data_ = load_table(self.path)
        return self.data_

    def instance(self, T: int, rng: np.random.Generator | None = None) -> Instance:
        means, rewards, actions = self._load()
        means = np.ascontiguousarray(means[:T])
        rewards = None if rewards is None else np.ascontiguousarray(rewards[:T])
        if actions is not None:
            actions = np.ascontiguousarray(actions[:T])
        info = {"d": int(means.shape[1]) if actions is None else int(actions.shape[2]), "R": float(self.R),
                "L": 1.0 if actions is None else float(np.linalg.norm(actions, axis=-1).max()),
                "linear": actions is not None,
                "S": float(self.S) if self.S is not None else (
                    float(np.sqrt((means ** 2).sum(axis=1)).max()) if actions is None else 1.0),
                "reward_bound": max(1.0, float(np.abs(means).max()))}
        evaluation = {"synthetic": False, **variation(means)}
        info["B_T"] = float(self.B_T) if self.B_T is not None else evaluation["variation_inf"]
        return Instance(means=means, info=info, evaluation=evaluation, rewards=rewards, features=actions)

    def rewards(self, instance: Instance, rng: np.random.Generator) -> np.ndarray:
        if instance.rewards is not None:
            return instance.rewards
        return gaussian_rewards(instance.means, float(self.R), rng)
