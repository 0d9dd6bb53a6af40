"""Plain-Python reference policies that follow the user protocol
(:mod:`bandits.algorithms.protocol`). They are slow on purpose: they transcribe
the paper literally and serve as independent checks of the compiled kernels, and
as worked examples of the protocol."""

from bandits.reference.cusum_ucb import ReferenceCUSUMUCB
from bandits.reference.linear_sw_ucb import ReferenceSWUCB
from bandits.reference.m_ucb import ReferenceMUCB

__all__ = ["ReferenceCUSUMUCB", "ReferenceMUCB", "ReferenceSWUCB"]
