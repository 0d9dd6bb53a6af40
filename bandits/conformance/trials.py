"""What the conformance checks run a policy on, and how: a small problem of each kind
(:func:`trial`), one trial played as the runner plays it (:func:`run`: a fresh copy, the
learner's information, the policy's own stream), and an ``info`` that records the keys a policy
looks up (:class:`InfoReads`)."""

from __future__ import annotations

import copy
import functools
import random
import traceback
from contextlib import contextmanager

import numpy as np

from bandits.algorithms.protocol import play
from bandits.environments.base import Instance
from bandits.errors import ReportedError, last_line
from bandits.simulation import learner_info, needs, stream

T = 600  # rounds of the problems a policy is run on
SEED = 7  # the policy's streams: stream(SEED, 2, T, trial)


@functools.cache
def _environment_instance(kind: str):
    """One small instance per kind of problem: K arms (piecewise-stationary Bernoulli), linear
    (fresh action sets each round), pricing (the auto-loan surrogate: 51 prices, d = 16),
    contextual, generalized linear, and combinatorial semi-bandit."""
    from bandits.environments import (
        AutoLoan,
        DriftingContextual,
        DriftingLogistic,
        DriftingSemiBandit,
        PiecewiseBernoulli,
        PiecewiseLinear,
    )

    env = {"karmed": lambda: PiecewiseBernoulli(K=3, n_changes=3, min_gap=0.1),
           "linear": lambda: PiecewiseLinear(d=3, n_breakpoints=6, action_set="fresh", n_actions=5),
           "pricing": lambda: AutoLoan(),
           "contextual": lambda: DriftingContextual(K=3, d=4, n_pieces=3, n_policies=40),
           "glb": lambda: DriftingLogistic(d=3, n_actions=6),
           "semibandit": lambda: DriftingSemiBandit(d=6, m=2, B_T_scale=3.0)}[kind]()
    env.check_params(T)
    return env, env.instance(T, stream(1, 0, T))


@functools.cache
def trial(kind: str, index: int = 0) -> tuple:
    """(instance, rewards) of trial ``index`` of the small problem of ``kind``: one instance for
    every trial, each trial's own rewards (as in a run). Shared: hand a policy a copy."""
    env, instance = _environment_instance(kind)
    return instance, env.rewards(instance, stream(1, 1, T, index))


def declared_needs(policy) -> tuple:
    """What ``needs()`` declares (nothing where it raises: the protocol check's finding)."""
    try:
        return attempt(lambda: tuple(needs(policy)))
    except PolicyRaised:
        return ()


def policy_stream(index: int = 0) -> np.random.Generator:
    """The policy's own random numbers in trial ``index``."""
    return stream(SEED, 2, T, index)


class PolicyRaised(Exception):
    """The policy's code raised (a run, its constructor, needs()): ``str`` is one line, ``detail``
    the traceback."""

    def __init__(self, message: str, detail: str):
        super().__init__(message)
        self.detail = detail


def attempt(call, *args, **kwargs):
    """``call(*args, **kwargs)``, a call of the policy's own code: whatever it raises is raised
    again as a :class:`PolicyRaised` ("raised Type: message", the traceback kept)."""
    try:
        return call(*args, **kwargs)
    except Exception as exc:  # the check's finding, raised again as one line
        raise PolicyRaised(f"raised {last_line(exc)}", traceback.format_exc()) from None


@contextmanager
def global_random_state(seed: int):
    """numpy's and Python's global random state seeded with ``seed``, restored afterwards: a
    policy that draws from them chooses differently under different seeds."""
    saved = np.random.get_state(), random.getstate()
    np.random.seed(seed)
    random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(saved[0])
        random.setstate(saved[1])


def reported(policy, exc: BaseException, detail: str) -> PolicyRaised:
    """One line for what a run of ``policy`` raised."""
    if isinstance(exc, ReportedError):
        return PolicyRaised(str(exc).rstrip("."), exc.detail)
    if callable(getattr(policy, "play", None)):
        return PolicyRaised(f"{type(policy).__name__}.play() raised {last_line(exc)}", detail)
    return PolicyRaised(f"it raised {last_line(exc)}", detail)


