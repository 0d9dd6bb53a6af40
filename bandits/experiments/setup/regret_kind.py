"""What a row's regret is measured against, for every figure and summary that names it.

The runner's regret is always a pseudo-regret (from expected rewards) against a comparator
the environment chooses round by round (:data:`bandits.environments.base.COMPARATORS`,
recorded in each row's ``env_info`` as ``comparator``):

* the best action of each round (every K-armed, linear, pricing, generalized linear and
  semi-bandit problem): dynamic regret, and never below 0, since no action beats the best;
* the class's best policy in each stationary piece, or at each round (contextual
  problems): dynamic regret against the class, which an algorithm outside the class can
  beat (negative);
* the class's best policy over all rounds, when no change point is known (a
  ``contextual_table`` without change points, a one-piece ``drifting_contextual``): the
  regret against the best fixed policy, which is NOT dynamic regret, and may be negative.

Tables written before ``comparator`` was recorded get it derived from what they do record:
a problem that is not contextual compares with the best action; ``contextual_table`` (the
only one recording ``regret_gap_best_action``) with the best policy of each piece, one
piece when it reports no change point; ``drifting_contextual`` likewise, except that its
drifting mode (no change point, a positive ``Delta_TV``) compares with the best policy of
each round.
"""

from __future__ import annotations

import json

DYNAMIC = "dynamic regret"
FIXED_POLICY = "regret against the best fixed policy"
MIXED = "regret (dynamic, or against the best fixed policy where no change point is known)"

# the comparators of bandits.environments.base.COMPARATORS this module tells apart
BEST_ACTION = "best action per round"
BEST_FIXED_POLICY = "best fixed policy"
BEST_POLICY_PER_PIECE = "best policy per piece"
BEST_POLICY_PER_ROUND = "best policy per round"


def _info(env_info) -> dict:
    """``env_info`` as a dict: a row's JSON text, a dict, or nothing (an empty dict)."""
    if isinstance(env_info, dict):
        return env_info
    try:
        value = json.loads(env_info) if isinstance(env_info, str) else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def comparator(env_info) -> str:
    """The comparator of one row's regret: the ``comparator`` its environment recorded,
    else the one derived from the rest of ``env_info`` (the module docstring)."""
    info = _info(env_info)
    recorded = info.get("comparator")
    if isinstance(recorded, str) and recorded:
        return recorded
    if not info.get("contextual"):
        return BEST_ACTION
    if info.get("change_points"):
        return BEST_POLICY_PER_PIECE
    if "regret_gap_best_action" not in info and float(info.get("Delta_TV") or 0.0) > 0:
        return BEST_POLICY_PER_ROUND  # drifting_contextual's drifting mode
    return BEST_FIXED_POLICY


def regret_kind(env_info) -> str:
    """What one row's regret is, in words for a figure or a summary: "regret against the
    best fixed policy" where its comparator is one fixed policy (no change point known),
    "dynamic regret against the best policy per piece" (or per round) where it is a policy
    class's best policy piece by piece, as the summary says it, else "dynamic regret" (against
    the best action of each round). ``env_info``: the row's ``env_info`` (JSON text or dict)."""
    against = comparator(env_info)
    if against == BEST_FIXED_POLICY:
        return FIXED_POLICY
    if against in (BEST_POLICY_PER_PIECE, BEST_POLICY_PER_ROUND):
        return f"{DYNAMIC} against the {against}"
    return DYNAMIC


def regret_floor(env_info) -> float | None:
    """The least value the regret can take: 0 against the best action of each round (no
    action beats it), None (unbounded below) against a policy class."""
    return 0.0 if comparator(env_info) == BEST_ACTION else None


def rows_regret_kind(rows) -> str:
    """:func:`regret_kind` of a set of rows (a DataFrame with ``env_info``): their common
    kind, or :data:`MIXED` when they differ; "dynamic regret" without the column."""
    if "env_info" not in rows.columns:
        return DYNAMIC
    kinds = {regret_kind(text) for text in rows["env_info"].drop_duplicates()}
    return kinds.pop() if len(kinds) == 1 else MIXED if kinds else DYNAMIC


def rows_regret_floor(rows) -> float | None:
    """:func:`regret_floor` of a set of rows: 0 when every row's regret is never below 0,
    else None (also without the ``env_info`` column: nothing is known)."""
    if "env_info" not in rows.columns or rows.empty:
        return None
    floors = {regret_floor(text) for text in rows["env_info"].drop_duplicates()}
    return 0.0 if floors == {0.0} else None
