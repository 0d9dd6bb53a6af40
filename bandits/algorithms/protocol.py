"""The protocol for a user's own policy, and the loop that runs it.

Any plain Python class with these three methods runs through the same runner,
result tables and figures as the built-in algorithms
(``python run.py algo=custom algo._target_=mypackage.module.MyPolicy +algo.param=...``;
a module in the current directory works too; ``examples/my_policies.py`` is one)::

    class MyPolicy:
        problem_kinds = ("karmed",)                 # optional: the problems it solves
        def __init__(self, **params): ...          # store parameters only
        def check_params(self): ...                 # optional: raise bandits.errors.ConfigError
        def reset(self, n_arms, horizon, rng, info): ...
        def select(self, t) -> int: ...             # arm in 0..n_arms-1 at round t (0-based)
        def update(self, t, arm, reward): ...       # the realised reward of that arm

``rng`` is the policy's own ``numpy.random.Generator`` (independent per trial and
algorithm). ``info`` holds what the environment tells a learner and nothing else
(:data:`bandits.environments.base.LEARNER_KEYS`: R, L, S, B_T, d, ...) and, for
linear problems, ``info["features"]``: the action sets as a (T, K, d) array, or
(1, K, d) when D_t is the same every round (read row ``t`` or ``0`` at round t).
The policy never sees expected rewards, change points or the optimal policy.
``check_params()`` is called before any work starts (raise
:class:`bandits.errors.ConfigError` with one sentence for a bad parameter).
``problem_kinds`` (from :data:`bandits.environments.base.PROBLEM_KINDS`) lets the
runner refuse a wrong environment up front; without it a policy is offered every
kind of problem but the semi-bandit. Built-in algorithms instead expose a compiled
``play(rewards, info, rng, features=None)``; the runner uses whichever the object has.

Every array a policy of your own is handed (``info``'s arrays, the features, a batched
policy's arms, the reward table of a ``play`` method of your own) is a read-only view: the
algorithms of a trial share its reward table and its instance, so a write into one would
silently change the numbers stored for the others (:func:`sealed`). Writing into one raises
numpy's "assignment destination is read-only", reported as one paragraph naming the policy.
"""

from __future__ import annotations

import traceback

import numpy as np

from bandits.algorithms.sealed import read_only, sealed
from bandits.errors import ConfigError, failure, is_user_code

METHODS = ("reset", "select", "update")


def is_protocol_policy(obj) -> bool:
    return all(callable(getattr(obj, m, None)) for m in METHODS)


def play_policy(policy, rewards: np.ndarray, info: dict, rng: np.random.Generator,
                features: np.ndarray | None = None) -> np.ndarray:
    """Run a protocol policy round by round, revealing only the chosen arm's reward. An
    exception from the policy becomes one paragraph naming it, the method and the round."""
    T, K = rewards.shape
    info = sealed(info, features)
    arms: list = []  # Python ints, one per round (an array's item assignment costs more per round)
    reward_of = rewards.item  # a Python float at (t, arm), without a numpy scalar in between
    select, update = policy.select, policy.update
    method, t = "reset", 0
    try:
        policy.reset(n_arms=K, horizon=T, rng=rng, info=info)
        for t in range(T):
            method = "select"
            arm = select(t)
            if type(arm) is not int or not 0 <= arm < K:  # the common case costs one check; the rest is explained
                arm = checked_arm(policy, t, arm, K)
            arms.append(arm)
            method = "update"
            update(t, arm, reward_of(t, arm))
    except ConfigError:
        raise
    except Exception as exc:  # the user's code: reported with where it failed, never swallowed
        raise failure(policy, method, f"round {t}" if method != "reset" else "before round 0", exc,
                      traceback.format_exc()) from exc
    return np.array(arms, dtype=np.int64) if arms else np.empty(0, dtype=np.int64)


def checked_arm(policy, t: int, arm, K: int) -> int:
    """``arm`` as a Python int, if it is an integer arm in 0..K-1 (a numpy integer, say);
    else one paragraph."""
    if isinstance(arm, (bool, np.bool_)) or not isinstance(arm, (int, np.integer)) or not 0 <= arm < K:
        raise ConfigError(f"your {type(policy).__name__}.select({t}) returned {arm!r}; "
                          f"expected an int arm in 0..{K - 1}.")
    return int(arm)


def play(algo, rewards: np.ndarray, info: dict, rng: np.random.Generator,
         features: np.ndarray | None = None) -> np.ndarray:
    """Actions of ``algo`` (built-in, protocol or batched policy: a batch of one) on one trial."""
    if callable(getattr(algo, "play", None)):
        if not is_user_code(algo):  # the library's own kernels (bandits/examples' classes included)
            return algo.play(rewards, info, rng, features=features)
        # your own play(): the trial's reward table and instance are shared, hence read-only
        own = sealed(info)
        return algo.play(read_only(rewards), own, rng, features=None if features is None else read_only(features))
    if getattr(algo, "batched", False):
        from bandits.algorithms.batched import play_one

        return play_one(algo, rewards, info, rng, features)
    if is_protocol_policy(algo):
        return play_policy(algo, rewards, info, rng, features)
    raise ConfigError(f"{type(algo).__name__} is not a policy: it needs play(rewards, info, rng) "
                      f"or the methods {', '.join(METHODS)} (see bandits/algorithms/protocol.py).")
