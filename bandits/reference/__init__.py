"""Plain-Python reference policies that follow the user protocol
(:mod:`bandits.algorithms.protocol`). They are slow on purpose: they transcribe
the paper literally and serve as independent checks of the compiled kernels, and
as worked examples of the protocol."""

from bandits.reference.d_ucb import ReferenceDUCB
from bandits.reference.discounted_ts import ReferenceDiscountedTS
from bandits.reference.linear_sw_ucb import ReferenceSWUCB
from bandits.reference.master_ucb import ReferenceMasterUCB
from bandits.reference.sw_ts import ReferenceSWTS
from bandits.reference.sw_ucb_gm import ReferenceSWUCBGM

__all__ = ["ReferenceDUCB", "ReferenceDiscountedTS", "ReferenceMasterUCB", "ReferenceSWTS", "ReferenceSWUCB",
           "ReferenceSWUCBGM"]
