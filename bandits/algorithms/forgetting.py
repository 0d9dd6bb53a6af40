"""What the passively adaptive K-armed baselines share: the forgetting principle of
Garivier & Moulines (ALT 2011, "On upper-confidence bound policies for switching
bandit problems"; arXiv 0805.3415) tuned with the number of change points Upsilon_T,
the Bernoulli trial that turns a reward in [0, 1] into a success or a failure for the
Thompson variants, and the parameter checks.

Users: :mod:`bandits.algorithms.discounted` (``d_ucb``, ``discounted_ts``) and
:mod:`bandits.algorithms.sliding_window_gm` (``sw_ucb_gm``, ``sw_ts``).

**The discount of D-UCB** (G&M, the tuning after their D-UCB regret bound):
gamma = 1 - (1/4) sqrt(Upsilon_T / T). Upsilon_T = 0 (a stationary problem) gives
gamma = 1: no discount, the stationary limit of the formula.

**The window of SW-UCB** (G&M, the tuning after their SW-UCB regret bound):
tau = 2 B sqrt(T log T / Upsilon_T), with B the bound on the rewards. A window is a
number of rounds: we take floor(tau), at least 1 and at most T (SMPyBandits'
``int(...)`` and Besson et al.'s reference code ``floor(Int, ...)`` round down too).
Upsilon_T = 0 gives tau = +inf, i.e. the whole history (tau = T), the stationary limit.
SW-TS uses the same formula with its own constant in place of 2 B
(:mod:`bandits.algorithms.sliding_window_gm`).

**The Bernoulli trial** (Agrawal & Goyal, COLT 2012, Alg. 2): a reward x in [0, 1] is
replaced by the outcome of a Bernoulli(x) trial. x = 1 succeeds and x = 0 fails with
probability one, so the trial draws one ``rng.random()`` u only when 0 < x < 1, and
succeeds when u < x. On Bernoulli rewards the policy's stream therefore holds only
its Beta draws. (The stationary Thompson kernel of ``thompson`` applies the same rule.)
"""

from __future__ import annotations

import math

from bandits.algorithms.common import check_known_overrides, check_reward_range, known_constants, own_or_told
from bandits.errors import ConfigError, require_float, require_int


def discount_gm(T: int, upsilon: float) -> float:
    """G&M's discount factor gamma = 1 - (1/4) sqrt(Upsilon_T / T) (1 when Upsilon_T = 0)."""
    return 1.0 - 0.25 * math.sqrt(float(upsilon) / T)


def window_gm(T: int, upsilon: float, constant: float) -> int:
    """G&M's window floor(constant sqrt(T log T / Upsilon_T)) in [1, T] (T when Upsilon_T = 0).
    SW-UCB's constant is 2 B."""
    if upsilon <= 0:
        return int(T)
    tau = constant * math.sqrt(T * math.log(T) / float(upsilon))
    return int(min(T, max(1, math.floor(tau))))


# ----------------------------------------------------------------------------- shared class plumbing

def passive_needs(algo, tuned_with_upsilon: bool) -> tuple:
    """The learner keys a passive baseline must be told: Upsilon_T when its discount or
    window is tuned with it (unless ``algo.Upsilon_T`` is set), and the reward range
    unless ``algo.reward_range`` is set."""
    keys = ("Upsilon_T",) if tuned_with_upsilon else ()
    keys = own_or_told(algo, keys)
    return keys if algo.reward_range is not None else keys + ("reward_range",)


def told_upsilon(algo, info: dict) -> float:
    """Upsilon_T: the algorithm's own value if set, else the environment's."""
    return known_constants(algo, info, ("Upsilon_T",), optional=())["Upsilon_T"]


def check_common(algo) -> None:
    """The reward range and the overridable constants (Upsilon_T >= 0)."""
    check_reward_range(algo.reward_range)
    check_known_overrides(algo)


def check_gamma(gamma, allow_gm: bool = False) -> None:
    """A discount factor in (0, 1] (or the name ``gm`` where the G&M tuning is offered)."""
    if gamma is None or (allow_gm and gamma == "gm"):
        return
    if isinstance(gamma, str):
        raise ConfigError(f"algo.gamma must be a number in (0, 1]{' or gm' if allow_gm else ''}, got {gamma!r}.")
    g = require_float("algo.gamma", gamma, minimum=0.0, strict=True)
    if g > 1.0:
        raise ConfigError(f"algo.gamma must lie in (0, 1], got {g}.")


def check_window_int(window) -> None:
    """A window given as a number of rounds (null = tuned with Upsilon_T)."""
    if window is not None:
        require_int("algo.window", window, minimum=1)


def check_prior(algo) -> None:
    """The Beta(alpha0, beta0) prior of the Thompson variants: both > 0."""
    require_float("algo.alpha0", algo.alpha0, minimum=0.0, strict=True)
    require_float("algo.beta0", algo.beta0, minimum=0.0, strict=True)
    if not isinstance(algo.binarize, bool):
        raise ConfigError(f"algo.binarize must be true or false, got {algo.binarize!r}.")


def scale_record(lo: float, scale: float) -> list:
    """The reward range as recorded with every result."""
    return [lo, lo + 1.0 / scale]
