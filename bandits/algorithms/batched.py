"""The batched-trials protocol: a policy of your own in plain numpy that acts on many
independent trials at once, so that Python's cost per call is paid once per round for the
whole batch, not once per round and trial (as gymnasium's vector environments do)::

    class MyBatchedPolicy:
        batched = True                              # declares the protocol
        problem_kinds = ("karmed",)                 # optional, as for a per-trial policy
        def __init__(self, gamma=0.99): ...         # store parameters only
        def reset(self, n_trials, n_arms, horizon, rng, info): ...
        def select(self, t) -> np.ndarray: ...       # int array of n_trials arms at round t
        def update(self, t, arms, rewards): ...      # arrays: each trial's arm and its reward

Every trial of a batch is its own problem draw's trial: its own rewards and its own random
numbers. ``rng`` is a :class:`BatchedGenerator`: each call draws each trial's numbers from that
trial's own stream and stacks them (shape ``(n_trials, *size)``), so a trial's numbers never
depend on which trials share its batch or how large the batch is, provided the policy treats
its trials alike (the same calls, in the same order, for every trial; ``drift-bandits check``
tests it). ``info`` is the learner's information, as for a per-trial policy: the instance is
the same for every trial of a horizon (its action sets, contexts and policy class included),
so every kind of problem a per-trial policy solves is batched the same way; the semi-bandit,
whose actions are sets of items, is left out as for per-trial policies.

A batched policy runs wherever a per-trial policy runs (the command line, ``algos=[...]``,
``-m`` sweeps, ``simulate()``, the shipped benchmarks); alone, a trial is a batch of one.
"""

from __future__ import annotations

import math
import traceback

import numpy as np

from bandits.algorithms.sealed import read_only, sealed
from bandits.errors import ConfigError, failure

METHODS = ("reset", "select", "update")
BUFFER = 1024  # uniforms and normals drawn per trial at a time (its own stream, in order)


def is_batched_policy(obj) -> bool:
    return bool(getattr(obj, "batched", False)) and all(callable(getattr(obj, m, None)) for m in METHODS)


class BatchedGenerator:
    """One ``numpy.random.Generator`` per trial of a batch. Each method draws, for each trial,
    from that trial's own generator and stacks the draws: shape ``(n_trials, *size)``
    (``(n_trials,)`` for ``size=None``). Parameters are scalars, or arrays whose first axis is
    the trial (a trial's own parameters: Thompson sampling's counts, say).

    ``random`` and ``standard_normal`` / ``normal`` take each trial's numbers from a buffer that
    trial's generator fills :data:`BUFFER` at a time, in order: the draws cost one Python call
    per batch, and a trial's numbers depend only on its own stream and on the sequence of calls
    (the same for every trial of a policy that treats its trials alike). ``beta``, ``gamma``,
    ``exponential``, ``integers`` and ``choice`` draw trial by trial."""

    def __init__(self, generators):
        self.generators = list(generators)
        self.n_trials = len(self.generators)
        self._buffers: dict = {}  # kind -> [values (n, BUFFER), next position]

    def _buffered(self, kind: str, size) -> np.ndarray:
        shape = () if size is None else ((size,) if np.ndim(size) == 0 else tuple(size))
        count = math.prod(shape)
        store = self._buffers.get(kind)
        if store is None:
            store = self._buffers[kind] = [np.empty((self.n_trials, 0)), 0]
        values, at = store
        if at + count > values.shape[1]:  # refill: what is left, then BUFFER (or more) new from each stream
            extra = max(BUFFER, count)
            draw = (lambda g: g.random(extra)) if kind == "uniform" else (lambda g: g.standard_normal(extra))
            values = np.concatenate([values[:, at:], np.stack([draw(g) for g in self.generators])], axis=1)
            at = 0
        store[0], store[1] = values, at + count
        return values[:, at:at + count].reshape((self.n_trials, *shape))

    def random(self, size=None) -> np.ndarray:
        """Uniform on [0, 1)."""
        return self._buffered("uniform", size)

    def standard_normal(self, size=None) -> np.ndarray:
        return self._buffered("normal", size)

    def normal(self, loc=0.0, scale=1.0, size=None) -> np.ndarray:
        z = self.standard_normal(size)
        return self._param(loc, z.ndim) + self._param(scale, z.ndim) * z

    def _param(self, p, ndim: int):
        """A parameter broadcast against draws of ``ndim`` axes, the first of them the trial."""
        p = np.asarray(p, dtype=np.float64)
        return p.reshape(p.shape + (1,) * (ndim - p.ndim)) if p.ndim else p

    def _each(self, method: str, *params, size=None) -> np.ndarray:
        per_trial = [np.broadcast_to(np.asarray(p), (self.n_trials, *np.shape(p)[1:])) if np.ndim(p) else None
                     for p in params]
        out = []
        for i, g in enumerate(self.generators):
            args = [p if pt is None else pt[i] for p, pt in zip(params, per_trial, strict=True)]
            out.append(getattr(g, method)(*args, size=size))
        return np.stack(out)

    def beta(self, a, b, size=None) -> np.ndarray:
        return self._each("beta", a, b, size=size)

    def gamma(self, shape, scale=1.0, size=None) -> np.ndarray:
        return self._each("gamma", shape, scale, size=size)

    def exponential(self, scale=1.0, size=None) -> np.ndarray:
        return self._each("exponential", scale, size=size)

    def integers(self, low, high=None, size=None) -> np.ndarray:
        return self._each("integers", low, high, size=size)

    def choice(self, n_arms: int, size=None, p=None) -> np.ndarray:
        """Arms drawn from ``range(n_arms)`` (with probabilities ``p``, one row per trial)."""
        if p is None:
            return np.stack([g.choice(n_arms, size=size) for g in self.generators])
        p = np.broadcast_to(np.asarray(p, dtype=np.float64), (self.n_trials, n_arms))
        return np.stack([g.choice(n_arms, size=size, p=p[i]) for i, g in enumerate(self.generators)])


