"""One cell of an experiment: seed streams, the trial loop and dynamic regret.

This module is the part of the runner that produces a cell's numbers, so it lives
in the library (and in the code fingerprint that decides when a stored cell is
stale); the CLI, the store, the summaries and the figures only move these numbers
around.

Seeds (spec §1). One root ``seed`` per experiment; every stream is a
``numpy.random.SeedSequence(seed, spawn_key=...)``:

* environment instance:   spawn_key (0, T)                          -- shared by all trials
* trial noise:            spawn_key (1, T, trial)                   -- shared by all algorithms
* algorithm randomness:   spawn_key (2, T, trial, crc32(algo name))

so every algorithm of a trial faces the same rewards, and a cell's result does not
depend on which worker ran it or in which order (bit-identical for any ``n_jobs``).
The algorithm's *name* (its key under ``algos``, its config name, or its class name)
keys its stream; the display label does not, so relabelling changes no number.

Feedback. A policy is handed :func:`learner_info`: the instance's ``info`` (what the
environment tells a learner, :data:`bandits.environments.base.LEARNER_KEYS`) and
nothing of ``means``, ``optimal`` or ``evaluation``. An oracle baseline that is told
evaluation data by design declares it (``oracle_knowledge``, e.g. ``("change_points",)``)
and receives exactly those keys under ``info["oracle"]``: one explicit channel.
"""

from __future__ import annotations

import copy
import functools
import os
import time
import traceback
import zlib
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from numba import njit

from bandits.algorithms.protocol import play
from bandits.environments.base import PROBLEM_KINDS, Instance
from bandits.errors import ConfigError, ReportedError, failure, is_user_code

N_CHECKPOINTS = 200

# Protocol policies that do not declare problem_kinds choose one arm per round: they can
# face every kind of problem but the semi-bandit, whose actions are sets of items.
PROTOCOL_KINDS = tuple(k for k in PROBLEM_KINDS if k != "semibandit")


def stream(seed: int, *key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=tuple(int(k) for k in key)))


def algo_stream_id(name: str) -> int:
    return zlib.crc32(name.encode())


@functools.lru_cache(maxsize=64)
def checkpoints(T: int) -> np.ndarray:
    """About 200 rounds (1-based), evenly spaced, always ending at T (read-only: one array per T)."""
    out = np.unique(np.linspace(0, T, N_CHECKPOINTS + 1)[1:].round().astype(np.int64).clip(1, T))
    out.flags.writeable = False
    return out


def problem_kinds(algo) -> tuple:
    """The kinds of problem an algorithm declares it solves."""
    kinds = getattr(algo, "problem_kinds", None)
    return tuple(kinds) if kinds is not None else PROTOCOL_KINDS


def needs(algo) -> tuple:
    """The learner keys an algorithm needs beyond its kind's structure
    (:data:`bandits.environments.base.KIND_KEYS`): its declared ``needs()``."""
    declared = getattr(algo, "needs", None)
    return tuple(declared()) if callable(declared) else ()


def check_needs(algo, name: str, instance: Instance, env_name: str, env=None) -> None:
    """Refuse, before any work, an environment that does not report what ``algo`` needs; an
    environment that can report a key under settings of its own says how (``how_to_report``)."""
    missing = [k for k in needs(algo) if k not in instance.info]
    if missing:
        how = getattr(env, "how_to_report", None)
        hints = [h for h in (how(k) for k in missing) if h] if callable(how) else []
        raise ConfigError(f"algorithm {name!r} needs {', '.join(missing)} from the environment, and env={env_name} "
                          f"does not report {'it' if len(missing) == 1 else 'them'}"
                          + (f" as set. {' '.join(hints)} Or " if hints else "; ") +
                          f"choose another environment, or set the constant on the algorithm where it takes one "
                          f"({', '.join(f'algo.{k}=...' for k in missing)}).")


def oracle_knowledge(algo) -> tuple:
    """Evaluation keys an oracle baseline is told by design (none for a learner)."""
    return tuple(getattr(algo, "oracle_knowledge", ()) or ())


def learner_info(algo, instance: Instance) -> dict:
    """What ``algo`` is handed: the learner's information, plus, for an oracle baseline,
    the evaluation keys it declares under ``info["oracle"]``."""
    info = dict(instance.info)
    keys = oracle_knowledge(algo)
    if keys:
        missing = [k for k in keys if k not in instance.evaluation]
        if missing:
            raise ConfigError(f"{type(algo).__name__} is an oracle reference that is told {', '.join(missing)}, "
                              "which this environment does not report.")
        info["oracle"] = {k: instance.evaluation[k] for k in keys}
    return info


