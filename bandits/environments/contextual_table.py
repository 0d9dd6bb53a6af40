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

Columns and checks: :mod:`bandits.environments.contextual_files` reads the file (which
columns hold the contexts, the rewards, costs or labels; ``features``, ``label``,
``rewards``, ``costs``) and checks every value, recording what was read in ``env_info``.

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
"""

from __future__ import annotations

import numpy as np

from bandits.environments import change_points, files
from bandits.environments.base import Instance, bernoulli_noise, bernoulli_rewards
from bandits.environments.contextual_files import FORMATS, NAME_KEYS, check_data, encode_labels, read_table_file
from bandits.environments.drifting_contextual import policy_actions
from bandits.environments.table import MAX_CELLS
from bandits.errors import ConfigError, require_choice, require_float, require_int


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
            X, name, target, record, self.pieces_ = read_table_file(path, where, "file" if self.source == "file" else
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
