"""What a policy of your own is handed: read-only views of the trial's arrays.

The algorithms of a trial share its reward table and its instance (contexts, features, the
policy class's actions), so a policy that wrote into one would silently change the numbers
stored for the others, or the runner's record of its own actions. Protocol and batched
policies, and a ``play()`` of your own, get these views instead (no copy: the same memory).
"""

from __future__ import annotations

import numpy as np


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (the same memory, no copy)."""
    view = array.view()
    view.flags.writeable = False
    return view


def sealed(info: dict, features: np.ndarray | None = None) -> dict:
    """``info`` for a policy of your own: its arrays (and ``features``, when given) as read-only
    views, so that the policy cannot change the instance the other algorithms of a trial face."""
    out = {k: read_only(v) if isinstance(v, np.ndarray) else v for k, v in info.items()}
    if features is not None:
        out["features"] = read_only(features)
    return out
