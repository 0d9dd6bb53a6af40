"""Plain-Python reference policies that follow the user protocol
(:mod:`bandits.algorithms.protocol`). They are slow on purpose: they transcribe
the paper literally and serve as independent checks of the compiled kernels, and
as worked examples of the protocol."""

from bandits.reference.glr_klucb import ReferenceGLRklUCB
from bandits.reference.linear_sw_ucb import ReferenceSWUCB

__all__ = ["ReferenceGLRklUCB", "ReferenceSWUCB"]
