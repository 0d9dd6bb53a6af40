"""Plain-Python reference policies that follow the user protocol
(:mod:`bandits.algorithms.protocol`). They are slow on purpose: they transcribe
the paper literally and serve as independent checks of the compiled kernels, and
as worked examples of the protocol."""

from bandits.reference.linear_sw_ucb import ReferenceSWUCB
from bandits.reference.master_ucb import ReferenceMasterUCB

__all__ = ["ReferenceMasterUCB", "ReferenceSWUCB"]