@njit(cache=True)
def _curves(means, rewards, actions, optimal, has_optimal, regret, reward):
    """The loop of :func:`evaluate` for float64 tables: the same sums in the same order as
    numpy's cumsum (a sequential accumulate), without its temporaries."""
    r, w = 0.0, 0.0
    K = means.shape[1]
    for t in range(means.shape[0]):
        a = actions[t]
        if has_optimal:
            best = optimal[t]
        else:  # numpy's max, NaN included, without a slice per round (which costs 5x the rest)
            best = means[t, 0]
            for k in range(1, K):
                m = means[t, k]
                if m > best or m != m:
                    best = m
                    if m != m:
                        break
        r += best - means[t, a]
        w += rewards[t, a]
        regret[t] = r
        reward[t] = w


def evaluate(means: np.ndarray, rewards: np.ndarray, actions: np.ndarray, optimal: np.ndarray | None = None,
             masks: bool = False) -> dict:
    """Cumulative dynamic pseudo-regret (from expected rewards, against ``optimal`` or the
    best action of each round) and realised reward. With ``masks`` (semi-bandits) an
    action is a bit mask of items and earns the sum over its items."""
    T, K = means.shape
    if masks:
        bits = ((actions[:, None] >> np.arange(K)[None, :]) & 1).astype(bool)
        if actions.min() < 0 or actions.max() >= 2 ** K:
            raise RuntimeError("algorithm returned invalid item masks")
        regret = np.cumsum(optimal - (means * bits).sum(axis=1))
        return {"regret": regret, "reward": np.cumsum((rewards * bits).sum(axis=1))}
    if actions.shape != (T,) or actions.min() < 0 or actions.max() >= K:
        raise RuntimeError(f"algorithm returned invalid actions (shape {actions.shape}, range "
                           f"[{actions.min()}, {actions.max()}], K={K})")
    if means.dtype == rewards.dtype == np.float64 and (optimal is None or optimal.dtype == np.float64):
        regret, reward = np.empty(T), np.empty(T)
        _curves(means, rewards, actions, np.zeros(1) if optimal is None else optimal, optimal is not None,
                regret, reward)
        return {"regret": regret, "reward": reward}
    rounds = np.arange(T)
    best = means.max(axis=1) if optimal is None else optimal
    regret = np.cumsum(best - means[rounds, actions])
    reward = np.cumsum(rewards[rounds, actions])
    return {"regret": regret, "reward": reward}


