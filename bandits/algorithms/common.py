"""Small pieces shared by several algorithms' configurations: constants known to the
learner, windows, delta. (The numerical building blocks: :mod:`bandits.numerics`.)"""

from __future__ import annotations

from bandits.errors import ConfigError, require_float, require_int

# Constants an algorithm may be told or set itself (algo.R=...): the algorithm's own value wins.
OVERRIDABLE = ("R", "L", "S", "B_T", "Upsilon_T", "min_change")


def own_or_told(algo, names) -> tuple:
    """Of ``names``, those the algorithm needs the environment to report: the ones it
    does not set itself. The declaration behind an algorithm's ``needs()``."""
    return tuple(n for n in names if n not in OVERRIDABLE or getattr(algo, n, None) is None)


def known_constants(algo, info: dict, names=("R", "L", "S"), optional=("B_T",)) -> dict:
    """The constants ``names`` the learner is told: the algorithm's own setting if
    given, else the environment's value (``info``); and d. Missing both is a
    ConfigError (the runner checks ``needs()`` before any work, so this is a guard).
    ``optional`` ones are recorded when known (B_T, to be stored with every result)."""
    out = {}
    for name in (*names, *optional):
        value = getattr(algo, name, None)
        if value is None:
            value = info.get(name)
        if value is None and name in names:
            raise ConfigError(f"{type(algo).__name__} needs {name}: set algo.{name} or use an "
                              "environment that reports it.")
        if value is not None:
            out[name] = float(value)
    out["d"] = int(info["d"])
    return out


def check_known_overrides(algo) -> None:
    for name in OVERRIDABLE:
        if hasattr(algo, name):
            require_float(f"algo.{name}", getattr(algo, name), minimum=0.0, allow_none=True)


def check_window(window) -> None:
    """A window is an integer >= 1 or one of the tuned names opt / obl."""
    if isinstance(window, str):
        if window not in ("opt", "obl"):
            raise ConfigError(f"algo.window must be an integer >= 1, opt or obl, got {window!r}.")
    else:
        require_int("algo.window", window, minimum=1)


def pick_window(window, stationary: bool, T: int, tuned: dict) -> int:
    """The window to run: T for a stationary counterpart, a tuned one by name, or the integer."""
    if stationary:
        return int(T)
    return int(tuned[window]) if isinstance(window, str) else int(window)


def resolve_delta(delta, T: int) -> float:
    """delta of eq. (3); the default 1/T is what eq. (101) implies (spec §5)."""
    return 1.0 / T if delta is None else float(delta)


def check_delta(delta) -> None:
    if delta is not None:
        d = require_float("algo.delta", delta, minimum=0.0, strict=True)
        if d >= 1.0:
            raise ConfigError(f"algo.delta must lie in (0, 1), got {d}.")


def reward_scale(algo, info: dict) -> tuple:
    """(lo, scale) such that (y - lo) * scale maps a reward of the range [lo, hi] to [0, 1]:
    the algorithm's ``reward_range`` if set, else the one the environment guarantees
    (learner key ``reward_range``). Algorithms built for rewards in [0, 1] (UCB1, kl-UCB,
    Thompson sampling, the Bernoulli GLR test) read rewards this way."""
    rr = getattr(algo, "reward_range", None)
    if rr is None:
        rr = info.get("reward_range")
    if rr is None:
        raise ConfigError(f"{type(algo).__name__} needs the range of the rewards: set algo.reward_range=[lo,hi] "
                          "or use an environment that guarantees one (e.g. env.noise=bernoulli).")
    lo, hi = (float(v) for v in rr)
    return lo, 1.0 / (hi - lo)


def check_reward_range(rr) -> None:
    """``reward_range``: null (the environment's) or [lo, hi] with lo < hi."""
    if rr is None:
        return
    if isinstance(rr, str) or not hasattr(rr, "__len__") or len(rr) != 2:
        raise ConfigError(f"algo.reward_range must be [lo, hi] or null, got {rr!r}.")
    lo = require_float("algo.reward_range[0]", rr[0])
    hi = require_float("algo.reward_range[1]", rr[1])
    if hi <= lo:
        raise ConfigError(f"algo.reward_range must have lo < hi, got {list(rr)}.")