def run(policy, instance: Instance, rewards: np.ndarray, index: int = 0, fresh: bool = True, seed: int = 1):
    """The policy's actions on one trial as the runner plays them (on a fresh copy unless not
    ``fresh``, handed the learner's information and stream ``index``), as returned, with numpy's
    and Python's own random state seeded with ``seed``. Raises :class:`PolicyRaised`."""
    algo = copy.deepcopy(policy) if fresh else policy
    try:
        with global_random_state(seed), np.errstate(invalid="ignore"):
            return play(algo, rewards, learner_info(algo, instance), policy_stream(index), instance.features)
    except Exception as exc:  # noqa: BLE001 -- whatever the policy raises is the check's finding
        raise reported(algo, exc, traceback.format_exc()) from None


def chosen_mask(actions: np.ndarray, K: int, masks: bool) -> np.ndarray:
    """(T, K) True where the learner observed the reward: the chosen arm, or the chosen items."""
    if masks:
        return ((actions[:, None] >> np.arange(K)) & 1).astype(bool)
    out = np.zeros((len(actions), K), dtype=bool)
    out[np.arange(len(actions)), actions] = True
    return out


def action_problem(raw, instance: Instance) -> str | None:
    """What is wrong with ``raw`` as one trial's actions (None: nothing)."""
    n, K = instance.means.shape
    actions = np.asarray(raw)
    if actions.shape != (n,) or not np.issubdtype(actions.dtype, np.integer):
        return f"it returned {type(raw).__name__} of shape {actions.shape} and dtype {actions.dtype}; expected " \
               f"{n} integer actions, one a round"
    if instance.info.get("semibandit"):
        m = int(instance.info["m"])
        bad = [t for t, a in enumerate(actions) if not 0 <= a < 2 ** K or bin(int(a)).count("1") != m]
        return f"its action at round {bad[0]}, {actions[bad[0]]}, is not a bit mask of {m} of the {K} items" \
            if bad else None
    bad = np.flatnonzero((actions < 0) | (actions >= K))
    return f"its arm at round {bad[0]} is {actions[bad[0]]}, not in 0..{K - 1}" if bad.size else None


def first_difference(a: np.ndarray, b: np.ndarray) -> int:
    """The first round where two trajectories differ."""
    if a.shape != b.shape:
        return 0
    return int(np.flatnonzero(a != b)[0])


class InfoReads(dict):
    """A learner's ``info`` that records the keys looked up (``[key]``, ``get``, ``in``, ``pop``,
    ``setdefault``) into ``looked_up``; its ``copy()`` records into the same set."""

    def __init__(self, data, looked_up: set):
        super().__init__(data)
        self.looked_up = looked_up

    def __getitem__(self, key):
        self.looked_up.add(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self.looked_up.add(key)
        return super().get(key, default)

    def __contains__(self, key):
        self.looked_up.add(key)
        return super().__contains__(key)

    def pop(self, key, *default):
        self.looked_up.add(key)
        return super().pop(key, *default)

    def setdefault(self, key, default=None):
        self.looked_up.add(key)
        return super().setdefault(key, default)

    def copy(self):
        return InfoReads(self, self.looked_up)


def recording_info(policy, looked_up: set):
    """A copy of ``policy`` handed, where ``info`` reaches it (``reset``, or ``play``), an
    :class:`InfoReads` recording into ``looked_up``. Run it as it is (not a copy of it)."""
    spy = copy.deepcopy(policy)
    method = "play" if callable(getattr(spy, "play", None)) else "reset"
    original = getattr(spy, method)

    def recorded(*args, **kwargs):
        if "info" in kwargs:
            kwargs["info"] = InfoReads(kwargs["info"], looked_up)
        elif len(args) > 1:
            args = (args[0], InfoReads(args[1], looked_up), *args[2:])
        return original(*args, **kwargs)

    try:
        setattr(spy, method, recorded)
    except (AttributeError, TypeError):  # __slots__, say: it runs without recording
        pass
    return spy