def run_actions(algo, instance: Instance, rewards: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One trial's actions of ``algo``, handed only what a learner may know."""
    return np.asarray(play(algo, rewards, learner_info(algo, instance), rng, instance.features), dtype=np.int64)


_WARM: set = set()


def warm_up(algo, instance: Instance, rewards: np.ndarray) -> None:
    """Load (or compile) a built-in algorithm's kernels once per process on a few rounds,
    so that the measured time is the run's, not the JIT's. An algorithm whose constants
    are invalid on 20 rounds (a ConfigError) is timed cold; any other error surfaces."""
    if not callable(getattr(algo, "play", None)) or type(algo) in _WARM or is_user_code(algo):
        return  # (a play() of your own runs once, in the cell, where its errors are reported)
    n = min(len(rewards), 20)
    short = Instance(means=instance.means[:n], info=instance.info, evaluation=instance.evaluation,
                     features=instance.features if instance.features is None or instance.features.shape[0] == 1
                     else instance.features[:n],
                     optimal=None if instance.optimal is None else instance.optimal[:n])
    try:
        run_actions(copy.deepcopy(algo), short, rewards[:n], np.random.default_rng(0))
    except ConfigError:
        pass
    if instance.info.get("policy_actions") is not None and type(algo).__module__.startswith("bandits.contextual"):
        from bandits.contextual.common import warm_kernels  # (the contextual modules load only when used)

        warm_kernels(instance.info["policy_actions"], rewards.shape[1])
    _WARM.add(type(algo))


@contextmanager
def _warming(kind: type, wait: bool):
    """Hold the lock on warming ``kind``'s kernels (a file in numba's cache folder, shared by
    every process on this host): yields True when held, False when another process holds it
    and ``wait`` is False. Yields True with no lock where none can be taken (no fcntl, no
    writable cache folder, a file system without locks): the caller then simply warms."""
    try:
        import fcntl
        folder = Path(os.environ["NUMBA_CACHE_DIR"]) / "warming"
        folder.mkdir(parents=True, exist_ok=True)
        fh = open(folder / f"{kind.__module__}.{kind.__qualname__}.lock", "w")
    except (ImportError, KeyError, OSError):
        yield True
        return
    with fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        except OSError:  # a file system without locks (some network ones): warm without one
            yield True
            return
        try:
            yield True
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def warm_up_regret(instance: Instance, rewards: np.ndarray) -> None:
    """Load (or compile) the regret curves' kernel once per process, on a few rounds, so that
    its loading is counted with the kernels' warming, not as a cell's work."""
    if evaluate in _WARM:
        return
    n = min(len(rewards), 20)
    try:
        with np.errstate(all="ignore"):
            evaluate(instance.means[:n], rewards[:n], np.zeros(n, dtype=np.int64),
                     None if instance.optimal is None else instance.optimal[:n], bool(instance.info.get("semibandit")))
    except (RuntimeError, ValueError, IndexError, TypeError):  # only a warm-up: the cells report for themselves
        pass
    _WARM.add(evaluate)


def warm_up_all(algos, instance: Instance, rewards: np.ndarray) -> None:
    """:func:`warm_up` each of ``algos`` (one per class), taking turns with the other processes
    that warm the same classes at the same moment. A run's workers start on batches of the same
    algorithms, so on a cold numba cache each compiled every kernel: the same seconds twice. Here
    a process passes over a class another one is warming, warms the rest, and then the ones it
    passed over, by which time their kernels are in the cache and are loaded, not compiled."""
    pending, seen = [], set()
    for algo in algos:
        if callable(getattr(algo, "play", None)) and type(algo) not in _WARM and type(algo) not in seen:
            seen.add(type(algo))
            pending.append(algo)
    passed = []
    for algo in pending:
        with _warming(type(algo), wait=False) as held:
            if held:
                warm_up(algo, instance, rewards)
            else:
                passed.append(algo)
    for algo in passed:
        with _warming(type(algo), wait=True):
            warm_up(algo, instance, rewards)


def guarded(obj, method: str, where: str, *args):
    """``obj.method(*args)``; an exception other than bad input (ConfigError) becomes one
    paragraph naming the class, the method and ``where`` (a user's code: UserCodeError;
    ours: InternalError), with the traceback kept for ``debug=true``."""
    try:
        return getattr(obj, method)(*args)
    except ConfigError:
        raise  # bad input: its message names the key or file already
    except Exception as exc:
        raise failure(obj, method, where, exc, traceback.format_exc()) from exc


def trial_rewards(env, instance: Instance, seed: int, T: int, trial: int) -> np.ndarray:
    """The trial's reward table, shared by every algorithm of the trial."""
    return guarded(env, "rewards", f"T={T}, trial {trial}", instance, stream(seed, 1, T, trial))


def run_cell(algo, name: str, instance: Instance, rewards: np.ndarray, seed: int, T: int, trial: int,
             save_actions: bool = False) -> dict:
    """Run ``algo`` (a fresh copy) on one trial and return the cell's numbers: final
    regret and reward, curves at the checkpoints (numpy arrays), wall time, derived
    constants, events."""
    algo = copy.deepcopy(algo)
    cell = f"cell algo={name}, T={T}, trial {trial}"
    warm_up(algo, instance, rewards)
    rng = stream(seed, 2, T, trial, algo_stream_id(name))
    start = time.perf_counter()
    try:
        actions = run_actions(algo, instance, rewards, rng)
    except ReportedError as exc:
        raise type(exc)(f"{exc} in {cell}", exc.detail) from None
    except ConfigError as exc:
        raise ConfigError(f"{str(exc).rstrip('.')} in {cell}.") from None
    except Exception as exc:
        raise failure(algo, "play", cell, exc, traceback.format_exc()) from exc
    wall = time.perf_counter() - start
    with np.errstate(all="ignore"):  # overflow is reported below, as one paragraph
        curves = evaluate(instance.means, rewards, actions, instance.optimal, bool(instance.info.get("semibandit")))
    if not (np.isfinite(curves["regret"][-1]) and np.isfinite(curves["reward"][-1])):
        raise ConfigError(f"the dynamic regret or the reward of {cell} is not a finite number "
                          f"({curves['regret'][-1]}, {curves['reward'][-1]}): the environment's values are too "
                          "large or not numbers; nothing of this cell was stored.")
    ckpt = checkpoints(T)
    return {
        "final_regret": float(curves["regret"][-1]), "final_reward": float(curves["reward"][-1]),
        "wall_time_s": wall, "checkpoints": ckpt,
        "regret_curve": curves["regret"][ckpt - 1], "reward_curve": curves["reward"][ckpt - 1],
        "actions": actions.astype(np.int32) if save_actions else None,
        "derived": getattr(algo, "derived_", {}), "events": getattr(algo, "events_", None),
    }
