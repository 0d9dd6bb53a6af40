"""Plain-Python reference policies that follow the user protocol
(:mod:`bandits.algorithms.protocol`). They are slow on purpose: they transcribe
the paper literally and serve as independent checks of the compiled kernels, and
as worked examples of the protocol."""

from bandits.reference.kl_ucb import ReferenceKLUCB
from bandits.reference.linear_sw_ucb import ReferenceSWUCB
from bandits.reference.oracle_restart_ucb import ReferenceOracleRestartUCB
from bandits.reference.thompson import ReferenceThompson
from bandits.reference.ucb1 import ReferenceUCB1

__all__ = ["ReferenceKLUCB", "ReferenceOracleRestartUCB", "ReferenceSWUCB", "ReferenceThompson", "ReferenceUCB1"]
