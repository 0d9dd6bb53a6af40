"""Replay a user's own problem from a file (spec §2 ``table``).

The file holds ``means`` (T x K, the expected reward of arm a at round t) and,
optionally, ``rewards`` (T x K, what arm a pays if chosen at round t):

* ``.npz``: arrays named ``means`` and ``rewards``, and optionally ``actions``:
  the action sets as feature vectors, (T, K, d) per round or (K, d) for every
  round. With ``actions`` the problem is linear: SW-UCB, UCB and BOB use the
  vectors (their dimension must equal ``env.d`` when that is set);
* ``.csv`` / ``.parquet``: one row per round; the mean columns are ``means`` (a list
  of column names, one per arm, in the order of the arms: ``env.means=[a,b,c]``) or,
  when it is not given, ``mean_0 .. mean_{K-1}``; the reward columns are ``rewards``
  (``env.rewards=[ra,rb,rc]``, one per mean column, in the same order) or, when it is
  not given, ``reward_0 .. reward_{K-1}`` if the file has them (else there are none).
  The file's other columns are not read. An ``.npz`` names its arrays itself:
  ``means`` / ``rewards`` are refused for one.

The first ``T`` rows are used. The columns read are recorded in the results table's
``env_info`` (``mean_columns``, ``reward_columns``, ``ignored_columns``).

Before anything is loaded whole the file is checked (:mod:`bandits.environments.files`):
a regular file of at most ``max_file_mb`` MB (default 1024) whose first bytes match its
format, numeric arrays or columns only (no dates, complex numbers, text, objects; a
value that is not a number is named with its column and row), no missing value (an
empty or NA cell: its column and row), at most ``max_cells`` values in memory (default
2e8); then every value must be finite, at most ``max_abs_value`` in size (default 1e6:
larger is surely a unit error) and, when ``reward_range: [lo, hi]`` is declared, means
and rewards must lie within it (it is then what the learner is told, as
``reward_range`` and ``reward_bound``).

Rewards. With ``rewards`` in the file every trial replays them (only the algorithms'
own randomness differs between trials; ``noise`` must be left at ``gaussian``).
Without them each trial draws rewards around the means, by ``noise``:

* ``gaussian`` (default): means[t, a] + eta, eta ~ N(0, R^2), independent per round
  and arm. Gaussian noise is unbounded, so it cannot keep a declared range: with
  ``reward_range`` set and R > 0 it is refused before any work (one paragraph,
  stating the expected share of rewards that would leave the range). It is never
  silently clipped: the learner is never told a range the rewards break.
* ``clipped``: the same Gaussian draw, clipped to [lo, hi] = ``reward_range``
  (required). Its expectation is not the file's mean: for X ~ N(m, R^2),
  clip(X, lo, hi) = X + (lo - X)^+ - (X - hi)^+, so
  E[clip(X, lo, hi)] = g(m) = m + R L((m - lo) / R) - R L((hi - m) / R), with the
  Gaussian loss function L(u) = E[(Z - u)^+] = phi(u) - u Phi(-u). The instance's
  means, from which the dynamic regret sum_t max_a mu_t(a) - mu_t(A_t) is computed,
  are therefore g(means): the expected rewards of the rewards actually drawn; so are
  the realised variation, B_T and S told to the learner. g'(m) = P(lo < X < hi) lies
  in (0, 1): g is strictly increasing, so each round's best arm is the file's, and a
  contraction, so every gap g(m1) - g(m2) is smaller than m1 - m2 (most near the ends
  of the range): the regret of the file's means would overstate the regret of the
  rewards drawn. The learner is told R: a 1-Lipschitz function of a Gaussian is
  R-sub-Gaussian. Recorded in ``env_info``: ``noise: clipped``, ``clip_probability``
  (the expected share of the rewards that are clipped) and ``clip_mean_shift``
  (max |g(m) - m|).
* ``bernoulli``: reward lo + (hi - lo) B, B ~ Bernoulli((m - lo) / (hi - lo)) (on
  [0, 1]: Bernoulli(m)), ``reward_range`` required. Its expectation is the file's
  mean exactly, so the regret is that of the file's means. The learner is told
  R = (hi - lo) / 2 (a reward bounded in [lo, hi] is (hi - lo)/2-sub-Gaussian, by
  Hoeffding's lemma); ``env.R`` is not used.

Constants told to algorithms: L = 1 for basis-vector arms, else the largest
action norm; S = ``env.S`` if given, else max_t ||means[t]||_2 for K arms (theta_t
is the means row) and 1 for linear tables (the paper's normalisation: theta is not
in the file); B_T = ``env.B_T`` if given, else the realised infinity-norm variation
of ``means`` (the K-armed budget of hedging §8.2).

Change points, derived from the means (:mod:`bandits.environments.change_points`, the
definition every environment shares): a round t in 1..T-1 at which some arm's mean differs
from round t - 1 by more than ``change_tol`` (default 0: any difference, compared exactly;
the same number written twice in a CSV reads as the same float, so only means computed
with rounding error need a tolerance), on the instance's means (with clipped noise g(means),
whose moves are those of the file's means, g being strictly increasing). Upsilon_T = their
number and min_change = min over them of max_a |mu_c(a) - mu_{c-1}(a)| (0 when there is
none) are told to the algorithms that need them (sliding-window and discounted UCB tuned
with Upsilon_T, CUSUM-UCB, M-UCB, ...); the change points go to the evaluation only (and to
the oracle restart). A drift that moves the means at every round makes every round a change
point: Upsilon_T = T - 1 is what the file says, and ``change_points_note`` in ``env_info``
says so when more than half of the rounds move. ``env.change_points`` (rounds where a new
piece starts, e.g. the changes that matter), ``env.Upsilon_T`` and ``env.min_change``, when
set, win over the derived values; Upsilon_T and min_change follow declared change points
unless they are set too. Recorded in ``env_info``: ``change_points``,
``change_points_source`` (``derived from means`` or ``declared``), ``declared_keys`` (the
keys of the three that were set; the others are derived) and ``trial_noise`` (false when the
file's rewards are replayed, or the noise is degenerate: R = 0, Bernoulli means at the ends
of the range).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bandits.environments import change_points, files
from bandits.environments.base import Instance, bernoulli_noise, bernoulli_rewards, gaussian_rewards, variation
from bandits.errors import ConfigError, require_choice, require_float, require_int

FORMATS = (".npz", ".csv", ".parquet")
MAX_CELLS = 2e8  # values of a table held in memory (1.6 GB of floats); env.max_cells raises it


def _columns(frame_columns, prefix: str) -> list[str]:
    cols = [str(c) for c in frame_columns if str(c).startswith(prefix)]
    return sorted(cols, key=lambda c: int(c[len(prefix):]) if c[len(prefix):].isdigit() else -1)


def _mean_columns(names, where: str) -> list[str]:
    """The mean_k columns, checked to be mean_0..mean_{K-1}."""
    mean_cols = _columns(names, "mean_")
    if not mean_cols:
        raise ConfigError(f"{where} has no columns named mean_0, mean_1, ... (found: {list(names)[:10]}); or name "
                          "the mean-reward columns with env.means=[...].")
    expected = [f"mean_{k}" for k in range(len(mean_cols))]
    if mean_cols != expected:
        raise ConfigError(f"{where}: mean columns must be {expected}, found {mean_cols}.")
    return mean_cols


def _reward_columns(names, where: str, K: int) -> list[str]:
    """The reward_k columns, if any, checked to match the K mean columns one for one."""
    reward_cols = _columns(names, "reward_")
    if reward_cols and reward_cols != [f"reward_{k}" for k in range(K)]:
        raise ConfigError(f"{where}: reward columns must match the mean columns one for one "
                          f"(reward_0..reward_{K - 1}), found {reward_cols}; or name them with env.rewards=[...].")
    return reward_cols


def _read_npz(path: Path, where: str, max_cells: float, names=None, max_columns: int = files.MAX_COLUMNS):
    if names:
        raise ConfigError(f"{where}: {' and '.join(names)} name{'s' if len(names) == 1 else ''} the columns of a .csv "
                          "or .parquet file; an .npz file holds its arrays under the names 'means', 'rewards' and "
                          "'actions'.")
    headers = files.npz_headers(path, where)
    if "means" not in headers:
        raise ConfigError(f"{where} has no array named 'means' (found: {sorted(headers)}).")
    for name in ("means", "rewards", "actions"):
        if name in headers:
            shape, dtype = headers[name]
            files.check_dtype(dtype, f"'{name}'", where)
            files.check_cells(int(np.prod(shape[:1] or (1,))), int(np.prod(shape[1:] or (1,))), where, max_cells)
    with np.load(path, allow_pickle=False) as data:
        return tuple(np.asarray(data[n], dtype=np.float64) if n in headers else None
                     for n in ("means", "rewards", "actions")), {}


def _read_columnar(path: Path, where: str, max_cells: float, names=None, max_columns: int = files.MAX_COLUMNS):
    """(means, rewards, None) and the columns read: ``env.means`` / ``env.rewards`` by name,
    else the mean_k / reward_k convention."""
    names = names or {}
    chosen = {}

    def pick(columns, where):
        means, rewards = names.get("env.means"), names.get("env.rewards")
        chosen["mean"] = _mean_columns(columns, where) if means is None else files.named_columns(
            means, columns, "env.means", where, "the mean-reward columns, one per arm, in the order of the arms")
        chosen["reward"] = _reward_columns(columns, where, len(chosen["mean"])) if rewards is None else \
            files.named_columns(rewards, columns, "env.rewards", where,
                                "the reward columns, one per arm, in the order of the mean columns")
        both = set(chosen["mean"]) & set(chosen["reward"])
        if both:
            raise ConfigError(f"{where}: column {sorted(both)[0]!r} is named both as a mean and as a reward column.")
        if chosen["reward"] and len(chosen["reward"]) != len(chosen["mean"]):
            raise ConfigError(f"{where}: {len(chosen['mean'])} mean columns ({', '.join(chosen['mean'])}) but "
                              f"{len(chosen['reward'])} reward columns ({', '.join(chosen['reward'])}); give one "
                              "reward column per arm.")
        return files.Pick(numbers=chosen["mean"] + chosen["reward"])

    frame = files.read_columns(path, where, pick, max_cells, max_columns)
    stack = lambda cols: np.column_stack([frame.values[c] for c in cols]) if cols else None  # noqa: E731
    columns = {"mean_columns": chosen["mean"], "reward_columns": chosen["reward"], "ignored_columns": frame.ignored}
    return (stack(chosen["mean"]), stack(chosen["reward"]), None), columns


READERS = {".npz": _read_npz, ".parquet": _read_columnar, ".csv": _read_columnar}


def read_table(path: str | Path, max_file_mb: float = files.MAX_FILE_MB, max_abs_value: float = files.MAX_ABS_VALUE,
               reward_range=None, max_cells: float = MAX_CELLS, means=None, rewards=None,
               max_columns: int = files.MAX_COLUMNS):
    """((means, rewards, actions), columns): the arrays of :func:`load_table` and, for a
    .csv / .parquet file, the columns read ({"mean_columns", "reward_columns",
    "ignored_columns"}). ``means`` / ``rewards`` name the columns (``env.means`` /
    ``env.rewards``); None = the mean_k / reward_k convention."""
    where = "table file"
    path = files.check_file(path, where, FORMATS, max_file_mb)
    where = f"table file {str(path)!r}"
    names = {k: v for k, v in (("env.means", means), ("env.rewards", rewards)) if v is not None}
    (means, rewards, actions), columns = READERS[path.suffix.lower()](path, where, max_cells, names, max_columns)
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
    return (means, rewards, actions), columns


def load_table(path: str | Path, max_file_mb: float = files.MAX_FILE_MB, max_abs_value: float = files.MAX_ABS_VALUE,
               reward_range=None, max_cells: float = MAX_CELLS):
    """Read ``means``, optional ``rewards`` and optional ``actions`` from a file, after
    checking the file (kind, size, format, numeric content) and before trusting any value
    (finite, plausible in size, within ``reward_range`` when declared); ConfigError on any
    defect."""
    return read_table(path, max_file_mb, max_abs_value, reward_range, max_cells)[0]


def gaussian_loss(u: np.ndarray) -> np.ndarray:
    """L(u) = E[(Z - u)^+] = phi(u) - u Phi(-u), Z ~ N(0, 1)."""
    from scipy.special import ndtr

    return np.exp(-0.5 * u * u) / np.sqrt(2 * np.pi) - u * ndtr(-u)


def clipped_gaussian_mean(means: np.ndarray, R: float, lo: float, hi: float) -> np.ndarray:
    """E[clip(m + R Z, lo, hi)], Z ~ N(0, 1), exactly: m + R L((m - lo) / R) - R L((hi - m) / R),
    with L the Gaussian loss function, since clip(X, lo, hi) = X + (lo - X)^+ - (X - hi)^+ for
    lo < hi, E[(lo - X)^+] = R L((m - lo) / R) and E[(X - hi)^+] = R L((hi - m) / R)."""
    if R == 0:
        return means.copy()
    out = means + R * gaussian_loss((means - lo) / R) - R * gaussian_loss((hi - means) / R)
    return np.clip(out, lo, hi)  # only rounding can leave [lo, hi]


def clip_probability(means: np.ndarray, R: float, lo: float, hi: float) -> np.ndarray:
    """P(m + R Z < lo or m + R Z > hi): the chance that Gaussian noise leaves [lo, hi]."""
    from scipy.special import ndtr

    if R == 0:
        return np.zeros_like(means)
    return ndtr((lo - means) / R) + ndtr((means - hi) / R)


NOISE = ("gaussian", "clipped", "bernoulli")


class Table:
    name = "table"
    problem_kinds = ("karmed", "linear")

    def __init__(self, path: str | None = None, means=None, rewards=None, R: float = 0.1, noise: str = "gaussian",
                 B_T: float | None = None, d: int | None = None, S: float | None = None, reward_range=None,
                 max_file_mb: float = files.MAX_FILE_MB, max_abs_value: float = files.MAX_ABS_VALUE,
                 max_cells: float = MAX_CELLS, max_columns: int = files.MAX_COLUMNS, change_points=None,
                 Upsilon_T: int | None = None, min_change: float | None = None, change_tol: float = 0.0):
        self.path = path
        self.means = means
        self.change_points = change_points
        self.Upsilon_T = Upsilon_T
        self.min_change = min_change
        self.change_tol = change_tol
        self.reward_columns = rewards  # env.rewards (the attribute `rewards` is the environment's method)
        self.S = S
        self.R = R
        self.noise = noise
        self.B_T = B_T
        self.d = d
        self.reward_range = reward_range
        self.max_file_mb = max_file_mb
        self.max_abs_value = max_abs_value
        self.max_cells = max_cells
        self.max_columns = max_columns

    def how_to_report(self, key: str) -> str | None:
        """How this environment comes to report ``key`` to a learner that needs it."""
        if key in ("reward_range", "reward_bound"):
            return ("It reports a reward range only for bounded rewards (Gaussian noise is not): set "
                    "\"env.reward_range=[lo,hi]\" with env.noise=bernoulli (the file's means stay the expected "
                    "rewards) or env.noise=clipped.")
        return None

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
        require_choice("env.noise", self.noise, set(NOISE))
        require_float("env.B_T", self.B_T, minimum=0.0, allow_none=True)
        require_float("env.S", self.S, minimum=0.0, allow_none=True)
        require_float("env.max_file_mb", self.max_file_mb, minimum=0.0, strict=True)
        require_float("env.max_abs_value", self.max_abs_value, minimum=0.0, strict=True)
        require_float("env.max_cells", self.max_cells, minimum=1.0)
        require_int("env.max_columns", self.max_columns, minimum=1)
        if self.Upsilon_T is not None:
            require_int("env.Upsilon_T", self.Upsilon_T, minimum=0)
        require_float("env.min_change", self.min_change, minimum=0.0, allow_none=True)
        require_float("env.change_tol", self.change_tol, minimum=0.0)
        if self.change_points is not None:
            change_points.check_declared("env.change_points", self.change_points, T)
        declared = self._range()
        if self.d is not None:
            require_int("env.d", self.d, minimum=1)
        means, rewards, actions = self._load()
        if self.d is not None and actions is not None and actions.shape[2] != int(self.d):
            raise ConfigError(f"table file {self.path!r}: its action vectors have dimension {actions.shape[2]} "
                              f"but env.d={self.d}.")
        if means.shape[0] < T:
            raise ConfigError(f"table file {self.path!r} has {means.shape[0]} rounds but T={T}; "
                              f"set T <= {means.shape[0]}.")
        self._check_noise(means[:T], rewards, declared)

    def _check_noise(self, means: np.ndarray, rewards, declared) -> None:
        """The noise keeps the declared range: a file's own rewards are checked to lie within
        it; Gaussian noise is unbounded, so with a range it must be clipped (env.noise=clipped)
        or replaced by rewards on the range's ends (bernoulli); refused otherwise."""
        if rewards is not None:
            if self.noise != "gaussian":
                raise ConfigError(f"env.noise={self.noise}: table file {self.path!r} holds its own rewards, which "
                                  "are replayed as they are (no noise is drawn); drop env.noise, or the rewards "
                                  "from the file.")
            return
        if declared is None:
            if self.noise != "gaussian":
                raise ConfigError(f"env.noise={self.noise} draws rewards within the declared reward range: set "
                                  "env.reward_range=[lo, hi] (env.reward_range=[0,1] for Bernoulli rewards).")
            return
        lo, hi = declared
        if self.noise == "gaussian" and float(self.R) > 0:
            outside = float(clip_probability(means, float(self.R), lo, hi).mean())
            raise ConfigError(
                f"env.reward_range=[{lo:g}, {hi:g}] is told to the learner as a guarantee, but the Gaussian noise "
                f"of sd env.R={float(self.R):g} added to the means of table file {self.path!r} is unbounded: about "
                f"{100 * outside:.2g}% of the rewards would lie outside the range. Choose env.noise=bernoulli "
                f"(each reward is {lo:g} or {hi:g}, with the file's mean as its expectation: the regret is that of "
                f"the file's means), env.noise=clipped (the Gaussian reward clipped to [{lo:g}, {hi:g}]; its "
                "expectation is no longer the file's mean, so the regret is computed from the expectation of the "
                "clipped reward), env.R=0 (no noise), or drop env.reward_range.")

    def _load(self):
        if getattr(self, "data_", None) is None:
            self.data_, self.columns_ = read_table(self.path, float(self.max_file_mb), float(self.max_abs_value),
                                                   self._range(), float(self.max_cells), self.means,
                                                   self.reward_columns, int(self.max_columns))
        return self.data_

    def footprint(self, T: int) -> int:
        """Bytes of the instance in memory (the file's arrays up to round T; with clipped
        noise, the Gaussian's centres too)."""
        return int(sum(a[:T].nbytes for a in self._load() if a is not None)) * (2 if self.noise == "clipped" else 1)

    def instance(self, T: int, rng: np.random.Generator | None = None) -> Instance:
        means, rewards, actions = self._load()
        means = np.ascontiguousarray(means[:T])
        rewards = None if rewards is None else np.ascontiguousarray(rewards[:T])
        if actions is not None:
            actions = np.ascontiguousarray(actions[:T])
        declared = self._range()
        noise = "replayed" if rewards is not None else str(self.noise)
        extras, evaluation = {}, {"synthetic": False, "noise": noise, **self.columns_}
        R = float(self.R)
        if noise == "clipped":  # the expected reward of the clipped Gaussian: what the regret is computed from
            extras["centres"] = means
            means = clipped_gaussian_mean(means, R, *declared)
            evaluation.update(clip_probability=float(clip_probability(extras["centres"], R, *declared).mean()),
                              clip_mean_shift=float(np.abs(means - extras["centres"]).max()))
        elif noise == "bernoulli":
            R = (declared[1] - declared[0]) / 2  # a reward bounded in [lo, hi] is (hi - lo)/2-sub-Gaussian
        info = {"d": int(means.shape[1]) if actions is None else int(actions.shape[2]), "R": R,
                "L": 1.0 if actions is None else float(np.linalg.norm(actions, axis=-1).max()),
                "linear": actions is not None,
                "S": float(self.S) if self.S is not None else (
                    float(np.sqrt((means ** 2).sum(axis=1)).max()) if actions is None else 1.0),
                "reward_bound": max(1.0, float(np.abs(means).max())) if declared is None else
                max(abs(declared[0]), abs(declared[1]))}
        if declared is not None:
            info["reward_range"] = declared
        evaluation.update(variation(means))
        info["B_T"] = float(self.B_T) if self.B_T is not None else evaluation["variation_inf"]
        told, changes = change_points.of_table(means, float(self.change_tol), self.change_points, self.Upsilon_T,
                                               self.min_change)
        info.update(told)
        if noise == "bernoulli":  # a mean at an end of the range draws the same reward every trial
            varies = bernoulli_noise((means - declared[0]) / (declared[1] - declared[0]))
        else:
            varies = noise != "replayed" and R > 0
        evaluation.update(changes, trial_noise=varies)
        return Instance(means=means, info=info, evaluation=evaluation, rewards=rewards, features=actions,
                        extras=extras)

    def rewards(self, instance: Instance, rng: np.random.Generator) -> np.ndarray:
        """The file's rewards, replayed; else drawn per trial: the means plus Gaussian noise
        of sd R (``gaussian``), the same draw clipped to the declared range (``clipped``), or
        lo + (hi - lo) Bernoulli((m - lo) / (hi - lo)) (``bernoulli``)."""
        if instance.rewards is not None:
            return instance.rewards
        if self.noise == "gaussian":
            return gaussian_rewards(instance.means, float(self.R), rng)
        lo, hi = self._range()
        if self.noise == "clipped":
            return np.clip(gaussian_rewards(instance.extras["centres"], float(self.R), rng), lo, hi)
        out = bernoulli_rewards((instance.means - lo) / (hi - lo), rng)
        if (lo, hi) != (0.0, 1.0):
            out *= hi - lo
            out += lo
        return out
