"""What the literal transcriptions share: the spec's tie rule, written once in plain
Python (the compiled kernels use :func:`bandits.numerics.argmax_lowest`, the same rule)."""

from __future__ import annotations

import math

from bandits.numerics import TIE_TOL


def lowest_argmax(scores) -> int:
    """The lowest index whose score is within TIE_TOL (relative) of the maximum; with an
    infinite maximum (an arm never tried), the lowest infinite index."""
    scores = [float(v) for v in scores]
    top = max(scores)
    if top == math.inf:
        return scores.index(math.inf)
    return next(i for i, v in enumerate(scores) if v >= top - TIE_TOL * max(1.0, abs(top)))