INT64 = np.dtype(np.int64)


def play_trials(policy, blocks, n_trials: int, T: int, K: int, info: dict, rng: BatchedGenerator,
                features: np.ndarray | None = None, on_block=None) -> None:
    """Run a batched policy on ``n_trials`` trials, round by round, revealing to each trial only
    its chosen arm's reward. ``blocks`` yields the rewards of consecutive rounds, arrays
    ``(B, n_trials, K)`` (round, trial, arm); ``on_block(t0, actions, rewards)`` is called after
    each block with its actions ``(B, n_trials)``. An exception from the policy becomes one
    paragraph naming it, the method and the round."""
    info = sealed(info, features)  # read-only: the trials' instance is every algorithm's
    first = np.arange(n_trials) * K  # a trial's first reward in a round's flat (n_trials * K) rewards
    method, t = "reset", 0
    try:
        policy.reset(n_trials=n_trials, n_arms=K, horizon=T, rng=rng, info=info)
        select, update = policy.select, policy.update
        for block in blocks:
            # each round's first rewards within the block's flat rewards: one numpy call a round
            # (add the arms, take) where indexing the rows of the block and of the actions costs two more
            starts = list(first + np.arange(block.shape[0])[:, None] * (n_trials * K))
            flat = block.reshape(-1)
            actions = np.empty(block.shape[:2], dtype=np.int64)
            record = read_only(actions)  # what update() may read of the runner's record, not change
            for j in range(block.shape[0]):
                method = "select"
                arms = select(t)
                if not isinstance(arms, np.ndarray) or arms.shape != (n_trials,) or arms.dtype.kind not in "iu":
                    raise ConfigError(f"your {type(policy).__name__}.select({t}) returned {arms!r}; expected an "
                                      f"integer numpy array of {n_trials} arms (one per trial) in 0..{K - 1}.")
                actions[j] = arms  # a copy: a policy may reuse the array it returned
                if arms.dtype is not INT64:  # numpy's int64 dtype is one object; another reads the copy
                    arms = record[j]
                method = "update"  # an arm out of range reads a wrong reward here; the block then fails below
                update(t, arms, flat.take(starts[j] + arms, None, None, "clip"))  # positional: faster
                t += 1
            low, high = int(actions.min()), int(actions.max())
            if low < 0 or high >= K:  # checked once a block: the cell fails, whatever its rewards were
                what = f"the arm {low}" if low < 0 else f"an arm beyond {K - 1} (the arm {high})"
                raise ConfigError(f"your {type(policy).__name__}.select returned {what} in rounds "
                                  f"{t - block.shape[0]}..{t - 1}; expected arms in 0..{K - 1}.")
            if on_block is not None:
                on_block(t - block.shape[0], actions, block)
    except ConfigError:
        raise
    except Exception as exc:  # the user's code: reported with where it failed, never swallowed
        raise failure(policy, method, f"round {t}" if method != "reset" else "before round 0", exc,
                      traceback.format_exc()) from exc


def play_one(policy, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
    """The actions of a batched policy on one trial: a batch of one (what the per-trial paths,
    the conformance suite among them, run)."""
    T, K = rewards.shape
    out = np.empty(T, dtype=np.int64)

    def keep(t0, actions, _):
        out[t0:t0 + actions.shape[0]] = actions[:, 0]

    play_trials(policy, [rewards[:, None, :]], 1, T, K, info, BatchedGenerator([rng]), features, keep)
    return out
